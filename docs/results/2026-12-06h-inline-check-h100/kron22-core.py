"""The dense core of kron:22 (docs/results/2026-12-06h-inline-check-h100.md, section 4), counted on the CPU:
    target/release/atos graph convert kron:22 /tmp/k22.acsr && python3 kron22-core.py
reads the .acsr (docs: crates/atos-graph/src/format/acsr.rs) with numpy. Output: kron22-core.txt."""
import numpy as np
b=np.memmap('/tmp/k22.acsr',dtype=np.uint8,mode='r')
n=int(b[16:24].view(np.uint64)[0]); m=int(b[24:32].view(np.uint64)[0])
off=np.frombuffer(b[32:32+8*(n+1)],dtype=np.uint64).astype(np.int64)
cols=np.frombuffer(b[32+8*(n+1):32+8*(n+1)+4*m],dtype=np.uint32)
deg=np.diff(off)
print("n",n,"m",m,"max deg",deg.max(),"isolated",(deg==0).sum())
for D in (128,512,2048):
    hub=deg>D
    h=np.nonzero(hub)[0]
    # edges among hubs
    src=np.repeat(np.arange(n),deg)
    mask=hub[src]&hub[cols]
    e=mask.sum()
    print(f"deg>{D}: {len(h)} hubs, edges of hubs {deg[h].sum()}, hub-hub entries {e}, avg hub-hub degree {e/len(h):.1f}, max hub-hub deg {np.bincount(src[mask],minlength=n)[h].max()}")

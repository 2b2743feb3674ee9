import csv
for n in ["plain","spread"]:
    r=list(csv.reader(open(f"/tmp/d1x/d1/src_{n}.csv")))
    hdr=r[1]; data=r[2:]
    cols=[i for i,h in enumerate(hdr) if h.startswith("stall_") and "Not Issued" not in h]
    tot={hdr[i]:sum(float(d[i] or 0) for d in data) for i in cols}
    s=sum(tot.values())
    print(n, "total", int(s), " ".join("%s=%d(%.1f%%)"%(k[6:],v,100*v/s) for k,v in sorted(tot.items(),key=lambda x:-x[1]) if v>0))

import csv, re, sys, collections
def sass(path):
    rows=[]; cur=None
    for l in open(path):
        m=re.match(r'\s*//## File "([^"]+)", line (\d+)', l)
        if m: cur=(m.group(1).split('/')[-1], int(m.group(2))); continue
        m=re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?);', l)
        if m: rows.append((cur, m.group(2).strip()))
    return rows
def prof(path):
    r=list(csv.reader(open(path)))
    hdr=r[1]; data=r[2:]
    ie=hdr.index("Instructions Executed"); ws=hdr.index("Warp Stall Sampling (All Samples)")
    return [(d[1].strip(), float(d[ie] or 0), float(d[ws] or 0)) for d in data]
out={}
for n in ["plain","spread"]:
    s=sass(f"/tmp/sass_g_{n}.txt"); p=prof(f"/tmp/d1x/d1/src_{n}.csv")
    assert len(s)==len(p),(len(s),len(p))
    mism=sum(1 for a,b in zip(s,p) if a[1].split()[0]!=b[0].split()[0])
    print(n,"instructions",len(s),"opcode mismatches",mism)
    agg=collections.Counter(); st=collections.Counter()
    for (loc,_),(_,ie,w) in zip(s,p):
        agg[loc]+=ie; st[loc]+=w
    out[n]=(agg,st, sum(x[1] for x in p), sum(x[2] for x in p))
for n in out: print(n,"total inst %.1fM samples %d"%(out[n][2]/1e6,out[n][3]))
# per file totals
for n in out:
    f=collections.Counter()
    for (loc),v in out[n][0].items(): f[loc[0] if loc else None]+=v
    print(n,{k:round(v/1e6,2) for k,v in f.most_common()})
for n in ["spread","plain"]:
    print("== top lines",n)
    for loc,v in out[n][0].most_common(40): print("%-22s %6.2fM  samples %d"%(loc, v/1e6, out[n][1][loc]))
print("== diff by line (spread - plain): samples, instructions")
keys=set(out["spread"][0])|set(out["plain"][0])
rows=[]
for k in keys:
    ds=out["spread"][1][k]-out["plain"][1][k]; di=out["spread"][0][k]-out["plain"][0][k]
    rows.append((ds,di,k))
rows.sort(key=lambda r:-abs(r[0]))
for ds,di,k in rows[:45]: print("%-24s dsamples %+6d (%5d -> %5d)  dinst %+6.2fM"%(k,ds,out["plain"][1][k],out["spread"][1][k],di/1e6))

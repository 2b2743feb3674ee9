import csv, sys, io, collections
f = sys.argv[1]
txt = open(f, errors="replace").read()
lines = txt.splitlines()
i = next(k for k, l in enumerate(lines) if l.startswith('"Address"'))
rows = list(csv.reader(io.StringIO("\n".join(lines[i:]))))
h = rows[0]; rows = rows[1:]
c = h.index("Warp Stall Sampling (All Samples)")
stall_cols = [j for j, n in enumerate(h) if n.startswith("stall_") and "Not Issued" not in n]
def num(x):
    try: return float(x)
    except: return 0.0
tot = sum(num(r[c]) for r in rows)
print("total samples", tot, "instructions", len(rows))
agg = collections.Counter()
for r in rows:
    for j in stall_cols: agg[h[j]] += num(r[j])
print("stalls:", ", ".join(f"{k} {100*v/tot:.1f}%" for k, v in agg.most_common(8)))
top = sorted(rows, key=lambda r: -num(r[c]))[:int(sys.argv[2]) if len(sys.argv) > 2 else 30]
for r in top:
    st = sorted(((num(r[j]), h[j]) for j in stall_cols), reverse=True)[:2]
    print(f"{100*num(r[c])/tot:5.1f}% {r[0]} {r[1][:70]:70s} {st[0][1]}={st[0][0]:.0f} {st[1][1]}={st[1][0]:.0f}")

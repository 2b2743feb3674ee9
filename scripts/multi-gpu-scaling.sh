#!/usr/bin/env bash
# Strong scaling of BFS and PageRank over the GPUs of one node (issues 13 and 15): a Kronecker
# graph and a grid, one GPU against each count of DEVS in the same bench runs, peer-to-peer
# (eager, 1024:20 and 4096:50 aggregation for BFS), then the NVSHMEM transport. Every run verified
# against the CPU reference. Steps go in priority order; one that would start with fewer than
# 25 s of BUDGET left is skipped (logged as `skip`), and each has its own time limit.
#
# On the device machine, from the repository root, with this commit's release `atos` in .gpu/
# (scripts/gpu-bundle.sh; carry [".gpu"]):
#   DEVS=1,2,4 KRON=24 GRID=8192 BUDGET=560 bash scripts/multi-gpu-scaling.sh      # nvidia-h200-x4
#   DEVS=1,2,4,8 KRON=26 GRID=16384 BUDGET=560 bash scripts/multi-gpu-scaling.sh   # x8 (issue 15)
# $OUT gets device.txt, topo.txt, convert.txt, xs.log, records.jsonl and report.txt (`atos
# report`: the records, strong-scaling and between-devices tables); draw the plots here
# afterwards with `atos report records.jsonl --plots DIR`.
#
# History: written 2026-11-24 for 2 GPUs; on 2026-11-28 a session with 418 s of device time ran
# its kron:24, kron:22 and grid steps on 1, 2 and 4 GPUs by hand
# (docs/results/2026-11-28-x4-h200.md), which set the step limits below (grid:8192x8192 BFS on
# three device counts needed more than 40 s, most of it uploads and the reference). On
# 2026-11-28d (docs/results/2026-11-28d-x4-h200.md) 4096:50 was the best kron:24 BFS on 4 GPUs
# (1.53x), so it is timed beside 1024:20, and the timeline samples it. On 2026-11-29 `:idle`
# forwarding landed (a group with nothing else to do forwards its outboxes at once; on 4 devices
# sharing one H100 it halved kron:22's last 1%, docs/results/2026-11-29b-idle-forward-h100.md):
# 4096:50:idle is timed and sampled beside 4096:50.
set -uo pipefail
DEVS="${DEVS:-1,2}"; KRON="${KRON:-24}"; GRID="${GRID:-8192}"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels
NVL=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
out="${OUT:-.gpu/out}"; mkdir -p "$out"; log="$out/xs.log"
atos=$PWD/.gpu/atos
cat .gpu/BUILD.txt > "$log" 2>/dev/null
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv > "$out/device.txt"
{ nvidia-smi topo -m; nvidia-smi topo -p2p r; } > "$out/topo.txt" 2>&1
t0=$(date +%s)
left() { echo $(( ${BUDGET:-560} - ($(date +%s) - t0) )); }
b() {
  local tag=$1 lim=$2; shift 2
  [ "$(left)" -lt 25 ] && { echo "skip $tag" >> "$log"; return; }
  [ "$lim" -gt "$(left)" ] && lim=$(left)
  echo "=== $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"
  timeout "$lim" "$atos" bench --timeout 60 --quiet --warmup 1 --runs 3 --out "$out/records.jsonl" "$@" >> "$log" 2>&1
  echo "rc=$? $tag (t=$(( $(date +%s) - t0 )) s)" >> "$log"
}
K=/tmp/kron$KRON.acsr; G=/tmp/grid$GRID.acsr
"$atos" graph convert "kron:$KRON" "$K" > "$out/convert.txt" 2>&1 &
"$atos" graph convert "grid:${GRID}x$GRID" "$G" >> "$out/convert.txt" 2>&1; wait
echo "graphs t=$(( $(date +%s) - t0 ))" >> "$log"
b bfs-kron 150 --app bfs --graph "$K" --devices "$DEVS" --partition edges --aggregation eager,1024:20,4096:50,4096:50:idle --worker cta --fetch 64
b pr-kron 180 --app pagerank-rescan --graph "$K" --devices "$DEVS" --partition edges --worker cta --fetch 8
# PageRank's remote traffic on 4 GPUs was its combine copies' deliveries (233 M of 235 M
# accesses per device on kron:24): fewer drains per task combine more per delivery but deliver
# later. The default (16) against 4 and 64 on the most devices.
for d in 4 64; do
  b "pr-kron-drain$d" 90 --app pagerank-rescan --graph "$K" --devices "${DEVS##*,}" --partition edges --worker cta --fetch 8 --combine-drain "$d"
done
b bfs-grid 120 --app bfs --graph "$G" --devices "$DEVS" --partition vertices --worker cta --fetch 64
# Owner-computes BFS, whose pushes to other devices are offers filtered by the sender's copy
# of the depths since 2026-11-28 (on 2 GPUs 3.1x faster than without, still slower than the
# plain spread BFS): how it scales beside it.
b bfs-owner-kron 120 --app bfs-owner --graph "$K" --devices "$DEVS" --partition edges --aggregation 1024:20 --worker cta --fetch 64
b pr-grid 150 --app pagerank-rescan --graph "$G" --devices "$DEVS" --partition vertices --worker cta --fetch 64
# Where the time goes on the most devices (--timeline: one more run per configuration, the
# host sampling each device's items taken): each device's active share and the tail after the
# last item taken (`active min`, `end tail ms` in report.txt). Apart from the steps above, so
# that a timeout of the sampling run (its other failures only leave a note) costs no timing.
b timeline-kron-bfs 90 --app bfs --graph "$K" --devices "${DEVS##*,}" --partition edges --aggregation 4096:50,4096:50:idle,1024:20:idle --worker cta --fetch 64 --timeline
b timeline-kron-pagerank 90 --app pagerank-rescan --graph "$K" --devices "${DEVS##*,}" --partition edges --worker cta --fetch 8 --timeline
b timeline-grid-bfs 90 --app bfs --graph "$G" --devices "${DEVS##*,}" --partition vertices --worker cta --fetch 64 --timeline
# NVSHMEM: one spread count per bench run (its ranks are processes).
for n in ${DEVS//,/ }; do
  [ "$n" -gt 1 ] || continue
  LD_LIBRARY_PATH="$NVL:$LD_LIBRARY_PATH" b "bfs-kron-nvshmem-$n" 60 --app bfs --graph "$K" --devices "$n" --transport nvshmem --partition edges --aggregation 4096:50 --worker cta --fetch 64
  LD_LIBRARY_PATH="$NVL:$LD_LIBRARY_PATH" b "pr-kron-nvshmem-$n" 90 --app pagerank-rescan --graph "$K" --devices "$n" --transport nvshmem --partition edges --worker cta --fetch 8
done
echo "end t=$(( $(date +%s) - t0 ))" >> "$log"
"$atos" report "$out/records.jsonl" > "$out/report.txt" 2>&1
head -12 "$out/topo.txt"; grep -E "generate|wrote" "$out/convert.txt"
grep -E "^===|^rc=|FAILED|WRONG|rror|skip|end t|graphs t" "$log" | cut -c1-200
grep -A40 "^strong scaling" "$out/report.txt" | cut -c1-200

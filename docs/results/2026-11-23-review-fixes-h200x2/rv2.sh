#!/usr/bin/env bash
# Review fixes, second device call: the k-core runs rv1.sh lost (its first kron:16
# thread-worker persistent run exceeded 20 s, the known slowness of thread workers on advances,
# and a timed-out kernel leaves the context unusable): warp and CTA workers only.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
log="$out/rv2.log"
cd .gpu
export ATOS_CACHE_DIR=/tmp/atos-kernels
timeout 300 ./atos bench --app kcore --graph data/k4k5.edges --graph kron:16 --graph grid:256x256 --graph data/luxembourg_osm.edges --graph data/delaunay_n16.edges --strategy persistent,discrete,bsp --worker warp,cta --fetch 8 --runs 5 --warmup 1 --timeout 30 --quiet --out "$out/rv2-kcore.jsonl" >> "$log" 2>&1; echo "rc=$?" >> "$log"
echo "ok=$(grep -c '"status":"ok"' $out/rv2-kcore.jsonl) failed=$(grep -c '"status":"failed"' $out/rv2-kcore.jsonl)" >> "$log"
tail -c 4000 "$log"

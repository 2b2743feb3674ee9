#!/usr/bin/env bash
# The GPU acceptance run, as recorded in docs/results/: run on the device machine from the
# repository root with the release builds in .gpu/ (see docs/results/*-program-model-*.md):
#   .gpu/gpu_suite          this commit's examples/gpu_suite (scripts/gpu-bundle.sh builds it and checks it)
#   .gpu/gpu_suite_linear   (optional) the same example built from an earlier commit, for a
#                           side-by-side BFS timing in the same device call
#   .gpu/data/              luxembourg_osm, delaunay_n16, facebook_combined edge lists
# PART=suite (default): every check; PART=checks: every check but the BFS timing table (the
# whole suite at gpu_suite's own defaults ran past one call's 600 s on 2026-12-06g); PART=bfs:
# only the BFS timing tables, side by side;
# PART=spread: the feature task spread over every GPU here (peer-to-peer), over SHARED
# (default 3) devices sharing the GPUs here side by side (peer-to-peer, device d on GPU d mod
# the GPUs), then over RANKS (default 2) NVSHMEM ranks started by hand (rank r on GPU r mod the
# GPUs), with mappings (CALLS=0) and, if CALLS lists 1, with NVSHMEM calls, each rank comparing
# every array with the CPU executor's; and `atos bench --timeline` spread over every GPU here
# (.gpu/atos). CALLS defaults to "0 1". Under NVSHMEM calls each of the suite's ~20 program
# builds took about 50 s on a fresh machine once (NVRTC to LTO IR, then nvJitLink with NVSHMEM's
# device library; docs/results/2026-11-28c-x2-h200.md); with NVSHMEM's calls out of line
# (remote.cuh) 2 ranks ran the whole suite under calls in 206 s on one H100
# (docs/results/2026-12-06b-nvshmem-calls-h100.md): PART=spread should fit one device call
# (about 80 s with calls off and 2 shared devices, then 206 s with calls; not yet run whole).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR="${ATOS_CACHE_DIR:-/tmp/atos-kernels}"
out="${OUT:-.gpu/out}"
mkdir -p "$out"
cd .gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/device.txt"
graphs=(--graph grid:4096x4096 --graph kron:22)
if [ "${PART:-suite}" = spread ]; then
  timeout 300 ./gpu_suite --spread-features > "$out/spread-p2p.log" 2>&1
  echo "rc=$?" >> "$out/spread-p2p.log"
  timeout 300 ./gpu_suite --spread-features --spread-devices "${SHARED:-3}" > "$out/spread-shared.log" 2>&1
  echo "rc=$?" >> "$out/spread-shared.log"
  # Spread runs' progress samples (--timeline; added 2026-11-28 before any GPU ran them): BFS
  # eager and aggregated, PageRank re-scan, over every GPU here; the between-devices table's
  # `active min` and `end tail ms` must be filled and every run verified.
  g=$(nvidia-smi -L | wc -l); spread=(--devices "1,$g")
  [ "$g" -gt 1 ] || spread=(--devices 1,2 --share-gpus)   # one GPU: 2 devices side by side
  for app in bfs pagerank-rescan; do
    timeout 150 ./atos bench --app $app --graph kron:16 "${spread[@]}" \
      --partition edges --aggregation eager,256:20 --worker cta --fetch 64 --runs 1 --timeline \
      --quiet --out "$out/timeline.jsonl" >> "$out/timeline.log" 2>&1
    echo "rc=$? $app" >> "$out/timeline.log"
  done
  NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib
  n="${RANKS:-2}"
  for calls in ${CALLS:-0 1}; do
    rv=$(mktemp -d)
    for ((r = 0; r < n; r++)); do
      LD_LIBRARY_PATH="$NV:$LD_LIBRARY_PATH" NVSHMEM_REMOTE_TRANSPORT=none ATOS_NVSHMEM_CALLS=$calls \
        ATOS_RANK=$r ATOS_RANKS=$n ATOS_RENDEZVOUS="$rv/uid" ATOS_BOOTSTRAP_TIMEOUT=300 \
        timeout 500 ./gpu_suite --spread-features > "$out/spread-calls$calls-r$r.log" 2>&1 &
    done
    wait
    for ((r = 0; r < n; r++)); do
      # A rank that ended early (an error, its watchdog, the timeout) prints no SUMMARY: a
      # failure too, whatever its FAIL lines say.
      f="$out/spread-calls$calls-r$r.log"
      echo "calls=$calls rank $r: $(grep -c identical "$f") identical, $(grep -c -e FAIL -e '^error:' "$f") failed$(grep -q '^SUMMARY' "$f" || echo ', NO SUMMARY: the rank ended early')"
    done
  done
elif [ "${PART:-suite}" = bfs ]; then
  if [ -x ./gpu_suite_linear ]; then
    timeout 200 ./gpu_suite_linear --data data --stress 0 --runs "${RUNS:-7}" "${graphs[@]}" > "$out/bfs-before.log" 2>&1
    echo "rc=$?" >> "$out/bfs-before.log"
  fi
  timeout 350 ./gpu_suite --data data --bfs-only --runs "${RUNS:-7}" "${graphs[@]}" > "$out/bfs-now.log" 2>&1
  echo "rc=$?" >> "$out/bfs-now.log"
else
  # PART=checks: the suite without its BFS timing table (`--no-bfs-table`), for a call that
  # runs PART=bfs next.
  table=(); [ "${PART:-suite}" = checks ] && table=(--no-bfs-table)
  timeout "${SUITE_TIMEOUT:-570}" ./gpu_suite --data data --runs "${RUNS:-3}" --stress "${STRESS:-200}" --program-stress "${PROGRAM_STRESS:-400}" --flag-tasks 200000 "${table[@]}" "${graphs[@]}" > "$out/suite.log" 2>&1
  echo "rc=$?" >> "$out/suite.log"
fi
tail -n 4 "$out"/*.log

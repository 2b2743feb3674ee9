# The prelude of a device call's script (the device tool's `run`), sourced from the repository
# root on the device machine:
#
#   source scripts/device-lib.sh NAME          # e.g. d5; BUDGET=seconds (default 480)
#   bench atos bfs-1 60 --app bfs --graph kron:22 --strategy persistent --worker cta --fetch 64 --runs 5
#   finish
#
# It sets:
# - the environment: CUDA's libraries, NVLink multicast off for NCCL and NVSHMEM (never turn it
#   on: it can put the host's shared GPUs out of service), atos's kernel cache in /tmp;
# - $out: the device tool's $OUT (.gpu/out without one); $w: /tmp/NAME, a scratch folder;
#   $log: $w/NAME.log, opened with every .gpu/BUILD*.txt and the GPUs' names;
# - `left`: seconds of BUDGET left since the prelude ran;
# - `bench BIN TAG LIMIT ARGS...`: `.gpu/BIN bench ARGS` (a warm-up, a 30 s run timeout, records
#   into $w/BIN.jsonl; DEVICE_BENCH_FLAGS replaces those defaults) under a time limit of LIMIT
#   seconds cut to what is left, skipped (logged `skip TAG`) with fewer than DEVICE_MIN_LEFT
#   (default 10) left; its output and `rc=` line go to the log;
# - `finish`: archives $w into $out/NAME.tgz and copies the log into $out.
# Summarize the records after `finish` with `python3 scripts/records-summary.py "$w"`.
#
# Written 2026-12-06 from the prelude every recorded call script of docs/results/ repeated
# (those stay as they ran).
set -uo pipefail
device_name="${1:?usage: source scripts/device-lib.sh NAME}"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR="${ATOS_CACHE_DIR:-/tmp/atos-kernels}"
out="${OUT:-.gpu/out}"
w="/tmp/$device_name"
log="$w/$device_name.log"
mkdir -p "$out" "$w"
cat .gpu/BUILD*.txt > "$log" 2>/dev/null
nvidia-smi -L >> "$log" 2>&1
device_t0=$(date +%s)

left() { echo $((${BUDGET:-480} - ($(date +%s) - device_t0))); }

bench() {
  local bin=$1 tag=$2 lim=$3
  shift 3
  if [ "$(left)" -lt "${DEVICE_MIN_LEFT:-10}" ]; then
    echo "skip $tag" >> "$log"
    return
  fi
  [ "$lim" -gt "$(left)" ] && lim=$(left)
  echo "=== $bin $tag (t=$(($(date +%s) - device_t0)) s)" >> "$log"
  local flags
  read -r -a flags <<< "${DEVICE_BENCH_FLAGS:---timeout 30 --warmup 1}"
  timeout "$lim" ".gpu/$bin" bench "${flags[@]}" --out "$w/$bin.jsonl" "$@" >> "$log" 2>&1
  echo "rc=$? $bin $tag (t=$(($(date +%s) - device_t0)) s)" >> "$log"
}

finish() {
  tar czf "$out/$device_name.tgz" -C /tmp "$device_name"
  cp "$log" "$out/"
}

#!/usr/bin/env bash
# Call 3: where does warp/persistent priority SSSP hang after an overflow (call 2)? The case
# runs under cuda-gdb with line info (ATOS_NVRTC_LINEINFO=1) and a 300 s run timeout; 5 s
# into the hanging run the process gets SIGINT and cuda-gdb prints the kernel's live blocks,
# warps and threads (with the generated source's and the headers' lines).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 ATOS_CACHE_DIR=/tmp/atos-kernels ATOS_NVRTC_LINEINFO=1
out="${OUT:-.gpu/out}"; mkdir -p "$out"
cd .gpu
cp BUILD.txt "$out/build.txt"
GDB=$(command -v cuda-gdb || echo /usr/local/cuda/bin/cuda-gdb)
ls -la "$GDB" > "$out/gdb.txt" 2>&1
cat > /tmp/cmds <<'G'
set pagination off
set confirm off
set cuda break_on_launch none
run
info cuda kernels
info cuda blocks
info cuda threads
bt
info line *$pc
x/16i $pc-64
info cuda warps
kill
quit
G
( for i in $(seq 240); do
    if tr '\r' '\n' < "$out/gdb.log" 2>/dev/null | grep -q "rings of 16 \.\.\."; then break; fi
    sleep 0.5
  done
  sleep 5
  pkill -INT -x gpu_suite
  echo "sent SIGINT after $i polls" >> "$out/watch.txt" ) &
timeout 400 "$GDB" -batch -x /tmp/cmds --args ./gpu_suite --priority-only --priority-cases warp/persistent --run-timeout 300 > "$out/gdb.log" 2>&1
echo "gdb rc=$?" >> "$out/gdb.log"
wait
cat "$out/watch.txt" "$out/gdb.txt"
tr '\r' '\n' < "$out/gdb.log" | grep -v "^\s*$" | cut -c1-400 | tail -150

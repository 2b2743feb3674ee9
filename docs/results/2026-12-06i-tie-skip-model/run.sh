#!/bin/bash
# The runs of docs/results/2026-12-06i-tie-skip-model.md, output in model.txt.
set -e
cd "$(dirname "$0")"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/gcsim-target}
cargo build --release -q
m=$CARGO_TARGET_DIR/release/colouring-schedule-model
for mode in base skip:2 skip:4 skip:8 skip:16 skip:max; do $m kron:22 1024 $mode 2048; done
for w in 256 4096; do for mode in base skip:4; do $m kron:22 $w $mode 2048; done; done
for mode in base skip:4; do $m kron:22 1024 $mode 128; done
# Seeded largest degree first (Welsh and Powell), the order measured and rejected on a GPU.
for mode in base skip:4; do $m kron:22 1024 $mode 2048 degree; done
# Jones and Plassmann's depth on the hubs (why it was not built).
for big in 2048 128; do $CARGO_TARGET_DIR/release/jp_depth kron:22 $big; done
# Wide windows for the hubs (added 2026-12-07): 256 colours per pass for vertices above BIG.
for big in 128 2048; do for mode in base skip:4; do HUB_WINDOW=256 $m kron:22 1024 $mode $big; done; done

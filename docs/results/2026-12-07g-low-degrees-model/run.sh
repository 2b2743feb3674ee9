#!/bin/bash
# The run of docs/results/2026-12-07g-low-degrees-model.md, output in model.txt (about 10 s).
set -e
cd "$(dirname "$0")"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/low-degrees-target}
cargo build --release -q
$CARGO_TARGET_DIR/release/low-degrees-model > model.txt

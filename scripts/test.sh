#!/usr/bin/env bash
# Runs every test (the command README.md gives). Installs NVRTC 13.0 from PyPI into
# .cache/nvrtc on first use so the NVRTC tests compile every generated kernel, GPU or not.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
lib="$(scripts/nvrtc-env.sh)"
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Every generated kernel goes through NVRTC in the tests: no CUBIN from an earlier run's disk
# cache (the cache's own tests point it at temporary folders).
export ATOS_CACHE_DIR=off
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
# The API docs build without a warning (no broken or private intra-doc links).
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --no-fail-fast
  cargo test --workspace --doc
else
  cargo test --workspace --no-fail-fast
fi
# README's "Use atos from your own crate": the template crate outside the workspace
# (examples/own-crate), built against this checkout with the workspace's lock (the same
# dependency versions, so the target folder's builds are reused) and run on the CPU executor,
# its kernel compiled by NVRTC for sm_90 (`--nvrtc` fails when NVRTC is missing).
own=examples/own-crate
cp Cargo.lock "$own/Cargo.lock"
cargo fmt --manifest-path "$own/Cargo.toml" -- --check
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo clippy --manifest-path "$own/Cargo.toml" -- -D warnings
cargo run --manifest-path "$own/Cargo.toml" -- --device cpu --nvrtc

#!/usr/bin/env bash
# Builds the binaries a device call runs and puts them in .gpu/ (git-ignored; pass it in the
# device tool's `carry`):
#   .gpu/atos<SUFFIX>       the `atos` command (atos-cli), stripped
#   .gpu/gpu_suite<SUFFIX>  examples/gpu_suite, stripped
#   .gpu/BUILD<SUFFIX>.txt  what they were built from: the commit and a hash of the work tree's diff
# Usage: scripts/gpu-bundle.sh [SUFFIX]   (e.g. `_prev` for a baseline build to alternate with)
#
# Each binary carries the CUDA device headers (include_str!), and a stale one measures the wrong
# code. Two builds, not one: `cargo build -p atos-cli --example gpu_suite` builds only examples,
# and would leave target/release/atos as it was. After copying, the script checks that every
# header embedded in each binary is the work tree's, and fails if one is not.
set -euo pipefail
cd "$(dirname "$0")/.."
suffix="${1:-}"
cargo build --release -p atos-cli
cargo build --release -p atos --example gpu_suite
mkdir -p .gpu
cp target/release/atos ".gpu/atos$suffix"
cp target/release/examples/gpu_suite ".gpu/gpu_suite$suffix"
strip ".gpu/atos$suffix" ".gpu/gpu_suite$suffix"
python3 - ".gpu/atos$suffix" ".gpu/gpu_suite$suffix" <<'PY'
import glob, sys
headers = sorted(glob.glob("crates/atos-runtime/src/cuda/atos/*.cuh"))
bad = []
for binary in sys.argv[1:]:
    data = open(binary, "rb").read()
    bad += [f"{binary}: {h}" for h in headers if open(h, "rb").read() not in data]
if bad:
    sys.exit("stale build, these headers differ from the work tree's:\n  " + "\n  ".join(bad))
print(f"{len(headers)} device headers checked in {', '.join(sys.argv[1:])}")
PY
{
  echo "commit $(git rev-parse HEAD)"
  echo "work tree diff sha256 $(git diff HEAD | sha256sum | cut -d' ' -f1)"
  git diff --stat HEAD
} > ".gpu/BUILD$suffix.txt"
cat ".gpu/BUILD$suffix.txt"

#!/usr/bin/env bash
# Builds the binaries a device call runs and puts them in .gpu/ (git-ignored; pass it in the
# device tool's `carry`):
#   .gpu/atos<SUFFIX>       the `atos` command (atos-cli), stripped
#   .gpu/gpu_suite<SUFFIX>  examples/gpu_suite, stripped
#   .gpu/BUILD<SUFFIX>.txt  what they were built from: the commit, a hash of the work tree's
#                           changes (untracked files included) and the device-code fingerprint
# Usage: scripts/gpu-bundle.sh [SUFFIX]   (e.g. `_prev` for a baseline build to alternate with)
#
# Each binary carries the CUDA device headers (include_str!), so a stale one runs old device
# code. That happened: `cargo build --release -p atos-cli -p atos --example gpu_suite` builds
# only the examples and leaves target/release/atos as it was. So this script builds each binary
# by its own target, copies the files cargo names as the artifacts (wherever the target
# directory is), and checks that each binary holds every .cuh header of the work tree (the
# generated atos/layout.cuh is Rust code, rebuilt by cargo with it). `atos --version` and bench
# records then name a fingerprint of those headers (`device_code`): different fingerprints mean
# different device code (the CUDA atos-codegen emits per task is not in it). The check is a
# substring test, so an edit that only cuts a header's tail would pass it.
set -euo pipefail
cd "$(dirname "$0")/.."
suffix="${1:-}"
artifact() {  # cargo build ARGS... -> the path of the executable named $1 that cargo built
  local name=$1; shift
  cargo build --release --message-format=json-render-diagnostics "$@" |
    python3 -c '
import json, sys
paths = [m["executable"] for m in map(json.loads, sys.stdin)
         if m.get("reason") == "compiler-artifact" and m.get("executable")
         and m["target"]["name"] == sys.argv[1]]
if len(paths) != 1:
    sys.exit(f"cargo built {len(paths)} executables named {sys.argv[1]}")
print(paths[0])' "$name"
}
atos=$(artifact atos -p atos-cli --bin atos)
suite=$(artifact gpu_suite -p atos --example gpu_suite)
mkdir -p .gpu
cp "$atos" ".gpu/atos$suffix"
cp "$suite" ".gpu/gpu_suite$suffix"
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
  echo "changes sha256 $({ git diff HEAD; git ls-files --others --exclude-standard -z | xargs -0 -r sha256sum; } | sha256sum | cut -d' ' -f1)"
  echo "atos --version: $(".gpu/atos$suffix" --version)"
  git status --short
} > ".gpu/BUILD$suffix.txt"
cat ".gpu/BUILD$suffix.txt"

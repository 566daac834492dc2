#!/usr/bin/env bash
# The main job: install what is missing, build Kiln, compile the bundled
# example model. Usage: scripts/build.sh [build-dir]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
"$ROOT/scripts/bootstrap.sh"
cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release
ninja -C "$BUILD" -j"${KILN_JOBS:-$(nproc)}"
mkdir -p "$BUILD/examples"
"$BUILD/bin/kilnc" "$ROOT/examples/models/mlp.onnx" -O2 --emit=graph -o "$BUILD/examples/mlp.mlir"
"$BUILD/bin/kilnc" "$ROOT/examples/models/mlp.onnx" -O2 -o "$BUILD/examples/mlp.engine"
"$BUILD/bin/kiln-inspect" "$BUILD/examples/mlp.engine" --memory
echo "build: compiled examples/models/mlp.onnx -> $BUILD/examples/mlp.engine (run it on a GPU: kiln-run $BUILD/examples/mlp.engine --bench 100)"

#!/usr/bin/env bash
# Runs the whole test suite (lit + unit tests) after building what is needed.
# Usage: scripts/test.sh [build-dir]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
"$ROOT/scripts/build.sh" "$BUILD"
cd "$BUILD"
ctest --output-on-failure -j"${KILN_JOBS:-$(nproc)}"

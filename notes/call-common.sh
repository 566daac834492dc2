# Sourced by notes/call*.sh on the GPU machine: unpacks the carry into $K,
# logs to $OUT/session.log, and defines m TIMEOUT MICRO-ARGS... (micro.py's
# Kiln and graphed-torch GEMM rows, results under $R/bench).
set -uo pipefail
K=/tmp/kiln R=/tmp/kiln-results
mkdir -p $K $R/bench
tar -xJf .carry/pack.tar.xz -C $K
exec > >(tee $OUT/session.log) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
s=$(date +%s)
m() { local t=$(date +%s); echo "== micro $*"; timeout $1 python3 bench/micro.py --bin $K/bin --work /tmp/km --results $R/bench --runs 100 "${@:2}" 2>&1 | grep -v "Warning\|warn(" | grep "^| gemm.*| kiln\|^| gemm.*(graph)\|FAIL\|rror" | tail -n 80; echo "== took $(( $(date +%s) - t )) s"; }

# Sourced by the notes/call*.sh scripts that carry [".carry/quick"]: the
# binaries in B, results under R, the log tee'd to $OUT/session.log, the GPU
# named, the start time in s.
set -uo pipefail
B=$PWD/.carry/quick/bin R=/tmp/kiln-results
mkdir -p $R/bench
exec > >(tee $OUT/session.log) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
s=$(date +%s)

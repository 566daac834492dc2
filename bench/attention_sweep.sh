#!/usr/bin/env bash
# Times every attention block shape (block_m x block_n) on each model in a
# directory of attention ONNX models (bench/micro.py --emit-onnx DIR --only
# attention), to check the heuristic in EmitAttention.cpp against the best:
#   bench/attention_sweep.sh BIN_DIR ONNX_DIR [RUNS]
# Prints one line per model: the heuristic's median and each shape's (ms,
# CUDA events, kiln-run --bench); shapes kilnc rejects (shared memory) say
# "-". Needs a GPU.
set -uo pipefail
BIN=${1:?bin dir} DIR=${2:?onnx dir} RUNS=${3:-100}
W=$(mktemp -d)
bench() { # engine -> median ms
  "$BIN/kiln-run" "$1" --bench "$RUNS" --warmup 20 2>/dev/null |
    sed -n 's/.*median \([0-9.]*\).*/\1/p'
}
for m in "$DIR"/attention-*.onnx; do
  n=$(basename "${m%.onnx}")
  line="$n: heuristic"
  "$BIN/kilnc" "$m" -O3 -o "$W/h.engine" >/dev/null 2>&1 && line="$line $(bench "$W/h.engine")"
  for bm in 32 64 128; do
    for bn in 32 64; do
      if "$BIN/kilnc" "$m" -O3 --set=attention.block_m=$bm --set=attention.block_n=$bn \
           -o "$W/s.engine" >/dev/null 2>&1; then
        line="$line | ${bm}x${bn} $(bench "$W/s.engine")"
      else
        line="$line | ${bm}x${bn} -"
      fi
    done
  done
  echo "$line"
done
rm -rf "$W"

#!/usr/bin/env bash
# Chases an intermittent wrong output of the TMA wgmma kernel's cooperative
# schedule with a staged epilogue (seen once, 2026-12-04: one autotuner
# candidate, group_m=8 pingpong=false stage_out=true stages=4 128x128 on a
# 512x768x3072 f16 product, gave a NaN at row 499, column 2944).
# From the repository root on the GPU machine:
#   test/gpu/race_check.sh BIN OUT RUNS
# 1. RUNS fresh processes, each a new input seed, of that config as an engine
#    against the mma path's output (a different kernel family);
# 2. the same for the default config of a BERT FFN2-like product (bias +
#    residual epilogue, cooperative with the staged epilogue by default);
# 3. the autotuner's measuring compile of the 512x768x3072 model, 3 times
#    with fresh caches (its workers run candidates one after another, so a
#    kernel finds the shared memory the previous one left).
set -uo pipefail
BIN=$1 OUT=$2 RUNS=${3:-100}
mkdir -p "$OUT"
T=$(mktemp -d)
python3 test/tools/mkonnx.py -o "$T/a.onnx" 'x: f16[512,768]; w: f16[768,3072] = random(seed=1); y = MatMul(x, w); out y' || exit 1
python3 test/tools/mkonnx.py -o "$T/b.onnx" 'x: f16[4096,3072]; w: f16[3072,768] = random(seed=2); b: f16[768] = random(seed=3); r: f16[4096,768]; y = MatMul(x, w); z = Add(y, b); s = Add(z, r); out s' || exit 1
COOP="--matmul-path=wgmma --set=matmul.tma=true --set=matmul.tile_m=128 --set=matmul.tile_n=128 --set=matmul.warpgroups=2 --set=matmul.pingpong=false --set=matmul.stage_out=true --set=matmul.stages=4 --set=matmul.group_m=8"
"$BIN/kilnc" "$T/a.onnx" --matmul-path=mma -o "$T/a.ref.engine" || exit 1
"$BIN/kilnc" "$T/a.onnx" $COOP -o "$T/a.coop.engine" || exit 1
"$BIN/kilnc" "$T/b.onnx" --matmul-path=mma -o "$T/b.ref.engine" || exit 1
"$BIN/kilnc" "$T/b.onnx" -O2 -o "$T/b.default.engine" || exit 1
"$BIN/kiln-inspect" "$T/b.default.engine" --kernels | grep -c "wgmma" | sed 's/^/b default wgmma launches: /'
for m in a b; do
  e=$([ $m = a ] && echo coop || echo default)
  fails=0
  for s in $(seq 1 "$RUNS"); do
    "$BIN/kiln-run" "$T/$m.ref.engine" --seed "$s" --save-inputs "$T/in.npz" --outputs "$T/ref.npz" > /dev/null 2>&1 || { echo "ref run $s failed"; continue; }
    if ! "$BIN/kiln-run" "$T/$m.$e.engine" --inputs "$T/in.npz" --compare "$T/ref.npz" --max-rel 1e-2 > "$T/log" 2>&1; then
      fails=$((fails + 1)); echo "FAIL $m.$e seed $s: $(grep -m1 -i 'fail\|error' "$T/log")"
    fi
  done
  echo "$m.$e: $fails of $RUNS runs wrong"
done
for i in 1 2 3; do
  rm -f "$T/tc.txt"
  "$BIN/kilnc" "$T/a.onnx" --autotune=default --tuning-cache "$T/tc.txt" --explain-tuning -o "$T/t.engine" 2> "$OUT/race-tune-$i.log"
  echo "tune $i: $(grep -c 'dropped' "$OUT/race-tune-$i.log") dropped"; grep 'dropped' "$OUT/race-tune-$i.log" | cut -c1-300
done
rm -rf "$T"

#!/usr/bin/env bash
# The autotuner on a GPU, from the repository root: kilnc --autotune=default
# measures a two-matmul model's candidates into a fresh tuning cache, a
# second compile from that cache must take no measurement and give a
# byte-identical engine, and both engines must match the evaluator.
# Usage: test/gpu/tune_check.sh BIN OUT
set -uo pipefail
BIN=$1 OUT=$2
mkdir -p "$OUT"
T=$(mktemp -d)
fail=0
python3 test/tools/mkonnx.py -o "$T/mm.onnx" 'x: f16[512,768]; w: f16[768,3072] = random(seed=1); v: f16[3072,768] = random(seed=2); y = MatMul(x, w); z = MatMul(y, v); out z' || exit 1
python3 - "$T/in.npz" <<'PY'
import sys, numpy as np
np.savez(sys.argv[1], x=(np.random.default_rng(3).standard_normal((512, 768)) * 0.5).astype(np.float16))
PY
"$BIN/kiln-eval" "$T/mm.onnx" --inputs "$T/in.npz" --outputs "$T/ref.npz" || fail=1
t0=$(date +%s.%N)
"$BIN/kilnc" "$T/mm.onnx" --autotune=default --tuning-cache "$T/tc.txt" --explain-tuning -o "$T/a.engine" 2> "$OUT/tune-default.log"
rc=$?
t1=$(date +%s.%N)
echo "tune: --autotune=default rc=$rc in $(echo "$t1 - $t0" | bc) s"; tail -n 30 "$OUT/tune-default.log"
cp "$T/tc.txt" "$OUT/tc-default.txt" 2>/dev/null
t0=$(date +%s.%N)
"$BIN/kilnc" "$T/mm.onnx" --autotune=default --tuning-cache "$T/tc.txt" -o "$T/b.engine" 2> "$OUT/tune-warm.log"
t1=$(date +%s.%N)
echo "tune: warm rebuild rc=$? in $(echo "$t1 - $t0" | bc) s"
if cmp -s "$T/a.engine" "$T/b.engine"; then echo "tune: engines byte-identical"; else echo "FAIL tune: engines differ"; fail=1; fi
for e in a b; do
  "$BIN/kiln-run" "$T/$e.engine" --inputs "$T/in.npz" --compare "$T/ref.npz" --rtol 2e-2 --atol 1 --bench 50 2>&1 | tail -n 3 || fail=1
done
"$BIN/kilnc" "$T/mm.onnx" -o "$T/h.engine" && "$BIN/kiln-run" "$T/h.engine" --inputs "$T/in.npz" --compare "$T/ref.npz" --rtol 2e-2 --atol 1 --bench 50 2>&1 | tail -n 2
rm -rf "$T"
exit $fail

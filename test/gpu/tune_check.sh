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
# The same command line twice (the engine records it): measuring, then warm.
tune() { "$BIN/kilnc" "$T/mm.onnx" --autotune=default --tuning-cache "$T/tc.txt" --explain-tuning -o "$T/e.engine"; }
t0=$(date +%s%N); tune 2> "$OUT/tune-default.log"; rc=$?; t1=$(date +%s%N)
echo "tune: --autotune=default rc=$rc in $(( (t1 - t0) / 1000000 )) ms"; tail -n 30 "$OUT/tune-default.log"
mv "$T/e.engine" "$T/a.engine"; cp "$T/tc.txt" "$OUT/tc-default.txt" 2>/dev/null
t0=$(date +%s%N); tune 2> "$OUT/tune-warm.log"; rc=$?; t1=$(date +%s%N)
echo "tune: warm rebuild rc=$rc in $(( (t1 - t0) / 1000000 )) ms"
mv "$T/e.engine" "$T/b.engine"
if grep -q "measuring" "$OUT/tune-warm.log"; then echo "FAIL tune: the warm rebuild measured"; fail=1; fi
if cmp -s "$T/a.engine" "$T/b.engine"; then echo "tune: engines byte-identical"; else echo "FAIL tune: engines differ"; fail=1; fi
for e in a b; do
  "$BIN/kiln-run" "$T/$e.engine" --inputs "$T/in.npz" --compare "$T/ref.npz" --rtol 2e-2 --atol 1 --bench 50 2>&1 | tail -n 3 || fail=1
done
"$BIN/kilnc" "$T/mm.onnx" -o "$T/h.engine" && "$BIN/kiln-run" "$T/h.engine" --inputs "$T/in.npz" --compare "$T/ref.npz" --rtol 2e-2 --atol 1 --bench 50 2>&1 | tail -n 2
rm -rf "$T"
exit $fail

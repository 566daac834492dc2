#!/usr/bin/env bash
# kilnc --autotune on an exported model, from the repository root on the GPU
# machine: the measuring compile's wall time (progress in OUT/LABEL.log),
# a warm rebuild from the cache with the same command line (its time, and
# byte-identical engines), and the tuned engine's latency next to the
# untuned one's on the same inputs.
# Usage: test/gpu/tune_model.sh BIN MODEL.onnx SHAPES LEVEL OUT LABEL INPUTS.npz
#   SHAPES: kilnc --input-shape value (input_ids=32x128,attention_mask=32x128)
set -uo pipefail
BIN=$1 MODEL=$2 SHAPES=$3 LEVEL=$4 OUT=$5 LABEL=$6 INPUTS=$7
mkdir -p "$OUT"
T=$(mktemp -d)
compile() { "$BIN/kilnc" "$MODEL" -O3 --input-shape "$SHAPES" --autotune="$LEVEL" --tuning-cache "$T/tc.txt" --explain-tuning -o "$T/e.engine"; }
ms() { echo $(( ($2 - $1) / 1000000 )); }
t0=$(date +%s%N); compile 2> "$OUT/$LABEL.log"; rc=$?; t1=$(date +%s%N)
echo "$LABEL: --autotune=$LEVEL rc=$rc in $(ms $t0 $t1) ms"
grep -E "^tune:|measured" "$OUT/$LABEL.log" | tail -n 5
mv "$T/e.engine" "$T/a.engine" 2>/dev/null; cp "$T/tc.txt" "$OUT/$LABEL.tc.txt" 2>/dev/null
t0=$(date +%s%N); compile 2> "$OUT/$LABEL.warm.log"; rc=$?; t1=$(date +%s%N)
echo "$LABEL: warm rebuild rc=$rc in $(ms $t0 $t1) ms"
mv "$T/e.engine" "$T/b.engine" 2>/dev/null
cmp -s "$T/a.engine" "$T/b.engine" && echo "$LABEL: engines byte-identical" || echo "FAIL $LABEL: engines differ"
"$BIN/kilnc" "$MODEL" -O3 --input-shape "$SHAPES" -o "$T/h.engine" 2>/dev/null
"$BIN/kiln-run" "$T/h.engine" --inputs "$INPUTS" --bench 100 2>&1 | grep "^bench" | sed "s/^/$LABEL untuned: /"
"$BIN/kiln-run" "$T/a.engine" --inputs "$INPUTS" --bench 100 2>&1 | grep "^bench" | sed "s/^/$LABEL tuned: /"
"$BIN/kiln-run" "$T/a.engine" --inputs "$INPUTS" --profile "$OUT/$LABEL.trace.json" > "$OUT/$LABEL.profile.txt" 2>&1
rm -rf "$T"

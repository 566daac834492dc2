#!/usr/bin/env bash
# One call on the GPU machine for the model checks of the front half:
#   1. export the small BERT / GPT-2 / Llama-style models (both torch.onnx
#      exporters) and pack them for committing under test/models/data/;
#   2. check Kiln's evaluator against onnxruntime on them there;
#   (KILN_SKIP_SMALL=1 skips 1 and 2)
#   3. export BERT-base and GPT-2 small (random weights, batch 1 x 128) with
#      each exporter and import every one with kilnc --emit=graph.
# Usage (repo root, on the GPU machine): test/models/gpu_models.sh BIN_DIR OUT_DIR
set -uo pipefail
BIN=${1:?bin dir with kilnc and kiln-eval}
OUT=${2:?output dir}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"
python3 -c 'import torch, transformers, onnx, onnxruntime; print("torch", torch.__version__, "transformers", transformers.__version__, "onnx", onnx.__version__, "ort", onnxruntime.__version__)'

SMALL=/tmp/kiln-small
rm -rf "$SMALL"
if [ "${KILN_SKIP_SMALL:-0}" != 1 ]; then
echo "== small models"
python3 "$ROOT/test/models/make_models.py" "$SMALL" 2>&1 | grep -v "onnxruntime:, graph.cc"
tar czf "$OUT/small-models.tgz" -C "$SMALL" .
echo "== evaluator vs onnxruntime (small models)"
python3 "$ROOT/test/models/check_models.py" --data "$SMALL" --kilnc "$BIN/kilnc" 2>&1
fi

BIG=/tmp/kiln-big
rm -rf "$BIG"
echo "== big models: export"
python3 "$ROOT/test/models/make_models.py" --big "$BIG" 2>&1 | grep -v "onnxruntime:, graph.cc"
echo "== big models: kilnc --emit=graph"
for m in "$BIG"/*.onnx; do
  [ -e "$m" ] || continue
  shapes=$(python3 - "$m" <<'PY'
import sys, onnx
m = onnx.load(sys.argv[1], load_external_data=False)
init = {i.name for i in m.graph.initializer}
specs = []
for vi in m.graph.input:
    if vi.name in init:
        continue
    dims = [d.dim_value if d.HasField("dim_value") else (1 if i == 0 else 128)
            for i, d in enumerate(vi.type.tensor_type.shape.dim)]
    specs.append(vi.name + "=" + "x".join(map(str, dims)))
print(",".join(specs))
PY
)
  start=$(date +%s%N)
  if "$BIN/kilnc" "$m" --emit=graph --input-shape "$shapes" -o /tmp/kiln-big.mlir 2> /tmp/kiln-big.err; then
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    ops=$(grep -c "= graph\." /tmp/kiln-big.mlir)
    printf 'IMPORT-OK   %-28s %6d ms  %5d graph ops  (%s)\n' "$(basename "$m")" "$ms" "$ops" "$shapes"
  else
    printf 'IMPORT-FAIL %-28s %s\n' "$(basename "$m")" "$(head -3 /tmp/kiln-big.err | tr '\n' ' ')"
  fi
done

#!/usr/bin/env bash
# Packs what a GPU-machine check needs from this (CPU) machine into
# .carry/pack.tar.xz (git-ignored; the device tool carries at most 64 MiB with
# the working tree): stripped binaries (bin/), the committed models compiled
# to engines with their inputs and reference outputs (engines/), the ONNX
# node tests that import (node/; the GPU machine's onnx has no test data)
# and, with --base, a second build's stripped binaries (base/: the bench
# check measures both side by side).
# Usage: [KILN_OPT=-O3] scripts/make_carry.sh [BUILD_DIR] [--base BASE_BUILD_DIR] [--bin-only]
#   BUILD_DIR default build/; engines at KILN_OPT (default -O2); --bin-only:
#   binaries only (bin/, base/), for checks that need no carried engines.
# On the GPU machine, with .carry/pack.tar.xz carried, from the repository root:
#   test/gpu/check.sh --checks quick --tar        (it unpacks the pack itself)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build BASE='' BIN_ONLY=0
while [ $# -gt 0 ]; do
  case $1 in
    --base) BASE=${2:?--base needs a build dir}; shift ;;
    --base=*) BASE=${1#*=} ;;
    --bin-only) BIN_ONLY=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    -*) echo "make_carry: unknown option $1" >&2; exit 2 ;;
    *) BUILD=$1 ;;
  esac
  shift
done
OPT=${KILN_OPT:--O2}
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/bin" "$STAGE/engines" "$STAGE/node" "$ROOT/.carry"
# tf32_engine MODEL BASE INPUTS F32_REF [kilnc args]: the model compiled with
# --precision=tf32 (-O2: epilogues; f32 attention stays batched matmuls, so
# those take the tf32 kernel too) as BASE.tf32.engine, with the f32
# reference outputs (onnxruntime's; the evaluator's for the MLP) as
# BASE.tf32.ort.npz and the evaluator's tf32 outputs as BASE.tf32.eval.npz
# (test/gpu/check.sh's engines check compares against both, at tolerances
# scaled by max |ref|).
tf32_engine() {
  local model=$1 base=$2 inputs=$3 ref=$4
  shift 4
  "$BUILD/bin/kilnc" "$model" -O2 --precision=tf32 "$@" -o "$STAGE/engines/$base.tf32.engine"
  "$BUILD/bin/kiln-eval" "$model" -O2 --precision=tf32 "$@" --inputs "$inputs" \
    --outputs "$STAGE/engines/$base.tf32.eval.npz"
  cp "$inputs" "$STAGE/engines/$base.tf32.inputs.npz"
  cp "$ref" "$STAGE/engines/$base.tf32.ort.npz"
}
# pack DIR...: the staged folders into .carry/pack.tar.xz.
pack() {
  tar -cJf "$ROOT/.carry/pack.tar.xz" -C "$STAGE" "$@"
  du -h "$ROOT/.carry/pack.tar.xz"
}
for t in kilnc kiln-run kiln-eval kiln-inspect KilnRuntimeTest; do
  strip -o "$STAGE/bin/$t" "$BUILD/bin/$t"
done
if [ -n "$BASE" ]; then
  mkdir -p "$STAGE/base"
  for t in kilnc kiln-run kiln-eval kiln-inspect; do
    strip -o "$STAGE/base/$t" "$BASE/bin/$t"
  done
fi
if [ $BIN_ONLY = 1 ]; then
  pack bin ${BASE:+base}
  exit 0
fi
for m in "$ROOT"/test/models/data/*.onnx "$ROOT/examples/models/mlp.onnx"; do
  base=$(basename "${m%.onnx}")
  src=${m%.onnx}
  if [ "$base" = mlp ]; then
    python3 - "$STAGE/engines/mlp" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(7)
x = rng.standard_normal((4, 64)).astype(np.float32)
np.savez(sys.argv[1] + ".inputs.npz", x=x)
PY
    "$BUILD/bin/kiln-eval" "$m" --inputs "$STAGE/engines/mlp.inputs.npz" --outputs "$STAGE/engines/mlp.ort.npz"
    "$BUILD/bin/kilnc" "$m" "$OPT" -o "$STAGE/engines/mlp.engine"
    tf32_engine "$m" mlp "$STAGE/engines/mlp.inputs.npz" "$STAGE/engines/mlp.ort.npz"
    continue
  fi
  spec=$(python3 -c "import numpy as np,sys; z=np.load(sys.argv[1]); print(','.join(k+'='+'x'.join(map(str,z[k].shape)) for k in z.files))" "$src.inputs.npz")
  "$BUILD/bin/kilnc" "$m" "$OPT" --input-shape "$spec" -o "$STAGE/engines/$base.engine"
  cp "$src.inputs.npz" "$src.ort.npz" "$STAGE/engines/"
  # The same model computed in fp16 (-O3: flash attention, epilogues, RMSNorm)
  # against the evaluator's fp16 result (test/gpu/check.sh compares *.fp16.engine
  # at a half-precision tolerance).
  "$BUILD/bin/kilnc" "$m" -O3 --precision=fp16 --input-shape "$spec" -o "$STAGE/engines/$base.fp16.engine"
  "$BUILD/bin/kiln-eval" "$m" -O3 --precision=fp16 --input-shape "$spec" --inputs "$src.inputs.npz" \
    --outputs "$STAGE/engines/$base.fp16.ort.npz"
  cp "$src.inputs.npz" "$STAGE/engines/$base.fp16.inputs.npz"
  tf32_engine "$m" "$base" "$src.inputs.npz" "$src.ort.npz" --input-shape "$spec"
done
# Batched products on the TMA kernel (3-D tensor maps; tma=true, not yet the
# default): A broadcast over the batch as a 1x1 convolution makes it, and
# both operands batched, against the evaluator.
BT=$(mktemp -d)
python3 "$ROOT/test/tools/mkonnx.py" -o "$BT/bcast.onnx" \
  'w: f16[200,128] = random(seed=1); x: f16[4,128,392]; y = MatMul(w, x); out y'
python3 "$ROOT/test/tools/mkonnx.py" -o "$BT/both.onnx" \
  'a: f16[3,300,192]; b: f16[3,192,256]; y = MatMul(a, b); out y'
python3 - "$BT" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(11)
np.savez(sys.argv[1] + "/bcast.inputs.npz", x=rng.uniform(-1, 1, (4, 128, 392)).astype(np.float16))
np.savez(sys.argv[1] + "/both.inputs.npz", a=rng.uniform(-1, 1, (3, 300, 192)).astype(np.float16),
         b=rng.uniform(-1, 1, (3, 192, 256)).astype(np.float16))
PY
for n in bcast both; do
  e="$STAGE/engines/batched-tma-$n.fp16"
  "$BUILD/bin/kiln-eval" "$BT/$n.onnx" --inputs "$BT/$n.inputs.npz" --outputs "$e.ort.npz"
  "$BUILD/bin/kilnc" "$BT/$n.onnx" --matmul-path=wgmma --set=matmul.tma=true -o "$e.engine"
  cp "$BT/$n.inputs.npz" "$e.inputs.npz"
done
# tf32 linear layers on the TMA wgmma kernel (--precision=tf32, sm_90): the
# constant weights stored K-major and rounded to tf32, ragged M, N and K,
# a bias + ReLU epilogue, a Gemm with transB and C; against onnxruntime-free
# references: the evaluator's f32 (as *.ort.npz) and tf32 results.
python3 "$ROOT/test/tools/mkonnx.py" -o "$BT/tf32mlp.onnx" \
  'x: f32[300,200]; w1: f32[200,520] = random(seed=3); b1: f32[520] = random(seed=4); w2: f32[96,520] = random(seed=5); b2: f32[96] = random(seed=6); h = MatMul(x, w1); hb = Add(h, b1); r = Relu(hb); y = Gemm(r, w2, b2, transB=1); out y'
python3 - "$BT" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(13)
np.savez(sys.argv[1] + "/tf32mlp.inputs.npz", x=rng.uniform(-1, 1, (300, 200)).astype(np.float32))
PY
"$BUILD/bin/kiln-eval" "$BT/tf32mlp.onnx" --inputs "$BT/tf32mlp.inputs.npz" --outputs "$BT/tf32mlp.f32.npz"
tf32_engine "$BT/tf32mlp.onnx" tf32-wgmma-mlp "$BT/tf32mlp.inputs.npz" "$BT/tf32mlp.f32.npz"
# cuBLASLt calls (--set=matmul.path=cublaslt, what the autotuner picks where
# it measures fastest) inside the CUDA graph: an fp16 MLP with bias + tanh
# GELU (GELU_BIAS) and a bias + residual layer (BIAS with C), ragged shapes;
# the batched product (strided batches); the tf32 MLP (bias + ReLU, the
# transposed weight of Gemm's transB, FAST_TF32); against the evaluator.
python3 "$ROOT/test/tools/mkonnx.py" -o "$BT/ltmlp.onnx" \
  'x: f16[300,200]; w1: f16[200,520] = random(seed=3); b1: f16[520] = random(seed=4); w2: f16[520,200] = random(seed=5); b2: f16[200] = random(seed=6); h = MatMul(x, w1); hb = Add(h, b1); g = Gelu(hb, approximate="tanh"); y = MatMul(g, w2); yb = Add(y, b2); r = Add(yb, x); out r'
python3 - "$BT" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(17)
np.savez(sys.argv[1] + "/ltmlp.inputs.npz", x=rng.uniform(-1, 1, (300, 200)).astype(np.float16))
PY
e="$STAGE/engines/cublaslt-mlp.fp16"
"$BUILD/bin/kiln-eval" "$BT/ltmlp.onnx" --inputs "$BT/ltmlp.inputs.npz" --outputs "$e.ort.npz"
"$BUILD/bin/kilnc" "$BT/ltmlp.onnx" -O2 --set=matmul.path=cublaslt -o "$e.engine"
cp "$BT/ltmlp.inputs.npz" "$e.inputs.npz"
e="$STAGE/engines/cublaslt-batched.fp16"
cp "$STAGE/engines/batched-tma-both.fp16.ort.npz" "$e.ort.npz"
cp "$STAGE/engines/batched-tma-both.fp16.inputs.npz" "$e.inputs.npz"
python3 "$ROOT/test/tools/mkonnx.py" -o "$BT/both.onnx" \
  'a: f16[3,300,192]; b: f16[3,192,256]; y = MatMul(a, b); out y'
"$BUILD/bin/kilnc" "$BT/both.onnx" --set=matmul.path=cublaslt -o "$e.engine"
"$BUILD/bin/kilnc" "$BT/tf32mlp.onnx" -O2 --precision=tf32 --set=matmul.path=cublaslt \
  -o "$STAGE/engines/tf32-cublaslt-mlp.tf32.engine"
for f in eval.npz inputs.npz ort.npz; do
  cp "$STAGE/engines/tf32-wgmma-mlp.tf32.$f" "$STAGE/engines/tf32-cublaslt-mlp.tf32.$f"
done
# The TMA-store epilogue (--set=matmul.tma_store=true: the outputs leave
# through shared memory and the copy engine) on the same ragged MLP (M = 300,
# N = 520 and 200: partial tiles and 64-column blocks the copy clips; bias +
# tanh GELU, bias + residual) with the heuristic's tiles, 128 x 128
# ping-pong and 128 x 256 cooperative pairs of blocks; against the evaluator.
for v in "tma-store-mlp.fp16:" \
  "tma-store-pp-mlp.fp16:--set=matmul.stages=4 --set=matmul.tile_m=128 --set=matmul.tile_n=128 --set=matmul.warpgroups=2 --set=matmul.pingpong=true" \
  "tma-store-256c-mlp.fp16:--set=matmul.stages=3 --set=matmul.pingpong=false --set=matmul.tile_m=128 --set=matmul.warpgroups=2 --set=matmul.tile_n=256 --set=matmul.cluster=2 --set=matmul.stages=4"; do
  e="$STAGE/engines/${v%%:*}"
  # shellcheck disable=SC2086
  "$BUILD/bin/kilnc" "$BT/ltmlp.onnx" -O2 --matmul-path=wgmma --set=matmul.tma_store=true ${v#*:} -o "$e.engine"
  cp "$STAGE/engines/cublaslt-mlp.fp16.ort.npz" "$e.ort.npz"
  cp "$BT/ltmlp.inputs.npz" "$e.inputs.npz"
  "$BUILD/bin/kiln-inspect" "$e.engine" | grep -q "tma\[output" ||
    { echo "make_carry: ${v%%:*} has no output tensor map"; exit 1; }
done
# wgmma_variant NAME:MODEL:FLAGS [more kilnc flags]: $BT/MODEL.onnx on the
# wgmma path as engines/NAME, with the evaluator's outputs on its inputs.
wgmma_variant() {
  local name=${1%%:*} rest=${1#*:}
  local m=${rest%%:*}
  e="$STAGE/engines/$name"
  # The evaluator's reference depends on the model alone: once per model,
  # shared by its variants (hard links, which the pack stores once).
  [ -f "$BT/$m.ort.npz" ] ||
    "$BUILD/bin/kiln-eval" "$BT/$m.onnx" --inputs "$BT/$m.inputs.npz" --outputs "$BT/$m.ort.npz"
  # shellcheck disable=SC2086
  "$BUILD/bin/kilnc" "$BT/$m.onnx" -O2 --matmul-path=wgmma "${@:2}" ${rest#*:} -o "$e.engine"
  ln -f "$BT/$m.ort.npz" "$e.ort.npz"
  ln -f "$BT/$m.inputs.npz" "$e.inputs.npz"
}
# Split-K on the TMA kernel (--set=matmul.split_k=N: clusters of N blocks
# sum their partial tiles through distributed shared memory) on the ragged
# MLP (K = 200 and 520: 4 and 9 k tiles; bias + tanh GELU, bias + residual):
# pairs, 64 x 64 tiles in fours (45 tiles on 33 clusters: a second round of
# the persistent loop), 128 x 128 cooperative pairs; and a Gemm with transB
# whose N = 100 is not a multiple of 8 (scalar stores) in eights (9 k tiles:
# blocks of one or two); against the evaluator.
python3 "$ROOT/test/tools/mkonnx.py" -o "$BT/skgemm.onnx" \
  'x: f16[300,520]; w: f16[100,520] = random(seed=7); b: f16[100] = random(seed=8); y = Gemm(x, w, b, transB=1); out y'
python3 - "$BT" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(19)
np.savez(sys.argv[1] + "/skgemm.inputs.npz", x=rng.uniform(-1, 1, (300, 520)).astype(np.float16))
PY
for v in "split-k2-mlp.fp16:ltmlp:--set=matmul.split_k=2" \
  "split-k4-64x64-mlp.fp16:ltmlp:--set=matmul.split_k=4 --set=matmul.tile_m=64 --set=matmul.tile_n=64 --set=matmul.warpgroups=1" \
  "split-k2-128x128-mlp.fp16:ltmlp:--set=matmul.stages=4 --set=matmul.split_k=2 --set=matmul.tile_m=128 --set=matmul.tile_n=128 --set=matmul.warpgroups=2 --set=matmul.pingpong=false" \
  "split-k8-gemm.fp16:skgemm:--set=matmul.split_k=8 --set=matmul.tile_m=64 --set=matmul.tile_n=64 --set=matmul.warpgroups=1"; do
  wgmma_variant "$v"
done
# Stream-K on the TMA kernel (--set=matmul.stream_k=true: 132 blocks take
# even shares of the partial wave's k tiles, summed through the kernel
# workspace): an MLP whose products have 15 and 30 tiles of 128 x 128 (20
# and 9 k tiles: a tile's shares span up to 9 blocks; bias + tanh GELU,
# residual) in 128 x 128 tiles; a plain product of
# 360 tiles of 64 x 64 (two whole waves, then 228 tiles cut) and of 90
# tiles of 128 x 128 with the TMA store; against the evaluator.
python3 "$ROOT/test/tools/mkonnx.py" -o "$BT/skmlp.onnx" \
  'x: f16[300,1280]; w1: f16[1280,520] = random(seed=11); b1: f16[520] = random(seed=12); w2: f16[520,1280] = random(seed=13); h = MatMul(x, w1); hb = Add(h, b1); g = Gelu(hb, approximate="tanh"); y = MatMul(g, w2); r = Add(y, x); out r'
python3 "$ROOT/test/tools/mkonnx.py" -o "$BT/skdp.onnx" \
  'x: f16[2300,512]; w: f16[512,600] = random(seed=14); y = MatMul(x, w); out y'
python3 - "$BT" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(23)
np.savez(sys.argv[1] + "/skmlp.inputs.npz", x=rng.uniform(-1, 1, (300, 1280)).astype(np.float16))
np.savez(sys.argv[1] + "/skdp.inputs.npz", x=rng.uniform(-1, 1, (2300, 512)).astype(np.float16))
PY
for v in "stream-k-128x128-mlp.fp16:skmlp:--set=matmul.tile_m=128 --set=matmul.tile_n=128 --set=matmul.warpgroups=2" \
  "stream-k-dp-64x64.fp16:skdp:--set=matmul.tile_m=64 --set=matmul.tile_n=64 --set=matmul.warpgroups=1" \
  "stream-k-tma-store.fp16:skdp:--set=matmul.tile_m=128 --set=matmul.tile_n=128 --set=matmul.warpgroups=2 --set=matmul.tma_store=true"; do
  wgmma_variant "$v" --set=matmul.stream_k=true
  "$BUILD/bin/kiln-inspect" "$e.engine" | grep -q "workspace(kernel workspace)" ||
    { echo "make_carry: ${v%%:*} has no kernel workspace"; exit 1; }
done
# swap_ab (the TMA kernel on C^T = B^T A^T, tiles stored transposed): the
# stream-K MLP (bias + tanh GELU and residual epilogues in swapped
# coordinates, 300 output rows: ragged transposed stores), the split-K
# Gemm with transB (bias along the kernel's m; N = 100, so the direct
# stores) and the plain product in 128 x 96 tiles (one wave of 132, as
# cuBLAS runs the ResNet 1x1; 2300 output rows, ragged). The MLP and the
# plain product stage their transposed tiles by default (one wave), and
# also run with the direct stores (stage_out=false).
for v in "swap-ab-mlp.fp16:skmlp:" "swap-ab-gemm.fp16:skgemm:" \
  "swap-ab-mlp-direct.fp16:skmlp:--set=matmul.stage_out=false" \
  "swap-ab-128x96.fp16:skdp:--set=matmul.tile_m=128 --set=matmul.tile_n=96 --set=matmul.warpgroups=2" \
  "swap-ab-128x96-direct.fp16:skdp:--set=matmul.tile_m=128 --set=matmul.tile_n=96 --set=matmul.warpgroups=2 --set=matmul.stage_out=false"; do
  wgmma_variant "$v" --set=matmul.swap_ab=true
done
for e in cublaslt-mlp.fp16 cublaslt-batched.fp16 tf32-cublaslt-mlp.tf32; do
  "$BUILD/bin/kiln-inspect" "$STAGE/engines/$e.engine" --kernels | grep -q "cublasLt matmul" ||
    { echo "make_carry: $e has no cuBLASLt call"; exit 1; }
done
rm -rf "$BT"
# The fusion patterns (test/transforms/fusion_check.py: raised norms, GELU
# and softmax, multi-output regions, epilogues, attention) as -O2 engines
# against the evaluator's unfused -O1 result, half-precision ones at the fp16
# tolerance; attention patterns also with the wgmma kernel where their head
# dimensions allow it, and with its two-query-tile blocks where their keys do. The conv_* patterns (1x1 and patch convolutions as
# matmuls at -O2) also with the implicit-GEMM convolution
# (--set=conv.path=igemm, and igemm-deep below) for the convolutions they
# keep.
FC=$(mktemp -d)
python3 "$ROOT/test/transforms/fusion_check.py" --kilnc "$BUILD/bin/kilnc" --work "$FC" > "$FC/log" 2>&1 ||
  { cat "$FC/log"; exit 1; }
# variant M N TAG SUFFIX KILNC_ARGS...: pattern N's model M compiled with
# KILN_ARGS as fc-N-TAG, against the same -O1 result; a config the pattern
# cannot take is reported and skipped.
variant() {
  local m=$1 n=$2 tag=$3 suffix=$4
  shift 4
  local ev="$STAGE/engines/fc-$n-$tag$suffix" err
  if err=$("$BUILD/bin/kilnc" "$m" "$@" -o "$ev.engine" 2>&1); then
    cp "$FC/$n.inputs.npz" "$ev.inputs.npz"
    cp "$FC/$n.O1.npz" "$ev.ort.npz"
  else
    echo "no $tag engine for $n: ${err%%$'\n'*}"
  fi
}
for m in "$FC"/*.onnx; do
  n=$(basename "${m%.onnx}")
  suffix=$(python3 -c "import onnx,sys; m=onnx.load(sys.argv[1]); print('.fp16' if any(i.type.tensor_type.elem_type in (10, 16) for i in list(m.graph.input)+list(m.graph.output)) else '')" "$m")
  e="$STAGE/engines/fc-$n$suffix"
  "$BUILD/bin/kilnc" "$m" -O2 -o "$e.engine"
  cp "$FC/$n.inputs.npz" "$e.inputs.npz"
  cp "$FC/$n.O1.npz" "$e.ort.npz"
  case $n in
    # The convolutions kept also as implicit GEMMs (conv.path=igemm).
    # igemm-deep: 128x128x64 tiles in two stages (the image's next tile
    # gathered ahead; dynamic shared memory), the output staged through
    # shared memory where rows allow.
    conv_*) variant "$m" "$n" igemm "$suffix" -O2 --set=conv.path=igemm
            variant "$m" "$n" igemm-deep "$suffix" -O2 --set=conv.path=igemm \
              --set=conv.tile_m=128 --set=conv.tile_n=128 --set=conv.tile_k=64 \
              --set=conv.warps_n=4 --set=conv.stage_out=true --set=conv.stages=2 ;;
    # wgmma-q2: two query tiles a block over K and V loaded once (at most
    # 128 keys; the others are reported and skipped).
    attention_*) variant "$m" "$n" wgmma "$suffix" -O2 --set=attention.variant=wgmma
                 variant "$m" "$n" wgmma-q2 "$suffix" -O2 --set=attention.variant=wgmma \
                   --set=attention.q_tiles=2 ;;
  esac
done
rm -rf "$FC"
DATA=$(python3 -c "import onnx, os; print(os.path.join(os.path.dirname(onnx.__file__), 'backend/test/data/node'))")
python3 "$ROOT/test/conformance/node_suite.py" --kilnc "$BUILD/bin/kilnc" --list 2>/dev/null |
  while read -r t _; do [ -d "$DATA/$t" ] && cp -r "$DATA/$t" "$STAGE/node/"; done
# Identical files the other sections copy (variants of one model share
# its random inputs and references, which xz's window cannot see across)
# become hard links, which tar stores once.
dedupe() {
  local prev_sum='' prev_file='' sum file
  while read -r sum file; do
    if [ "$sum" = "$prev_sum" ]; then ln -f "$prev_file" "$file"; else prev_sum=$sum prev_file=$file; fi
  done < <(find "$@" -type f -size +64k -exec md5sum {} + | sort)
}
dedupe "$STAGE/engines"
pack bin engines node ${BASE:+base}
echo "node tests: $(ls "$STAGE/node" | wc -l); engines: $(ls "$STAGE/engines"/*.engine | wc -l)"

#!/usr/bin/env bash
# After the heuristics' 128 x 64 (Llama k/v) and 64 x 32 (BERT 1x128 QKV,
# no split-K under 8 k tiles a block) defaults: the check, the new defaults
# with epilogues against the evaluator, the zoo at 20 back-to-back runs a
# sample (both sides) with the old defaults beside the new, and the BERT
# 1x128 model row. `OUT=$OUT bash notes/call13.sh` with .carry/pack.tar.xz
# from `KILN_OPT=-O3 bash scripts/make_carry.sh`.
. notes/call-common.sh
KILN_NODE_TIMEOUT=5 timeout 100 test/gpu/gpu_check.sh $K/bin $K/engines $R/check quick $K/node | grep -v '^PASS '
# The new default tiles with epilogues: QKV-like + bias + residual (64 x
# 32), k/v + bias + ReLU in bf16 (128 x 64), 256 rows (64 x 32), each
# against the CPU evaluator on random inputs.
E=/tmp/epi; mkdir -p $E
python3 test/tools/mkonnx.py -o $E/qkv-res.onnx 'x: f16[128,768]; r: f16[128,768]; w: f16[768,768] = random(seed=2); b: f16[768] = random(seed=3); y = MatMul(x, w); z = Add(y, b); u = Add(z, r); out u'
python3 test/tools/mkonnx.py -o $E/kv-relu.onnx 'x: bf16[2048,2048]; w: bf16[2048,512] = random(seed=4); b: bf16[512] = random(seed=5); y = MatMul(x, w); z = Add(y, b); u = Relu(z); out u'
python3 test/tools/mkonnx.py -o $E/qkv256.onnx 'x: bf16[256,768]; w: bf16[768,768] = random(seed=6); y = MatMul(x, w); out y'
for m in qkv-res kv-relu qkv256; do
  $K/bin/kiln-eval $E/$m.onnx --random --seed 11 --save-inputs $E/$m.in.npz --outputs $E/$m.ref.npz
  $K/bin/kilnc $E/$m.onnx -O3 --explain-tuning -o $E/$m.engine | grep -o "tile_m=[0-9]* tile_n=[0-9]*"
  echo "== $m: $(timeout 30 $K/bin/kiln-run $E/$m.engine --inputs $E/$m.in.npz --compare $E/$m.ref.npz --rtol 2e-2 --atol 2e-2 2>&1 | grep -E 'PASS|FAIL|rror' | head -1)"
done
tar -czf $OUT/results.tar.gz -C $R .
m 100 --only gemm --gemm-dtypes fp16,bf16 --batch 20 --labels "1x128 qkv,k/v" --gemm-paths auto,sk2-64x64,t64x128,cublaslt
tar -czf $OUT/results.tar.gz -C $R .
m 240 --only gemm,gemm-gelu --gemm-dtypes fp16,bf16 --batch 20 --gemm-paths auto
tar -czf $OUT/results.tar.gz -C $R .
t=$(date +%s); echo "== run.py BERT 1x128"; timeout 120 python3 bench/run.py --models bert-base --shapes 1x128 --dtypes fp16 --peers eager,compile-reduce-overhead,kiln --bin $K/bin --work /tmp/kw --results $R/bench 2>&1 | grep "^| bert\|FAIL\|rror" | tail -4; echo "== took $(( $(date +%s) - t )) s"
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

#!/usr/bin/env bash
# After the k loops' peeled last step (the wait_group 0 that ptxas had
# scheduled the epilogue's reads above) and the staged swap_ab epilogue's
# return: the swapped shapes that failed, the check, the zoo in fp16/bf16
# one call per sample and 20 back to back (--batch 20, both sides), the
# GELU rows and the large-batch model rows. `OUT=$OUT bash notes/call11.sh`
# with .carry/pack.tar.xz from `KILN_OPT=-O3 bash scripts/make_carry.sh`.
. notes/call-common.sh
# The 2300 x 600 product (K = 512) of the carry's swap-ab-128x96 engine, at
# the staged swapped tiles that were wrong before the fix.
python3 test/tools/mkonnx.py -o /tmp/skdp.onnx 'x: f16[2300,512]; w: f16[512,600] = random(seed=14); y = MatMul(x, w); out y'
E=$K/engines/swap-ab-128x96.fp16
for cfg in "64 64 1" "64 96 1" "64 128 1" "128 64 2" "128 96 2" "128 128 2"; do
  set -- $cfg
  $K/bin/kilnc /tmp/skdp.onnx -O3 --set=matmul.swap_ab=true --set=matmul.stage_out=true --set=matmul.tile_m=$1 \
    --set=matmul.tile_n=$2 --set=matmul.warpgroups=$3 -o /tmp/sw.engine 2>&1 | tail -1
  echo "== staged swap $1 x $2, $3 warpgroup(s): $(timeout 30 $K/bin/kiln-run /tmp/sw.engine --inputs $E.inputs.npz --compare $E.ort.npz --rtol 2e-2 --atol 2e-2 2>&1 | grep -E 'PASS|FAIL|rror' | head -1)"
done
KILN_NODE_TIMEOUT=60 timeout 90 test/gpu/gpu_check.sh $K/bin $K/engines $R/check quick $K/node | grep -v '^PASS '
tar -czf $OUT/results.tar.gz -C $R .
m 60 --only gemm --gemm-dtypes fp16,bf16 --labels "resnet" --gemm-paths auto,swap-128x96-direct,cublaslt
tar -czf $OUT/results.tar.gz -C $R .
m 200 --only gemm,gemm-gelu --gemm-dtypes fp16,bf16 --gemm-paths auto
tar -czf $OUT/results.tar.gz -C $R .
m 120 --only gemm,gemm-gelu --gemm-dtypes fp16,bf16 --gemm-paths auto,cublaslt --batch 20 --labels "1x128,k/v,resnet,attn-out,ffn2"
tar -czf $OUT/results.tar.gz -C $R .
t=$(date +%s); echo "== run.py large batch"; timeout 150 python3 bench/run.py --models bert-base,gpt2-small --shapes 32x128,8x512 --dtypes fp16 --peers eager,compile-default,compile-reduce-overhead,kiln --bin $K/bin --work /tmp/kw --results $R/bench 2>&1 | grep "^| bert\|^| gpt2\|FAIL\|rror" | tail -8; echo "== took $(( $(date +%s) - t )) s"
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

#!/usr/bin/env bash
# swap_ab and the split-K and tile variants of BERT 1x128 FFN2 and Llama k/v, then the must-show table (every zoo GEMM in fp16
# and bf16, the GELU rows, the large-batch model rows, the check): `OUT=$OUT bash notes/call9.sh`
# with .carry/pack.tar.xz from `KILN_OPT=-O3 bash scripts/make_carry.sh`.
. notes/call-common.sh
cd $K/engines; for e in swap-ab-*.engine stream-k-128x128-mlp.fp16.engine; do b=${e%.engine}; echo "== $e"; timeout 15 $K/bin/kiln-run $e --inputs $b.inputs.npz --compare $b.ort.npz --rtol 2e-2 --atol 2e-2 2>&1 | tail -2; done; cd - >/dev/null
m 60 --only gemm --gemm-dtypes fp16,bf16 --labels "resnet" --gemm-paths auto,swap-128x96,cublaslt
tar -czf $OUT/results.tar.gz -C $R .
m 60 --only gemm --gemm-dtypes fp16,bf16 --labels "1x128 ffn2" --gemm-paths auto,sk8-64x96,sk4-64x48,cublaslt
m 60 --only gemm --gemm-dtypes fp16 --labels "k/v" --gemm-paths auto,t128x64,cublaslt
m 200 --only gemm,gemm-gelu --gemm-dtypes fp16,bf16 --gemm-paths auto
tar -czf $OUT/results.tar.gz -C $R .
t=$(date +%s); echo "== run.py large batch"; timeout 150 python3 bench/run.py --models bert-base,gpt2-small --shapes 32x128,8x512 --dtypes fp16 --peers eager,compile-default,compile-reduce-overhead,kiln --bin $K/bin --work /tmp/kw --results $R/bench 2>&1 | grep "^| bert\|^| gpt2\|FAIL\|rror" | tail -8; echo "== took $(( $(date +%s) - t )) s"
tar -czf $OUT/results.tar.gz -C $R .
KILN_NODE_TIMEOUT=60 timeout 90 test/gpu/gpu_check.sh $K/bin $K/engines $R/check quick $K/node | grep -v '^PASS '
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

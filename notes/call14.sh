#!/usr/bin/env bash
# BERT 1x128's FFN2 (128 x 768 out, K = 3072), the one zoo row over 1.053 at
# 20 runs a sample on the H100 (micro-054458: 1.07 / 1.10): its split-K
# candidates; then the zoo at --batch 20 and the large-batch model rows.
# `OUT=$OUT bash notes/call14.sh` with .carry/pack.tar.xz (bin + engines).
. notes/call-common.sh
m 100 --only gemm --gemm-dtypes fp16,bf16 --batch 20 --labels "1x128 ffn2" \
  --gemm-paths auto,sk2,sk8,sk2-64x32,sk1-64x32,sk4-64x48,sk8-64x96,sk4-64x128,cublaslt
tar -czf $OUT/results.tar.gz -C $R .
m 200 --only gemm,gemm-gelu --gemm-dtypes fp16,bf16 --batch 20 --gemm-paths auto
tar -czf $OUT/results.tar.gz -C $R .
t=$(date +%s); echo "== run.py large batch"; timeout 150 python3 bench/run.py --models bert-base,gpt2-small --shapes 32x128,8x512 --dtypes fp16 --peers eager,compile-default,compile-reduce-overhead,kiln --bin $K/bin --work /tmp/kw --results $R/bench 2>&1 | grep "^| bert\|^| gpt2\|FAIL\|rror" | tail -8; echo "== took $(( $(date +%s) - t )) s"
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

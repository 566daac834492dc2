#!/usr/bin/env bash
# The residual's tile rows prefetched into L2 by the TMA kernel's producer
# (prefetch_tile) and the attention bias a key block ahead: the engines
# check, the large-batch model rows with every torch mode but max-autotune
# and their profiles, the batch-1 rows (the mma attention with a bias), and
# the zoo at 20 runs a sample. `OUT=$OUT bash notes/call19.sh` with
# .carry/pack.tar.xz (bin + engines).
. notes/call-common.sh
timeout 120 test/gpu/gpu_check.sh $K/bin $K/engines $R/check engines | grep -v '^PASS ' | tail -6
tar -czf $OUT/results.tar.gz -C $R .
rp 170 --models bert-base,gpt2-small --shapes 32x128,8x512 --dtypes fp16 --peers eager,compile-default,compile-reduce-overhead,kiln
tar -czf $OUT/results.tar.gz -C $R .
prof bert-base-32x128-fp16 gpt2-small-8x512-fp16
tar -czf $OUT/results.tar.gz -C $R .
m 120 --only gemm,gemm-gelu --gemm-dtypes fp16,bf16 --batch 20 --gemm-paths auto
tar -czf $OUT/results.tar.gz -C $R .
rp 110 --models bert-base,gpt2-small --shapes 1x128 --dtypes fp16 --peers eager,compile-reduce-overhead,kiln
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

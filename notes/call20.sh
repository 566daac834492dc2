#!/usr/bin/env bash
# The residual prefetched into L2 by the consumers during the k loop's last 4 steps
# (prefetch_tile) and the attention bias a key block ahead: the engines
# check, the large-batch model rows with every torch mode but max-autotune
# and their profiles, and
# the zoo at 20 runs a sample. `OUT=$OUT bash notes/call20.sh` with
# .carry/pack.tar.xz (bin + engines).
. notes/call-common.sh
timeout 120 test/gpu/gpu_check.sh $K/bin $K/engines $R/check engines | grep -v '^PASS ' | tail -6
tar -czf $OUT/results.tar.gz -C $R .
rp 170 --models bert-base,gpt2-small --shapes 32x128,8x512 --dtypes fp16 --peers eager,compile-default,compile-reduce-overhead,kiln
tar -czf $OUT/results.tar.gz -C $R .
prof bert-base-32x128-fp16 gpt2-small-8x512-fp16
tar -czf $OUT/results.tar.gz -C $R .
m 90 --only gemm,gemm-gelu --gemm-dtypes fp16 --batch 20 --gemm-paths auto
tar -czf $OUT/results.tar.gz -C $R .
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

#!/usr/bin/env bash
# The attention kernels' bias loaded a key block ahead (32-bit pairs where
# contiguous): the engines check, the attention rows at 20 runs a sample
# (with and without a bias), the large-batch model rows and their profiles.
# `OUT=$OUT bash notes/call18.sh` with .carry/pack.tar.xz (bin + engines).
. notes/call-common.sh
timeout 120 test/gpu/gpu_check.sh $K/bin $K/engines $R/check engines | grep -v '^PASS ' | tail -15
tar -czf $OUT/results.tar.gz -C $R .
t=$(date +%s); echo "== micro attention"
timeout 100 python3 bench/micro.py --bin $K/bin --work /tmp/km --results $R/bench --runs 100 --batch 20 --only attention \
  --attention-paths auto,att-mma 2>&1 | grep "^| attention\|FAIL\|rror" | tail -n 40
echo "== took $(( $(date +%s) - t )) s"
tar -czf $OUT/results.tar.gz -C $R .
rp 170 --models bert-base,gpt2-small --shapes 32x128,8x512 --dtypes fp16 --peers eager,compile-default,compile-reduce-overhead,kiln
tar -czf $OUT/results.tar.gz -C $R .
prof bert-base-32x128-fp16 gpt2-small-8x512-fp16
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

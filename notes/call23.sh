#!/usr/bin/env bash
# Session of 2026-12-06 11:56: the wgmma attention's two-query-tile blocks
# (--set=attention.q_tiles=2, uncommitted work of the cut-off try) checked
# (7 fc-*-wgmma-q2 engines against the evaluator) and timed, the model rows
# with and without it, BERT 32x128's profile (its attention now reads the
# padding mask as a [B, 1, 1, S] bias: e6d0c3f; 0.0171 ms a layer before, H100
# profiles-065500), then the fp16 zoo against cuBLAS.
# `OUT=$OUT bash notes/call23.sh` with .carry/pack.tar.xz (bin + engines).
. notes/call-common.sh
timeout 120 test/gpu/gpu_check.sh $K/bin $K/engines $R/check engines | grep -v '^PASS ' | tail -8
tar -czf $OUT/results.tar.gz -C $R .
t=$(date +%s); echo "== micro attention"
timeout 90 python3 bench/micro.py --bin $K/bin --work /tmp/km --results $R/bench --runs 100 --batch 20 --only attention \
  --labels "bert 32x128,gpt2 8x512" --attention-paths auto,x:attention.variant=wgmma+attention.q_tiles=2 2>&1 | grep "^| attention\|FAIL\|rror" | tail -n 20
echo "== took $(( $(date +%s) - t )) s"
tar -czf $OUT/results.tar.gz -C $R .
rp 200 --models bert-base,gpt2-small --shapes 32x128,8x512,1x128 --dtypes fp16 --peers eager,compile-default,compile-reduce-overhead,kiln
prof bert-base-32x128-fp16
grep -i "softmax" $R/prof/bert-base-32x128-fp16.txt | head -3
tar -czf $OUT/results.tar.gz -C $R .
rp 60 --models bert-base --shapes 32x128,1x128 --dtypes fp16 --peers kiln --kilnc-args=--set=attention.q_tiles=2
tar -czf $OUT/results.tar.gz -C $R .
m 70 --only gemm,gemm-gelu --gemm-dtypes fp16 --batch 20 --gemm-paths auto
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

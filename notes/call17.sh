#!/usr/bin/env bash
# Experiments at 20 runs a sample (both sides), with a carry of bin/ only:
# BERT 1x128's products with deeper TMA pipelines (stages up to 12, new),
# the fused FFN1 + GELU at 32x128 on other schedules and tiles, and the
# attention kernels at BERT 32x128 / GPT-2 8x512 on other variants and
# blocks. `OUT=$OUT bash notes/call17.sh`.
. notes/call-common.sh
m 150 --only gemm --gemm-dtypes fp16 --batch 20 --labels "1x128 ffn2" \
  --gemm-paths auto,x:split_k=4+stages=8,x:split_k=4+stages=10,x:split_k=4+stages=12,x:split_k=2+stages=12,x:split_k=2+tile_n=32+stages=12,x:split_k=4+tile_n=32+stages=12,cublaslt
tar -czf $OUT/results.tar.gz -C $R .
m 120 --only gemm --gemm-dtypes fp16 --batch 20 --labels "1x128 ffn1,1x128 qkv,attn-out" \
  --gemm-paths auto,x:stages=8,x:stages=12,cublaslt
tar -czf $OUT/results.tar.gz -C $R .
m 150 --only gemm-gelu --gemm-dtypes fp16 --batch 20 --labels "32x128" \
  --gemm-paths auto,wgmma-pp-st,wgmma-pp-cluster-st,x:cluster=2,wgmma-256,wgmma-256-st,x:tile_m=128+tile_n=192+warpgroups=2+pingpong=false+stages=4,x:stages=5,x:group_m=4
tar -czf $OUT/results.tar.gz -C $R .
t=$(date +%s); echo "== micro attention"
timeout 150 python3 bench/micro.py --bin $K/bin --work /tmp/km --results $R/bench --runs 100 --batch 20 --only attention --labels "bert 32x128,gpt2 8x512" \
  --attention-paths auto,att-mma,x:attention.variant=mma+attention.block_m=32,x:attention.variant=mma+attention.block_m=128,x:attention.variant=mma+attention.block_n=32 2>&1 | grep "^| attention\|FAIL\|rror" | tail -n 40
echo "== took $(( $(date +%s) - t )) s"
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

#!/usr/bin/env bash
# BERT 1x128 FFN2 (128 x 768, K = 3072) with 128-row split-K tiles: the
# default 64 x 64 in fours reads A once per 64 columns and B once per 64 rows
# (196 KB a block); 128-row tiles read B once. Carry [".carry/quick"].
# `OUT=$OUT bash notes/call27.sh`
. notes/call-base.sh
P=auto,x:tile_m=128+tile_n=64+split_k=8,x:tile_m=128+tile_n=64+split_k=4,x:tile_m=128+tile_n=32+split_k=4,x:tile_m=128+tile_n=32+split_k=8,x:tile_m=64+tile_n=32+split_k=8,x:stream_k=true+split_k=1,x:tile_m=128+tile_n=128+split_k=8
timeout 300 python3 bench/micro.py --bin $B --work /tmp/km --results $R/bench --runs 100 --batch 20 \
  --only gemm --labels "bert 1x128 ffn2" --gemm-dtypes fp16,bf16 --gemm-paths "$P" 2>&1 | tail -30
finish

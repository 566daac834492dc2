#!/usr/bin/env bash
# BERT/GPT-2 1x128 FFN2 (128 x 768, K = 3072), the one zoo GEMM below 0.95x
# cuBLAS in call37 (H100: 0.0083 vs 0.0076 ms, 64 x 64 tiles in split-K
# clusters of 4, 96 blocks): the split, tile and stream-K settings against
# cuBLAS graphed and cuBLASLt through Kiln, fp16 and bf16, 20 calls a sample
# as in call37. Carry [".carry/quick"]. `OUT=$OUT bash notes/call38.sh`
. notes/call-base.sh
P=auto,cublaslt,x:split_k=8,x:split_k=2,x:split_k=8+stages=4,x:stages=4
P=$P,x:tile_n=32+split_k=4,x:tile_n=32+split_k=8,x:tile_n=32+split_k=2,x:tile_n=32+split_k=4+stages=8
P=$P,x:stream_k=true,x:tile_n=32+stream_k=true,x:tile_n=128+split_k=8
t=$(date +%s)
timeout 240 python3 bench/micro.py --bin $B --work /tmp/km --results $R/bench --runs 100 --batch 20 \
  --only gemm --gemm-dtypes fp16,bf16 --labels "1x128 ffn2" --gemm-paths $P 2>&1 |
  grep -v "Warning\|warn(" | grep "^| gemm.*| kiln\|^| gemm.*(graph)\|FAIL\|rror" | tail -n 40
echo "== took $(( $(date +%s) - t )) s"
finish

#!/usr/bin/env bash
# BERT/GPT-2 1x128 FFN2 (128 x 768, K = 3072), the one zoo GEMM below 0.95x
# cuBLAS in call37 (H100: 0.0083 vs 0.0076 ms, 64 x 64 tiles in split-K
# clusters of 4, 96 blocks): the split, tile and stream-K settings against
# cuBLAS graphed and cuBLASLt through Kiln, fp16 and bf16, 20 calls a sample
# as in call37. Carry [".carry/quick"]. `OUT=$OUT bash notes/call38.sh`
. notes/call-base.sh
m 240 --only gemm --gemm-dtypes fp16,bf16 --batch 20 --labels "1x128 ffn2" --gemm-paths $FFN2_PATHS
finish

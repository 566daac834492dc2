#!/usr/bin/env bash
# call37's must-shows (gpu_check engines, micro GEMMs fp16/bf16 and the fused
# GELU, the model rows at large batch and batch 1, the GEMM floor,
# --autotune=max on BERT-base 32x128 cold and warm) with call38's FFN2 1x128
# sweep first (split, tile and stream-K settings against cuBLAS graphed and
# cuBLASLt through Kiln), for a session that may get only one call.
# `KILN_OPT=-O3 scripts/make_carry.sh`, carry [".carry/pack.tar.xz"].
# `OUT=$OUT bash notes/call39.sh`
. notes/call-common.sh
m 240 --only gemm --gemm-dtypes fp16,bf16 --batch 20 --labels "1x128 ffn2" --gemm-paths $FFN2_PATHS
tar -czf $OUT/results.tar.gz -C $R .
must_shows

#!/usr/bin/env bash
# The final build's GEMMs in bf16 (the zoo, 4096^3, 8192^3 and the fused GELU
# against cuBLAS graphed), fp16 ran in call32. Carry [".carry/quick"].
# `OUT=$OUT bash notes/call33.sh`
. notes/call-base.sh
timeout 150 python3 bench/micro.py --bin $B --work /tmp/km --results $R/bench --runs 100 --batch 20 \
  --only gemm,gemm-gelu --gemm-dtypes bf16 2>&1 | grep "^| gemm.*| kiln\|^| gemm.*(graph)\|FAIL\|rror"
finish

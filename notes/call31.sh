#!/usr/bin/env bash
# The erf GELU's polynomial by Estrin's scheme (4 dependent steps) against
# Horner's (9; the kilnc of call30 in .carry/quick/old): Nsight Compute on
# BERT's FFN1 + GELU and micro's fused GEMM + GELU, each side twice.
# Carry [".carry/quick"]. `OUT=$OUT bash notes/call31.sh`
. notes/call-base.sh
for side in old bin old bin; do ncu_gelu $PWD/.carry/quick/$side $side; done
for side in old bin; do
  timeout 80 python3 bench/micro.py --bin $PWD/.carry/quick/$side --work /tmp/km-$side --results $R/bench --runs 100 --batch 20 \
    --only gemm-gelu --gemm-dtypes fp16,bf16 2>&1 | grep "^| gemm-gelu" | sed "s/^/$side /"
done
finish

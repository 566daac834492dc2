#!/usr/bin/env bash
# The must-shows in one call, meant for the H200 (the build of call36, which
# ran on an H100): gpu_check's engines section (unit tests and the committed
# models against onnxruntime), micro's GEMMs (the zoo, 4096^3, 8192^3) and the
# fused GELU in fp16 and bf16 against cuBLAS graphed, the model rows at large
# batch and batch 1 against eager, compile-default and reduce-overhead, the
# GEMM floor against those rows, then --autotune=max on BERT-base 32x128
# (cold, warm rebuild, byte-identical engines) in what is left of 575 s.
# `KILN_OPT=-O3 scripts/make_carry.sh`, carry [".carry/pack.tar.xz"].
# `OUT=$OUT bash notes/call37.sh`
. notes/call-common.sh
timeout 90 test/gpu/gpu_check.sh $K/bin $K/engines $R/check engines | grep -v '^PASS ' | tail -8
tar -czf $OUT/results.tar.gz -C $R .
m 110 --only gemm,gemm-gelu --gemm-dtypes fp16,bf16 --batch 20 --gemm-paths auto
tar -czf $OUT/results.tar.gz -C $R .
rp 170 --models bert-base,gpt2-small --shapes 32x128,8x512,1x128 --dtypes fp16 --runs 50 --peers eager,compile-default,compile-reduce-overhead,kiln
tar -czf $OUT/results.tar.gz -C $R .
J=$(ls -t $R/bench/*/run-*.json | head -1)
timeout 40 python3 bench/gemm_floor.py --rows $J --out $R/bench --runs 30 2>&1 | tail -6
finish_with_tune

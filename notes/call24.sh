#!/usr/bin/env bash
# Session of 2026-12-07 03:13: the build with two query tiles a block as the
# wgmma attention's default (at most 128 keys, 132+ two-tile blocks), every
# must-show of issue 6 in one call: gpu_check, the model rows at large batch
# and batch 1 against the torch modes, BERT 32x128's profile, --autotune=max
# on BERT-base 1x128 (compile, warm rebuild, identical engines), the fp16 and
# bf16 zoo against cuBLAS, then (in what is left of the call) --autotune=max
# on BERT-base 32x128. `OUT=$OUT bash notes/call24.sh` with .carry/pack.tar.xz.
. notes/call-common.sh
timeout 120 test/gpu/gpu_check.sh $K/bin $K/engines $R/check engines | grep -v '^PASS ' | tail -8
tar -czf $OUT/results.tar.gz -C $R .
rp 240 --models bert-base,gpt2-small --shapes 32x128,8x512,1x128 --dtypes fp16 --peers eager,compile-default,compile-reduce-overhead,kiln
tar -czf $OUT/results.tar.gz -C $R .
prof bert-base-32x128-fp16
tar -czf $OUT/results.tar.gz -C $R .
timeout 130 test/gpu/tune_model.sh $K/bin /tmp/kw/onnx/bert-base-1x128-fp16-s0/model.onnx input_ids=1x128,attention_mask=1x128 max $R/tune bert-1x128-max /tmp/kw/kiln/bert-base-1x128-fp16.inputs.npz
tar -czf $OUT/results.tar.gz -C $R .
m 110 --only gemm,gemm-gelu --gemm-dtypes fp16,bf16 --batch 20 --gemm-paths auto
tar -czf $OUT/results.tar.gz -C $R .
finish_with_tune

#!/usr/bin/env bash
# The must-show rows on the H200 with the 2026-12-06 heuristics: the
# large-batch model rows against every torch mode but max-autotune, each
# model's kernel-by-kernel profile, `--autotune=max` on BERT-base 1x128
# (measuring compile, warm rebuild, identical engines), then the zoo at 20
# runs a sample. `OUT=$OUT bash notes/call16.sh` with .carry/pack.tar.xz.
. notes/call-common.sh
rp 170 --models bert-base,gpt2-small --shapes 32x128,8x512 --dtypes fp16 --peers eager,compile-default,compile-reduce-overhead,kiln
tar -czf $OUT/results.tar.gz -C $R .
prof bert-base-32x128-fp16 gpt2-small-8x512-fp16
rp 60 --models bert-base --shapes 1x128 --dtypes fp16 --peers kiln
timeout 200 test/gpu/tune_model.sh $K/bin /tmp/kw/onnx/bert-base-1x128-fp16-s0/model.onnx input_ids=1x128,attention_mask=1x128 max $R/tune bert-1x128-max /tmp/kw/kiln/bert-base-1x128-fp16.inputs.npz
tar -czf $OUT/results.tar.gz -C $R .
m 170 --only gemm,gemm-gelu --gemm-dtypes fp16,bf16 --batch 20 --gemm-paths auto
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

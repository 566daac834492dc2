#!/usr/bin/env bash
# The session's final state (158687b + notes; the residual prefetch of
# calls 19-20 reverted): the model rows at large batch and batch 1 against
# the torch modes, the large-batch profiles, --autotune=max on BERT-base
# 1x128 (measuring compile, warm rebuild, identical engines) and the fp16
# zoo at 20 runs a sample. `OUT=$OUT bash notes/call21.sh` with
# .carry/pack.tar.xz (bin + engines).
. notes/call-common.sh
rp 200 --models bert-base,gpt2-small --shapes 32x128,8x512,1x128 --dtypes fp16 --peers eager,compile-default,compile-reduce-overhead,kiln
tar -czf $OUT/results.tar.gz -C $R .
prof bert-base-32x128-fp16 gpt2-small-8x512-fp16
timeout 130 test/gpu/tune_model.sh $K/bin /tmp/kw/onnx/bert-base-1x128-fp16-s0/model.onnx input_ids=1x128,attention_mask=1x128 max $R/tune bert-1x128-max /tmp/kw/kiln/bert-base-1x128-fp16.inputs.npz
tar -czf $OUT/results.tar.gz -C $R .
m 60 --only gemm,gemm-gelu --gemm-dtypes fp16 --batch 20 --gemm-paths auto
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

#!/usr/bin/env bash
# The erf GELU's polynomial at degree 7 (minimax, log2(e) folded in) instead
# of erfcc's degree 9: gpu_check (the Gelu nodes against onnxruntime), Nsight
# Compute on BERT's FFN1 + GELU against call30's kilnc (the pack's old/),
# micro's GEMMs and fused GELU, the model rows at large batch and batch 1.
# `OUT=$OUT bash notes/call32.sh` with .carry/pack.tar.xz.
. notes/call-common.sh
timeout 120 test/gpu/gpu_check.sh $K/bin $K/engines $R/check engines | grep -v '^PASS ' | tail -8
tar -czf $OUT/results.tar.gz -C $R .
for side in old bin old bin; do ncu_gelu $K/$side $side; done
m 90 --only gemm,gemm-gelu --gemm-dtypes fp16 --batch 20 --gemm-paths auto
tar -czf $OUT/results.tar.gz -C $R .
rp 240 --models bert-base,gpt2-small --shapes 32x128,8x512,1x128 --dtypes fp16 --peers eager,compile-default,compile-reduce-overhead,kiln
finish

#!/usr/bin/env bash
# Session of 2026-12-07 08:01: the erf GELU with its constants folded (two
# instructions fewer an element). gpu_check (the Gelu nodes against
# onnxruntime), Nsight Compute on BERT's FFN1 + GELU (instructions, time,
# against call29), the model rows at large batch and batch 1 against the torch
# modes, the GELU and plain GEMMs against cuBLAS (fp16), then --autotune=max
# on BERT-base 32x128 (67 s in call26). `OUT=$OUT bash notes/call30.sh` with
# .carry/pack.tar.xz.
. notes/call-common.sh
timeout 120 test/gpu/gpu_check.sh $K/bin $K/engines $R/check engines | grep -v '^PASS ' | tail -8
tar -czf $OUT/results.tar.gz -C $R .
timeout 120 python3 bench/ncu_gemm.py --bin $K/bin --work /tmp/kn --out $R/ncu --no-torch \
  --shapes "bert-ffn1=4096,768,3072" --epilogues bias,gelu 2>&1 | tail -3
for f in $R/ncu/*.txt; do echo "== $(basename $f .txt)"; grep -E "^ +(Duration|SM Frequency|Elapsed Cycles|Executed Instructions  )" $f; done
rm -f $R/ncu/*.ncu-rep
tar -czf $OUT/results.tar.gz -C $R .
rp 240 --models bert-base,gpt2-small --shapes 32x128,8x512,1x128 --dtypes fp16 --peers eager,compile-default,compile-reduce-overhead,kiln
tar -czf $OUT/results.tar.gz -C $R .
m 90 --only gemm,gemm-gelu --gemm-dtypes fp16 --batch 20 --gemm-paths auto
tar -czf $OUT/results.tar.gz -C $R .
finish_with_tune

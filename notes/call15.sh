#!/usr/bin/env bash
# The rows the heuristics change touched (BERT 1x128, Llama k/v) and the
# short BERT rows, 20 runs a sample, fp16 / bf16 (a short call: the end of
# the session's device time). `OUT=$OUT bash notes/call15.sh`.
. notes/call-common.sh
m 120 --only gemm,gemm-gelu --gemm-dtypes fp16,bf16 --batch 20 --labels "1x128,k/v,attn-out" --gemm-paths auto,cublaslt
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

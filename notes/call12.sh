#!/usr/bin/env bash
# The two zoo shapes that miss 0.95x cuBLAS once 20 back-to-back runs hide
# the launch gap (H200, micro-050113: BERT 1x128 QKV 1.21 / 1.13, Llama k/v
# 1.16 / 1.18): their candidate tiles, split-K and clusters at --batch 20,
# then the ONNX node suite on the GPU (the k loops' peeled last step).
# `OUT=$OUT bash notes/call12.sh` with .carry/pack.tar.xz from
# `KILN_OPT=-O3 bash scripts/make_carry.sh`.
. notes/call-common.sh
m 150 --only gemm --gemm-dtypes fp16,bf16 --batch 20 --labels "1x128 qkv" \
  --gemm-paths auto,sk1,sk4,sk8,sk4-64x48,sk1-64x32,sk2-64x32,sk2-64x48,stream-k,cublaslt
tar -czf $OUT/results.tar.gz -C $R .
m 180 --only gemm --gemm-dtypes fp16,bf16 --batch 20 --labels "k/v" \
  --gemm-paths auto,t128x64,t128x64-pp,t64x128-c2,t64x128-c2-s8,sk2-128x128,stream-k,stream-k-128,swap,swap-128x96,wgmma-async,cublaslt
tar -czf $OUT/results.tar.gz -C $R .
mkdir -p $R/check
t=$(date +%s); echo "== node suite"
timeout 200 python3 test/conformance/node_suite.py --kilnc $K/bin/kilnc --kiln-run $K/bin/kiln-run --data $K/node \
  --evaluate --backend gpu -j 16 --json $R/check/node-gpu.json > $R/check/node-gpu.log 2>&1
grep "^evaluate:\|FAIL\|crash" $R/check/node-gpu.log | head -20; echo "== took $(( $(date +%s) - t )) s"
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

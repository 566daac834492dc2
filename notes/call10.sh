#!/usr/bin/env bash
# After the revert of swap_ab's staged epilogue: the check (every carried
# engine, swap_ab ones included, against its reference) and the ResNet 1x1,
# Llama k/v and BERT 1x128 FFN2 rows again. `OUT=$OUT bash notes/call10.sh`
# with .carry/pack.tar.xz from `KILN_OPT=-O3 bash scripts/make_carry.sh`.
. notes/call-common.sh
KILN_NODE_TIMEOUT=60 timeout 90 test/gpu/gpu_check.sh $K/bin $K/engines $R/check quick $K/node | grep -v '^PASS '
tar -czf $OUT/results.tar.gz -C $R .
m 60 --only gemm --gemm-dtypes fp16,bf16 --labels "resnet,k/v,1x128 ffn2" --gemm-paths auto,cublaslt
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

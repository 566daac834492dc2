#!/usr/bin/env bash
. notes/call-common.sh
cd $K/engines; for e in split-*.engine; do b=${e%.engine}; echo "== $e"; timeout 15 $K/bin/kiln-run $e --inputs $b.inputs.npz --compare $b.ort.npz --rtol 2e-2 --atol 2e-2 2>&1 | tail -2; done; cd - >/dev/null
echo "== split engines took $(( $(date +%s) - s )) s"
m 120 --only gemm --gemm-dtypes fp16 --labels "1x128,k/v,attn-out" --gemm-paths auto,sk2,sk4,sk8,sk4-64x128,sk2-128x128,cublaslt
mkdir -p $K/bin2; cp $K/bin/* $K/bin2/; xz -dc .carry/extra/kilnc-sk.xz > $K/bin2/kilnc; chmod +x $K/bin2/kilnc
t=$(date +%s); echo "== micro split default (bin2)"; timeout 60 python3 bench/micro.py --bin $K/bin2 --work /tmp/km2 --results $R/bench --runs 100 --only gemm --gemm-dtypes fp16 --labels 1x128 --gemm-paths auto,sk1 2>&1 | grep "^| gemm.*| kiln\|^| gemm.*(graph)\|FAIL\|rror" | tail -n 20; echo "== took $(( $(date +%s) - t )) s"
m 60 --only gemm --gemm-dtypes fp16 --labels "8x512 qkv,attn-out" --gemm-paths auto,t128x192,t128x192-c2,wgmma-256,wgmma-128,wgmma-pp-cluster-st,cublaslt
m 40 --only gemm --gemm-dtypes fp16 --labels "k/v" --gemm-paths auto,t64x128-c2,t64x128-c2-s8,cublaslt
tar -czf $OUT/results.tar.gz -C $R .
KILN_NODE_TIMEOUT=120 timeout 110 test/gpu/gpu_check.sh $K/bin $K/engines $R/check quick $K/node | grep -v '^PASS '
head -n 30 $R/check/engine-failures.log 2>/dev/null
echo "== check took $(( $(date +%s) - s )) s"
tar -czf $OUT/results.tar.gz -C $R .
m 60 --only gemm,gemm-gelu --gemm-dtypes fp16 --labels "32x128,gate"
tar -czf $OUT/results.tar.gz -C $R .
t=$(date +%s); echo "== run.py bert 1x128 bin2 (split default)"; timeout 120 python3 bench/run.py --models bert-base --shapes 1x128 --dtypes fp16 --peers eager,kiln --bin $K/bin2 --work /tmp/kw --results $R/bench 2>&1 | grep "^| bert\|FAIL\|rror" | tail -5; echo "== took $(( $(date +%s) - t )) s"
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

#!/usr/bin/env bash
# The must-show table on the H200: `OUT=$OUT bash notes/call7.sh` with
# .carry/pack.tar.xz from `KILN_OPT=-O3 bash scripts/make_carry.sh`. Every
# zoo GEMM (fp16, bf16) against cuBLAS replayed from a graph, the fused GELU
# rows, the large-batch model rows against every torch mode but max-autotune
# (whose compile alone takes minutes), then the quick check.
. notes/call-common.sh
m 200 --only gemm,gemm-gelu --gemm-dtypes fp16,bf16 --gemm-paths auto
tar -czf $OUT/results.tar.gz -C $R .
t=$(date +%s); echo "== run.py large batch"; timeout 200 python3 bench/run.py --models bert-base,gpt2-small --shapes 32x128,8x512 --dtypes fp16 --peers eager,compile-default,compile-reduce-overhead,kiln --bin $K/bin --work /tmp/kw --results $R/bench 2>&1 | grep "^| bert\|^| gpt2\|FAIL\|rror" | tail -8; echo "== took $(( $(date +%s) - t )) s"
tar -czf $OUT/results.tar.gz -C $R .
KILN_NODE_TIMEOUT=120 timeout 120 test/gpu/gpu_check.sh $K/bin $K/engines $R/check quick $K/node | grep -v '^PASS '
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

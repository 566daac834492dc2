#!/usr/bin/env bash
# The next GPU call (stream-K's first run): `OUT=$OUT bash notes/call6.sh`
# with .carry/pack.tar.xz from `KILN_OPT=-O3 bash scripts/make_carry.sh`.
# Stream-K engines first, each under a 15 s timeout (a wrong flag protocol
# hangs); then micro against cuBLAS, the quick check, the model rows.
. notes/call-common.sh
cd $K/engines; for e in stream-k-*.engine split-k2-mlp.engine; do b=${e%.engine}; echo "== $e"; timeout 15 $K/bin/kiln-run $e --inputs $b.inputs.npz --compare $b.ort.npz --rtol 2e-2 --atol 2e-2 2>&1 | tail -2; echo "rc=$?"; done; cd - >/dev/null
echo "== stream-K engines took $(( $(date +%s) - s )) s"
m 90 --only gemm --gemm-dtypes fp16 --labels "resnet,32x128,8x512 qkv,k/v" --gemm-paths auto,stream-k,stream-k-128,cublaslt
tar -czf $OUT/results.tar.gz -C $R .
KILN_NODE_TIMEOUT=120 timeout 120 test/gpu/gpu_check.sh $K/bin $K/engines $R/check quick $K/node | grep -v '^PASS '
head -n 30 $R/check/engine-failures.log 2>/dev/null
echo "== check took $(( $(date +%s) - s )) s"
tar -czf $OUT/results.tar.gz -C $R .
t=$(date +%s); echo "== run.py large batch, all peers"; timeout 200 python3 bench/run.py --models bert-base,gpt2-small --shapes 32x128,8x512 --dtypes fp16 --peers eager,compile-default,compile-reduce-overhead,kiln --bin $K/bin --work /tmp/kw --results $R/bench 2>&1 | grep "^| bert\|^| gpt2\|FAIL\|rror" | tail -8; echo "== took $(( $(date +%s) - t )) s"
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

# Sourced by notes/call*.sh on the GPU machine: unpacks the carry into $K,
# then notes/call-base.sh (log, R, s, finish, m), with m on the pack's binaries.
K=/tmp/kiln
mkdir -p $K
tar -xJf .carry/pack.tar.xz -C $K
. notes/call-base.sh
B=$K/bin # m (call-base.sh) runs the pack's binaries
# rp TIMEOUT RUN-ARGS...: bench/run.py's model rows (the exports and
# engines under /tmp/kw).
rp() { local t=$(date +%s); echo "== run.py ${*:2}"; timeout $1 python3 bench/run.py --bin $K/bin --work /tmp/kw --results $R/bench "${@:2}" 2>&1 | grep "^| bert\|^| gpt2\|FAIL\|rror" | tail -8; echo "== took $(( $(date +%s) - t )) s"; }
# prof NAME...: kiln-run --profile of run.py's engines NAME (bert-base-32x128-fp16, ...)
# into $R/prof.
prof() { mkdir -p $R/prof; local e; for e in "$@"; do timeout 30 $K/bin/kiln-run /tmp/kw/kiln/$e.engine --inputs /tmp/kw/kiln/$e.inputs.npz --profile $R/prof/$e.trace.json > $R/prof/$e.txt 2>&1; echo "== profile $e"; grep "profile:" $R/prof/$e.txt; done; }
# finish_with_tune: --autotune=max on BERT-base 32x128 in what is left of a
# 575 s call (run.py's 32x128 export first), then the results packed.
finish_with_tune() {
  local left=$(( 575 - ($(date +%s) - s) ))
  echo "== $left s left for the 32x128 tune"
  if [ $left -gt 60 ]; then
    timeout $left test/gpu/tune_model.sh $K/bin /tmp/kw/onnx/bert-base-32x128-fp16-s0/model.onnx input_ids=32x128,attention_mask=32x128 max $R/tune bert-32x128-max /tmp/kw/kiln/bert-base-32x128-fp16.inputs.npz
  fi
  finish
}
# must_shows: issue 6's must-show check (call37): gpu_check's engines, micro's
# GEMMs and fused GELU in fp16 and bf16 (20 calls a sample), the model rows at
# large batch and batch 1, the GEMM floor against them, then finish_with_tune.
must_shows() {
  timeout 90 test/gpu/gpu_check.sh $K/bin $K/engines $R/check engines | grep -v '^PASS ' | tail -8
  tar -czf $OUT/results.tar.gz -C $R .
  m 110 --only gemm,gemm-gelu --gemm-dtypes fp16,bf16 --batch 20 --gemm-paths auto
  tar -czf $OUT/results.tar.gz -C $R .
  rp 170 --models bert-base,gpt2-small --shapes 32x128,8x512,1x128 --dtypes fp16 --runs 50 --peers eager,compile-default,compile-reduce-overhead,kiln
  tar -czf $OUT/results.tar.gz -C $R .
  local J=$(ls -t $R/bench/*/run-*.json | head -1)
  timeout 40 python3 bench/gemm_floor.py --rows $J --out $R/bench --runs 30 2>&1 | tail -6
  finish_with_tune
}

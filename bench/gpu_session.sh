#!/usr/bin/env bash
# One device call, from the repository root on the GPU machine: unpacks
# .carry/pack.tar.xz (scripts/make_carry.sh), then runs the steps in $STEPS
# in that order (comma list, default check,bench,profile,micro):
#   check    test/gpu/gpu_check.sh (quick: no big-model section) with the node data
#   bench    bench/run.py $BENCH_ARGS (default --quick) within $BENCH_TIMEOUT s; more runs
#            in $BENCH_ARGS2 .. $BENCH_ARGS4 (each within its own timeout, same work dir;
#            $BENCH_ENV .. $BENCH_ENV4: VAR=VALUE settings for that run, e.g. KILN_PDL=0)
#   profile  kiln-run --profile on every engine the bench built (PROFILE_EACH=1: after
#            each bench invocation instead, as profile/b1-*, b2-*, ...)
#   micro    bench/micro.py $MICRO_ARGS within $MICRO_TIMEOUT s
#   tune     test/gpu/tune_check.sh (the autotuner: measure, cache, identical rebuild)
#   cublas   bench/cublas_kernels.py $CUBLAS_ARGS: the cuBLAS kernels torch runs for the zoo's GEMMs
#   ncu      bench/ncu_gemm.py $NCU_ARGS: Nsight Compute on Kiln's and cuBLAS's GEMM kernels
# Everything lands in $OUT/results.tar.gz (the device tool returns few files)
# and the log in $OUT/session.log.
set -uo pipefail
OUT=${OUT:?set OUT}
K=/tmp/kiln R=/tmp/kiln-results
STEPS=${STEPS:-check,bench,profile,micro}
mkdir -p "$K" "$R"
tar -xJf .carry/pack.tar.xz -C "$K"
exec > >(tee "$OUT/session.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
start=$(date +%s)
step_check() {
  KILN_NODE_TIMEOUT=${NODE_TIMEOUT:-200} test/gpu/gpu_check.sh "$K/bin" "$K/engines" "$R/check" "${CHECK_MODE:-quick}" "$K/node" \
    | grep -v '^PASS ' | tail -n 60
  head -n 40 "$R/check/engine-failures.log" 2>/dev/null
  echo "== check took $(( $(date +%s) - start )) s"
}
step_bench() {
  for i in "" 2 3 4; do
    v=BENCH_ARGS$i; tv=BENCH_TIMEOUT$i
    [ -z "$i" ] || [ -n "${!v:-}" ] || continue
    ev=BENCH_ENV$i
    args=${!v:---quick}
    t=$(date +%s)
    echo "== bench ${!ev:-} $args"
    env ${!ev:-} timeout "${!tv:-300}" python3 bench/run.py $args --bin "$K/bin" --work /tmp/kiln-bench \
      --results "$R/bench" 2>&1 | grep -v "Warning\|warn(\|^\[torch.onnx\]\|^  " | tail -n 60
    echo "== bench took $(( $(date +%s) - t )) s"
    # PROFILE_EACH=1: profile this invocation's engines before the next
    # invocation overwrites them (profile/b<i>-*).
    [ -z "${PROFILE_EACH:-}" ] || step_profile "b${i:-1}-"
    [ -z "${PROFILE_EACH:-}" ] || rm -f /tmp/kiln-bench/kiln/*.engine
  done
}
step_profile() {
  local pre=${1:-}
  mkdir -p "$R/profile"
  for e in /tmp/kiln-bench/kiln/*.engine; do
    [ -e "$e" ] || continue
    n=$pre$(basename "${e%.engine}")
    timeout 60 "$K/bin/kiln-run" "$e" --inputs "${e%.engine}.inputs.npz" --profile "$R/profile/$n.trace.json" \
      > "$R/profile/$n.txt" 2>&1
    echo "== profile $n"; head -n 18 "$R/profile/$n.txt"
  done
}
step_micro() {
  t=$(date +%s)
  timeout "${MICRO_TIMEOUT:-150}" python3 bench/micro.py ${MICRO_ARGS:-} --bin "$K/bin" --work /tmp/kiln-micro \
    --results "$R/bench" 2>&1 | grep -v "Warning\|warn(" | tail -n 70
  echo "== micro took $(( $(date +%s) - t )) s"
}
step_cublas() {
  t=$(date +%s)
  mkdir -p "$R/bench"
  timeout "${CUBLAS_TIMEOUT:-120}" python3 bench/cublas_kernels.py ${CUBLAS_ARGS:-} \
    --out "$R/bench/cublas-kernels-$(date +%H%M%S).md" 2>&1 | grep -v "Warning\|warn(" | tail -n 40
  echo "== cublas took $(( $(date +%s) - t )) s"
}
step_ncu() {
  t=$(date +%s)
  timeout "${NCU_TIMEOUT:-300}" python3 bench/ncu_gemm.py --bin "$K/bin" --work /tmp/kiln-ncu \
    --out "$R/ncu" ${NCU_ARGS:-} 2>&1 | tail -n 30
  echo "== ncu took $(( $(date +%s) - t )) s"
}
step_tune() {
  t=$(date +%s)
  timeout "${TUNE_TIMEOUT:-240}" test/gpu/tune_check.sh "$K/bin" "$R/tune"
  echo "== tune took $(( $(date +%s) - t )) s"
}
for s in ${STEPS//,/ }; do
  case $s in
    check | bench | profile | micro | tune | cublas | ncu) "step_$s" ;;
    *) echo "gpu_session: unknown step '$s'" ;;
  esac
done
tar -czf "$OUT/results.tar.gz" -C "$R" .
echo "== session took $(( $(date +%s) - start )) s"

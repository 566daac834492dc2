#!/usr/bin/env bash
# The checks that need a GPU, in one command on the GPU machine. Builds
# nothing there: it runs binaries built elsewhere (kilnc, kiln-run, kiln-eval,
# kiln-inspect, KilnRuntimeTest), engines compiled with them
# (scripts/make_carry.sh packs both) and Python with torch, onnx,
# onnxruntime and transformers.
#
# Usage (from anywhere; paths may be relative to the current folder):
#   test/gpu/check.sh [--checks LIST] [--bin DIR] [--bin-base DIR] [--out DIR] [options]
#
# Checks (run in the order given; each prints PASS/FAIL lines, then one
# verdict line; a summary table ends the run):
#   unit            runtime GPU unit tests (KilnRuntimeTest)
#   engines         every engine of --engines against its reference outputs
#   node-suite      the ONNX backend node tests as engines on the GPU
#   models          BERT-base / GPT-2 small fp32, both exporters, against onnxruntime
#   export-models   exports the small models of test/models/data again and checks
#                   the evaluator on them (export-models/small-models.tgz)
#   tune            --autotune=default on a two-matmul model: cache, warm rebuild
#                   byte-identical, both engines against the evaluator
#   tune-model      --autotune=LEVEL on a bench export (--tune-model, --tune-level):
#                   cold and warm wall time, identical engines, tuned vs untuned latency
#   race            the TMA kernel's cooperative staged epilogue, --race-runs fresh
#                   processes against the mma path, then three measuring compiles
#   bench           bench/run.py --bench-args; with --bin-base also the base build's
#                   Kiln side on the same exports, compared row by row (--noise)
#   profile         kiln-run --profile of every engine the bench built
#   floor           bench/gemm_floor.py against the bench's rows
#   gemm            bench/micro.py GEMMs and GEMM + GELU, fp16 and bf16, 20 calls
#                   a sample, against cuBLAS
#   attention       bench/micro.py attention against SDPA, 20 calls a sample
#   attention-sweep every attention block shape against the heuristic's
#   micro           bench/micro.py --micro-args
#   ncu             bench/ncu_gemm.py --ncu-args (Nsight Compute)
#   cublas          bench/cublas_kernels.py --cublas-args
# Aliases: quick = unit,engines,node-suite (the default);
#          correctness = unit,engines,node-suite,models,tune; perf = gemm,bench,floor.
#
# Options:
#   --pack FILE       unpack scripts/make_carry.sh's pack into --unpack DIR (default
#                     /tmp/kiln) and take bin/, engines/, node/ and base/ from it;
#                     the default when --bin is not given and .carry/pack.tar.xz exists
#   --bin DIR         the binaries to check; --bin-base DIR: older ones (bench only)
#   --engines DIR     *.engine with *.inputs.npz and *.ort.npz (optional *.eval.npz)
#   --node-data DIR   ONNX node tests (default: the onnx package's own)
#   --out DIR         results (default $OUT, else /tmp/kiln-check): one folder a check,
#                     check.log (this output) and summary.txt
#   --tar             keep $OUT to check.log, summary.txt and results.tar.gz (the
#                     folders packed after every check, so a killed run keeps them)
#   --work DIR        exports, engines, caches (default /tmp/kiln-check-work)
#   --deadline S      stop starting checks S seconds after the start, and cut each
#                     check's time limit to what is left
#   --timeout CHECK=S a check's time limit (repeatable; the defaults, 90 to 420 s,
#                     are the LIMIT table after this comment)
#   --verbose         print every PASS line of the engines check too
#   --bench-args, --micro-args, --ncu-args, --cublas-args "ARGS"  (bench default --quick)
#   --noise X         bench with --bin-base: largest |new/base - 1| (default 0.03)
#   --race-runs N     (default 100); --tune-model MODEL:SHAPE (default
#                     bert-base:32x128); --tune-level default|max (default max)
# Exit status 0 when no check failed or timed out.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

declare -A LIMIT=([unit]=120 [engines]=240 [node-suite]=240 [models]=300 [export-models]=300
  [tune]=240 [tune-model]=300 [race]=300 [bench]=420 [profile]=120 [floor]=90 [gemm]=240
  [attention]=150 [attention-sweep]=240 [micro]=300 [ncu]=300 [cublas]=150)
ALL_CHECKS="unit engines node-suite models export-models tune tune-model race bench profile floor gemm attention attention-sweep micro ncu cublas"

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
die() { echo "check.sh: $*" >&2; exit 2; }
abspath() { [ -z "$1" ] && return; case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

CHECKS=quick BIN='' BIN_BASE='' ENGINES='' NODE_DATA='' PACK='' UNPACK=/tmp/kiln
OUTDIR=${OUT:-/tmp/kiln-check} WORK=/tmp/kiln-check-work TAR=0 DEADLINE=0 VERBOSE=0
BENCH_ARGS=--quick MICRO_ARGS='' NCU_ARGS='' CUBLAS_ARGS='' NOISE=0.03
RACE_RUNS=100 TUNE_MODEL=bert-base:32x128 TUNE_LEVEL=max
while [ $# -gt 0 ]; do
  opt=$1 val=''
  case $opt in
    --*=*) val=${opt#*=} opt=${opt%%=*} ;;
    --tar | --verbose | -h | --help) ;;
    --*) [ $# -ge 2 ] || die "$opt needs a value"; val=$2; shift ;;
  esac
  case $opt in
    --checks) CHECKS=$val ;;
    --bin) BIN=$(abspath "$val") ;;
    --bin-base) BIN_BASE=$(abspath "$val") ;;
    --engines) ENGINES=$(abspath "$val") ;;
    --node-data) NODE_DATA=$(abspath "$val") ;;
    --pack) PACK=$(abspath "$val") ;;
    --unpack) UNPACK=$(abspath "$val") ;;
    --out) OUTDIR=$val ;;
    --work) WORK=$val ;;
    --tar) TAR=1 ;;
    --verbose) VERBOSE=1 ;;
    --deadline) DEADLINE=$val ;;
    --timeout) [ -n "${LIMIT[${val%%=*}]:-}" ] || die "--timeout: no check '${val%%=*}'"
               LIMIT[${val%%=*}]=${val#*=} ;;
    --bench-args) BENCH_ARGS=$val ;;
    --micro-args) MICRO_ARGS=$val ;;
    --ncu-args) NCU_ARGS=$val ;;
    --cublas-args) CUBLAS_ARGS=$val ;;
    --noise) NOISE=$val ;;
    --race-runs) RACE_RUNS=$val ;;
    --tune-model) TUNE_MODEL=$val ;;
    --tune-level) TUNE_LEVEL=$val ;;
    -h | --help) usage 0 ;;
    *) echo "check.sh: unknown argument '$opt'" >&2; usage 2 ;;
  esac
  shift
done
OUTDIR=$(abspath "$OUTDIR") WORK=$(abspath "$WORK")
[ -n "$OUTDIR" ] && [ -n "$WORK" ] || die "--out and --work need a folder"

LIST=()
for c in ${CHECKS//,/ }; do
  case $c in
    quick) LIST+=(unit engines node-suite) ;;
    correctness) LIST+=(unit engines node-suite models tune) ;;
    perf) LIST+=(gemm bench floor) ;;
    *) [[ " $ALL_CHECKS " == *" $c "* ]] || die "unknown check '$c' (known: $ALL_CHECKS)"
       LIST+=("$c") ;;
  esac
done

cd "$ROOT" || exit 2
export PYTHONUNBUFFERED=1
START=$(date +%s)
mkdir -p "$OUTDIR" "$WORK"
RES=$OUTDIR
[ $TAR = 1 ] && RES=$WORK/results && rm -rf "$RES" && mkdir -p "$RES"
exec > >(tee "$OUTDIR/check.log") 2>&1

if [ -z "$BIN" ] && [ -z "$PACK" ] && [ -f "$ROOT/.carry/pack.tar.xz" ]; then
  PACK=$ROOT/.carry/pack.tar.xz
fi
if [ -n "$PACK" ]; then
  rm -rf "${UNPACK:?}"/bin "${UNPACK:?}"/engines "${UNPACK:?}"/node "${UNPACK:?}"/base
  mkdir -p "$UNPACK" && tar -xJf "$PACK" -C "$UNPACK" || die "cannot unpack $PACK"
  BIN=${BIN:-$UNPACK/bin}
  [ -d "$UNPACK/engines" ] && ENGINES=${ENGINES:-$UNPACK/engines}
  [ -d "$UNPACK/node" ] && NODE_DATA=${NODE_DATA:-$UNPACK/node}
  [ -d "$UNPACK/base" ] && BIN_BASE=${BIN_BASE:-$UNPACK/base}
fi
[ -n "$BIN" ] || BIN=$ROOT/build/bin
[ -x "$BIN/kilnc" ] || die "no kilnc in $BIN (--bin DIR or --pack FILE)"

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null ||
  echo "nvidia-smi: none (no GPU driver on this machine)"
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
echo "checks: ${LIST[*]}; bin $BIN${BIN_BASE:+, base $BIN_BASE}; results $RES; $(date -u '+%F %T') UTC"

# --- helpers -----------------------------------------------------------------
# left: seconds the running check has left (at least 1).
left() { local l=$(( CHECK_END - $(date +%s) )); echo $(( l < 1 ? 1 : l )); }
# run_t CMD...: CMD within the check's time left; TIMED_OUT=1 when it ran out.
run_t() {
  timeout -k 10 "$(left)" "$@"
  local rc=$?
  [ $rc = 124 ] || [ $rc = 137 ] && TIMED_OUT=1
  return $rc
}
# quiet: drops the warnings torch and onnx print on every export.
quiet() { grep -v "Warning\|warn(\|^\[torch.onnx\]" ; }
need() { local t; for t in "$@"; do [ -x "$BIN/$t" ] || { DETAIL="no $t in $BIN"; return 1; }; done; }
# tune_twice LABEL KILNC-ARGS...: a measuring compile into a fresh tuning
# cache (D/LABEL.tc.txt), then the same command line again (the engine
# records it), which must measure nothing and write the same bytes. Both
# write W/LABEL.engine, kept as W/LABEL.{a,b}.engine; logs D/LABEL{,.warm}.log;
# TUNE_MS / WARM_MS the wall times.
tune_twice() {
  local label=$1 t0 t1 rc ok=0
  shift
  rm -f "$D/$label.tc.txt"
  t0=$(date +%s%N)
  run_t "$BIN/kilnc" "$@" --tuning-cache "$D/$label.tc.txt" --explain-tuning -o "$W/$label.engine" 2> "$D/$label.log"
  rc=$?; t1=$(date +%s%N); TUNE_MS=$(( (t1 - t0) / 1000000 ))
  mv -f "$W/$label.engine" "$W/$label.a.engine" 2> /dev/null
  echo "$label: measuring compile rc=$rc in $TUNE_MS ms"
  grep -E "^tune:|measured" "$D/$label.log" | tail -n 5
  [ $rc = 0 ] || { tail -n 20 "$D/$label.log"; return 1; }
  t0=$(date +%s%N)
  run_t "$BIN/kilnc" "$@" --tuning-cache "$D/$label.tc.txt" --explain-tuning -o "$W/$label.engine" 2> "$D/$label.warm.log"
  rc=$?; t1=$(date +%s%N); WARM_MS=$(( (t1 - t0) / 1000000 ))
  mv -f "$W/$label.engine" "$W/$label.b.engine" 2> /dev/null
  echo "$label: warm rebuild rc=$rc in $WARM_MS ms"
  if grep -q "measuring" "$D/$label.warm.log"; then echo "FAIL $label: the warm rebuild measured"; ok=1; fi
  if cmp -s "$W/$label.a.engine" "$W/$label.b.engine"; then echo "PASS $label: engines byte-identical"
  else echo "FAIL $label: engines differ"; ok=1; fi
  return $ok
}
# median_ms ENGINE KILN-RUN-ARGS...: kiln-run --bench 100's median.
median_ms() {
  local e=$1
  shift
  run_t "$BIN/kiln-run" "$e" "$@" --bench 100 2>&1 | sed -n 's/.*median \([0-9.]*\).*/\1/p' | head -n 1
}
# micro_check MICRO-ARGS...: bench/micro.py, then bench/compare.py's verdict.
micro_check() {
  local j rc
  run_t python3 bench/micro.py --bin "$BIN" --work "$W" --results "$D" "$@" > "$D/micro.log" 2>&1
  rc=$?
  j=$(ls -t "$D"/*/micro-*.json 2>/dev/null | head -n 1)
  [ -n "$j" ] || { quiet < "$D/micro.log" | tail -n 20; DETAIL="micro.py wrote no JSON (rc $rc)"; return 1; }
  python3 bench/compare.py "$j" > "$D/verdict.md"
  rc=$?
  cat "$D/verdict.md"
  DETAIL=$(tail -n 1 "$D/verdict.md")
  return $rc
}

# --- checks: each keeps its results under D, puts what it only needs under W
# (scratch, never packed), sets DETAIL and returns 0 (PASS), 1 (FAIL) or 77
# (SKIP) ------------------------------------------------------------------------
check_unit() {
  local rc
  need KilnRuntimeTest || return 77
  run_t "$BIN/KilnRuntimeTest" --gtest_brief=1 > "$D/unit-gpu.log" 2>&1
  rc=$?
  grep -E '^\[  (FAILED|PASSED|SKIPPED) +\]' "$D/unit-gpu.log" | grep -v '^\[  SKIPPED \] [A-Z]'
  DETAIL=$(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]' "$D/unit-gpu.log" | tr -s ' ' | tr '\n' ' ')
  return $(( rc != 0 ))
}

check_engines() {
  local e name tol ok t pass=0 fail=0
  ls "$ENGINES"/*.engine > /dev/null 2>&1 || { DETAIL="no engines (--engines DIR, or a pack)"; return 77; }
  need kiln-run || return 1
  for e in "$ENGINES"/*.engine; do
    name=$(basename "${e%.engine}")
    # *.fp16.engine: an f32 model compiled with --precision=fp16, against the
    # evaluator's fp16 result (rounding differs where kernels keep f32).
    tol="--rtol 1e-3 --atol 1e-4"
    case "$e" in *.fp16.engine) tol="--rtol 2e-2 --atol 2e-2" ;; esac
    # *.tf32.engine: --precision=tf32 (matmul operands rounded to tf32, sums
    # in f32): per output max |err| <= 1e-2 * max |ref| against the f32
    # reference (*.ort.npz), and <= 2e-3 * max |ref| against the evaluator's
    # tf32 result (*.eval.npz: the same rounding, only the sums' order differs).
    case "$e" in *.tf32.engine) tol="--max-rel 1e-2" ;; esac
    # cublaslt-*.fp16.engine: cuBLASLt adds bias and residual to the f32 sums
    # and rounds once, where the evaluator rounds each step to f16; a residual
    # that cancels a large product shows that 1-ulp difference of the product
    # (0.125 at 203) per element, so the check is relative to the output's
    # scale (the autotuner's own rule: 1e-2 * max |ref|), here 5e-3.
    case "$e" in */cublaslt-*.fp16.engine) tol="--max-rel 5e-3" ;; esac
    # The stream-K and swap_ab MLPs (K = 1280, outputs up to 500): the hidden
    # layer's f16 rounding differs from the evaluator's by an ulp here and
    # there, and a residual that cancels the product leaves that difference
    # in small outputs. The default kernels fail the elementwise rule on the
    # same elements, so these are checked relative to the scale too.
    case "$e" in */stream-k-*mlp.fp16.engine | */swap-ab-mlp*.fp16.engine) tol="--max-rel 5e-3" ;; esac
    ok=1 t=$(left)
    t=$(( t < 60 ? t : 60 )) # a hung kernel fails its engine, not the whole check
    # shellcheck disable=SC2086
    timeout "$t" "$BIN/kiln-run" "$e" --inputs "${e%.engine}.inputs.npz" --compare "${e%.engine}.ort.npz" $tol \
      > "$D/$name.log" 2>&1 || ok=0
    if [ -e "${e%.engine}.eval.npz" ]; then
      timeout "$t" "$BIN/kiln-run" "$e" --inputs "${e%.engine}.inputs.npz" --compare "${e%.engine}.eval.npz" \
        --max-rel 2e-3 >> "$D/$name.log" 2>&1 || ok=0
    fi
    if [ $ok = 1 ]; then
      pass=$((pass + 1)); rm -f "$D/$name.log"
      [ $VERBOSE = 1 ] && echo "PASS $name"
    else
      fail=$((fail + 1)); echo "FAIL $name"; grep -v '^PASS' "$D/$name.log" | head -n 8
    fi
    [ "$(left)" -gt 1 ] || { TIMED_OUT=1; break; }
  done
  DETAIL="$pass passed, $fail failed"
  return $(( fail != 0 ))
}

check_node_suite() {
  local line
  need kilnc kiln-run || return 1
  if [ -z "$NODE_DATA" ] && ! python3 -c "import onnx, os, sys; sys.exit(not os.path.isdir(os.path.join(os.path.dirname(onnx.__file__), 'backend/test/data/node')))"; then
    DETAIL="no node tests (--node-data DIR, or a pack; this onnx package has none)"; return 77
  fi
  run_t python3 test/conformance/node_suite.py --kilnc "$BIN/kilnc" --kiln-run "$BIN/kiln-run" \
    ${NODE_DATA:+--data "$NODE_DATA"} --evaluate --backend gpu -j "$(nproc)" --json "$D/node-gpu.json" \
    > "$D/node-gpu.log" 2>&1
  grep -E "^(FAIL|CRASH|TIMEOUT)|^import:|^evaluate:" "$D/node-gpu.log" | tail -n 40
  line=$(grep '^evaluate:' "$D/node-gpu.log")
  DETAIL=${line:-"node_suite.py printed no verdict (see node-gpu.log)"}
  # Every imported test must match: "evaluate: N passed of N imported".
  [[ $line =~ ^evaluate:\ ([0-9]+)\ passed\ of\ ([0-9]+)\ imported ]] &&
    [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] && [ "${BASH_REMATCH[2]}" -gt 0 ]
}

check_models() {
  local rc
  need kilnc kiln-run || return 1
  run_t python3 test/gpu/models_gpu.py --bin "$BIN" --work "$W" --json "$D/models-gpu.json" > "$D/models-gpu.log" 2>&1
  rc=$?
  quiet < "$D/models-gpu.log" | sed -n '/^model /,$p'
  DETAIL="$(grep -cE '^[a-z0-9-]+ +[a-z]+ +[0-9x]+ +PASS ' "$D/models-gpu.log") rows PASS against onnxruntime"
  return $(( rc != 0 ))
}

check_export_models() {
  local rc
  need kilnc kiln-eval || return 1
  run_t python3 test/models/make_models.py "$W" > "$D/export.log" 2>&1 ||
    { tail -n 20 "$D/export.log"; DETAIL="export failed"; return 1; }
  tar -czf "$D/small-models.tgz" -C "$W" .
  run_t python3 test/models/check_models.py --data "$W" --kilnc "$BIN/kilnc" > "$D/check-models.log" 2>&1
  rc=$?
  tail -n 12 "$D/check-models.log"
  DETAIL="evaluator vs onnxruntime on $(ls "$W"/*.onnx | wc -l) exports; export-models/small-models.tgz"
  return $(( rc != 0 ))
}

check_tune() {
  local e ok=0
  need kilnc kiln-run kiln-eval || return 1
  python3 test/tools/mkonnx.py -o "$W/mm.onnx" 'x: f16[512,768]; w: f16[768,3072] = random(seed=1); v: f16[3072,768] = random(seed=2); y = MatMul(x, w); z = MatMul(y, v); out z' || return 1
  python3 -c "import sys, numpy as np; np.savez(sys.argv[1], x=(np.random.default_rng(3).standard_normal((512, 768)) * 0.5).astype(np.float16))" "$W/in.npz"
  run_t "$BIN/kiln-eval" "$W/mm.onnx" --inputs "$W/in.npz" --outputs "$W/ref.npz" || { DETAIL="kiln-eval failed"; return 1; }
  tune_twice mm "$W/mm.onnx" --autotune=default || ok=1
  "$BIN/kilnc" "$W/mm.onnx" -o "$W/mm.h.engine" || ok=1
  for e in a b h; do
    if run_t "$BIN/kiln-run" "$W/mm.$e.engine" --inputs "$W/in.npz" --compare "$W/ref.npz" --rtol 2e-2 --atol 1 \
        --bench 50 > "$D/run-$e.log" 2>&1; then
      echo "PASS engine $e ($( [ $e = h ] && echo untuned || echo tuned)) against the evaluator, median $(sed -n 's/.*median \([0-9.]*\).*/\1/p' "$D/run-$e.log") ms"
    else
      echo "FAIL engine $e against the evaluator"; tail -n 5 "$D/run-$e.log"; ok=1
    fi
  done
  DETAIL="cold ${TUNE_MS:-?} ms, warm ${WARM_MS:-?} ms"
  return $ok
}

check_tune_model() {
  local model=${TUNE_MODEL%%:*} shape=${TUNE_MODEL#*:} out onnx spec tuned untuned label ok=0
  need kilnc kiln-run || return 1
  label=$model-$shape-$TUNE_LEVEL
  out=$(run_t python3 bench/zoo.py export "$model" "$shape" fp16 --work "$WORK/bench" --inputs "$W/inputs.npz" \
    2> "$D/export.log" | tail -n 2)
  onnx=$(sed -n 1p <<< "$out") spec=$(sed -n 2p <<< "$out")
  [ -f "$onnx" ] || { quiet < "$D/export.log" | tail -n 10; DETAIL="no export of $model $shape"; return 1; }
  tune_twice "$label" "$onnx" -O3 --input-shape "$spec" --autotune="$TUNE_LEVEL" || ok=1
  "$BIN/kilnc" "$onnx" -O3 --input-shape "$spec" -o "$W/untuned.engine" 2> /dev/null || ok=1
  untuned=$(median_ms "$W/untuned.engine" --inputs "$W/inputs.npz")
  tuned=$(median_ms "$W/$label.a.engine" --inputs "$W/inputs.npz")
  echo "$model $shape: tuned ${tuned:-?} ms, untuned ${untuned:-?} ms (kiln-run --bench 100 medians)"
  run_t "$BIN/kiln-run" "$W/$label.a.engine" --inputs "$W/inputs.npz" --profile "$D/tuned.trace.json" \
    > "$D/tuned.profile.txt" 2>&1
  [ -n "$tuned" ] && [ -n "$untuned" ] || ok=1
  DETAIL="--autotune=$TUNE_LEVEL $model $shape: cold $(( ${TUNE_MS:-0} / 1000 )) s, warm $(( ${WARM_MS:-0} / 1000 )) s; tuned ${tuned:-?} ms, untuned ${untuned:-?} ms"
  return $ok
}

check_race() {
  local m s i fails total=0 dropped=0 n bad=0
  need kilnc kiln-run kiln-inspect || return 1
  # A 512 x 768 x 3072 f16 product on the cooperative schedule with the
  # staged epilogue, and a BERT FFN2-like product (bias + residual) whose
  # default takes that schedule, each against the mma path (another kernel
  # family) on fresh inputs in fresh processes.
  python3 test/tools/mkonnx.py -o "$W/a.onnx" 'x: f16[512,768]; w: f16[768,3072] = random(seed=1); y = MatMul(x, w); out y' || return 1
  python3 test/tools/mkonnx.py -o "$W/b.onnx" 'x: f16[4096,3072]; w: f16[3072,768] = random(seed=2); b: f16[768] = random(seed=3); r: f16[4096,768]; y = MatMul(x, w); z = Add(y, b); s = Add(z, r); out s' || return 1
  "$BIN/kilnc" "$W/a.onnx" --matmul-path=mma -o "$W/a.ref.engine" &&
    "$BIN/kilnc" "$W/a.onnx" --matmul-path=wgmma --set=matmul.tma=true --set=matmul.tile_m=128 \
      --set=matmul.tile_n=128 --set=matmul.warpgroups=2 --set=matmul.pingpong=false \
      --set=matmul.stage_out=true --set=matmul.stages=4 --set=matmul.group_m=8 -o "$W/a.test.engine" &&
    "$BIN/kilnc" "$W/b.onnx" --matmul-path=mma -o "$W/b.ref.engine" &&
    "$BIN/kilnc" "$W/b.onnx" -O2 -o "$W/b.test.engine" || { DETAIL="kilnc failed"; return 1; }
  echo "b default wgmma launches: $("$BIN/kiln-inspect" "$W/b.test.engine" --kernels | grep -c wgmma)"
  for m in a b; do
    fails=0
    for s in $(seq 1 "$RACE_RUNS"); do
      if ! run_t "$BIN/kiln-run" "$W/$m.ref.engine" --seed "$s" --save-inputs "$W/in.npz" --outputs "$W/ref.npz" \
          > "$W/run.log" 2>&1; then
        echo "FAIL $m: the reference run failed: $(grep -m1 -i 'error' "$W/run.log")"; bad=1; break
      fi
      if ! run_t "$BIN/kiln-run" "$W/$m.test.engine" --inputs "$W/in.npz" --compare "$W/ref.npz" --max-rel 1e-2 \
          > "$W/run.log" 2>&1; then
        fails=$((fails + 1)); echo "FAIL $m seed $s: $(grep -m1 -i 'fail\|error' "$W/run.log")"
      fi
      [ "$(left)" -gt 1 ] || break
    done
    echo "$m: $fails of $RACE_RUNS runs wrong"; total=$((total + fails))
  done
  # The autotuner's workers run candidates one after another, so a kernel
  # finds the shared memory the previous one left: a dropped candidate is a
  # wrong result.
  for i in 1 2 3; do
    run_t "$BIN/kilnc" "$W/a.onnx" --autotune=default --tuning-cache "$W/tc-$i.txt" --explain-tuning \
      -o "$W/t.engine" 2> "$D/tune-$i.log" || { echo "FAIL tune $i: kilnc failed"; tail -n 3 "$D/tune-$i.log"; bad=1; }
    n=$(grep -c 'dropped' "$D/tune-$i.log")
    echo "tune $i: $n dropped"; grep 'dropped' "$D/tune-$i.log" | cut -c1-300
    dropped=$((dropped + n))
  done
  DETAIL="$total wrong runs, $dropped candidates dropped"
  [ $bad = 0 ] || DETAIL="$DETAIL; a reference run or a measuring compile failed"
  [ $total = 0 ] && [ $dropped = 0 ] && [ $bad = 0 ]
}

check_bench() {
  local new base='' rc
  need kilnc kiln-run kiln-inspect || return 1
  # shellcheck disable=SC2086
  run_t python3 bench/run.py $BENCH_ARGS --bin "$BIN" --work "$WORK/bench" --results "$D/new" > "$D/run.log" 2>&1
  rc=$?
  new=$(ls -t "$D"/new/*/run-*.json 2>/dev/null | head -n 1)
  [ -n "$new" ] || { quiet < "$D/run.log" | tail -n 20; DETAIL="run.py wrote no JSON (rc $rc)"; return 1; }
  sed -n '/^| model/,/^$/p' "${new%.json}.md" 2>/dev/null
  if [ -n "$BIN_BASE" ]; then
    # The base build's Kiln side on the same exports (eager runs as the reference).
    mkdir -p "$WORK/bench-base" && ln -sfn "$WORK/bench/onnx" "$WORK/bench-base/onnx"
    # shellcheck disable=SC2086
    run_t python3 bench/run.py $BENCH_ARGS --peers kiln --bin "$BIN_BASE" --work "$WORK/bench-base" \
      --results "$D/base" > "$D/run-base.log" 2>&1
    base=$(ls -t "$D"/base/*/run-*.json 2>/dev/null | head -n 1)
    [ -n "$base" ] || { quiet < "$D/run-base.log" | tail -n 20; DETAIL="the base run wrote no JSON"; return 1; }
  fi
  python3 bench/compare.py "$new" ${base:+--base "$base"} --noise "$NOISE" > "$D/verdict.md"
  rc=$?
  cat "$D/verdict.md"
  DETAIL="$(tail -n 1 "$D/verdict.md")${base:+ (Kiln new vs base within $NOISE)}"
  return $rc
}

check_profile() {
  local e n fail=0 count=0
  ls "$WORK"/bench/kiln/*.engine > /dev/null 2>&1 || { DETAIL="no bench engines (run the bench check first)"; return 77; }
  for e in "$WORK"/bench/kiln/*.engine; do
    n=$(basename "${e%.engine}")
    count=$((count + 1))
    if run_t "$BIN/kiln-run" "$e" --inputs "${e%.engine}.inputs.npz" --profile "$D/$n.trace.json" > "$D/$n.txt" 2>&1; then
      echo "PASS profile $n"; head -n 18 "$D/$n.txt"
    else
      echo "FAIL profile $n"; tail -n 5 "$D/$n.txt"; fail=$((fail + 1))
    fi
  done
  DETAIL="$((count - fail)) of $count engines profiled (profile/*.txt, *.trace.json)"
  return $(( fail != 0 ))
}

check_floor() {
  local rows rc
  rows=$(ls -t "$RES"/bench/new/*/run-*.json 2>/dev/null | head -n 1)
  run_t python3 bench/gemm_floor.py ${rows:+--rows "$rows"} --out "$D" > "$D/floor.log" 2>&1
  rc=$?
  quiet < "$D/floor.log" | tail -n 8
  if [ $rc = 0 ]; then DETAIL="GEMM floor${rows:+ against the bench rows}: floor/floor.log"
  else DETAIL="gemm_floor.py failed (rc $rc): floor/floor.log"; fi
  return $(( rc != 0 ))
}

check_gemm() {
  micro_check --only gemm,gemm-gelu --gemm-dtypes fp16,bf16 --batch 20 --runs 100 --gemm-paths auto
}

check_attention() {
  micro_check --only attention --batch 20 --runs 100
}

check_micro() {
  # shellcheck disable=SC2086
  micro_check $MICRO_ARGS
}

check_attention_sweep() {
  # Every block shape (block_m x block_n) of the attention cases against the
  # heuristic's choice (EmitAttention.cpp); a shape kilnc refuses (shared
  # memory) shows "-".
  local m n line h best bm bn t total=0 slow=0
  need kilnc kiln-run || return 1
  python3 bench/micro.py --emit-onnx "$W/onnx" --only attention > /dev/null ||
    { DETAIL="micro.py --emit-onnx failed"; return 1; }
  for m in "$W"/onnx/attention-*.onnx; do
    n=$(basename "${m%.onnx}")
    "$BIN/kilnc" "$m" -O3 -o "$W/h.engine" > /dev/null 2>&1 || { DETAIL="$n: the heuristic's engine did not compile"; return 1; }
    h=$(median_ms "$W/h.engine")
    [ -n "$h" ] || { DETAIL="$n: the heuristic's engine did not run"; return 1; }
    line="$n: heuristic $h" best=$h
    for bm in 32 64 128; do
      for bn in 32 64; do
        t=-
        if "$BIN/kilnc" "$m" -O3 --set=attention.block_m="$bm" --set=attention.block_n="$bn" \
             -o "$W/s.engine" > /dev/null 2>&1; then
          t=$(median_ms "$W/s.engine")
          [ -n "$t" ] && awk "BEGIN { exit !($t < $best) }" && best=$t
        fi
        line="$line | ${bm}x${bn} ${t:--}"
      done
    done
    total=$((total + 1))
    if awk "BEGIN { exit !($h > 1.05 * $best) }"; then
      slow=$((slow + 1)); line="$line  (heuristic over 1.05x the best)"
    fi
    echo "$line" | tee -a "$D/sweep.txt"
    [ "$(left)" -gt 1 ] || break
  done
  DETAIL="heuristic within 1.05x of the best block shape on $((total - slow)) of $total cases"
}

check_ncu() {
  local rc
  # shellcheck disable=SC2086
  run_t python3 bench/ncu_gemm.py --bin "$BIN" --work "$W" --out "$D" $NCU_ARGS > "$D/ncu.log" 2>&1
  rc=$?
  tail -n 30 "$D/ncu.log"
  rm -f "$D"/*.ncu-rep
  DETAIL="Nsight Compute reports in ncu/"
  return $(( rc != 0 ))
}

check_cublas() {
  local rc
  # shellcheck disable=SC2086
  run_t python3 bench/cublas_kernels.py $CUBLAS_ARGS --out "$D/cublas-kernels.md" > "$D/cublas.log" 2>&1
  rc=$?
  quiet < "$D/cublas.log" | tail -n 40
  DETAIL="the cuBLAS kernels torch runs: cublas/cublas-kernels.md"
  return $(( rc != 0 ))
}

# --- driver ------------------------------------------------------------------
declare -A STATUS SECS DETAILS
FAILED=0
for c in "${LIST[@]}"; do
  limit=${LIMIT[$c]} t0=$(date +%s)
  if [ "$DEADLINE" -gt 0 ]; then
    rest=$(( START + DEADLINE - t0 ))
    [ "$rest" -lt "$limit" ] && limit=$rest
  fi
  echo; echo "== $c (limit $limit s)"
  DETAIL='' TIMED_OUT=0 TUNE_MS='' WARM_MS=''
  if [ "$limit" -lt 10 ]; then
    rc=77 DETAIL="no time left (--deadline $DEADLINE)"
  else
    CHECK_END=$(( t0 + limit )) D=$RES/$c W=$WORK/scratch/$c
    rm -rf "$D" "$W" && mkdir -p "$D" "$W"
    "check_${c//-/_}"
    rc=$?
  fi
  case $rc in
    0) s=PASS ;;
    77) s=SKIP ;;
    *) s=FAIL FAILED=1 ;;
  esac
  if [ "$TIMED_OUT" = 1 ]; then s=TIMEOUT FAILED=1; fi
  STATUS[$c]=$s SECS[$c]=$(( $(date +%s) - t0 )) DETAILS[$c]=$DETAIL
  echo "== $c: $s in ${SECS[$c]} s${DETAIL:+: $DETAIL}"
  [ $TAR = 1 ] && tar -czf "$OUTDIR/results.tar.gz" -C "$RES" .
done

{
  echo "== summary: ${GPU:-no GPU}, $(date -u '+%F %T') UTC, $(( $(date +%s) - START )) s"
  echo "| check | result | s | detail |"
  echo "|---|---|---|---|"
  for c in "${LIST[@]}"; do
    echo "| $c | ${STATUS[$c]} | ${SECS[$c]} | ${DETAILS[$c]} |"
  done
} | tee "$OUTDIR/summary.txt"
exit $FAILED

# Sourced by every notes/call*.sh on the GPU machine (directly where the
# call carries [".carry/quick"], through notes/call-common.sh where it
# carries the pack): B the quick carry's binaries, results under R, the log
# tee'd to $OUT/session.log, the GPU named, the start time in s.
set -uo pipefail
B=$PWD/.carry/quick/bin R=/tmp/kiln-results
mkdir -p $R/bench
exec > >(tee $OUT/session.log) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
s=$(date +%s)
# finish: the results packed into $OUT, the call's seconds.
finish() {
  tar -czf $OUT/results.tar.gz -C $R .
  echo "== session took $(( $(date +%s) - s )) s"
}
# ncu_gelu BIN SIDE: Nsight Compute on BERT's FFN1 + erf GELU (4096 x 3072,
# K = 768, fp16) built by BIN/kilnc; one line of its clock, cycles, time and
# executed instructions, labelled SIDE (files under $R/ncu-SIDE).
ncu_gelu() {
  timeout 100 python3 bench/ncu_gemm.py --bin $1 --work /tmp/kn-$2 --out $R/ncu-$2 --no-torch \
    --shapes "bert-ffn1=4096,768,3072" --epilogues gelu 2>&1 | tail -1
  echo "== $2: $(grep -E '^ +(Duration|SM Frequency|Elapsed Cycles|Executed Instructions  )' \
    $R/ncu-$2/bert-ffn1+gelu-kiln-auto.txt | awk '{print $1, $2, $NF}' | tr '\n' ' ')"
  rm -f $R/ncu-$2/*.ncu-rep
}
# m TIMEOUT MICRO-ARGS...: micro.py's Kiln and graphed-torch GEMM rows (binaries
# under B, results under $R/bench).
m() { local t=$(date +%s); echo "== micro $*"; timeout $1 python3 bench/micro.py --bin $B --work /tmp/km --results $R/bench --runs 100 "${@:2}" 2>&1 | grep -v "Warning\|warn(" | grep "^| gemm.*| kiln\|^| gemm.*(graph)\|FAIL\|rror" | tail -n 80; echo "== took $(( $(date +%s) - t )) s"; }
# FFN2_PATHS: --gemm-paths of the BERT/GPT-2 1x128 FFN2 sweep (call38, call39).
FFN2_PATHS=auto,cublaslt,x:split_k=8,x:split_k=2,x:split_k=8+stages=4,x:stages=4,x:tile_n=32+split_k=4,x:tile_n=32+split_k=8,x:tile_n=32+split_k=2,x:tile_n=32+split_k=4+stages=8,x:stream_k=true,x:tile_n=32+stream_k=true,x:tile_n=128+split_k=8

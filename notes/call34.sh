#!/usr/bin/env bash
# The staged epilogue's latency: rows a trip (matmul.epi_rows 1, 4, 8; 2 is
# the default's count) and the epilogue on the accumulators in registers
# (matmul.epi_regs) on the fused GELU and the zoo's GEMMs; Nsight Compute on
# BERT's FFN1 + GELU for each; the model rows at large batch with and
# without epi_regs, then the GEMM floor (bench/gemm_floor.py) against those
# rows. The build also has the GELU's -u^2 as a^2 (-log2(e) / 2), one
# instruction an element fewer (SASS on the CPU: 1762 -> 1746 in the kernel,
# FMUL 64 -> 48), and f16 adds, subtracts and multiplies of fused programs as
# one f16 instruction (kiln::add_f16; 1746 -> 1698). Carry [".carry/quick"]. `OUT=$OUT bash notes/call34.sh`
. notes/call-base.sh
mi() { local t=$(date +%s); echo "== micro $*"; timeout $1 python3 bench/micro.py --bin $B --work /tmp/km --results $R/bench --runs 100 --batch 20 "${@:2}" 2>&1 | grep -v "Warning\|warn(" | grep "^| gemm.*| kiln\|^| gemm.*(graph)\|FAIL\|rror" | tail -n 80; echo "== took $(( $(date +%s) - t )) s"; }
mi 150 --only gemm-gelu --gemm-dtypes fp16 --gemm-paths auto,x:epi_regs=true,x:epi_rows=1,x:epi_rows=4,x:epi_rows=8
tar -czf $OUT/results.tar.gz -C $R .
timeout 150 python3 bench/ncu_gemm.py --bin $B --work /tmp/kn --out $R/ncu --no-torch \
  --shapes "bert-ffn1=4096,768,3072" --epilogues gelu --variant "e4=--set=matmul.epi_rows=4" --variant "regs=--set=matmul.epi_regs=true" 2>&1 | tail -3
for f in $R/ncu/*.txt; do echo "== $(basename $f): $(grep -E '^ +(Duration|SM Frequency|Elapsed Cycles|Executed Instructions  |Issue Slots Busy)' $f | awk '{print $1, $2, $NF}' | tr '\n' ' ')"; done
rm -f $R/ncu/*.ncu-rep
mi 120 --only gemm --gemm-dtypes fp16 --gemm-paths auto,x:epi_regs=true
echo "== eltwise (fused f16 mul / add through kiln::mul_f16)"
timeout 90 python3 bench/micro.py --bin $B --work /tmp/km --results $R/bench --runs 50 --only eltwise,eltwise-heads 2>&1 | grep "^| elt\|FAIL\|rror" | tail -8
tar -czf $OUT/results.tar.gz -C $R .
rr() { local t=$(date +%s); echo "== run.py $*"; timeout 240 python3 bench/run.py --bin $B --results $R/bench --models bert-base,gpt2-small --shapes 32x128,8x512 --dtypes fp16 "$@" 2>&1 | grep "^| bert\|^| gpt2\|FAIL\|rror" | tail -8; echo "== took $(( $(date +%s) - t )) s"; }
rr --work /tmp/kw --peers eager,compile-default,compile-reduce-overhead,kiln
J=$(ls -t $R/bench/*/run-*.json | head -1)
mkdir -p /tmp/kw2 && ln -sfn /tmp/kw/onnx /tmp/kw2/onnx
rr --work /tmp/kw2 --peers kiln --kilnc-args=--set=matmul.epi_regs=true
timeout 120 python3 bench/gemm_floor.py --rows $J --out $R/bench 2>&1 | tail -8
finish

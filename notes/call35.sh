#!/usr/bin/env bash
# call34 cut to what is left of the device time (about 300 s): the fused
# GELU with the default build (the GELU's a^2 and the f16 adds), epi_regs and
# epi_rows=4; Nsight Compute on BERT's FFN1 + GELU (the default only, against
# call32's 14.53M instructions); micro's fused elementwise rows (f16 steps
# through kiln::mul_f16, checked against PyTorch); the model rows at large
# batch; the GEMM floor against those rows. Carry [".carry/quick"].
# `OUT=$OUT bash notes/call35.sh`
. notes/call-base.sh
mi() { local t=$(date +%s); echo "== micro $*"; timeout $1 python3 bench/micro.py --bin $B --work /tmp/km --results $R/bench --runs 100 --batch 20 "${@:2}" 2>&1 | grep -v "Warning\|warn(" | grep "^| gemm.*| kiln\|^| gemm.*(graph)\|^| elt\|FAIL\|rror" | tail -n 40; echo "== took $(( $(date +%s) - t )) s"; }
mi 80 --only gemm-gelu --gemm-dtypes fp16 --gemm-paths auto,x:epi_regs=true,x:epi_rows=4
tar -czf $OUT/results.tar.gz -C $R .
ncu_gelu $B bin
mi 50 --only eltwise --runs 30
t=$(date +%s); echo "== run.py large batch"
timeout 150 python3 bench/run.py --bin $B --work /tmp/kw --results $R/bench --models bert-base,gpt2-small --shapes 32x128,8x512 --dtypes fp16 --runs 50 --peers eager,compile-reduce-overhead,kiln 2>&1 | grep "^| bert\|^| gpt2\|FAIL\|rror" | tail -8
echo "== took $(( $(date +%s) - t )) s"
tar -czf $OUT/results.tar.gz -C $R .
J=$(ls -t $R/bench/*/run-*.json | head -1)
timeout 60 python3 bench/gemm_floor.py --rows $J --out $R/bench --runs 30 2>&1 | tail -6
finish

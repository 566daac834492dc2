#!/usr/bin/env bash
# What the erf GELU epilogue costs BERT's FFN1 (4096 x 3072, K = 768) today,
# against no epilogue, bias only and the tanh form (Nsight Compute, clocks
# left alone): whether a GELU with fewer instructions would pay.
# Carry [".carry/quick"]. `OUT=$OUT bash notes/call29.sh`
. notes/call-base.sh
timeout 400 python3 bench/ncu_gemm.py --bin $B --work /tmp/kn --out $R/ncu --no-torch \
  --shapes "bert-ffn1=4096,768,3072" --epilogues none,bias,gelu,gelu_tanh 2>&1 | tail -8
for f in $R/ncu/*.txt; do
  echo "== $(basename $f .txt)"
  grep -E "^ +(Duration|SM Frequency|Issue Slots Busy|Executed Ipc Active|Registers Per Thread|Compute \(SM\) Throughput)" $f | head -6
  grep -E "Stall|stall" $f | head -3 | cut -c1-200
done
rm -f $R/ncu/*.ncu-rep
finish

#!/usr/bin/env bash
# The erf GELU's polynomial by Estrin's scheme (4 dependent steps) against
# Horner's (9; the kilnc of call30 in .carry/quick/old): Nsight Compute on
# BERT's FFN1 + GELU and micro's fused GEMM + GELU, each side twice.
# Carry [".carry/quick"]. `OUT=$OUT bash notes/call31.sh`
. notes/quick-preamble.sh
for side in old bin old bin; do
  timeout 100 python3 bench/ncu_gemm.py --bin $PWD/.carry/quick/$side --work /tmp/kn-$side --out $R/ncu-$side --no-torch \
    --shapes "bert-ffn1=4096,768,3072" --epilogues gelu 2>&1 | tail -1
  f=$R/ncu-$side/bert-ffn1+gelu-kiln-auto.txt
  echo "== $side: $(grep -E '^ +(Duration|SM Frequency|Elapsed Cycles|Executed Instructions  )' $f | awk '{print $1, $2, $NF}' | tr '\n' ' ')"
  rm -f $R/ncu-$side/*.ncu-rep
done
for side in old bin; do
  timeout 80 python3 bench/micro.py --bin $PWD/.carry/quick/$side --work /tmp/km-$side --results $R/bench --runs 100 --batch 20 \
    --only gemm-gelu --gemm-dtypes fp16,bf16 2>&1 | grep "^| gemm-gelu" | sed "s/^/$side /"
done
tar -czf $OUT/results.tar.gz -C $R .
echo "== session took $(( $(date +%s) - s )) s"

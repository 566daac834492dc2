#!/usr/bin/env bash
# What BERT-base's attention bias is in the bench's export (sdpa, torchscript):
# its shape and the ops that compute it, from kilnc --emit=graph; and the
# attention's time with and without it (micro). Carry [".carry/quick"].
# `OUT=$OUT bash notes/call28.sh`
. notes/call-base.sh
timeout 150 python3 bench/run.py --bin $B --work /tmp/kw --results $R/bench --models bert-base --shapes 32x128 --dtypes fp16 --peers kiln 2>&1 | grep "^| bert\|FAIL\|rror" | tail -3
M=/tmp/kw/onnx/bert-base-32x128-fp16-s0/model.onnx
$B/kilnc $M --input-shape=input_ids=32x128 --input-shape=attention_mask=32x128 -O3 --emit=graph -o $OUT/bert-32x128.mlir
grep -n "graph.attention" $OUT/bert-32x128.mlir | head -2 | cut -c1-400
awk '/func.func/{f=1} f&&/graph.attention/{exit} f' $OUT/bert-32x128.mlir | grep -v "graph.constant" | cut -c1-300 | head -60
timeout 120 python3 bench/micro.py --bin $B --work /tmp/km --results $R/bench --runs 100 --batch 20 --only attention --labels "bert 32x128" 2>&1 | grep "^| attention"
finish

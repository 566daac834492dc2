#!/usr/bin/env bash
# Where `--autotune=max` on BERT-base 32x128 spends its 155 s (call24): each
# measured launch's line now ends with its compile and GPU-worker seconds.
# Carry [".carry/quick"] (stripped kilnc, kiln-run, kiln-inspect of the
# current build). `OUT=$OUT bash notes/call25.sh`
. notes/call-base.sh
timeout 150 python3 bench/run.py --bin $B --work /tmp/kw --results $R/bench --models bert-base --shapes 32x128 --dtypes fp16 --peers compile-reduce-overhead,kiln 2>&1 | grep "^| bert\|FAIL\|rror" | tail -4
timeout 240 test/gpu/tune_model.sh $B /tmp/kw/onnx/bert-base-32x128-fp16-s0/model.onnx input_ids=32x128,attention_mask=32x128 max $R/tune bert-32x128-max /tmp/kw/kiln/bert-base-32x128-fp16.inputs.npz
grep "^tuned" $R/tune/bert-32x128-max.log | sed 's/: .*winner/: winner/' | cut -c1-60,200- | head -20
grep -o "tuned @[^ ]*\|compile .* s, GPU .* s" $R/tune/bert-32x128-max.log | paste - - | head -20
finish

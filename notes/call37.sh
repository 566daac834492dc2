#!/usr/bin/env bash
# The must-shows in one call, meant for the H200 (the build of call36, which
# ran on an H100): gpu_check's engines section (unit tests and the committed
# models against onnxruntime), micro's GEMMs (the zoo, 4096^3, 8192^3) and the
# fused GELU in fp16 and bf16 against cuBLAS graphed, the model rows at large
# batch and batch 1 against eager, compile-default and reduce-overhead, the
# GEMM floor against those rows, then --autotune=max on BERT-base 32x128
# (cold, warm rebuild, byte-identical engines) in what is left of 575 s.
# `KILN_OPT=-O3 scripts/make_carry.sh`, carry [".carry/pack.tar.xz"].
# `OUT=$OUT bash notes/call37.sh`
. notes/call-common.sh
must_shows

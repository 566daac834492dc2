#!/usr/bin/env python3
"""Writes the numpy-made fixtures that NpyTest.cpp reads (run from any folder).

The values are simple closed forms so the C++ test can recompute them:
  a = arange(6, dtype=float32).reshape(2, 3) / 4
  b = arange(-2, 2, dtype=int64)
  c = float64(2.5)                     (a 0-d array)
  d = zeros((0, 3), dtype=uint8)
  e = array([True, False, True])
  f = arange(24, dtype=float16).reshape(2, 3, 4) - 12   (v1.npy alone)
"""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
arrays = dict(
    a=np.arange(6, dtype=np.float32).reshape(2, 3) / np.float32(4),
    b=np.arange(-2, 2, dtype=np.int64),
    c=np.array(2.5, dtype=np.float64),
    d=np.zeros((0, 3), dtype=np.uint8),
    e=np.array([True, False, True]),
)
np.savez(os.path.join(here, "savez.npz"), **arrays)
np.savez_compressed(os.path.join(here, "savez_compressed.npz"), **arrays)
np.save(os.path.join(here, "v1.npy"),
        np.arange(24, dtype=np.float16).reshape(2, 3, 4) - np.float16(12))

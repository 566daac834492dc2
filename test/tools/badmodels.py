#!/usr/bin/env python3
"""Writes crafted bad ONNX inputs for kilnc's error-path lit tests (test/lit/errors/).

Usage:
  badmodels.py CASE OUTDIR     write one case; the model is always OUTDIR/m/model.onnx
  badmodels.py all OUTDIR      write every case to OUTDIR/CASE/m/model.onnx
  badmodels.py --list          print the case names, one a line

Files that external data should (not) reach are written beside OUTDIR/m, in
OUTDIR itself, so "outside the model's folder" is always OUTDIR/m's parent.
Every external-data case points at a file that exists and has exactly the
bytes the tensor needs, so the only thing wrong is the rule being tested
(path outside the folder, symlink out, range past the end).

Only onnx.helper and plain protobuf are used (no onnx.checker: the point is
to write models the checker would reject), so the tests do not depend on any
other generator in the tree.
"""

import argparse
import os
import random
import shutil
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8


def _model(nodes, inputs, outputs, initializers=(), name="bad"):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    m = helper.make_model(graph, producer_name="kiln-badmodels",
                          opset_imports=[helper.make_opsetid("", OPSET)])
    m.ir_version = IR_VERSION
    return m


def _add_model(w):
    """Y = X + W with X, W float[N]; W is the given initializer."""
    n = 1
    for d in w.dims:
        n *= d
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, list(w.dims))
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, list(w.dims))
    node = helper.make_node("Add", ["X", "W"], ["Y"], name="add0")
    return _model([node], [x], [y], [w])


def _good_bytes():
    """A model that is valid except where a case breaks it: a large
    initializer makes the graph field most of the file, so a cut anywhere in
    its middle lands inside a length-delimited field."""
    w = numpy_helper.from_array(np.arange(1024, dtype=np.float32), "W")
    return _add_model(w).SerializeToString()


def _external_tensor(location, offset=None, length=None, n=4):
    t = TensorProto()
    t.name = "W"
    t.data_type = TensorProto.FLOAT
    t.dims.extend([n])
    t.data_location = TensorProto.EXTERNAL
    entries = [("location", location)]
    if offset is not None:
        entries.append(("offset", str(offset)))
    if length is not None:
        entries.append(("length", str(length)))
    for k, v in entries:
        e = t.external_data.add()
        e.key = k
        e.value = v
    return t


def _weights(n=4):
    return np.arange(1, n + 1, dtype=np.float32).tobytes()


# --- the cases: each takes (outdir, modeldir) and writes modeldir/model.onnx ---

def _write(modeldir, data):
    with open(os.path.join(modeldir, "model.onnx"), "wb") as f:
        f.write(data)


def _truncated(keep):
    """keep(size) -> number of leading bytes to keep."""
    def case(outdir, modeldir):
        data = _good_bytes()
        _write(modeldir, data[:keep(len(data))])
    return case


def case_not_onnx_text(outdir, modeldir):
    # Plain text (a common mistake: a git-lfs pointer or an HTML error page).
    _write(modeldir, b"version https://git-lfs.github.com/spec/v1\n"
                     b"oid sha256:0123456789abcdef\nsize 12345\n")


def case_not_onnx_random(outdir, modeldir):
    rng = random.Random(1234)  # fixed: the bytes must not parse (checked in selfcheck)
    _write(modeldir, bytes(rng.randrange(256) for _ in range(4096)))


def case_empty(outdir, modeldir):
    _write(modeldir, b"")


def _unary_input_model(dims):
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, dims)
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, dims)
    return _model([helper.make_node("Relu", ["X"], ["Y"], name="relu0")], [x], [y])


def case_negative_dim(outdir, modeldir):
    _write(modeldir, _unary_input_model([-3, 4]).SerializeToString())


def case_overflow_dim(outdir, modeldir):
    # 2^62 * 2^62 overflows int64 element counts (and any byte count).
    _write(modeldir, _unary_input_model([1 << 62, 1 << 62]).SerializeToString())


def case_short_raw_data(outdir, modeldir):
    w = TensorProto()
    w.name = "W"
    w.data_type = TensorProto.FLOAT
    w.dims.extend([256])       # needs 1024 bytes
    w.raw_data = b"\0" * 10    # has 10
    _write(modeldir, _add_model(w).SerializeToString())


def case_ext_parent(outdir, modeldir):
    with open(os.path.join(outdir, "x"), "wb") as f:
        f.write(_weights())
    _write(modeldir, _add_model(_external_tensor("../x")).SerializeToString())


def case_ext_absolute(outdir, modeldir):
    path = os.path.abspath(os.path.join(outdir, "abs.bin"))
    with open(path, "wb") as f:
        f.write(_weights())
    _write(modeldir, _add_model(_external_tensor(path)).SerializeToString())


def case_ext_symlink(outdir, modeldir):
    target = os.path.join(outdir, "outside.bin")
    with open(target, "wb") as f:
        f.write(_weights())
    # A relative link: the name inside the folder is innocent, its target is not.
    os.symlink(os.path.join("..", "outside.bin"), os.path.join(modeldir, "weights.bin"))
    _write(modeldir, _add_model(_external_tensor("weights.bin")).SerializeToString())


def case_ext_offset_past_end(outdir, modeldir):
    # 16-byte file, data said to start at byte 4096.
    with open(os.path.join(modeldir, "weights.bin"), "wb") as f:
        f.write(_weights())
    t = _external_tensor("weights.bin", offset=4096, length=16)
    _write(modeldir, _add_model(t).SerializeToString())


def case_ext_length_past_end(outdir, modeldir):
    # 16-byte file, [8, 8+16) runs 8 bytes past its end; the tensor needs 16.
    with open(os.path.join(modeldir, "weights.bin"), "wb") as f:
        f.write(_weights())
    t = _external_tensor("weights.bin", offset=8, length=16)
    _write(modeldir, _add_model(t).SerializeToString())


def case_unsupported_ops(outdir, modeldir):
    # Two distinct unsupported ops (TopK twice, ScatterND once) among supported
    # ones; the error must list all three nodes, not just the first.
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [4, 8])
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None)
            for n in ("V1", "V2", "S")]
    k = numpy_helper.from_array(np.array([2], dtype=np.int64), "K")
    idx = numpy_helper.from_array(np.array([[0], [2]], dtype=np.int64), "IDX")
    upd = numpy_helper.from_array(np.ones((2, 8), dtype=np.float32), "UPD")
    nodes = [
        helper.make_node("Relu", ["X"], ["R"], name="relu0"),
        helper.make_node("TopK", ["R", "K"], ["V1", "I1"], name="topk_first"),
        helper.make_node("Neg", ["X"], ["N"], name="neg0"),
        helper.make_node("ScatterND", ["N", "IDX", "UPD"], ["S"], name="scatter0"),
        helper.make_node("TopK", ["N", "K"], ["V2", "I2"], name="topk_second"),
    ]
    _write(modeldir, _model(nodes, [x], outs, [k, idx, upd]).SerializeToString())


CASES = {
    # Cut points: inside the header, inside the graph at 1/4, 1/2, 3/4, and the
    # last byte (inside opset_import). Each is checked not to parse.
    "truncated-3": _truncated(lambda n: 3),
    "truncated-25": _truncated(lambda n: n // 4),
    "truncated-50": _truncated(lambda n: n // 2),
    "truncated-75": _truncated(lambda n: 3 * n // 4),
    "truncated-last": _truncated(lambda n: n - 1),
    "not-onnx-text": case_not_onnx_text,
    "not-onnx-random": case_not_onnx_random,
    "empty": case_empty,
    "negative-dim": case_negative_dim,
    "overflow-dim": case_overflow_dim,
    "short-raw-data": case_short_raw_data,
    "ext-parent": case_ext_parent,
    "ext-absolute": case_ext_absolute,
    "ext-symlink": case_ext_symlink,
    "ext-offset-past-end": case_ext_offset_past_end,
    "ext-length-past-end": case_ext_length_past_end,
    "unsupported-ops": case_unsupported_ops,
}


def write_case(name, outdir):
    """Writes CASE into a fresh OUTDIR (removed first) and returns the model path."""
    if os.path.lexists(outdir):
        if os.path.isdir(outdir) and not os.path.islink(outdir):
            shutil.rmtree(outdir)
        else:
            os.remove(outdir)
    modeldir = os.path.join(outdir, "m")
    os.makedirs(modeldir)
    CASES[name](outdir, modeldir)
    return os.path.join(modeldir, "model.onnx")


def selfcheck(outdir):
    """Checks what each case claims with the reference protobuf parser: the
    truncated and not-ONNX files must not parse, the others must, and the
    external-data targets must exist with the right bytes. Returns failures."""
    from onnx import ModelProto
    from google.protobuf.message import DecodeError
    bad = []
    must_not_parse = [n for n in CASES if n.startswith(("truncated", "not-onnx"))]
    for name in CASES:
        path = write_case(name, os.path.join(outdir, name))
        data = open(path, "rb").read()
        m = ModelProto()
        try:
            m.ParseFromString(data)
            parsed = True
        except DecodeError:
            parsed = False
        if name in must_not_parse and parsed:
            bad.append(f"{name}: parses as a ModelProto")
        if name not in must_not_parse and not parsed:
            bad.append(f"{name}: does not parse")
        if name.startswith("ext-") and parsed:
            t = m.graph.initializer[0]
            loc = {e.key: e.value for e in t.external_data}["location"]
            target = loc if os.path.isabs(loc) else os.path.join(os.path.dirname(path), loc)
            if not os.path.isfile(target) or os.path.getsize(target) != 16:
                bad.append(f"{name}: external target {target} missing or not 16 bytes")
    return bad


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("case", nargs="?", help="case name, or 'all'")
    p.add_argument("outdir", nargs="?")
    p.add_argument("--list", action="store_true", help="print case names")
    p.add_argument("--selfcheck", metavar="DIR",
                   help="write every case under DIR and check each with protobuf")
    a = p.parse_args()
    if a.list:
        print("\n".join(CASES))
        return 0
    if a.selfcheck:
        bad = selfcheck(a.selfcheck)
        for b in bad:
            print("FAIL", b)
        print(f"{len(CASES) - len(bad)} passed, {len(bad)} failed")
        return 1 if bad else 0
    if not a.case or not a.outdir:
        p.error("need CASE OUTDIR (or --list / --selfcheck DIR)")
    if a.case == "all":
        for name in CASES:
            write_case(name, os.path.join(a.outdir, name))
        return 0
    if a.case not in CASES:
        p.error(f"unknown case '{a.case}'; known: {', '.join(CASES)}")
    write_case(a.case, a.outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Builds a small ONNX model from a compact text description (for lit tests).

Usage:
  mkonnx.py -o model.onnx [--opset 17] [--check] 'x: f32[2,3]; y = Relu(x); out y'
  mkonnx.py -o model.onnx - <<EOF          (description read from stdin)
  mkonnx.py -o model.onnx --file test.test --tag MODEL   (lines "# MODEL: ...")

Several description arguments are joined as separate statements.

Grammar (statements end at ';' or a newline; '#' starts a comment):

  stmt     := input | init | node | output | opset
  input    := NAME ':' type                  graph input
  init     := NAME ':' type '=' value        initializer (a graph input too with
                                             --initializers-as-inputs)
  node     := outs '=' OP '(' [arg {',' arg}] ')'
  outs     := NAME {',' NAME}                '_' is an unused (empty) output
  arg      := NAME                           an input ('_' is an empty input)
            | KEY '=' attr                   an attribute, except two keys:
                                             name=NAME|"str" (node name) and
                                             domain=NAME (op domain)
  output   := 'out' NAME [':' type] {',' NAME [':' type]}
                                             graph outputs; without a type the
                                             type comes from ONNX shape inference
  opset    := 'opset' [DOMAIN] INT           same as --opset [DOMAIN=]INT

  type     := DTYPE [ '[' [dim {',' dim}] ']' ]   f32 and f32[] are scalars;
                                             f32[*] has an unknown rank
  dim      := INT | NAME (symbolic, dim_param) | '?' (unknown)
  DTYPE    := f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 bool

  attr     := INT | FLOAT                    1 is an int, 1.0 / 1e-5 / inf / nan floats
            | "string" | BAREWORD            a bare word is a string (auto_pad=SAME_UPPER)
            | DTYPE                          a bare dtype is its TensorProto enum (Cast to=f16)
            | '[' [attr {',' attr}] ']'      ints, floats (any float makes all floats)
                                             or strings; [] is an empty ints list
            | type value                     a tensor: value=f32[2]{1,2}, value=i64[]{3}

  value    := '{' v {',' v} '}'              row-major values; braces may nest and
                                             are flattened: {{1,2},{3,4}}; v is a
                                             number, true/false, inf, -inf or nan
            | random[(seed=S, low=L, high=H)] uniform in [L,H): floats default to
                                             [-1,1), integers to [0,10), bool 0/1
            | full(V) | zeros | ones
            | arange[(start=S, step=D)]      start, start+D, ... (default 0, 1)

Node names default to '<OP>_<n>', n counting the nodes of that op type from 0
(the first Add is 'Add_0', the second 'Add_1').

Options: --opset [DOMAIN=]N (default 17, repeatable; a node with another domain
gets version 1 unless given), --ir-version N (default: the lowest IR version
that supports the ai.onnx opset; below IR 4 initializers are also listed as
graph inputs, as that version requires), --check (onnx.checker with full_check),
--ort-check (load the model into an onnxruntime session), --value-info (store
inferred intermediate types), --print (print the graph to stderr).
"""

import argparse
import importlib.util
import re
import sys
import types

import numpy as np


def load_onnx_protos():
    """Returns (onnx_ml_pb2, onnx_cpp2py_export) without running onnx/__init__.py.

    'import onnx' costs most of a second (it loads ml_dtypes and the reference
    evaluator); a lit suite runs this script a thousand times, and it only needs
    the protobuf classes and the C++ shape inference.
    """
    spec = importlib.util.find_spec("onnx")
    if spec is None:
        sys.exit("mkonnx: error: the onnx Python package is not installed")
    if "onnx" not in sys.modules:
        pkg = types.ModuleType("onnx")
        pkg.__path__ = list(spec.submodule_search_locations)
        pkg.__spec__ = spec
        sys.modules["onnx"] = pkg
        try:
            from onnx import onnx_cpp2py_export, onnx_ml_pb2

            return onnx_ml_pb2, onnx_cpp2py_export
        except ImportError:  # a package layout this shortcut does not know
            for name in [m for m in sys.modules if m == "onnx" or m.startswith("onnx.")]:
                del sys.modules[name]
    import onnx

    return onnx.onnx_ml_pb2, onnx.onnx_cpp2py_export


P, C = load_onnx_protos()
TP = P.TensorProto
AP = P.AttributeProto

DTYPES = {
    "f16": TP.FLOAT16,
    "bf16": TP.BFLOAT16,
    "f32": TP.FLOAT,
    "f64": TP.DOUBLE,
    "i8": TP.INT8,
    "i16": TP.INT16,
    "i32": TP.INT32,
    "i64": TP.INT64,
    "u8": TP.UINT8,
    "u16": TP.UINT16,
    "u32": TP.UINT32,
    "u64": TP.UINT64,
    "bool": TP.BOOL,
}
NP_TO_ONNX = {}

# The lowest IR version that supports each ai.onnx opset (onnx.helper.VERSION_TABLE).
MIN_IR_VERSION = {1: 3, 2: 3, 3: 3, 4: 3, 5: 3, 6: 3, 7: 3, 8: 3, 9: 4, 10: 5,
                  11: 6, 12: 7, 13: 7, 14: 7, 15: 8, 16: 8, 17: 8, 18: 8, 19: 9,
                  20: 9, 21: 10, 22: 10, 23: 11, 24: 12, 25: 13}


def numpy_dtype(dtype):
    if dtype == "bf16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return {
        "f16": np.float16, "f32": np.float32, "f64": np.float64,
        "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
        "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
        "bool": np.bool_,
    }[dtype]


class DescriptionError(Exception):
    pass


# ---------------------------------------------------------------------------
# Lexer
# ---------------------------------------------------------------------------

TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\r]+|\\\n)
  | (?P<comment>\#[^\n]*)
  | (?P<newline>\n)
  | (?P<number>-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|-inf\b)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<name>[A-Za-z_/][A-Za-z0-9_./]*)
  | (?P<punct>[\[\]{}(),=;:?*])
    """,
    re.VERBOSE,
)


class Token:
    def __init__(self, kind, text, pos):
        self.kind, self.text, self.pos = kind, text, pos

    def __repr__(self):
        return "%s(%r)" % (self.kind, self.text)


def tokenize(text):
    tokens, pos = [], 0
    while pos < len(text):
        m = TOKEN_RE.match(text, pos)
        if not m:
            raise DescriptionError("unexpected character %r at offset %d: ...%s"
                                   % (text[pos], pos, text[pos:pos + 20]))
        kind = m.lastgroup
        if kind == "newline":
            tokens.append(Token("punct", ";", pos))
        elif kind not in ("ws", "comment"):
            tokens.append(Token(kind, m.group(), pos))
        pos = m.end()
    tokens.append(Token("eof", "", pos))
    return tokens


# ---------------------------------------------------------------------------
# Parser
# ---------------------------------------------------------------------------


class Parser:
    def __init__(self, text):
        self.text = text
        self.toks = tokenize(text)
        self.i = 0

    # Token helpers -------------------------------------------------------
    def peek(self, k=0):
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self):
        t = self.toks[self.i]
        self.i += 1
        return t

    def at(self, text, k=0):
        t = self.peek(k)
        return t.kind in ("punct", "name") and t.text == text

    def accept(self, text):
        if self.at(text):
            return self.next()
        return None

    def error(self, msg, tok=None):
        tok = tok or self.peek()
        line = self.text.count("\n", 0, tok.pos) + 1
        return DescriptionError("line %d near %r: %s" % (line, tok.text or "<end>", msg))

    def expect(self, text):
        if not self.at(text):
            raise self.error("expected %r" % text)
        return self.next()

    def expect_name(self, what="a name"):
        t = self.peek()
        if t.kind != "name":
            raise self.error("expected %s" % what)
        return self.next().text

    def expect_int(self):
        t = self.next()
        if t.kind != "number" or not re.fullmatch(r"-?\d+", t.text):
            raise self.error("expected an integer", t)
        return int(t.text)

    # Grammar ---------------------------------------------------------------
    def parse(self, model):
        while self.peek().kind != "eof":
            if self.accept(";"):
                continue
            self.statement(model)
            if self.peek().kind != "eof":
                self.expect(";")
        return model

    def statement(self, model):
        t = self.peek()
        if t.kind != "name":
            raise self.error("expected a statement")
        if t.text == "out" and self.peek(1).kind == "name":
            self.next()
            while True:
                name = self.expect_name("an output name")
                ty = self.parse_type() if self.accept(":") else None
                model.outputs.append((name, ty))
                if not self.accept(","):
                    break
            return
        if t.text == "opset" and self.peek(1).kind in ("name", "number"):
            self.next()
            domain = ""
            if self.peek().kind == "name":
                domain = self.next().text
            model.opsets[domain] = self.expect_int()
            return
        if self.at(":", 1):
            name = self.next().text
            self.next()
            ty = self.parse_type()
            if self.accept("="):
                model.initializers.append((name, ty, self.parse_value(ty)))
            else:
                model.inputs.append((name, ty))
            return
        outs = [self.expect_name("an output name")]
        while self.accept(","):
            outs.append(self.expect_name("an output name"))
        self.expect("=")
        op = self.expect_name("an op type")
        self.expect("(")
        inputs, attrs, name, domain = [], [], None, ""
        if not self.at(")"):
            while True:
                if self.peek().kind == "name" and self.at("=", 1):
                    key = self.next().text
                    self.next()
                    if key == "name":
                        t = self.next()
                        if t.kind not in ("name", "string"):
                            raise self.error("expected a node name", t)
                        name = t.text if t.kind == "name" else unquote(t.text)
                    elif key == "domain":
                        domain = self.expect_name("a domain")
                    else:
                        attrs.append((key, self.parse_attr()))
                else:
                    t = self.next()
                    if t.kind == "string":
                        inputs.append(unquote(t.text))
                    elif t.kind == "name":
                        inputs.append("" if t.text == "_" else t.text)
                    else:
                        raise self.error("expected an input name or key=value", t)
                if not self.accept(","):
                    break
        self.expect(")")
        outs = ["" if o == "_" else o for o in outs]
        model.nodes.append((op, inputs, outs, attrs, name, domain))

    def parse_type(self):
        tok = self.peek()
        dtype = self.expect_name("a dtype")
        if dtype not in DTYPES:
            raise self.error("unknown dtype %r (one of %s)" % (dtype, ", ".join(DTYPES)), tok)
        if not self.accept("["):
            return (dtype, [])
        if self.accept("*"):
            self.expect("]")
            return (dtype, None)
        dims = []
        if not self.at("]"):
            while True:
                t = self.next()
                if t.kind == "number":
                    dims.append(int(t.text))
                elif t.kind == "name":
                    dims.append(t.text)
                elif t.text == "?":
                    dims.append("?")
                else:
                    raise self.error("expected a dimension", t)
                if not self.accept(","):
                    break
        self.expect("]")
        return (dtype, dims)

    def parse_scalar(self):
        t = self.next()
        if t.kind == "number":
            return number(t.text)
        if t.kind == "name" and t.text in ("inf", "nan", "true", "false"):
            return {"inf": float("inf"), "nan": float("nan"), "true": True,
                    "false": False}[t.text]
        raise self.error("expected a number", t)

    def parse_call_args(self):
        """Parses an optional '(' [V | KEY=V] {',' ...} ')'."""
        positional, kwargs = [], {}
        if self.accept("("):
            if not self.at(")"):
                while True:
                    if self.peek().kind == "name" and self.at("=", 1):
                        key = self.next().text
                        self.next()
                        kwargs[key] = self.parse_scalar()
                    else:
                        positional.append(self.parse_scalar())
                    if not self.accept(","):
                        break
            self.expect(")")
        return positional, kwargs

    def parse_value(self, ty):
        """Returns a numpy array of type ty (static shape)."""
        dtype, dims = ty
        if dims is None or any(not isinstance(d, int) for d in dims):
            raise self.error("a constant needs a static shape")
        npdt = numpy_dtype(dtype)
        count = int(np.prod(dims, dtype=np.int64))
        if self.at("{"):
            vals = []
            self.parse_braces(vals)
            if len(vals) != count:
                raise self.error("%d values given for a %s of %d elements (use full(V) "
                                 "for a splat)" % (len(vals), type_string(ty), count))
            return np.array(vals, dtype=np.float64 if dtype == "bf16" else None).astype(
                npdt).reshape(dims)
        gen = self.expect_name("a value: {...}, random, full(V), zeros, ones or arange")
        tok = self.peek()
        pos, kw = self.parse_call_args()
        if (gen == "full") != bool(pos) or len(pos) > 1:
            raise self.error("only full takes one positional value: full(V)", tok)
        is_float = dtype in ("f16", "bf16", "f32", "f64")
        if gen == "random":
            rng = np.random.default_rng(int(kw.get("seed", 0)))
            if is_float:
                arr = rng.uniform(kw.get("low", -1.0), kw.get("high", 1.0), size=count)
            elif dtype == "bool":
                arr = rng.integers(0, 2, size=count)
            else:
                arr = rng.integers(int(kw.get("low", 0)), int(kw.get("high", 10)), size=count)
        elif gen == "full":
            arr = np.full(count, pos[0])
        elif gen == "zeros":
            arr = np.zeros(count)
        elif gen == "ones":
            arr = np.ones(count)
        elif gen == "arange":
            arr = kw.get("start", 0) + kw.get("step", 1) * np.arange(count)
        else:
            raise self.error("unknown value generator %r" % gen)
        return np.asarray(arr).astype(npdt).reshape(dims)

    def parse_braces(self, out):
        self.expect("{")
        if not self.at("}"):
            while True:
                if self.at("{"):
                    self.parse_braces(out)
                else:
                    out.append(self.parse_scalar())
                if not self.accept(","):
                    break
        self.expect("}")

    def parse_attr(self):
        t = self.peek()
        if t.kind == "number":
            self.next()
            return number(t.text)
        if t.kind == "string":
            self.next()
            return unquote(t.text)
        if self.at("["):
            self.next()
            items = []
            if not self.at("]"):
                while True:
                    items.append(self.parse_attr())
                    if not self.accept(","):
                        break
            self.expect("]")
            if any(isinstance(v, (Tensor, list)) for v in items):
                raise self.error("lists of tensors or lists are not supported")
            if any(isinstance(v, str) for v in items):
                if not all(isinstance(v, str) for v in items):
                    raise self.error("a list mixes strings and numbers")
                return ListAttr(items)
            if any(isinstance(v, float) for v in items):
                return ListAttr([float(v) for v in items])
            return ListAttr([int(v) for v in items])
        if t.kind == "name":
            if t.text in DTYPES and (self.at("[", 1) or self.at("{", 1)):
                ty = self.parse_type()
                return Tensor(ty[0], self.parse_value(ty))
            self.next()
            if t.text in ("inf", "nan"):
                return float(t.text)
            if t.text in DTYPES:
                return DTYPES[t.text]
            return t.text
        raise self.error("expected an attribute value")


class ListAttr(list):
    pass


class Tensor:
    def __init__(self, dtype, array):
        self.dtype, self.array = dtype, array


def number(text):
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return float(text)


def unquote(text):
    return bytes(text[1:-1], "utf-8").decode("unicode_escape")


def type_string(ty):
    dtype, dims = ty
    if dims is None:
        return dtype + "[*]"
    return "%s[%s]" % (dtype, ",".join(str(d) for d in dims))


# ---------------------------------------------------------------------------
# Model building
# ---------------------------------------------------------------------------


class Model:
    def __init__(self):
        self.inputs, self.initializers, self.nodes, self.outputs = [], [], [], []
        self.opsets = {}


def value_info(name, ty):
    vi = P.ValueInfoProto(name=name)
    if ty is None:
        return vi
    dtype, dims = ty
    tt = vi.type.tensor_type
    tt.elem_type = DTYPES[dtype]
    if dims is not None:
        tt.shape.SetInParent()
        for d in dims:
            dim = tt.shape.dim.add()
            if isinstance(d, int):
                dim.dim_value = d
            elif d != "?":
                dim.dim_param = d
    return vi


def make_tensor(arr, name, dtype):
    t = P.TensorProto(name=name, data_type=DTYPES[dtype], dims=list(arr.shape))
    t.raw_data = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
    return t


def make_attr(key, value):
    a = P.AttributeProto(name=key)
    if isinstance(value, Tensor):
        a.type = AP.TENSOR
        a.t.CopyFrom(make_tensor(value.array, "", value.dtype))
    elif isinstance(value, ListAttr):
        if value and isinstance(value[0], str):
            a.type = AP.STRINGS
            a.strings.extend(v.encode() for v in value)
        elif value and isinstance(value[0], float):
            a.type = AP.FLOATS
            a.floats.extend(value)
        else:
            a.type = AP.INTS
            a.ints.extend(value)
    elif isinstance(value, str):
        a.type, a.s = AP.STRING, value.encode()
    elif isinstance(value, float):
        a.type, a.f = AP.FLOAT, value
    else:
        a.type, a.i = AP.INT, value
    return a


def build(model, args):
    opsets = {"": 17}
    opsets.update(model.opsets)
    for spec in args.opset:
        domain, _, version = spec.rpartition("=")
        opsets[domain] = int(version)
    g = P.GraphProto(name=args.graph_name)
    counts = {}
    for op, inputs, outs, attrs, name, domain in model.nodes:
        if name is None:
            n = counts.get(op, 0)
            counts[op] = n + 1
            name = "%s_%d" % (op, n)
        node = g.node.add(op_type=op, name=name, input=inputs, output=outs)
        if domain:
            node.domain = domain
        node.attribute.extend(make_attr(k, v) for k, v in attrs)
        opsets.setdefault(domain, 1)
    for name, ty, arr in model.initializers:
        g.initializer.append(make_tensor(arr, name, ty[0]))
    ir_version = args.ir_version or MIN_IR_VERSION.get(opsets[""], 13)
    g.input.extend(value_info(n, t) for n, t in model.inputs)
    # Before IR version 4 every initializer had to be a graph input as well.
    if args.initializers_as_inputs or ir_version < 4:
        g.input.extend(value_info(n, t) for n, t, _ in model.initializers)

    declared = {n: t for n, t in model.inputs}
    declared.update((n, t) for n, t, _ in model.initializers)
    g.output.extend(value_info(n, t if t is not None else declared.get(n))
                    for n, t in model.outputs)

    m = P.ModelProto(producer_name="mkonnx", graph=g)
    for domain, version in sorted(opsets.items()):
        m.opset_import.add(domain=domain, version=version)
    m.ir_version = ir_version

    untyped = [o for o in m.graph.output if not o.type.HasField("tensor_type")]
    if untyped or args.value_info:
        try:
            inferred = P.ModelProto.FromString(
                C.shape_inference.infer_shapes(m.SerializeToString(), False, False, True))
        except Exception as e:  # let the tool under test see the bad model
            print("mkonnx: warning: shape inference failed: %s" % e, file=sys.stderr)
            inferred = None
        if inferred is not None:
            known = {v.name: v for v in list(inferred.graph.value_info) +
                     list(inferred.graph.output) if v.type.HasField("tensor_type")}
            for o in untyped:
                if o.name in known:
                    o.type.CopyFrom(known[o.name].type)
            if args.value_info:
                outs = {o.name for o in m.graph.output}
                m.graph.value_info.extend(v for v in inferred.graph.value_info
                                          if v.name not in outs)
    return m


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 epilog="See the module docstring for the grammar.")
    ap.add_argument("description", nargs="*",
                    help="model text; '-' or nothing reads stdin")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--opset", action="append", default=[], metavar="[DOMAIN=]N")
    ap.add_argument("--ir-version", type=int)
    ap.add_argument("--graph-name", default="mkonnx")
    ap.add_argument("--file", help="read the description from lines '<prefix> TAG: ...'")
    ap.add_argument("--tag", default="MODEL")
    ap.add_argument("--initializers-as-inputs", action="store_true")
    ap.add_argument("--value-info", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--ort-check", action="store_true")
    ap.add_argument("--print", action="store_true")
    args = ap.parse_args(argv)

    if args.file:
        pat = re.compile(r"^\s*(?://|#|;)?\s*%s:(.*)$" % re.escape(args.tag))
        with open(args.file) as f:
            text = "\n".join(m.group(1) for m in map(pat.match, f) if m)
    elif not args.description or args.description == ["-"]:
        text = sys.stdin.read()
    else:
        text = "\n".join(args.description)

    try:
        model = build(Parser(text).parse(Model()), args)
    except DescriptionError as e:
        print("mkonnx: error: %s" % e, file=sys.stderr)
        return 2
    data = model.SerializeToString()
    if args.print:
        print(C.printer.model_to_text(data), file=sys.stderr)
    if args.check:
        C.checker.check_model(data, True, False, False)
    with open(args.output, "wb") as f:
        f.write(data)
    if args.ort_check:
        import onnxruntime

        onnxruntime.InferenceSession(args.output, providers=["CPUExecutionProvider"])
    return 0


if __name__ == "__main__":
    sys.exit(main())

//===- Heuristic.cpp - Elementwise kinds: elementwise, fused_elementwise, transpose, slice, trilu ---===//
#include "compiler/kernels/elementwise/Elementwise.h"
#include "compiler/kernels/common/Geometry.h"
#include "compiler/kernels/common/IndexSpace.h"
#include "compiler/kernels/common/Layouts.h"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace kiln::codegen {

using namespace cuda;

namespace {
const std::set<std::string> &unaryOps() {
  static const std::set<std::string> ops = {
      "sqrt", "reciprocal", "exp",   "log",        "erf",  "tanh", "sigmoid",
      "sin",  "cos",        "floor", "ceil",       "neg",  "abs",  "relu",
      "not",  "is_nan",     "gelu",  "leaky_relu", "clip", "cast", "copy"};
  return ops;
}
const std::set<std::string> &binaryOps() {
  static const std::set<std::string> ops = {
      "add", "sub",   "mul",  "div",           "max",     "min",
      "pow", "equal", "less", "less_or_equal", "greater", "greater_or_equal",
      "and", "or",    "xor"};
  return ops;
}

bool checkVec(LaunchSpec &s, const IndexSpace &space, std::string &why) {
  int64_t v = s.config.get(keys::vec, 0);
  if (v == 0) {
    s.config.set(keys::vec, maxVectorWidth(space));
    return true;
  }
  if (v < 1 || (v & (v - 1)) != 0 || !vectorWidthLegal(space, v)) {
    why = "vec " + std::to_string(v) + " is not legal for these buffers";
    return false;
  }
  return true;
}

/// Elementwise and fused elementwise launches over `items` vectors: each
/// thread takes enough items per pass (EmitElementwise.cpp's unroll, which
/// it derives from this grid) for about four loads of 16 bytes or less in
/// flight from the inputs that stream along the innermost axis (a broadcast
/// along it is one cached scalar), and the grid covers the tensor in one
/// pass up to 2^20 blocks of 256.
void setElementwiseGrid(LaunchSpec &s, const IndexSpace &space, int64_t items) {
  constexpr int64_t kBlock = 256, kLoads = 4, kMaxBlocks = int64_t(1) << 20;
  int64_t streamed = 0;
  for (size_t k = 0; k < s.inputs.size(); ++k)
    streamed += space.accesses[k].strides.back() != 0;
  const int64_t unroll = std::clamp<int64_t>(
      ceilDiv(kLoads, std::max<int64_t>(1, streamed)), 1, 4);
  s.block = {kBlock, 1, 1};
  s.grid = {std::clamp<int64_t>(ceilDiv(items, kBlock * unroll), 1, kMaxBlocks),
            1, 1};
  s.smem = 0;
}

/// A fused_elementwise launch's explicit maps: `space` has the outputs'
/// element count, `input_strides` one non-negative stride per input and axis
/// of it, and no input is read past its last element.
bool explicitMapsValid(const LaunchSpec &s, std::string &why) {
  if (!s.config.has("space")) {
    why = "input_strides needs a space";
    return false;
  }
  std::vector<int64_t> space = s.config.getInts("space"),
                       strides = s.config.getInts("input_strides");
  int64_t n = 1;
  for (int64_t e : space) {
    if (e < 1) {
      why = "space extents must be positive";
      return false;
    }
    n *= e;
  }
  if (n != s.outputs[0].numElements()) {
    why = "space has " + std::to_string(n) + " elements, the output " +
          std::to_string(s.outputs[0].numElements());
    return false;
  }
  if (strides.size() != s.inputs.size() * space.size()) {
    why = "input_strides needs " + std::to_string(space.size()) +
          " strides per input";
    return false;
  }
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    int64_t last = 0;
    for (size_t k = 0; k < space.size(); ++k) {
      int64_t st = strides[i * space.size() + k];
      if (st < 0) {
        why = "input_strides must not be negative";
        return false;
      }
      last += st * (space[k] - 1);
    }
    if (last >= s.inputs[i].numElements()) {
      why = "input " + std::to_string(i) + " is read past its " +
            std::to_string(s.inputs[i].numElements()) + " elements";
      return false;
    }
  }
  return true;
}
} // namespace

bool configureElementwise(LaunchSpec &s, std::string &error,
                          const TargetOptions &target) {
  const BufferSpec &out = s.outputs[0];
  const int64_t n = out.numElements();
  Config &c = s.config;
  std::string why;
  auto fail = [&](const std::string &msg) { return refuse(error, msg); };

  // Elementwise kinds: inputs broadcast to the output, a grid-stride loop.
  auto broadcastLaunch = [&]() {
    if (s.kind == "fused_elementwise" && c.has("input_strides")) {
      if (!explicitMapsValid(s, why))
        return fail(why);
    } else {
      for (const BufferSpec &in : s.inputs)
        if (in.rank() > out.rank())
          return fail("an input has a higher rank than the output");
    }
    IndexSpace space = collapse(broadcastSpace(s));
    if (!checkVec(s, space, why))
      return fail(why);
    setElementwiseGrid(s, space, n / c.get(keys::vec));
    return true;
  };
  if (s.kind == "elementwise") {
    std::string op = c.getString("op");
    size_t arity = binaryOps().count(op)  ? 2
                   : op == "where"        ? 3
                   : unaryOps().count(op) ? 1
                                          : 0;
    if (arity == 0)
      return fail("unknown elementwise op '" + op + "'");
    if (s.inputs.size() != arity)
      return fail("op '" + op + "' takes " + std::to_string(arity) +
                  " inputs, got " + std::to_string(s.inputs.size()));
    return broadcastLaunch();
  }
  if (s.kind == "fused_elementwise") {
    std::vector<FusedStep> steps;
    if (!parseFusedProgram(c.getString("program"), s.inputs.size(), steps,
                           why))
      return fail(why);
    for (const FusedStep &st : steps) {
      if (st.op == "const") { // A literal: a value and no operands.
        if (!st.args.empty() || !st.attrs.has("value"))
          return fail("step 'const' takes a value and no operands");
        continue;
      }
      size_t arity = binaryOps().count(st.op)  ? 2
                     : st.op == "where"        ? 3
                     : unaryOps().count(st.op) ? 1
                                               : 0;
      if (arity == 0 || st.args.size() != arity)
        return fail("step '" + st.op + "' is not an elementwise op of " +
                    std::to_string(st.args.size()) + " operands");
    }
    // Several outputs: `outputs` names the step each stores, all of one
    // shape (one index space).
    if (c.has("outputs")) {
      std::vector<int64_t> outs = c.getInts("outputs");
      if (outs.size() != s.outputs.size())
        return fail("outputs names " + std::to_string(outs.size()) +
                    " steps for " + std::to_string(s.outputs.size()) +
                    " output buffers");
      for (size_t k = 0; k < outs.size(); ++k) {
        if (outs[k] < 0 || outs[k] >= static_cast<int64_t>(steps.size()) ||
            steps[outs[k]].dtype != s.outputs[k].dtype)
          return fail("output " + std::to_string(k) + " is not a step of " +
                      "its dtype");
        if (s.outputs[k].shape != out.shape)
          return fail("the outputs must all have one shape");
      }
    }
    return broadcastLaunch();
  }
  if (s.kind == "transpose" || s.kind == "slice" || s.kind == "trilu") {
    if (s.inputs.size() != 1 || s.inputs[0].rank() != out.rank())
      return fail("expects one input of the output's rank");
    IndexSpace space;
    if (s.kind == "transpose") {
      if (c.getInts("perm").size() != static_cast<size_t>(out.rank()))
        return fail("perm must have one entry per axis");
      space = collapse(transposeSpace(s));
      TransposeTiles tiles;
      bool tiled = transposeTiles(space, tiles);
      if (!c.has(keys::variant))
        c.set(keys::variant, tiled ? "tiled" : "index");
      std::string variant = c.get(keys::variant);
      if (variant == "tiled") {
        if (!tiled)
          return fail("the tiled variant needs an innermost output axis "
                      "strided in the input");
        s.block = {32, 8, 1};
        s.grid = {std::clamp<int64_t>(tiles.tiles, 1, kMaxGridX), 1, 1};
        s.smem = 0;
        return true;
      }
      if (variant != "index")
        return fail("unknown transpose variant '" + variant + "'");
    } else if (s.kind == "slice") {
      if (c.getInts("starts").size() != static_cast<size_t>(out.rank()) ||
          c.getInts("steps").size() != static_cast<size_t>(out.rank()))
        return fail("starts and steps must have one entry per axis");
      space = collapse(sliceSpace(s));
    } else {
      if (out.rank() < 2)
        return fail("trilu needs rank >= 2");
      space = collapse(broadcastSpace(s), 2);
    }
    if (!checkVec(s, space, why))
      return fail(why);
    setGridStride(s, n / c.get(keys::vec));
    return true;
  }
  return fail("unknown kernel kind");
}

} // namespace kiln::codegen

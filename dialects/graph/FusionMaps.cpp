//===- FusionMaps.cpp - Index maps of elementwise fusion regions ----------===//
#include "dialects/graph/FusionMaps.h"
#include "dialects/graph/GraphOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace kiln::graph {

bool isIndexMapOp(Operation *op) { return isa<ReshapeOp, TransposeOp>(op); }

namespace {

SmallVector<int64_t> rowMajor(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

class MapBuilder {
public:
  RegionMaps maps;

  /// Gives `v` the map `s`; false when it already has another one.
  bool assign(Value v, SmallVector<int64_t> s) {
    auto [it, fresh] = maps.strides.try_emplace(v, s);
    return fresh || it->second == s;
  }

  /// Splits iteration axis `k` into (space[k] / f, f): every map's stride t
  /// there becomes (t * f, t).
  void split(size_t k, int64_t f) {
    maps.space[k] /= f;
    maps.space.insert(maps.space.begin() + k + 1, f);
    for (auto &entry : maps.strides) {
      SmallVector<int64_t> &s = entry.second;
      int64_t t = s[k];
      s[k] = t * f;
      s.insert(s.begin() + k + 1, t);
    }
  }

  /// For each iteration axis, the axis of `v` its coordinate moves along
  /// (-1: none), refining the space until each moving axis stays inside one
  /// axis of `v`; `step[k]` is the coordinate step along that axis. False
  /// when `v`'s map is not a refinement of its row-major layout.
  bool axesOf(Value v, SmallVector<int> &axis, SmallVector<int64_t> &step) {
    ArrayRef<int64_t> shape = shapeOf(v);
    SmallVector<int64_t> rs = rowMajor(shape);
    axis.clear();
    step.clear();
    for (size_t k = 0; k < maps.space.size();) {
      int64_t s = maps.strides[v][k], n = maps.space[k];
      if (s == 0 || n == 1) {
        axis.push_back(-1);
        step.push_back(0);
        ++k;
        continue;
      }
      // The axis d whose span [rs[d], rs[d] * shape[d]) holds stride s.
      int d = -1;
      for (int j = static_cast<int>(shape.size()) - 1; j >= 0; --j)
        if (shape[j] > 1 && rs[j] <= s && s < rs[j] * shape[j]) {
          d = j;
          break;
        }
      if (d < 0 || s % rs[d] != 0)
        return false;
      int64_t a = s / rs[d];
      if (a * (n - 1) >= shape[d]) {
        // Axis k straddles d and the axes above it: its inner f steps stay
        // in d.
        if (shape[d] % a != 0 || n % (shape[d] / a) != 0)
          return false;
        split(k, shape[d] / a);
        continue; // re-examine the outer part
      }
      axis.push_back(d);
      step.push_back(a);
      ++k;
    }
    // The coordinates along each axis of v must not carry into the next.
    SmallVector<int64_t> reach(shape.size(), 0);
    for (size_t k = 0; k < axis.size(); ++k)
      if (axis[k] >= 0)
        reach[axis[k]] += step[k] * (maps.space[k] - 1);
    for (size_t d = 0; d < shape.size(); ++d)
      if (reach[d] >= shape[d])
        return false;
    return true;
  }

  /// Derives the maps of `op`'s operands from its result's.
  bool visit(Operation *op) {
    Value v = op->getResult(0);
    if (!maps.strides.count(v))
      return false; // a member used by nothing in the region
    if (auto r = dyn_cast<ReshapeOp>(op)) {
      SmallVector<int64_t> same = maps.strides[v];
      return assign(r.getInput(), std::move(same));
    }
    SmallVector<int> axis;
    SmallVector<int64_t> step;
    if (!axesOf(v, axis, step))
      return false;
    // An operand's strides from the result coordinate each iteration axis
    // moves: `along(d)` is the operand's stride for the result's axis d.
    auto derive = [&](Value operand, auto along) {
      SmallVector<int64_t> s(maps.space.size(), 0);
      for (size_t k = 0; k < axis.size(); ++k)
        if (axis[k] >= 0)
          s[k] = step[k] * along(axis[k]);
      return assign(operand, std::move(s));
    };
    ArrayRef<int64_t> out = shapeOf(v);
    if (auto t = dyn_cast<TransposeOp>(op)) {
      SmallVector<int64_t> rs = rowMajor(shapeOf(t.getInput()));
      ArrayRef<int64_t> perm = t.getPerm();
      return derive(t.getInput(), [&](int d) { return rs[perm[d]]; });
    }
    // Elementwise ops and expands: operands broadcast (numpy) to the result.
    for (Value operand : op->getOperands()) {
      ArrayRef<int64_t> in = shapeOf(operand);
      SmallVector<int64_t> rs = rowMajor(in);
      int64_t lead = static_cast<int64_t>(out.size() - in.size());
      if (!derive(operand, [&](int d) -> int64_t {
            int64_t j = d - lead;
            return j < 0 || in[j] == 1 ? 0 : rs[j];
          }))
        return false;
    }
    return true;
  }
};

} // namespace

std::optional<RegionMaps> computeRegionMaps(ArrayRef<Operation *> members,
                                            ArrayRef<Value> results) {
  if (results.empty())
    return std::nullopt;
  MapBuilder b;
  ArrayRef<int64_t> shape = shapeOf(results.front());
  b.maps.space.assign(shape.begin(), shape.end());
  for (Value r : results)
    if (shapeOf(r) != shape || !b.assign(r, rowMajor(shape)))
      return std::nullopt;
  for (Operation *op : llvm::reverse(members))
    if (op->getNumResults() != 1 || !b.visit(op))
      return std::nullopt;
  return std::move(b.maps);
}

} // namespace kiln::graph

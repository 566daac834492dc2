//===- Heuristic.cpp - Data movement: concat, gather, gather_elements -----------===//
#include "compiler/kernels/datamove/DataMove.h"
#include "compiler/kernels/common/Geometry.h"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace kiln::codegen {

using namespace cuda;

namespace {
/// Vector width for kernels that copy contiguous runs of `inner` elements
/// of `bytes` each between `buffers` (concat pieces, gathered rows): the
/// config's "vec" if legal, else the widest legal width of at most 16 bytes
/// (recorded in the config). Legal: divides the run, and every buffer is
/// aligned to a whole vector.
bool chooseRunVec(Config &c, int64_t inner, int64_t bytes,
                  const std::vector<const BufferSpec *> &buffers, int64_t &v,
                  std::string &why) {
  auto legal = [&](int64_t w) {
    if (w == 1)
      return true;
    if (inner % w != 0 || w * bytes > 16)
      return false;
    for (const BufferSpec *b : buffers)
      if (b->alignment % (w * bytes) != 0)
        return false;
    return true;
  };
  v = c.get(keys::vec, 0);
  if (v == 0) {
    for (v = 16 / bytes; v > 1 && !legal(v); v /= 2) {
    }
    c.set(keys::vec, v);
    return true;
  }
  if (!legal(v)) {
    why = "vec " + std::to_string(v) + " is not legal for these buffers";
    return false;
  }
  return true;
}
} // namespace

bool configureDataMove(LaunchSpec &s, std::string &error,
                       const TargetOptions &target) {
  const BufferSpec &out = s.outputs[0];
  const int64_t n = out.numElements();
  Config &c = s.config;
  std::string why;
  auto fail = [&](const std::string &msg) { return refuse(error, msg); };
  if (s.kind == "concat") {
    int64_t axis = c.getInt("axis", -1);
    if (s.inputs.empty() || axis < 0 || axis >= out.rank())
      return fail("concat needs inputs and an axis within the output's rank");
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < out.rank(); ++d)
      inner *= out.shape[d];
    std::vector<const BufferSpec *> moved = {&out};
    for (const BufferSpec &b : s.inputs)
      moved.push_back(&b);
    int64_t v = 1;
    if (!chooseRunVec(c, inner, dtypeBytes(out.dtype), moved, v, why))
      return fail(why);
    setGridStride(s, n / v);
    return true;
  }
  if (s.kind == "gather" || s.kind == "gather_elements") {
    if (s.inputs.size() != 2 || !isInteger(s.inputs[1].dtype))
      return fail("expects data and integer indices");
    int64_t axis = c.getInt("axis", -1);
    if (axis < 0 || axis >= s.inputs[0].rank())
      return fail("axis out of range");
    int64_t v = 1;
    if (s.kind == "gather") {
      int64_t inner = 1;
      for (int64_t d = axis + 1; d < s.inputs[0].rank(); ++d)
        inner *= s.inputs[0].shape[d];
      if (!chooseRunVec(c, inner, dtypeBytes(out.dtype),
                        {&s.inputs[0], &out}, v, why))
        return fail(why);
    }
    setGridStride(s, n / v);
    return true;
  }
  return fail("unknown kernel kind");
}

} // namespace kiln::codegen

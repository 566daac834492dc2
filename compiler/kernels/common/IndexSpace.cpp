//===- IndexSpace.cpp - Strided index maps of data-movement kernels -------===//
#include "compiler/kernels/common/IndexSpace.h"

#include <algorithm>

namespace kiln::codegen::cuda {

static StridedAccess contiguousAccess(const BufferSpec &b) {
  StridedAccess a;
  a.strides = rowMajorStrides(b.shape);
  a.elementBytes = dtypeBytes(b.dtype);
  a.alignment = b.alignment;
  return a;
}

IndexSpace broadcastSpace(const LaunchSpec &spec) {
  IndexSpace s;
  if (spec.config.has("input_strides")) {
    // Explicit maps (a fused region's reshapes and transposes): the inputs'
    // strides over `space`, the outputs row-major over it.
    s.shape = spec.config.getInts("space");
    std::vector<int64_t> all = spec.config.getInts("input_strides");
    for (size_t i = 0; i < spec.inputs.size(); ++i) {
      StridedAccess a = contiguousAccess(spec.inputs[i]);
      a.strides.assign(all.begin() + i * s.shape.size(),
                       all.begin() + (i + 1) * s.shape.size());
      s.accesses.push_back(a);
    }
    for (const BufferSpec &o : spec.outputs) {
      StridedAccess a = contiguousAccess(o);
      a.strides = rowMajorStrides(s.shape);
      s.accesses.push_back(a);
    }
    return s;
  }
  const BufferSpec &out = spec.outputs[0];
  s.shape = out.shape;
  size_t rank = out.shape.size();
  for (const BufferSpec &in : spec.inputs) {
    StridedAccess a = contiguousAccess(in);
    std::vector<int64_t> st(rank, 0);
    size_t lead = rank - in.shape.size();
    for (size_t i = 0; i < in.shape.size(); ++i)
      st[lead + i] = in.shape[i] == 1 ? 0 : a.strides[i];
    a.strides = st;
    s.accesses.push_back(a);
  }
  // Every output (fused kernels may have several, of one shape).
  for (const BufferSpec &o : spec.outputs)
    s.accesses.push_back(contiguousAccess(o));
  return s;
}

IndexSpace transposeSpace(const LaunchSpec &spec) {
  IndexSpace s;
  const BufferSpec &in = spec.inputs[0], &out = spec.outputs[0];
  s.shape = out.shape;
  StridedAccess a = contiguousAccess(in);
  std::vector<int64_t> inStrides = a.strides;
  std::vector<int64_t> perm = spec.config.getInts("perm");
  a.strides.clear();
  for (int64_t p : perm)
    a.strides.push_back(inStrides[p]);
  s.accesses.push_back(a);
  s.accesses.push_back(contiguousAccess(out));
  return s;
}

IndexSpace sliceSpace(const LaunchSpec &spec) {
  IndexSpace s;
  const BufferSpec &in = spec.inputs[0], &out = spec.outputs[0];
  s.shape = out.shape;
  StridedAccess a = contiguousAccess(in);
  std::vector<int64_t> starts = spec.config.getInts("starts");
  std::vector<int64_t> steps = spec.config.getInts("steps");
  for (size_t d = 0; d < a.strides.size(); ++d) {
    a.base += starts[d] * a.strides[d];
    a.strides[d] *= steps[d];
  }
  s.accesses.push_back(a);
  s.accesses.push_back(contiguousAccess(out));
  return s;
}

IndexSpace collapse(const IndexSpace &space, int keepInner) {
  int64_t rank = static_cast<int64_t>(space.shape.size());
  int64_t free = std::max<int64_t>(0, rank - keepInner);
  IndexSpace r;
  r.accesses = space.accesses;
  for (StridedAccess &a : r.accesses)
    a.strides.clear();
  auto push = [&](int64_t d) {
    r.shape.push_back(space.shape[d]);
    for (size_t k = 0; k < r.accesses.size(); ++k)
      r.accesses[k].strides.push_back(space.accesses[k].strides[d]);
  };
  for (int64_t d = 0; d < free; ++d) {
    if (space.shape[d] == 1)
      continue;
    // Merge into the previous kept axis when every access walks the pair
    // contiguously: stride(prev) == stride(d) * extent(d).
    bool merge = !r.shape.empty();
    for (size_t k = 0; merge && k < r.accesses.size(); ++k)
      merge = r.accesses[k].strides.back() ==
              space.accesses[k].strides[d] * space.shape[d];
    if (!merge) {
      push(d);
      continue;
    }
    r.shape.back() *= space.shape[d];
    for (size_t k = 0; k < r.accesses.size(); ++k)
      r.accesses[k].strides.back() = space.accesses[k].strides[d];
  }
  for (int64_t d = free; d < rank; ++d)
    push(d);
  if (r.shape.empty()) { // A single element: rank 1 of extent 1.
    r.shape.push_back(1);
    for (StridedAccess &a : r.accesses)
      a.strides.push_back(1);
  }
  return r;
}

bool transposeTiles(const IndexSpace &space, TransposeTiles &t) {
  const std::vector<int64_t> &in = space.accesses[0].strides,
                             &out = space.accesses[1].strides;
  int64_t rank = static_cast<int64_t>(space.shape.size());
  if (rank < 2 || in.back() == 1)
    return false;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (in[d] == 1)
      t.a = d;
  if (t.a < 0)
    return false;
  t.da = space.shape[t.a];
  t.dc = space.shape.back();
  t.inStrideC = in.back();
  t.outStrideA = out[t.a];
  t.batchShape.clear();
  t.inBatchStrides.clear();
  t.outBatchStrides.clear();
  for (int64_t d = 0; d < rank - 1; ++d) {
    if (d == t.a)
      continue;
    t.batchShape.push_back(space.shape[d]);
    t.inBatchStrides.push_back(in[d]);
    t.outBatchStrides.push_back(out[d]);
  }
  t.tiles = product(t.batchShape) * ((t.da + 31) / 32) * ((t.dc + 31) / 32);
  return true;
}

bool vectorWidthLegal(const IndexSpace &space, int64_t v) {
  if (v == 1)
    return true;
  if (space.shape.empty() || space.shape.back() % v != 0)
    return false;
  for (const StridedAccess &a : space.accesses) {
    int64_t inner = a.strides.back();
    if (inner == 0)
      continue; // Broadcast along the vector: one scalar load.
    if (inner != 1 || a.elementBytes * v > 16)
      return false;
    if (a.base % v != 0 || a.alignment % (a.elementBytes * v) != 0)
      return false;
    for (size_t d = 0; d + 1 < a.strides.size(); ++d)
      if (a.strides[d] % v != 0)
        return false;
  }
  return true;
}

int64_t maxVectorWidth(const IndexSpace &space) {
  int64_t maxBytes = 1;
  for (const StridedAccess &a : space.accesses)
    maxBytes = std::max(maxBytes, a.elementBytes);
  for (int64_t v = 16 / maxBytes; v > 1; v /= 2)
    if (vectorWidthLegal(space, v))
      return v;
  return 1;
}

} // namespace kiln::codegen::cuda

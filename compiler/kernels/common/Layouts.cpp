//===- Layouts.cpp - Index layouts of reductions and contractions ---------===//
#include "compiler/kernels/common/Layouts.h"

#include <algorithm>

namespace kiln::codegen::cuda {

ReduceLayout reduceLayout(const std::vector<int64_t> &inShape,
                          const std::vector<int64_t> &axes) {
  ReduceLayout r;
  std::vector<int64_t> strides = rowMajorStrides(inShape);
  int lastClass = -1; // 0 kept, 1 reduced
  for (size_t d = 0; d < inShape.size(); ++d) {
    if (inShape[d] == 1)
      continue;
    bool reduced =
        axes.empty() || std::find(axes.begin(), axes.end(),
                                  static_cast<int64_t>(d)) != axes.end();
    std::vector<int64_t> &shape = reduced ? r.redShape : r.keptShape;
    std::vector<int64_t> &st = reduced ? r.redStrides : r.keptStrides;
    if (lastClass == static_cast<int>(reduced)) {
      // Row-major input: the previous axis of this class is contiguous with d.
      shape.back() *= inShape[d];
      st.back() = strides[d];
    } else {
      shape.push_back(inShape[d]);
      st.push_back(strides[d]);
    }
    lastClass = reduced;
  }
  r.innerReduced = lastClass == 1;
  r.outCount = product(r.keptShape);
  r.redCount = product(r.redShape);
  // A zero-extent reduced axis gives redCount 0: every output is the
  // identity of the reduction.
  return r;
}

SoftmaxLayout softmaxLayout(const std::vector<int64_t> &shape, int64_t axis) {
  SoftmaxLayout l;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (d < axis)
      l.outer *= shape[d];
    else if (d == axis)
      l.len = shape[d];
    else
      l.inner *= shape[d];
  }
  return l;
}

bool matmulLayout(const LaunchSpec &spec, MatmulLayout &l, std::string &error) {
  const bool epilogue = spec.config.has("epilogue");
  if (spec.inputs.size() < 2 || (!epilogue && spec.inputs.size() > 3) ||
      spec.outputs.size() != 1) {
    error = "matmul takes a, b[, c] (or a, b and its epilogue's operands) and "
            "one output";
    return false;
  }
  const BufferSpec &a = spec.inputs[0], &b = spec.inputs[1],
                   &out = spec.outputs[0];
  if (a.rank() < 2 || b.rank() < 2 || out.rank() < 2) {
    error = "matmul operands must have rank >= 2 (lowering promotes vectors)";
    return false;
  }
  l.transA = spec.config.getBool("trans_a");
  l.transB = spec.config.getBool("trans_b");
  int64_t ar = a.rank(), br = b.rank(), orank = out.rank();
  l.m = l.transA ? a.shape[ar - 1] : a.shape[ar - 2];
  l.k = l.transA ? a.shape[ar - 2] : a.shape[ar - 1];
  int64_t kb = l.transB ? b.shape[br - 1] : b.shape[br - 2];
  l.n = l.transB ? b.shape[br - 2] : b.shape[br - 1];
  if (kb != l.k || out.shape[orank - 2] != l.m || out.shape[orank - 1] != l.n) {
    error = "matmul shapes do not match";
    return false;
  }
  l.batchShape.assign(out.shape.begin(), out.shape.end() - 2);
  size_t nb = l.batchShape.size();
  auto batchStrides = [&](const BufferSpec &x, std::vector<int64_t> &st) {
    std::vector<int64_t> xs = rowMajorStrides(x.shape);
    st.assign(nb, 0);
    int64_t xb = x.rank() - 2;
    if (xb > static_cast<int64_t>(nb))
      return false;
    for (int64_t i = 0; i < xb; ++i) {
      int64_t od = nb - xb + i;
      if (x.shape[i] != 1 && x.shape[i] != l.batchShape[od])
        return false;
      st[od] = x.shape[i] == 1 ? 0 : xs[i];
    }
    return true;
  };
  if (!batchStrides(a, l.aBatchStrides) || !batchStrides(b, l.bBatchStrides)) {
    error = "matmul batch axes do not broadcast to the output's";
    return false;
  }
  l.batch = product(l.batchShape);
  // A [M, N]-broadcast operand: its strides along m and n.
  auto broadcast2D = [&](const BufferSpec &c, int64_t &sm, int64_t &sn) {
    if (c.rank() > 2 || nb != 0)
      return false;
    std::vector<int64_t> cs = rowMajorStrides(c.shape);
    std::vector<int64_t> shape2(2 - c.rank(), 1), strides2(2 - c.rank(), 0);
    shape2.insert(shape2.end(), c.shape.begin(), c.shape.end());
    strides2.insert(strides2.end(), cs.begin(), cs.end());
    if ((shape2[0] != 1 && shape2[0] != l.m) ||
        (shape2[1] != 1 && shape2[1] != l.n))
      return false;
    sm = shape2[0] == 1 ? 0 : strides2[0];
    sn = shape2[1] == 1 ? 0 : strides2[1];
    return true;
  };
  if (epilogue) {
    for (size_t i = 2; i < spec.inputs.size(); ++i) {
      int64_t sm = 0, sn = 0;
      if (!broadcast2D(spec.inputs[i], sm, sn)) {
        error = "epilogue operand " + std::to_string(i) +
                " must broadcast to the [M, N] output of an unbatched matmul";
        return false;
      }
      l.epilogueStrides.emplace_back(sm, sn);
    }
    return true;
  }
  if (spec.inputs.size() == 3) {
    const BufferSpec &c = spec.inputs[2];
    if (c.rank() > 2 || nb != 0) {
      error = "matmul's c operand must have rank <= 2 and the output rank 2";
      return false;
    }
    if (!broadcast2D(c, l.cStrideM, l.cStrideN)) {
      error = "matmul's c does not broadcast to the output";
      return false;
    }
    l.hasC = true;
  }
  return true;
}

bool attentionLayout(const LaunchSpec &s, AttentionLayout &l,
                     std::string &error) {
  if (s.inputs.size() != 3 && s.inputs.size() != 4)
    return error = "attention takes q, k, v and an optional bias", false;
  const int64_t rank = s.outputs[0].rank();
  if (rank != 3 && rank != 4)
    return error = "attention takes operands of rank 3 or 4", false;
  // Canonical strides of buffer `b` read through `perm` (canonical axis i is
  // the buffer's axis perm[i]), padded to [b0, b1, seq, head].
  auto canonical = [&](const BufferSpec &b, const std::vector<int64_t> &perm,
                       std::array<int64_t, 4> &strides,
                       std::array<int64_t, 4> &dims, const char *what) {
    if (b.rank() != rank || (int64_t)perm.size() != rank)
      return error = std::string(what) + " has the wrong rank", false;
    std::vector<int64_t> st = rowMajorStrides(b.shape);
    std::vector<bool> seen(rank, false);
    strides = {0, 0, 0, 0};
    dims = {1, 1, 1, 1};
    for (int64_t i = 0; i < rank; ++i) {
      int64_t p = perm[i];
      if (p < 0 || p >= rank || seen[p])
        return error = std::string(what) + "_perm is not a permutation", false;
      seen[p] = true;
      strides[4 - rank + i] = st[p];
      dims[4 - rank + i] = b.shape[p];
    }
    if (perm.back() != rank - 1)
      return error = std::string(what) + "_perm must keep the head axis last",
             false;
    return true;
  };
  std::array<int64_t, 4> qd, kd, vd, od;
  if (!canonical(s.inputs[0], s.config.getInts("q_perm"), l.q, qd, "q") ||
      !canonical(s.inputs[1], s.config.getInts("k_perm"), l.k, kd, "k") ||
      !canonical(s.inputs[2], s.config.getInts("v_perm"), l.v, vd, "v"))
    return false;
  // A `*_heads` range [offset, count] narrows the heads axis.
  const char *headKeys[] = {"q_heads", "k_heads", "v_heads"};
  std::array<int64_t, 4> *dims[] = {&qd, &kd, &vd};
  std::array<int64_t, 4> *strides[] = {&l.q, &l.k, &l.v};
  for (int i = 0; i < 3; ++i) {
    if (!s.config.has(headKeys[i]))
      continue;
    std::vector<int64_t> h = s.config.getInts(headKeys[i]);
    if (rank != 4 || h.size() != 2 || h[0] < 0 || h[1] < 1 ||
        h[0] + h[1] > (*dims[i])[1])
      return error = std::string(headKeys[i]) +
                     " must be [offset, count] within the operand's heads",
             false;
    l.offsets[i] = h[0] * (*strides[i])[1];
    (*dims[i])[1] = h[1];
  }
  // The output buffer is the canonical output permuted by out_perm: its
  // axis i is canonical axis out_perm[i].
  std::vector<int64_t> operm = s.config.getInts("out_perm");
  if ((int64_t)operm.size() != rank || operm.back() != rank - 1)
    return error = "out_perm must permute the output keeping the head axis last",
           false;
  {
    std::vector<int64_t> st = rowMajorStrides(s.outputs[0].shape);
    std::vector<bool> seen(rank, false);
    l.out = {0, 0, 0, 0};
    od = {1, 1, 1, 1};
    for (int64_t i = 0; i < rank; ++i) {
      int64_t c = operm[i];
      if (c < 0 || c >= rank || seen[c])
        return error = "out_perm is not a permutation", false;
      seen[c] = true;
      l.out[4 - rank + c] = st[i];
      od[4 - rank + c] = s.outputs[0].shape[i];
    }
  }
  l.b0 = qd[0];
  l.b1 = qd[1];
  l.sq = qd[2];
  l.d = qd[3];
  l.sk = kd[2];
  l.dv = vd[3];
  if (s.config.has("q_per_kv")) {
    l.group = s.config.getInt("q_per_kv");
    if (rank != 4 || l.group < 1 || l.b1 % l.group != 0)
      return error =
                 "q_per_kv must be at least 1 and divide q's heads (rank 4)",
             false;
  }
  const int64_t kvHeads = l.b1 / l.group;
  if (kd[0] != l.b0 || kd[1] != kvHeads || vd[0] != l.b0 || vd[1] != kvHeads ||
      kd[3] != l.d || vd[2] != l.sk || od[0] != l.b0 || od[1] != l.b1 ||
      od[2] != l.sq || od[3] != l.dv)
    return error = "q, k, v and the output do not form an attention", false;
  for (const BufferSpec &b : s.inputs)
    if (b.dtype != s.outputs[0].dtype)
      return error = "attention operands must share the output's dtype", false;
  l.hasBias = s.inputs.size() == 4;
  l.bias = {0, 0, 0, 0};
  if (l.hasBias) {
    const BufferSpec &b = s.inputs[3];
    if (b.rank() > rank)
      return error = "the bias has a higher rank than the scores", false;
    std::array<int64_t, 4> scores = {l.b0, l.b1, l.sq, l.sk};
    std::vector<int64_t> st = rowMajorStrides(b.shape);
    for (int64_t i = 0; i < b.rank(); ++i) {
      int64_t axis = 4 - b.rank() + i, dim = b.shape[i];
      if (dim != 1 && dim != scores[axis])
        return error = "the bias does not broadcast to the scores", false;
      l.bias[axis] = dim == 1 ? 0 : st[i];
    }
  }
  return true;
}

void swapOperands(MatmulLayout &l) {
  // A' = B^T is B's buffer: K-major ([N, K] stored) exactly when B is.
  const bool transA = !l.transB, transB = !l.transA;
  std::swap(l.m, l.n);
  l.transA = transA;
  l.transB = transB;
  std::swap(l.aBatchStrides, l.bBatchStrides);
  std::swap(l.cStrideM, l.cStrideN);
  for (auto &[sm, sn] : l.epilogueStrides)
    std::swap(sm, sn);
  l.swapped = !l.swapped;
}

void matmulVectorLoads(const LaunchSpec &s, const MatmulLayout &l, bool &aVec,
                       bool &bVec) {
  const int64_t aCols = l.transA ? l.m : l.k, bCols = l.transB ? l.k : l.n;
  // Elements of one 16-byte load.
  const int64_t v = std::max<int64_t>(1, 16 / dtypeBytes(s.inputs[0].dtype));
  const BufferSpec &a = s.inputs[l.swapped ? 1 : 0],
                   &b = s.inputs[l.swapped ? 0 : 1];
  aVec = aCols % v == 0 && a.alignment % 16 == 0;
  bVec = bCols % v == 0 && b.alignment % 16 == 0;
  for (int64_t st : l.aBatchStrides)
    aVec = aVec && st % v == 0;
  for (int64_t st : l.bBatchStrides)
    bVec = bVec && st % v == 0;
}

} // namespace kiln::codegen::cuda

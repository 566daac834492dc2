//===- LibraryCalls.cpp - Matmul launches as cuBLASLt calls ---------------===//
#include "compiler/kernels/library/LibraryCalls.h"

#include "compiler/kernels/common/Layouts.h"

#include <algorithm>

namespace kiln::codegen {
namespace {

/// One batch stride for the whole batch: the operand's strides along the
/// output's batch axes are `unit` times the row-major strides of those
/// axes (a dense stack of matrices `unit` elements apart), or all 0 (one
/// matrix for every batch).
bool uniformBatchStride(const std::vector<int64_t> &batchShape,
                        const std::vector<int64_t> &strides, int64_t unit,
                        uint64_t &out) {
  if (std::all_of(strides.begin(), strides.end(),
                  [](int64_t s) { return s == 0; })) {
    out = 0;
    return true;
  }
  std::vector<int64_t> dense = rowMajorStrides(batchShape);
  for (size_t i = 0; i < strides.size(); ++i)
    if (batchShape[i] != 1 && strides[i] != dense[i] * unit)
      return false;
  out = uint64_t(unit);
  return true;
}

/// The largest power of two (up to 256) dividing `bytes`; 256 for 0.
uint32_t alignmentOf(uint64_t bytes) {
  uint32_t a = 256;
  while (a > 1 && bytes % a)
    a /= 2;
  return a;
}

} // namespace

bool cublasLtCall(const LaunchSpec &s, engine::LibraryCallSpec &call,
                  std::string &why) {
  call = engine::LibraryCallSpec();
  if (s.kind != "matmul") {
    why = "cuBLASLt runs matmul launches only";
    return false;
  }
  cuda::MatmulLayout l;
  if (!cuda::matmulLayout(s, l, why))
    return false;
  const DType t = s.inputs[0].dtype;
  if ((t != DType::F16 && t != DType::BF16 && t != DType::F32) ||
      s.inputs[1].dtype != t || s.outputs[0].dtype != t) {
    why = std::string("cuBLASLt takes f16, bf16 or f32 operands and output "
                      "of one type, not ") +
          dtypeName(t);
    return false;
  }
  constexpr int64_t kLimit = int64_t(1) << 31; // the engine verifier's
  if (l.m < 1 || l.n < 1 || l.k < 1 || l.m >= kLimit || l.n >= kLimit ||
      l.k >= kLimit || l.batch >= kLimit) {
    why = "cuBLASLt calls take extents in [1, 2^31)";
    return false;
  }
  call.dtype = t == DType::F16    ? KILN_DTYPE_F16
               : t == DType::BF16 ? KILN_DTYPE_BF16
                                  : KILN_DTYPE_F32;
  call.tf32 = s.config.getBool("tf32");
  const uint64_t elt = dtypeBytes(t);

  // Kiln's row-major D[M,N] = A B is the column-major D^T = B^T A^T:
  // cuBLASLt's A is Kiln's B, its m is Kiln's N.
  call.m = uint64_t(l.n);
  call.n = uint64_t(l.m);
  call.k = uint64_t(l.k);
  call.transA = l.transB; // B [N,K] row-major is [K,N] column-major
  call.lda = uint64_t(l.transB ? l.k : l.n);
  call.transB = l.transA;
  call.ldb = uint64_t(l.transA ? l.m : l.k);
  call.ldc = uint64_t(l.n);
  call.batch = uint64_t(l.batch);
  if (!uniformBatchStride(l.batchShape, l.bBatchStrides, l.k * l.n,
                          call.strideA) ||
      !uniformBatchStride(l.batchShape, l.aBatchStrides, l.m * l.k,
                          call.strideB)) {
    why = "cuBLASLt needs each operand's batches one stride apart";
    return false;
  }
  call.strideC = uint64_t(l.m * l.n);
  call.a = 1;
  call.b = 0;
  call.d = int32_t(s.inputs.size());
  call.alpha = float(s.config.getFloat("alpha", 1.0));
  if (double(call.alpha) != s.config.getFloat("alpha", 1.0)) {
    why = "alpha is not exact in f32";
    return false;
  }

  using E = engine::MatmulEpilogue;
  bool bias = false, act = false;
  E activation = E::None;
  if (l.hasC) {
    if (s.inputs[2].dtype != t) {
      why = "cuBLASLt's C is of the output's type";
      return false;
    }
    const double beta = s.config.getFloat("beta", 1.0);
    if (l.cStrideM == int64_t(l.n) && l.cStrideN == 1) {
      call.c = 2;
      call.beta = float(beta);
    } else if (l.cStrideM == 0 && l.cStrideN == 1 && beta == 1.0) {
      call.bias = 2;
      bias = true;
    } else {
      why = "cuBLASLt adds a full [M, N] C or, with beta 1, a bias of N";
      return false;
    }
  }
  if (s.config.has("epilogue")) {
    std::vector<FusedStep> steps;
    if (!parseFusedProgram(s.config.getString("epilogue"), s.inputs.size() - 1,
                           steps, why))
      return false;
    // The steps as one chain from the product: adds of a bias and of a
    // residual (in either order), then at most one activation, last.
    FusedStep::Arg current{true, 0};
    auto isCurrent = [&](const FusedStep::Arg &a) {
      return a.input == current.input && a.index == current.index;
    };
    for (size_t i = 0; i < steps.size(); ++i) {
      const FusedStep &st = steps[i];
      if (st.dtype != t) {
        why = "epilogue step " + std::to_string(i) + " is not of the " +
              "output's dtype";
        return false;
      }
      if (act) {
        why = "cuBLASLt's activation is the epilogue's last step";
        return false;
      }
      if (st.op == "add" && st.args.size() == 2 &&
          (isCurrent(st.args[0]) || isCurrent(st.args[1]))) {
        const FusedStep::Arg x = isCurrent(st.args[0]) ? st.args[1]
                                                       : st.args[0];
        if (!x.input || x.index < 1) {
          why = "an epilogue add of a computed value";
          return false;
        }
        const auto [sm, sn] = l.epilogueStrides[size_t(x.index - 1)];
        const int32_t operand = x.index + 1; // epilogue input j is input j+1
        if (sm == 0 && sn == 1 && !bias && s.inputs[operand].dtype == t) {
          bias = true;
          call.bias = operand;
        } else if (sm == int64_t(l.n) && sn == 1 && call.c < 0 &&
                   s.inputs[operand].dtype == t) {
          call.c = operand;
          call.beta = 1;
        } else {
          why = "cuBLASLt adds one bias of N and one [M, N] residual";
          return false;
        }
      } else if ((st.op == "relu" ||
                  (st.op == "gelu" &&
                   st.attrs.getString("approximate", "none") == "tanh")) &&
                 st.args.size() == 1 && isCurrent(st.args[0])) {
        act = true;
        activation = st.op == "relu" ? E::Relu : E::GeluTanh;
      } else {
        why = "cuBLASLt has no epilogue for step " + std::to_string(i) +
              " ('" + st.op +
              (st.op == "gelu" ? "' with the erf form" : "'") + ")";
        return false;
      }
      current = {false, int(i)};
    }
  }
  if (activation == E::Relu)
    call.epilogue = bias ? E::ReluBias : E::Relu;
  else if (activation == E::GeluTanh)
    call.epilogue = bias ? E::GeluTanhBias : E::GeluTanh;
  else
    call.epilogue = bias ? E::Bias : E::None;

  // What the heuristic may assume of every operand's address, and of each
  // batch's (the stride times the element size).
  uint32_t align = 256;
  for (int32_t i : {call.a, call.b, call.c, call.bias})
    if (i >= 0)
      align = std::min<uint32_t>(
          align, alignmentOf(uint64_t(s.inputs[size_t(i)].alignment)));
  align = std::min<uint32_t>(align,
                             alignmentOf(uint64_t(s.outputs[0].alignment)));
  for (uint64_t stride : {call.strideA, call.strideB, call.strideC})
    if (call.batch > 1 && stride)
      align = std::min(align, alignmentOf(stride * elt));
  call.alignment = align;
  call.algo = uint32_t(std::max<int64_t>(0, s.config.get(keys::algo, 0)));
  call.libraryVersion =
      uint64_t(std::max<int64_t>(0, s.config.get(keys::lt_version, 0)));
  call.workspaceBytes = kCublasLtWorkspaceBytes;
  return true;
}

bool cublasLtEntryStale(const autotune::TuningConfig &config,
                        const std::string &cublasLtVersion, std::string &why) {
  auto path = config.find(keys::path.name());
  if (path == config.end() || path->second != "cublaslt")
    return false;
  auto v = config.find(keys::lt_version.name());
  const std::string measured = v == config.end() ? "unknown" : v->second;
  if (!cublasLtVersion.empty() && measured == cublasLtVersion)
    return false;
  why = "the cache's cuBLASLt choice was measured with cuBLASLt " + measured +
        (cublasLtVersion.empty()
             ? std::string(", which does not load on this machine")
             : ", this machine has " + cublasLtVersion);
  return true;
}

} // namespace kiln::codegen

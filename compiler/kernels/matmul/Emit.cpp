//===- EmitMatmul.cpp - Batched matmul and gemm ---------------------------===//
//
// Instantiates kernels/matmul.cuh: the tensor-core paths for f16/bf16
// (mma.sync, and wgmma on sm_90 from kernels/matmul_sm90.cuh) and for f32
// with tf32 = true (mma.sync on tf32), the SIMT path for everything (f32,
// with tf32 = true rounding its operands as the tensor cores do, f64,
// integers), with M, N, K, the batch broadcast strides and the gemm
// epilogue (alpha, beta, C) baked in.
//
//===----------------------------------------------------------------------===//
#include "compiler/kernels/matmul/Matmul.h"
#include "compiler/kernels/common/EmitterSupport.h"
#include "compiler/kernels/common/Layouts.h"

namespace kiln::codegen::cuda {

namespace {

} // namespace

bool emitMatmul(const LaunchSpec &s, KernelSource &out, std::string &error) {
  MatmulLayout l;
  std::string why;
  if (!matmulLayout(s, l, why))
    return emitError(s, error, why);
  const DType t = s.outputs[0].dtype;
  const std::string path = s.config.get(keys::path, "simt");
  const bool mma = path == "mma", wgmma = path == "wgmma";
  // The warp-specialized wgmma kernel fed by TMA (matmul_sm90.cuh).
  const bool tma = wgmma && s.config.get(keys::tma);
  // swap_ab: the kernel computes C^T = B^T A^T (P's M, N, operands and
  // epilogue strides swapped) and stores its tiles transposed.
  if (tma && s.config.get(keys::swap_ab))
    swapOperands(l);
  // tf32 = true (kilnc --precision=tf32): f32 operands rounded to tf32 on
  // every path, so the choice of path never changes the result's precision.
  const bool tf32 = s.config.getBool("tf32");
  if (tf32 && t != DType::F32)
    return emitError(
        s, error, "tf32 needs f32 operands, not " + std::string(dtypeName(t)));
  // Both tensor-core paths accumulate in f32.
  const bool tc = mma || wgmma;
  // tf32 on wgmma: the TMA kernel with both operands K-major (the
  // instruction has no transposes for it).
  if (wgmma && t != DType::F16 && t != DType::BF16 &&
      !(tf32 && tma && !l.transA && l.transB))
    return emitError(s, error,
                     "the wgmma path needs f16 or bf16, or f32 with tf32 on "
                     "the TMA kernel with K-major operands (A [M, K], B [N, "
                     "K])");
  if (mma && t != DType::F16 && t != DType::BF16 && !tf32)
    return emitError(s, error,
                     "the mma path needs f16 or bf16, or f32 with tf32");
  const bool hasEpilogue = s.config.has("epilogue");
  if (hasEpilogue && !isFloat(t))
    return emitError(s, error, "an epilogue program needs a float matmul");
  std::vector<FusedStep> steps; // The epilogue program, if any.
  if (hasEpilogue) {
    if (!parseFusedProgram(s.config.getString("epilogue"), s.inputs.size() - 1,
                           steps, why))
      return emitError(s, error, "epilogue: " + why);
    if (steps.back().dtype != t)
      return emitError(s, error, "the epilogue's last step is not of the "
                                 "output's dtype");
  }
  const DType ct = l.hasC ? s.inputs[2].dtype : t;
  const double alpha = s.config.getFloat("alpha", 1.0),
               beta = s.config.getFloat("beta", 1.0);
  IndexType it = indexTypeFor(s);
  // Two-element output stores: N even and the output aligned to a pair.
  const bool pairStore =
      l.n % 2 == 0 && s.outputs[0].alignment % (2 * dtypeBytes(t)) == 0;
  const std::string T = cudaTypeName(t), I = it.name();

  std::string acc;
  if (tc || isFloat(t))
    acc = tc ? "float" : computeTypeName(t);
  else
    acc =
        "kiln::u64"; // Integer products wrap modulo 2^64, as in the evaluator.

  std::ostringstream os;
  if (wgmma)
    os << kernelPrologue(s, {"matmul.cuh", "matmul_sm90.cuh"});
  else
    os << kernelPrologue(s, {"matmul.cuh"});
  // An epilogue program reads its operands through one struct of pointers
  // (the kernel passes its address as `c`).
  if (hasEpilogue) {
    os << "struct Extra {\n";
    for (size_t i = 2; i < s.inputs.size(); ++i)
      os << "  const " << cudaTypeName(s.inputs[i].dtype) << " *__restrict__ p"
         << i << ";\n";
    os << "  int unused;\n};\n";
  }
  os << "struct P {\n";
  os << "  typedef " << T << " T;\n  typedef "
     << (hasEpilogue ? std::string("Extra") : std::string(cudaTypeName(ct)))
     << " CT;\n  typedef " << acc << " Acc;\n  typedef " << I << " I;\n";
  os << "  static constexpr I M = " << it.lit(l.m) << ", N = " << it.lit(l.n)
     << ", K = " << it.lit(l.k) << ";\n";
  os << "  static constexpr kiln::i64 BATCH = " << intLiteral(l.batch) << ";\n";
  os << "  static constexpr bool TRANS_A = " << (l.transA ? "true" : "false")
     << ", TRANS_B = " << (l.transB ? "true" : "false")
     << ", TF32 = " << (tf32 ? "true" : "false") << ";\n";
  os << "  static constexpr int BM = " << s.config.get(keys::tile_m)
     << ", BN = " << s.config.get(keys::tile_n)
     << ", BK = " << s.config.get(keys::tile_k) << ";\n";
  if (mma) {
    // 16-byte loads need the contiguous extent to be a multiple of 8 elements
    // (so every row and batch starts aligned) and an aligned base.
    bool aVec = false, bVec = false;
    matmulVectorLoads(s, l, aVec, bVec);
    os << "  static constexpr int WARPS_M = " << s.config.get(keys::warps_m)
       << ", WARPS_N = " << s.config.get(keys::warps_n) << ";\n";
    os << "  static constexpr bool A_VEC = " << (aVec ? "true" : "false")
       << ", B_VEC = " << (bVec ? "true" : "false") << ";\n";
    // Staging the output tile through shared memory (16-byte row stores) is
    // a tuning choice: off by default until measured and checked on a GPU.
    bool stageOut = s.config.get(keys::stage_out) && l.n % 8 == 0 &&
                    s.outputs[0].alignment % 16 == 0;
    os << "  static constexpr bool OUT_VEC = " << (stageOut ? "true" : "false")
       << ";\n";
    os << "  static constexpr int SPLIT = " << s.config.get(keys::split_k, 1)
       << ";\n";
    os << "  static constexpr int STAGES = " << s.config.get(keys::stages, 2)
       << ", SMEM_BYTES = " << s.smem << ";\n";
    os << "  static constexpr bool PAIR_STORE = "
       << (pairStore ? "true" : "false") << ";\n";
  }
  if (wgmma) {
    bool aVec = false, bVec = false;
    matmulVectorLoads(s, l, aVec, bVec);
    if (!aVec || !bVec)
      return emitError(s, error,
                       "the wgmma path needs 16-byte loads of both operands");
    os << "  static constexpr int STAGES = " << s.config.get(keys::stages)
       << ", WARPGROUPS = " << s.config.get(keys::warpgroups) << ";\n";
    if (tma)
      os << "  static constexpr int GROUP_M = " << s.config.get(keys::group_m, 8)
         << ";\n  static constexpr bool PINGPONG = "
         << (s.config.get(keys::pingpong) ? "true" : "false")
         << ", STAGE_OUT = "
         << (s.config.get(keys::stage_out) ? "true" : "false")
         << ", TMA_STORE = "
         << (s.config.get(keys::tma_store, false) ? "true" : "false")
         << ";\n  static constexpr int CLUSTER = " << s.config.get(keys::cluster, 1)
         << ";\n  static constexpr bool STREAM_K = "
         << (s.config.get(keys::stream_k) ? "true" : "false")
         << ", SWAP_AB = " << (l.swapped ? "true" : "false") << ";\n";
    // The staged epilogue's rows a trip (Heuristics.cpp checks them).
    if (tma && s.config.has(keys::epi_rows))
      os << "  static constexpr int EPI_ROWS = " << s.config.get(keys::epi_rows)
         << ";\n";
    if (tma && s.config.get(keys::epi_regs, false))
      os << "  static constexpr bool EPI_REGS = true;\n";
    // Split-K (matmul_sm90.cuh's reduce_split_tile): its stores take 8
    // outputs at once where rows are whole 16-byte chunks.
    if (tma && s.config.get(keys::split_k, 1) > 1)
      os << "  static constexpr int SPLIT = " << s.config.get(keys::split_k)
         << ";\n  static constexpr bool SPLIT_VEC = "
         << (l.n % 8 == 0 && s.outputs[0].alignment % 16 == 0 &&
                     dtypeBytes(t) == 2
                 ? "true"
                 : "false")
         << ";\n";
    os << "  static constexpr bool A_VEC = true, B_VEC = true;\n";
    os << "  static constexpr bool PAIR_STORE = "
       << (pairStore ? "true" : "false") << ";\n";
    os << wgmmaFunction("wgmma", s.config.get(keys::tile_n), t, l.transA,
                        !l.transB);
  }
  // Batch offsets.
  os << "  __device__ static __forceinline__ void batch(kiln::i64 z, kiln::i64 "
        "&a, kiln::i64 &b) {\n";
  if (l.batchShape.empty()) {
    os << "    a = 0;\n    b = 0;\n";
  } else {
    IndexType wide;
    emitUnravel(os, "    ", wide, "z", l.batchShape, "c");
    StridedAccess sa, sb;
    sa.strides = l.aBatchStrides;
    sb.strides = l.bBatchStrides;
    os << "    a = " << offsetExpr(wide, sa, "c") << ";\n";
    os << "    b = " << offsetExpr(wide, sb, "c") << ";\n";
  }
  os << "  }\n";
  // Loads (SIMT accumulates in Acc).
  std::string ld;
  if (tf32)
    ld = "return kiln::mm::round_tf32(v);";
  else if (isFloat(t))
    ld = "return kiln::to_compute(v);";
  else if (t == DType::Bool)
    return emitError(s, error, "matmul does not take i1");
  else if (isUnsignedInt(t))
    ld = "return static_cast<kiln::u64>(v);";
  else
    ld = "return static_cast<kiln::u64>(static_cast<kiln::i64>(v));";
  os << "  __device__ static __forceinline__ Acc ld(T v) { " << ld << " }\n";
  // Epilogue.
  std::string cval =
      "c[m * " + it.lit(l.cStrideM) + " + n * " + it.lit(l.cStrideN) + "]";
  os << "  __device__ static __forceinline__ T epilogue(Acc acc, const CT "
        "*__restrict__ c, I m, "
        "I n) {\n";
  if (hasEpilogue) {
    // Operand 0 is the product rounded to T (as a separate matmul would
    // store it); operand k >= 1 is input k + 1 at its broadcast (m, n).
    os << "    const T t_mm = kiln::from_compute<T>(acc);\n";
    std::vector<std::string> x = {"t_mm"};
    std::vector<DType> xt = {t};
    for (size_t i = 2; i < s.inputs.size(); ++i) {
      auto [sm, sn] = l.epilogueStrides[i - 2];
      x.push_back("c->p" + std::to_string(i) + "[m * " + it.lit(sm) +
                  " + n * " + it.lit(sn) + "]");
      xt.push_back(s.inputs[i].dtype);
    }
    std::string code;
    if (!fusedProgramStatements(steps, x, xt, "\n    ", code, why))
      return emitError(s, error, "epilogue " + why);
    os << code.substr(1) << "\n";
    os << "    return t" << steps.size() - 1 << ";\n";
  } else if (isFloat(t)) {
    const std::string C = tc ? "float" : computeTypeName(t);
    const bool asFloat = C == "float";
    std::string e =
        alpha == 1.0 ? "acc" : floatLiteral(alpha, asFloat) + " * acc";
    if (l.hasC)
      e += " + " + floatLiteral(beta, asFloat) + " * static_cast<" + C +
           ">(kiln::as_double(" + cval + "))";
    os << "    return kiln::from_compute<T>(" << e << ");\n";
  } else if (alpha == 1.0 && (beta == 1.0 || !l.hasC)) {
    std::string e = "acc";
    if (l.hasC)
      e += isFloat(ct) ? " + "
                         "static_cast<kiln::u64>(kiln::float_to_int<kiln::i64>("
                         "kiln::as_double(" +
                             cval + ")))"
           : isUnsignedInt(ct)
               ? " + static_cast<kiln::u64>(" + cval + ")"
               : " + static_cast<kiln::u64>(static_cast<kiln::i64>(" + cval +
                     "))";
    os << "    return static_cast<T>(" << e << ");\n";
  } else {
    std::string e = floatLiteral(alpha, false) +
                    " * static_cast<double>(static_cast<kiln::i64>(acc))";
    if (l.hasC)
      e += " + " + floatLiteral(beta, false) + " * kiln::as_double(" + cval +
           ")";
    os << "    return kiln::float_to_int<T>(" << e << ");\n";
  }
  if (!l.hasC && !hasEpilogue)
    os << "    (void)c; (void)m; (void)n;\n";
  os << "  }\n";
  // The staged epilogue's 8 outputs of a row at once (the TMA kernel with a
  // 16-bit output): x holds the product already rounded to T, and each
  // 16-bit operand that is contiguous along n (n stride 1, m stride and
  // base 16-byte aligned) is read with one 16-byte load instead of 8
  // 2-byte ones (a residual's [M, N] read was 8 loads per 8 outputs).
  if (hasEpilogue && tma && dtypeBytes(t) == 2) {
    os << "  __device__ static __forceinline__ kiln::Vec<T, 8> epilogue8("
          "const kiln::Vec<T, 8> &x, const CT *__restrict__ c, I m, I n) "
          "{\n";
    std::vector<std::string> x = {"x[e]"};
    std::vector<DType> xt = {t};
    for (size_t i = 2; i < s.inputs.size(); ++i) {
      auto [sm, sn] = l.epilogueStrides[i - 2];
      const std::string p = "c->p" + std::to_string(i);
      const std::string v = "v" + std::to_string(i);
      if (sn == 1 && sm % 8 == 0 && dtypeBytes(s.inputs[i].dtype) == 2 &&
          s.inputs[i].alignment % 16 == 0) {
        os << "    const kiln::Vec<" << cudaTypeName(s.inputs[i].dtype)
           << ", 8> " << v << " = kiln::load_vec<8>(" << p << " + m * "
           << it.lit(sm) << " + n);\n";
        x.push_back(v + "[e]");
      } else if (sn == 0) {
        os << "    const " << cudaTypeName(s.inputs[i].dtype) << " " << v
           << " = " << p << "[m * " << it.lit(sm) << "];\n";
        x.push_back(v);
      } else {
        x.push_back(p + "[m * " + it.lit(sm) + " + (n + e) * " +
                    it.lit(sn) + "]");
      }
      xt.push_back(s.inputs[i].dtype);
    }
    std::string code;
    if (!fusedProgramStatements(steps, x, xt, "\n      ", code, why))
      return emitError(s, error, "epilogue " + why);
    os << "    kiln::Vec<T, 8> y;\n#pragma unroll\n"
          "    for (int e = 0; e < 8; ++e) {"
       << code << "\n      y[e] = t" << steps.size() - 1
       << ";\n    }\n    return y;\n  }\n";
  }
  os << "};\n\n";
  // The heuristics sized the launch's dynamic shared memory; the template
  // must agree.
  if (wgmma)
    os << "static_assert(kiln::mm::"
       << (tma ? "wgmma_tma_smem_bytes" : "wgmma_smem_bytes") << "<P>() == "
       << s.smem << "u, \"the launch's dynamic shared memory\");\n";
  out.entry = tma     ? "kiln_matmul_wgmma_tma"
              : wgmma ? "kiln_matmul_wgmma"
              : mma   ? "kiln_matmul_mma"
                      : "kiln_matmul_simt";
  // wgmma is an sm_90a instruction (CompileModule compiles for it).
  out.archSpecific = wgmma;
  // Blocks of a cluster: split-K's (mma, and the TMA kernel's), or the TMA
  // kernel's pairs that share B tiles through multicast.
  const int64_t split = mma ? s.config.get(keys::split_k, 1)
                        : tma ? s.config.get(keys::cluster, 1) *
                                    s.config.get(keys::split_k, 1)
                              : 1;
  // The TMA kernel's roles trade registers (setmaxnreg), which needs the
  // block's register cap fixed at entry: one block per SM.
  os << "extern \"C\" __global__ void __launch_bounds__(" << s.block[0]
     << (tma ? ", 1" : "") << ") ";
  if (split > 1)
    os << "__cluster_dims__(" << split << ", 1, 1) ";
  os << out.entry << "(" << kernelParams(s);
  const bool tmaStore = tma && s.config.get(keys::tma_store, false);
  if (tma)
    os << ", const __grid_constant__ kiln::mm::tensor_map tm_a, "
          "const __grid_constant__ kiln::mm::tensor_map tm_b";
  if (tmaStore)
    os << ", const __grid_constant__ kiln::mm::tensor_map tm_c";
  // Stream-K's workspace (matmul_sm90.cuh): the engine's, after the
  // tensor maps (KernelSpec.h's launchWorkspaceBytes).
  const bool streamK = tma && s.config.get(keys::stream_k);
  if (streamK)
    os << ", kiln::u32 *__restrict__ ws";
  os << ") {\n";
  if (hasEpilogue) {
    os << "  const Extra extra{";
    for (size_t i = 2; i < s.inputs.size(); ++i)
      os << "in" << i << ", ";
    os << "0};\n";
  }
  // The epilogue's operand: the Extra struct, C, or none.
  const char *cArg = hasEpilogue ? "&extra"
                     : l.hasC    ? "in2"
                                 : "static_cast<const P::CT *>(nullptr)";
  if (tma) {
    os << "  kiln::mm::wgmma_tma_gemm<P>(" << cArg << ", out0, tm_a, tm_b"
       << (tmaStore ? ", &tm_c" : streamK ? ", nullptr" : "")
       << (streamK ? ", ws" : "") << ");\n}\n";
    out.source = os.str();
    // A and B as 2-D tensors, innermost first (matmul_sm90.cuh): K-major
    // operands copied a whole tile at a time, MN-major ones in 64-column
    // blocks, each row of a box 128 bytes for the 128-byte swizzle (64
    // 16-bit elements, or 32 tf32 ones). Batched products: 3-D, the
    // operand's dense matrices outermost (one where it broadcasts), a box of
    // one matrix.
    const uint64_t eb = static_cast<uint64_t>(dtypeBytes(t));
    const uint32_t rowElems = static_cast<uint32_t>(128 / eb);
    auto map = [&](uint32_t operand, bool kMajor, int64_t rows,
                   int64_t tileRows) {
      autotune::TensorMapArg m;
      m.buffer = operand;
      m.dtype = dtypeName(t);
      const uint64_t inner = kMajor ? l.k : rows, outer = kMajor ? rows : l.k;
      m.dims = {inner, outer};
      m.strides = {inner * eb};
      m.box = {rowElems, static_cast<uint32_t>(kMajor ? tileRows : 64)};
      if (l.batch != 1) {
        const BufferSpec &x = s.inputs[operand];
        uint64_t matrices = 1;
        for (int64_t d = 0; d + 2 < x.rank(); ++d)
          matrices *= static_cast<uint64_t>(x.shape[d]);
        m.dims.push_back(matrices);
        m.strides.push_back(inner * outer * eb);
        m.box.push_back(1);
      }
      m.swizzle = 128;
      return m;
    };
    // With clusters each block copies its share of a K-major B tile.
    // Swapped, A is input 1 and B input 0.
    out.tensorMaps = {map(l.swapped ? 1 : 0, !l.transA, l.m,
                          s.config.get(keys::tile_m)),
                      map(l.swapped ? 0 : 1, l.transB, l.n,
                          s.config.get(keys::tile_n) /
                              s.config.get(keys::cluster, 1))};
    // The TMA-store epilogue's output: [M, N] row-major, a box of 64
    // columns (128 bytes) by one consumer warpgroup's rows.
    if (tmaStore) {
      const int64_t wgRows = s.config.get(keys::pingpong)
                                 ? s.config.get(keys::tile_m)
                                 : s.config.get(keys::tile_m) /
                                       s.config.get(keys::warpgroups);
      autotune::TensorMapArg m;
      m.buffer = static_cast<uint32_t>(s.inputs.size());
      m.dtype = dtypeName(s.outputs[0].dtype);
      m.dims = {static_cast<uint64_t>(l.n), static_cast<uint64_t>(l.m)};
      m.strides = {static_cast<uint64_t>(l.n) * 2};
      m.box = {64, static_cast<uint32_t>(wgRows)};
      m.swizzle = 128;
      out.tensorMaps.push_back(std::move(m));
    }
    return true;
  }
  os << "  kiln::mm::"
     << (wgmma ? "wgmma_gemm"
         : mma ? "tensor_core"
               : "simt")
     << "<P>(in0, in1, " << cArg << ", out0);\n}\n";
  out.source = os.str();
  return true;
}

} // namespace kiln::codegen::cuda

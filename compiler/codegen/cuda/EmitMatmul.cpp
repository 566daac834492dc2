//===- EmitMatmul.cpp - Batched matmul and gemm ---------------------------===//
//
// Instantiates kernels/matmul.cuh: the tensor-core path for f16/bf16, the
// SIMT path for everything else (f32, f64, integers), with M, N, K, the
// batch broadcast strides and the gemm epilogue (alpha, beta, C) baked in.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/cuda/EmitterSupport.h"
#include "compiler/codegen/cuda/Layouts.h"

namespace kiln::codegen::cuda {

bool emitMatmul(const LaunchSpec &s, KernelSource &out, std::string &error) {
  MatmulLayout l;
  std::string why;
  if (!matmulLayout(s, l, why))
    return emitError(s, error, why);
  const DType t = s.outputs[0].dtype;
  const std::string path = s.config.getString("path", "simt");
  const bool mma = path == "mma";
  if (mma && t != DType::F16 && t != DType::BF16)
    return emitError(s, error, "the mma path needs f16 or bf16");
  const bool hasEpilogue = s.config.has("epilogue");
  if (hasEpilogue && !isFloat(t))
    return emitError(s, error, "an epilogue program needs a float matmul");
  const DType ct = l.hasC ? s.inputs[2].dtype : t;
  const double alpha = s.config.getFloat("alpha", 1.0),
               beta = s.config.getFloat("beta", 1.0);
  IndexType it = indexTypeFor(s);
  const std::string T = cudaTypeName(t), I = it.name();

  std::string acc;
  if (mma || isFloat(t))
    acc = mma ? "float" : computeTypeName(t);
  else
    acc =
        "kiln::u64"; // Integer products wrap modulo 2^64, as in the evaluator.

  std::ostringstream os;
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
     << ", TRANS_B = " << (l.transB ? "true" : "false") << ";\n";
  os << "  static constexpr int BM = " << s.config.getInt("tile_m")
     << ", BN = " << s.config.getInt("tile_n")
     << ", BK = " << s.config.getInt("tile_k") << ";\n";
  if (mma) {
    // 16-byte loads need the contiguous extent to be a multiple of 8 elements
    // (so every row and batch starts aligned) and an aligned base.
    int64_t aCols = l.transA ? l.m : l.k, bCols = l.transB ? l.k : l.n;
    bool aVec = aCols % 8 == 0 && s.inputs[0].alignment % 16 == 0;
    bool bVec = bCols % 8 == 0 && s.inputs[1].alignment % 16 == 0;
    for (int64_t st : l.aBatchStrides)
      aVec = aVec && st % 8 == 0;
    for (int64_t st : l.bBatchStrides)
      bVec = bVec && st % 8 == 0;
    os << "  static constexpr int WARPS_M = " << s.config.getInt("warps_m")
       << ", WARPS_N = " << s.config.getInt("warps_n") << ";\n";
    os << "  static constexpr bool A_VEC = " << (aVec ? "true" : "false")
       << ", B_VEC = " << (bVec ? "true" : "false") << ";\n";
    // Staging the output tile through shared memory (16-byte row stores) is
    // a tuning choice: off by default until measured and checked on a GPU.
    bool stageOut = s.config.getBool("stage_out") && l.n % 8 == 0 &&
                    s.outputs[0].alignment % 16 == 0;
    os << "  static constexpr bool OUT_VEC = " << (stageOut ? "true" : "false")
       << ";\n";
    os << "  static constexpr int SPLIT = " << s.config.getInt("split_k", 1)
       << ";\n";
    os << "  static constexpr bool PAIR_STORE = "
       << (l.n % 2 == 0 && s.outputs[0].alignment % 4 == 0 ? "true" : "false")
       << ";\n";
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
  if (isFloat(t))
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
    std::vector<FusedStep> steps;
    if (!parseFusedProgram(s.config.getString("epilogue"), s.inputs.size() - 1,
                           steps, why))
      return emitError(s, error, "epilogue: " + why);
    if (steps.back().dtype != t)
      return emitError(s, error, "the epilogue's last step is not of the "
                                 "output's dtype");
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
    const std::string C = mma ? "float" : computeTypeName(t);
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
  os << "  }\n};\n\n";
  out.entry = mma ? "kiln_matmul_mma" : "kiln_matmul_simt";
  const int64_t split = mma ? s.config.getInt("split_k", 1) : 1;
  os << "extern \"C\" __global__ void __launch_bounds__(" << s.block[0] << ") ";
  if (split > 1)
    os << "__cluster_dims__(" << split << ", 1, 1) ";
  os << out.entry << "(" << kernelParams(s) << ") {\n";
  if (hasEpilogue) {
    os << "  const Extra extra{";
    for (size_t i = 2; i < s.inputs.size(); ++i)
      os << "in" << i << ", ";
    os << "0};\n";
  }
  os << "  kiln::mm::" << (mma ? "tensor_core" : "simt") << "<P>(in0, in1, "
     << (hasEpilogue ? "&extra"
         : l.hasC    ? "in2"
                     : "static_cast<const P::CT *>(nullptr)")
     << ", out0);\n}\n";
  out.source = os.str();
  return true;
}

} // namespace kiln::codegen::cuda

//===- EmitConvPool.cpp - Convolution and pooling -------------------------===//
//
// Convolutions: direct (below), or with config path = "igemm" an implicit
// GEMM on the tensor cores (matmul.cuh's mma kernel with P::IM2COL: per
// image, W [OC, C * KH * KW] times the image's im2col matrix, gathered
// while loading B tiles, and the bias added in f32 before the one rounding,
// as the direct kernel does).
//
// Direct: a thread per output element. Neighbouring threads own
// neighbouring output positions of one (image, channel), so filter reads are
// warp-uniform and input reads nearly coalesced. Window loops are unrolled over the baked
// kernel extents; taps outside the input are skipped (zero padding).
//
//===----------------------------------------------------------------------===//
#include "compiler/kernels/conv/Conv.h"
#include "compiler/kernels/common/EmitterSupport.h"

#include <limits>

namespace kiln::codegen::cuda {

namespace {

struct Window {
  std::vector<int64_t> in, out, kernel, strides, padsBegin, padsEnd, dilations;
  size_t rank() const { return in.size(); }
};

/// Opens one loop per spatial axis over the kernel taps, computing input
/// coordinate `i<d>` and leaving the body at `indent`. With `skipOutside`,
/// taps outside the input `continue`.
void openTapLoops(std::ostringstream &os, const Window &w, IndexType it,
                  std::string &indent, bool skipOutside) {
  for (size_t d = 0; d < w.rank(); ++d) {
    os << indent << "#pragma unroll\n";
    os << indent << "for (int k" << d << " = 0; k" << d << " < " << w.kernel[d]
       << "; ++k" << d << ") {\n";
    indent += "  ";
    os << indent << "const " << it.name() << " i" << d << " = c" << d + 2
       << " * " << it.lit(w.strides[d]) << " - " << it.lit(w.padsBegin[d])
       << " + k" << d << " * " << it.lit(w.dilations[d]) << ";\n";
    if (skipOutside)
      os << indent << "if (i" << d << " < 0 || i" << d
         << " >= " << it.lit(w.in[d]) << ") continue;\n";
  }
}

void closeLoops(std::ostringstream &os, const Window &w, std::string &indent) {
  for (size_t d = 0; d < w.rank(); ++d) {
    indent.resize(indent.size() - 2);
    os << indent << "}\n";
  }
}

std::string spatialOffset(const Window &w, IndexType it) {
  std::vector<int64_t> st = rowMajorStrides(w.in);
  std::string s;
  for (size_t d = 0; d < w.rank(); ++d)
    s += (d ? " + i" : "i") + std::to_string(d) +
         (st[d] != 1 ? " * " + it.lit(st[d]) : "");
  return s;
}

/// The implicit-GEMM convolution (config path "igemm"; Heuristics.cpp checks
/// the dtype, groups and rank and sizes the tiles).
bool emitConvIgemm(const LaunchSpec &s, const Window &w, KernelSource &out,
                   std::string &error) {
  const BufferSpec &x = s.inputs[0], &wt = s.inputs[1], &o = s.outputs[0];
  const bool hasBias = s.inputs.size() == 3;
  const int64_t cin = x.shape[1], cout = wt.shape[0];
  // Heuristics.cpp refuses the rest; checked again here because the index
  // math below assumes it (K = C * KH * KW reads the whole weight).
  if (x.rank() != 4 || wt.rank() != 4 || s.config.getInt("group", 1) != 1 ||
      wt.shape[1] != cin || (x.dtype != DType::F16 && x.dtype != DType::BF16))
    return emitError(s, error,
                     "the igemm convolution takes 2-D f16/bf16 images and no "
                     "groups");
  if (o.shape[1] != cout)
    return emitError(s, error, "the output's channels are not the weight's");
  const int64_t k = cin * w.kernel[0] * w.kernel[1],
                pixels = w.out[0] * w.out[1];
  IndexType it = indexTypeFor(s);
  const std::string T = cudaTypeName(x.dtype), I = it.name();
  // 16-byte weight loads where W's rows are (K a multiple of 8 and the
  // buffer aligned); pairs of outputs where the rows are even.
  const bool aVec = k % 8 == 0 && wt.alignment % 16 == 0;
  const bool pairStore = pixels % 2 == 0 && o.alignment % 4 == 0;
  std::ostringstream os;
  os << kernelPrologue(s, {"matmul.cuh"});
  os << "struct P {\n";
  os << "  typedef " << T << " T;\n  typedef " << T
     << " CT;\n  typedef float Acc;\n  typedef " << I << " I;\n";
  os << "  static constexpr I M = " << it.lit(cout) << ", N = "
     << it.lit(pixels) << ", K = " << it.lit(k) << ";\n";
  os << "  static constexpr kiln::i64 BATCH = " << intLiteral(x.shape[0])
     << ";\n";
  os << "  static constexpr bool TRANS_A = false, TRANS_B = false, TF32 = "
        "false;\n";
  os << "  static constexpr int BM = " << s.config.get(keys::tile_m)
     << ", BN = " << s.config.get(keys::tile_n)
     << ", BK = " << s.config.get(keys::tile_k) << ";\n";
  os << "  static constexpr int WARPS_M = " << s.config.get(keys::warps_m)
     << ", WARPS_N = " << s.config.get(keys::warps_n) << ";\n";
  // stage_out: 16-byte output rows through shared memory (a tuning choice,
  // as for matmuls), where the rows are whole vectors and aligned.
  const bool stageOut = s.config.get(keys::stage_out) && pixels % 8 == 0 &&
                        o.alignment % 16 == 0;
  os << "  static constexpr bool A_VEC = " << (aVec ? "true" : "false")
     << ", B_VEC = false, OUT_VEC = " << (stageOut ? "true" : "false")
     << ";\n";
  os << "  static constexpr int SPLIT = 1, STAGES = "
     << s.config.get(keys::stages, 1) << ", SMEM_BYTES = " << s.smem
     << ";\n";
  os << "  static constexpr bool PAIR_STORE = " << (pairStore ? "true" : "false")
     << ", IM2COL = true;\n";
  os << "  static constexpr I H = " << it.lit(w.in[0]) << ", W = "
     << it.lit(w.in[1]) << ", KH = " << it.lit(w.kernel[0]) << ", KW = "
     << it.lit(w.kernel[1]) << ", SH = " << it.lit(w.strides[0])
     << ", SW = " << it.lit(w.strides[1]) << ", PH = " << it.lit(w.padsBegin[0])
     << ", PW = " << it.lit(w.padsBegin[1]) << ", DH = "
     << it.lit(w.dilations[0]) << ", DW = " << it.lit(w.dilations[1])
     << ", OW = " << it.lit(w.out[1]) << ";\n";
  // The weights are shared by every image; image z starts z * C * H * W in.
  os << "  __device__ static __forceinline__ void batch(kiln::i64 z, "
        "kiln::i64 &a, kiln::i64 &b) {\n    a = 0;\n    b = z * "
     << intLiteral(cin * w.in[0] * w.in[1]) << ";\n  }\n";
  os << "  __device__ static __forceinline__ Acc ld(T v) { return "
        "kiln::to_compute(v); }\n";
  os << "  __device__ static __forceinline__ T epilogue(Acc acc, const CT "
        "*__restrict__ c, I m, I n) {\n";
  if (hasBias)
    os << "    (void)n;\n    return kiln::from_compute<T>(acc + "
          "kiln::to_compute(c[m]));\n";
  else
    os << "    (void)c; (void)m; (void)n;\n    return "
          "kiln::from_compute<T>(acc);\n";
  os << "  }\n};\n\n";
  out.entry = "kiln_conv_igemm";
  os << "extern \"C\" __global__ void __launch_bounds__(" << s.block[0] << ") "
     << out.entry << "(" << kernelParams(s) << ") {\n";
  os << "  kiln::mm::tensor_core<P>(in1, in0, "
     << (hasBias ? "in2" : "static_cast<const P::CT *>(nullptr)")
     << ", out0);\n}\n";
  out.source = os.str();
  return true;
}

} // namespace

bool emitConv(const LaunchSpec &s, KernelSource &out, std::string &error) {
  const BufferSpec &x = s.inputs[0], &wt = s.inputs[1], &o = s.outputs[0];
  if (!isFloat(x.dtype) || wt.dtype != x.dtype || o.dtype != x.dtype)
    return emitError(s, error,
                     "conv needs float input, weight and output of one type");
  const size_t nsp = x.rank() - 2;
  Window w;
  w.in.assign(x.shape.begin() + 2, x.shape.end());
  w.out.assign(o.shape.begin() + 2, o.shape.end());
  w.kernel.assign(wt.shape.begin() + 2, wt.shape.end());
  w.strides = s.config.getInts("strides");
  w.dilations = s.config.getInts("dilations");
  std::vector<int64_t> pads = s.config.getInts("pads");
  if (w.strides.size() != nsp || w.dilations.size() != nsp ||
      pads.size() != 2 * nsp || wt.rank() != x.rank())
    return emitError(s, error,
                     "strides, dilations and pads do not match the rank");
  w.padsBegin.assign(pads.begin(), pads.begin() + nsp);
  w.padsEnd.assign(pads.begin() + nsp, pads.end());
  const int64_t groups = s.config.getInt("group", 1);
  const int64_t cin = x.shape[1], cout = wt.shape[0], cg = wt.shape[1];
  if (groups < 1 || cg * groups != cin || cout % groups != 0 ||
      o.shape[1] != cout)
    return emitError(s, error, "channel counts do not match the groups");
  if (s.config.get(keys::path, "direct") == "igemm")
    return emitConvIgemm(s, w, out, error);
  const int64_t mg = cout / groups;
  const int64_t inSize = product(w.in), kCount = product(w.kernel);
  const bool hasBias = s.inputs.size() == 3;
  const std::string C = computeTypeName(x.dtype);
  IndexType it = indexTypeFor(s);
  const std::string I = it.name();
  std::vector<int64_t> ks = rowMajorStrides(w.kernel);

  std::ostringstream os;
  os << kernelPrologue(s, {});
  out.entry = "kiln_conv";
  os << "extern \"C\" __global__ void __launch_bounds__(" << s.block[0] << ") "
     << out.entry << "(" << kernelParams(s) << ") {\n";
  os << "  kiln::for_each_index(" << intLiteral(o.numElements())
     << ", [&](kiln::i64 g) {\n";
  os << "    const " << I << " o = static_cast<" << I << ">(g);\n";
  emitUnravel(os, "    ", it, "o", o.shape, "c");
  os << "    const " << I << " grp = c1 / " << it.lit(mg) << ";\n";
  os << "    const " << cudaTypeName(x.dtype) << " *xb = in0 + (c0 * "
     << it.lit(cin) << " + grp * " << it.lit(cg) << ") * " << it.lit(inSize)
     << ";\n";
  os << "    const " << cudaTypeName(x.dtype) << " *wb = in1 + c1 * "
     << it.lit(cg * kCount) << ";\n";
  os << "    " << C << " acc = " << C << "(0);\n";
  os << "    for (int ic = 0; ic < " << cg << "; ++ic) {\n";
  std::string indent = "      ";
  openTapLoops(os, w, it, indent, true);
  std::string koff;
  for (size_t d = 0; d < nsp; ++d)
    koff += (d ? " + k" : "k") + std::to_string(d) +
            (ks[d] != 1 ? " * " + std::to_string(ks[d]) : "");
  os << indent << "acc += kiln::to_compute(xb[ic * " << it.lit(inSize) << " + "
     << spatialOffset(w, it) << "]) * kiln::to_compute(wb[ic * "
     << it.lit(kCount) << " + " << koff << "]);\n";
  closeLoops(os, w, indent);
  os << "    }\n";
  if (hasBias)
    os << "    acc += static_cast<" << C << ">(kiln::to_compute(in2[c1]));\n";
  os << "    out0[o] = kiln::from_compute<" << cudaTypeName(o.dtype)
     << ">(acc);\n";
  os << "  });\n}\n";
  out.source = os.str();
  return true;
}

bool emitPool(const LaunchSpec &s, KernelSource &out, std::string &error) {
  const BufferSpec &x = s.inputs[0], &o = s.outputs[0];
  const std::string op = s.config.getString("op");
  const bool isMax = op == "max";
  if (!isMax && op != "average")
    return emitError(s, error, "unknown pool op '" + op + "'");
  if (x.dtype != o.dtype ||
      (isMax ? x.dtype == DType::Bool : !isFloat(x.dtype)))
    return emitError(s, error, "unsupported pool element type");
  const size_t nsp = x.rank() - 2;
  Window w;
  w.in.assign(x.shape.begin() + 2, x.shape.end());
  w.out.assign(o.shape.begin() + 2, o.shape.end());
  w.kernel = s.config.getInts("kernel_shape");
  w.strides = s.config.getInts("strides");
  w.dilations = s.config.getInts("dilations");
  std::vector<int64_t> pads = s.config.getInts("pads");
  if (w.kernel.size() != nsp || w.strides.size() != nsp ||
      w.dilations.size() != nsp || pads.size() != 2 * nsp)
    return emitError(
        s, error,
        "kernel_shape, strides, dilations and pads do not match the rank");
  w.padsBegin.assign(pads.begin(), pads.begin() + nsp);
  w.padsEnd.assign(pads.begin() + nsp, pads.end());
  const bool includePad = s.config.getBool("count_include_pad");
  const int64_t inSize = product(w.in);
  const bool fl = isFloat(x.dtype);
  const std::string C = fl ? computeTypeName(x.dtype) : cudaTypeName(x.dtype);
  IndexType it = indexTypeFor(s);
  const std::string I = it.name();

  std::ostringstream os;
  os << kernelPrologue(s, {});
  out.entry = isMax ? "kiln_max_pool" : "kiln_average_pool";
  os << "extern \"C\" __global__ void __launch_bounds__(" << s.block[0] << ") "
     << out.entry << "(" << kernelParams(s) << ") {\n";
  os << "  kiln::for_each_index(" << intLiteral(o.numElements())
     << ", [&](kiln::i64 g) {\n";
  os << "    const " << I << " o = static_cast<" << I << ">(g);\n";
  emitUnravel(os, "    ", it, "o", o.shape, "c");
  os << "    const " << cudaTypeName(x.dtype) << " *xb = in0 + (c0 * "
     << it.lit(x.shape[1]) << " + c1) * " << it.lit(inSize) << ";\n";
  std::string indent = "    ";
  if (isMax) {
    const double inf = std::numeric_limits<double>::infinity();
    os << "    " << C << " best = "
       << (fl ? computeLiteral(-inf, x.dtype)
              : "kiln::int_traits<" + C + ">::lowest()")
       << ";\n";
    openTapLoops(os, w, it, indent, true);
    os << indent << "const " << C << " v = " << (fl ? "kiln::to_compute(" : "(")
       << "xb[" << spatialOffset(w, it) << "]);\n";
    os << indent << "if (v > best" << (fl ? " || v != v" : "")
       << ") best = v;\n";
    closeLoops(os, w, indent);
    os << "    out0[o] = "
       << (fl ? "kiln::from_compute<" + std::string(cudaTypeName(o.dtype)) +
                    ">(best)"
              : "best")
       << ";\n";
  } else {
    os << "    " << C << " sum = " << C
       << "(0);\n    int taps = 0, padded = 0;\n";
    openTapLoops(os, w, it, indent, false);
    // Padded taps count with count_include_pad; taps past the end pad (ceil
    // mode) never do.
    std::string inPads, inside;
    for (size_t d = 0; d < nsp; ++d) {
      std::string i = "i" + std::to_string(d);
      inPads += (d ? " && " : "") + i + " >= " + it.lit(-w.padsBegin[d]) +
                " && " + i + " < " + it.lit(w.in[d] + w.padsEnd[d]);
      inside +=
          (d ? " && " : "") + i + " >= 0 && " + i + " < " + it.lit(w.in[d]);
    }
    os << indent << "padded += (" << inPads << ") ? 1 : 0;\n";
    os << indent << "if (" << inside << ") { sum += kiln::to_compute(xb["
       << spatialOffset(w, it) << "]); ++taps; }\n";
    closeLoops(os, w, indent);
    os << "    const int div = " << (includePad ? "padded" : "taps") << ";\n";
    os << "    (void)padded;\n";
    os << "    out0[o] = kiln::from_compute<" << cudaTypeName(o.dtype)
       << ">(div ? sum / static_cast<" << C << ">(div) : "
       << computeLiteral(std::numeric_limits<double>::quiet_NaN(), x.dtype)
       << ");\n";
  }
  os << "  });\n}\n";
  out.source = os.str();
  return true;
}

} // namespace kiln::codegen::cuda

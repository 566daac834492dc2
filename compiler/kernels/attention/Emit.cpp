//===- EmitAttention.cpp - Flash attention launches -----------------------===//
//
// Instantiates kernels/attention.cuh (mma.sync) or, with config variant
// "wgmma", kernels/attention_sm90.cuh for one `attention` launch: the
// canonical strides of q, k, v, the bias and the output (Layouts.h) baked
// into the traits, and the block shape (BM query rows, BN keys per step),
// which also fixes the shared-memory tiles, so its heuristic lives here too.
//
//===----------------------------------------------------------------------===//
#include "compiler/kernels/attention/Attention.h"
#include "compiler/kernels/common/EmitterSupport.h"
#include "compiler/kernels/common/Layouts.h"

#include <cmath>

namespace kiln::codegen::cuda {

namespace {
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// 16-byte loads: every row start a multiple of 8 elements from a 16-byte
/// aligned buffer.
bool rowsVec(const BufferSpec &b, const std::array<int64_t, 4> &st,
             int64_t offset) {
  return b.alignment % 16 == 0 && st[0] % 8 == 0 && st[1] % 8 == 0 &&
         st[2] % 8 == 0 && offset % 8 == 0;
}

/// Dynamic shared memory of the wgmma variant (attention_sm90.cuh's
/// wgmma_attention_smem): alignment, Q (q_tiles tiles), two stages of K and
/// V.
int64_t wgmmaSmem(const AttentionLayout &l, int64_t qTiles) {
  return 1024 + qTiles * 64 * l.d * 2 + 2 * (64 * l.d * 2 + 64 * l.dv * 2);
}
} // namespace

bool configureAttention(LaunchSpec &s, std::string &error,
                        const TargetOptions &target) {
  auto fail = [&](const std::string &msg) {
    error = msg;
    return false;
  };
  AttentionLayout l;
  std::string why;
  if (!attentionLayout(s, l, why))
    return fail(why);
  if (s.config.getBool("causal") && l.sq != l.sk)
    return fail("causal needs as many queries as keys");
  if (s.config.has("causal_fill") &&
      (!s.config.getBool("causal") ||
       !(s.config.getFloat("causal_fill") <= -1e4 &&
         s.config.getFloat("causal_fill") >= -2e38)))
    return fail("causal_fill needs causal and a value in [-2e38, -1e4]");
  const DType t = s.outputs[0].dtype;
  if (t != DType::F16 && t != DType::BF16)
    return fail("the flash-attention kernel takes f16 or bf16");
  auto legal = [](int64_t d) { return d % 16 == 0 && d >= 16 && d <= 128; };
  if (!legal(l.d) || !legal(l.dv))
    return fail("head dimensions must be multiples of 16 up to 128");
  if (s.outputs[0].alignment % 4 != 0)
    return fail("the output must be 4-byte aligned");
  Config &c = s.config;
  const int64_t batches = l.b0 * l.b1;
  // variant "wgmma" (attention_sm90.cuh, sm_90): one warpgroup per 64 query
  // rows, 64 keys per step, head dimensions 64 or 128, 16-byte aligned rows.
  // The default on sm_90 where it applies and its 64-row blocks fill the
  // H200's 132 SMs: faster than mma.sync at every micro case (H200,
  // micro-155959: BERT 32x128 0.0166 vs 0.0178 ms, GPT-2 8x512 causal
  // 0.0244 vs 0.0307, Llama 1x2048 0.0802 vs 0.0964, ViT 64x197 0.0644 vs
  // 0.0756, 4x4096 d128 1.855 vs 2.633, GPT-2 with a bias 0.0546 vs
  // 0.0753). Fewer blocks (batch-1 BERT) keep mma.sync's 32-row blocks, as
  // do launches whose config names its blocks.
  const bool wgmmaFits =
      archHasWgmma(target.arch) && (l.d == 64 || l.d == 128) &&
      (l.dv == 64 || l.dv == 128) && rowsVec(s.inputs[0], l.q, l.offsets[0]) &&
      rowsVec(s.inputs[1], l.k, l.offsets[1]) &&
      rowsVec(s.inputs[2], l.v, l.offsets[2]);
  if (!c.has(keys::variant) && !c.has(keys::block_m) && !c.has(keys::block_n) &&
      wgmmaFits && batches * ceilDiv(l.sq, 64) >= 132)
    c.set(keys::variant, "wgmma");
  const std::string variant = c.get(keys::variant, "mma");
  if (variant == "wgmma") {
    if (!archHasWgmma(target.arch))
      return fail("the wgmma variant needs sm_90, not " + target.arch);
    if ((l.d != 64 && l.d != 128) || (l.dv != 64 && l.dv != 128))
      return fail("the wgmma variant takes head dimensions of 64 or 128");
    if (!rowsVec(s.inputs[0], l.q, l.offsets[0]) ||
        !rowsVec(s.inputs[1], l.k, l.offsets[1]) ||
        !rowsVec(s.inputs[2], l.v, l.offsets[2]))
      return fail("the wgmma variant needs 16-byte aligned rows of q, k, v");
    // Its blocks are 64 x 64 whatever the heuristic chose for the mma one.
    c.set(keys::block_m, 64);
    c.set(keys::block_n, 64);
    // q_tiles = 2: a block takes two 64-row query tiles in turn over K and V
    // loaded once (every key block resident: at most 128 keys), so half as
    // many blocks load them and a grid of 2 x 132 x 4 tiles or fewer fits
    // the SMs at once (4 blocks an SM). The default where it applies and its
    // blocks still fill the SMs (H100, call23: BERT 32x128 0.0118 -> 0.0115
    // ms micro, the model 1.689 -> 1.673 ms); q_tiles = 1 keeps one tile.
    if (!c.has(keys::q_tiles) && l.sk <= 128 &&
        batches * ceilDiv(l.sq, 128) >= 132)
      c.set(keys::q_tiles, 2);
    const int64_t qTiles = c.get(keys::q_tiles, 1);
    if (qTiles != 1 && qTiles != 2)
      return fail("q_tiles must be 1 or 2");
    if (qTiles == 2 && l.sk > 128)
      return fail("q_tiles = 2 keeps every key block resident: at most 128 "
                  "keys, not " + std::to_string(l.sk));
    s.block = {128, 1, 1};
    s.grid = {batches * ceilDiv(l.sq, 64 * qTiles), 1, 1};
    s.smem = wgmmaSmem(l, qTiles);
    return true;
  }
  if (c.has(keys::q_tiles))
    return fail("q_tiles is the wgmma variant's");
  if (variant != "mma")
    return fail("unknown variant '" + variant + "' (mma or wgmma)");
  // 4 warps (64 rows) by default; 8 (128 rows) only for long sequences
  // (1024+ queries) with heads up to 64, and 2 (32 rows) where 64 rows would
  // leave most of the H200's 132 SMs idle (BERT / GPT-2 at batch 1, 12 heads
  // x 128 queries: 0.649 / 0.646 ms vs 0.658 / 0.658 with 64 rows, bench
  // run-203254 vs run-202745). Every block shape timed on the H200
  // (bench/attention_sweep.sh, results attention-sweep-141700.txt): 64 rows
  // was best or within 5% at BERT 32x128, GPT-2 8x512 (causal or with a
  // bias), ViT 64x197 and 4x4096 with 128-wide heads; 128 rows best only at
  // Llama 1x2048 causal. Keys per step so two K/V stages fit in 48 KiB of
  // static shared memory.
  if (!c.has(keys::block_m))
    c.set(keys::block_m, 
                         l.sq >= 1024 && std::max(l.d, l.dv) <= 64 &&
                                 batches * ceilDiv(l.sq, 128) >= 264
                             ? 128
                         : batches * ceilDiv(l.sq, 64) < 132 ? 32
                                                             : 64);
  if (!c.has(keys::block_n))
    c.set(keys::block_n, std::max(l.d, l.dv) <= 64 ? 64 : 32);
  const int64_t bm = c.get(keys::block_m), bn = c.get(keys::block_n);
  if (bm != 32 && bm != 64 && bm != 128)
    return fail("block_m must be 32, 64 or 128");
  if (bn != 32 && bn != 64)
    return fail("block_n must be 32 or 64");
  const int64_t smemBytes =
      2 * std::max(bm * (l.d + 8), 2 * bn * (l.d + 8 + l.dv + 8));
  if (smemBytes > 48 * 1024)
    return fail("block_m/block_n need " + std::to_string(smemBytes) +
                " bytes of shared memory (at most 49152)");
  s.block = {32 * bm / 16, 1, 1};
  s.grid = {batches * ceilDiv(l.sq, bm), 1, 1};
  s.smem = 0;
  return true;
}

bool emitAttention(const LaunchSpec &s, KernelSource &out,
                   std::string &error) {
  AttentionLayout l;
  std::string why;
  if (!attentionLayout(s, l, why))
    return emitError(s, error, why);
  const DType t = s.outputs[0].dtype;
  if (t != DType::F16 && t != DType::BF16)
    return emitError(s, error, "the flash-attention kernel takes f16 or bf16");
  const std::string T = cudaTypeName(t);
  auto lit = [](int64_t v) { return intLiteral(v); };
  const bool qVec = rowsVec(s.inputs[0], l.q, l.offsets[0]);
  const bool kvVec = rowsVec(s.inputs[1], l.k, l.offsets[1]) &&
                     rowsVec(s.inputs[2], l.v, l.offsets[2]);
  const bool wgmma = s.config.get(keys::variant, "mma") == "wgmma";
  const double scale = s.config.getFloat("scale", 1.0);

  std::ostringstream os;
  os << kernelPrologue(s, wgmma ? std::vector<std::string>{"matmul.cuh",
                                                            "matmul_sm90.cuh",
                                                            "attention.cuh",
                                                            "attention_sm90.cuh"}
                               : std::vector<std::string>{"matmul.cuh",
                                                          "attention.cuh"});
  os << "struct P {\n";
  os << "  typedef " << T << " T;\n  typedef " << T << " BT;\n";
  os << "  static constexpr int BM = " << s.config.get(keys::block_m)
     << ", BN = " << s.config.get(keys::block_n) << ", D = " << l.d
     << ", DV = " << l.dv << ";\n";
  os << "  static constexpr kiln::i64 Z = " << lit(l.b0 * l.b1)
     << ", SQ = " << lit(l.sq) << ", SK = " << lit(l.sk) << ";\n";
  os << "  static constexpr kiln::i64 Q_LD = " << lit(l.q[2])
     << ", K_LD = " << lit(l.k[2]) << ", V_LD = " << lit(l.v[2])
     << ", O_LD = " << lit(l.out[2]) << ";\n";
  os << "  static constexpr bool Q_VEC = " << (qVec ? "true" : "false")
     << ", KV_VEC = " << (kvVec ? "true" : "false")
     << ", HAS_BIAS = " << (l.hasBias ? "true" : "false") << ", NAN_TO_ZERO = "
     << (s.config.getBool("nan_to_zero") ? "true" : "false")
     << ", CAUSAL = " << (s.config.getBool("causal") ? "true" : "false")
     << ", CAUSAL_FILL = " << (s.config.has("causal_fill") ? "true" : "false")
     << ";\n";
  // The bias's key pairs (2j, 2j + 1) as one 32-bit load: keys contiguous,
  // every other stride and the buffer even, and SK even (so a pair is in
  // or out of range whole).
  const bool biasPairs = l.hasBias && l.bias[3] == 1 && l.bias[0] % 2 == 0 &&
                         l.bias[1] % 2 == 0 && l.bias[2] % 2 == 0 &&
                         l.sk % 2 == 0 && s.inputs[3].alignment % 4 == 0;
  os << "  static constexpr bool BIAS_PAIRS = "
     << (biasPairs ? "true" : "false") << ";\n";
  // The finite causal fill in the kernel's base-2 units (0 when unused).
  os << "  static constexpr float FILL_LOG2 = "
     << floatLiteral(s.config.getFloat("causal_fill", 0.0) * 1.4426950408889634,
                     true)
     << ";\n";
  os << "  static constexpr float SCALE_LOG2 = "
     << floatLiteral(scale * 1.4426950408889634, true) << ";\n";
  // Batch z = (b0 index) * b1 + query head; K and V's head is the query
  // head / group (grouped-query attention: every KV head serves `group`
  // query heads, which read it in place).
  auto base = [&](const char *name, const std::array<int64_t, 4> &st,
                  int64_t offset, int64_t group) {
    os << "  __device__ static __forceinline__ kiln::i64 " << name
       << "(kiln::i64 z) { return " << lit(offset) << " + (z / " << lit(l.b1)
       << ") * " << lit(st[0]) << " + ";
    if (group == 1)
      os << "(z % " << lit(l.b1) << ")";
    else
      os << "(z % " << lit(l.b1) << " / " << lit(group) << ")";
    os << " * " << lit(st[1]) << "; }\n";
  };
  base("q_base", l.q, l.offsets[0], 1);
  base("k_base", l.k, l.offsets[1], l.group);
  base("v_base", l.v, l.offsets[2], l.group);
  base("o_base", l.out, 0, 1);
  os << "  __device__ static __forceinline__ kiln::i64 bias_off(kiln::i64 z, "
        "kiln::i64 i, kiln::i64 j) { return (z / "
     << lit(l.b1) << ") * " << lit(l.bias[0]) << " + (z % " << lit(l.b1)
     << ") * " << lit(l.bias[1]) << " + i * " << lit(l.bias[2]) << " + j * "
     << lit(l.bias[3]) << "; }\n";
  if (wgmma && s.config.get(keys::q_tiles, 1) > 1)
    os << "  static constexpr int Q_TILES = " << s.config.get(keys::q_tiles)
       << ";\n";
  if (wgmma) {
    // S = Q K^T: both K-major; O += P V: P in registers, V N-major.
    os << wgmmaFunction("wgmma_s", 64, t, false, false);
    os << wgmmaRegAFunction("wgmma_o", l.dv, t, true);
  }
  os << "};\n\n";
  out.entry = "kiln_attention";
  // Head dimensions up to 64: at most 128 registers a thread (the
  // accumulators, scores and Q fragments fit), so 512 threads' worth of
  // blocks share each SM (the wgmma variant: four of its 128-thread blocks;
  // with a bias ptxas took 133 registers, which left room for three). Larger
  // heads need more than 128.
  const int64_t minBlocks = std::max(l.d, l.dv) <= 64
                                ? std::max<int64_t>(1, 512 / s.block[0])
                                : 1;
  os << "extern \"C\" __global__ void __launch_bounds__(" << s.block[0] << ", "
     << minBlocks << ") "
     << out.entry << "(" << kernelParams(s) << ") {\n";
  if (wgmma)
    os << "  static_assert(kiln::att::wgmma_attention_smem<P>() == "
       << s.smem << "u, \"the launch's dynamic shared memory\");\n";
  os << "  kiln::att::" << (wgmma ? "flash_wgmma" : "flash")
     << "<P>(in0, in1, in2, "
     << (l.hasBias ? "in3" : "static_cast<const P::BT *>(nullptr)")
     << ", out0);\n}\n";
  out.source = os.str();
  // wgmma is an sm_90a instruction (CompileModule compiles for it).
  out.archSpecific = wgmma;
  return true;
}

} // namespace kiln::codegen::cuda

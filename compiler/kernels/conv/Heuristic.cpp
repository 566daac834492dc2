//===- Heuristic.cpp - Convolution (direct, implicit GEMM) and pooling ----------===//
#include "compiler/kernels/conv/Conv.h"
#include "compiler/kernels/common/Geometry.h"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace kiln::codegen {

using namespace cuda;

namespace {
/// The implicit-GEMM convolution (conv path "igemm", EmitConvPool.cpp): mma
/// tiles of tile_m output channels x tile_n output pixels x tile_k of
/// C * KH * KW, a block per tile and image. Not the default until a GPU run
/// has checked it; the autotuner tries it, each candidate checked against
/// the reference.
bool configureConvIgemm(LaunchSpec &s, std::string &why) {
  Config &c = s.config;
  const BufferSpec &x = s.inputs[0], &out = s.outputs[0];
  auto no = [&](std::string m) {
    why = std::move(m);
    return false;
  };
  if (x.rank() != 4 || s.inputs.size() < 2 || s.inputs[1].rank() != 4)
    return no("the igemm convolution takes 2-D images (NCHW)");
  if (x.dtype != DType::F16 && x.dtype != DType::BF16)
    return no("the igemm convolution needs f16 or bf16");
  if (c.getInt("group", 1) != 1)
    return no("the igemm convolution takes no groups");
  const int64_t cout = s.inputs[1].shape[0],
                pixels = out.shape[2] * out.shape[3];
  const bool large = cout >= 128 && pixels >= 128;
  c.setDefault(keys::tile_m, large ? 128 : 64);
  c.setDefault(keys::tile_n, large ? 128 : 64);
  c.setDefault(keys::tile_k, 32);
  c.setDefault(keys::warps_m, 2);
  c.setDefault(keys::warps_n, large ? 4 : 2);
  const int64_t bm = c.get(keys::tile_m), bn = c.get(keys::tile_n),
                bk = c.get(keys::tile_k), wm = c.get(keys::warps_m),
                wn = c.get(keys::warps_n);
  if (!validMmaTiles(bm, bn, bk, wm, wn))
    return no("igemm " + std::string(kMmaTileRule));
  c.setDefault(keys::stage_out, false);
  // stages: 1 (synchronous loads) or 2 (the image's next k tile gathered
  // into registers during the products). On the H200, ResNet50 64x224 fp16
  // (2026-12-04): two stages (profiles-132700) made the 56x56 3x3
  // convolutions 14% faster but cost registers (168 at 64x64 tiles, 244 at
  // 128x128), and the 7x7 ones with 512 blocks took a second wave and ran
  // 15-25% slower; one stage with the same per-column gather (75 and 127
  // registers) made every convolution 17-30% faster than the old loads
  // (profiles-133500; the model 12.10 -> 10.33 ms). One by default; the
  // autotuner's max space tries both.
  c.setDefault(keys::stages, 1);
  const int64_t stages = c.get(keys::stages);
  if (stages != 1 && stages != 2)
    return no("igemm stages must be 1 or 2");
  // matmul.cuh's stages: each A [tile_m][tile_k + 8] and B
  // [tile_k][tile_n + 8] of 2-byte elements; static up to 48 KiB, else
  // dynamic.
  const int64_t bytes = stages * (bm * (bk + 8) + bk * (bn + 8)) * 2;
  if (bytes > kMaxDynamicSmem)
    return no("igemm tiles need " + std::to_string(bytes) +
              " bytes of shared memory; a block has at most " +
              std::to_string(kMaxDynamicSmem));
  s.smem = bytes <= 48 * 1024 ? 0 : bytes;
  s.block = {32 * wm * wn, 1, 1};
  s.grid = {std::clamp<int64_t>(ceilDiv(pixels, bn), 1, kMaxGridX),
            std::clamp<int64_t>(ceilDiv(cout, bm), 1, 65535),
            std::clamp<int64_t>(x.shape[0], 1, 65535)};
  return true;
}
} // namespace

bool configureConvPool(LaunchSpec &s, std::string &error,
                       const TargetOptions &target) {
  const BufferSpec &out = s.outputs[0];
  const int64_t n = out.numElements();
  Config &c = s.config;
  std::string why;
  auto fail = [&](const std::string &msg) { return refuse(error, msg); };
  if (s.kind == "conv" || s.kind == "pool") {
    if (s.inputs.empty() || s.inputs[0].rank() < 3 ||
        out.rank() != s.inputs[0].rank())
      return fail("expects an input and output of one rank >= 3");
    // With no path given, the implicit GEMM where its default tiles make a
    // block for every SM of an H100/H200-class part, else the direct kernel.
    // H200, 2026-12-03 (session-211200, ResNet50 fp16 profiles): igemm was
    // 5-10x faster on every 3x3 and stem convolution of 64 images (e.g.
    // 56x56x64 3x3: 0.373 vs 2.652 ms) and on the stem of one (0.030 vs
    // 0.054 ms; 196 blocks), and 1.4-2.5x slower on the other 3x3
    // convolutions of one image (49 blocks or fewer, a long K each).
    if (s.kind == "conv" && !c.has(keys::path) && archAtLeast(target.arch, 80)) {
      LaunchSpec trial = s;
      std::string ignored;
      if (configureConvIgemm(trial, ignored) &&
          trial.grid[0] * trial.grid[1] * trial.grid[2] >= kTargetSMs) {
        s = std::move(trial);
        s.config.set(keys::path, "igemm");
        return true;
      }
    }
    if (s.kind == "conv" && c.get(keys::path, "direct") == "igemm")
      return configureConvIgemm(s, why) || fail(why);
    if (s.kind == "conv" && c.get(keys::path, "direct") != "direct")
      return fail("conv path must be direct or igemm, not '" +
                  c.get(keys::path) + "'");
    setGridStride(s, n);
    return true;
  }
  return fail("unknown kernel kind");
}

} // namespace kiln::codegen

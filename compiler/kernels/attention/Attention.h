//===- Attention.h - Flash attention (mma.sync, wgmma) ---*- C++ -*-===//
//
// The attention kind folder's entry points: its heuristics (configure: fill the
// tuning keys the config lacks, check the rest, set the geometry), its
// search space and its CUDA emitters. The registry (Registry.cpp) is their
// only user outside the folder.
//
// Config keys (op parameters; the tuning keys, from common/TuningKeys.h, are
// filled by configure when absent):
//
//   attention    scale (the scores' factor), q_perm, k_perm, v_perm, out_perm,
//                nan_to_zero, q_heads/k_heads/v_heads ([offset, count] of
//                the canonical heads axis), q_per_kv (query heads per KV
//                head), causal, causal_fill (graph.attention's); inputs q, k,
//                v[, bias], f16/bf16, head dimensions multiples of 16 up to
//                128. Tuning: variant ("wgmma": attention_sm90.cuh, sm_90,
//                heads of 64 or 128, 64 x 64 blocks, the default there when
//                its blocks fill the GPU; else "mma"), block_m
//                (32, 64, 128: query rows per block), block_n (32, 64: keys per
//                step).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_KERNELS_ATTENTION_H
#define KILN_COMPILER_KERNELS_ATTENTION_H

#include "compiler/kernels/Registry.h"

namespace kiln::codegen {

void attentionSpace(autotune::SearchLevel level, const std::string &arch,
                    std::vector<autotune::TuningConfig> &out);
extern const KernelKind kAttentionKind;

namespace cuda {
/// The heuristics live beside the emitter: the block shape also fixes the
/// kernel's shared-memory tiles.
bool configureAttention(LaunchSpec &s, std::string &error,
                        const TargetOptions &target);
bool emitAttention(const LaunchSpec &spec, KernelSource &out, std::string &error);
} // namespace cuda

} // namespace kiln::codegen

#endif

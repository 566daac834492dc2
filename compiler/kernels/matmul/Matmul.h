//===- Matmul.h - Matmul kernels (mma, wgmma, simt, cuBLASLt) ---*- C++ -*-===//
//
// The matmul kind folder's entry points: its heuristics (configure: fill the
// tuning keys the config lacks, check the rest, set the geometry), its
// search space and its CUDA emitters. The registry (Registry.cpp) is their
// only user outside the folder.
//
// Config keys (op parameters; the tuning keys, from common/TuningKeys.h, are
// filled by configure when absent):
//
//   matmul       trans_a, trans_b, alpha, beta, tf32 (f32 only, set by
//                --precision=tf32, never by tuning or --set: A and B rounded
//                to tf32, cvt.rna, on every path; sums in f32); inputs a,
//                b[, c]; a and b of rank >= 2 with broadcasting batch axes, c
//                broadcasting to the output. Tuning: path ("mma": f16/bf16
//                tensor cores, m16n8k16, or f32 with tf32, m16n8k8; "simt"),
//                tile_m, tile_n, tile_k, warps_m, warps_n, stages (mma: 2..8
//                cp.async pipeline stages; 3 for 64x64 tiles, else 2),
//                stage_out (mma: store the output tile through shared memory;
//                off by default, not yet checked on a GPU), split_k (mma: 1, 2,
//                4, 8 blocks of a cluster share each output tile's K range).
//                "wgmma" (sm_90, f16/bf16, 16-byte aligned rows): tile_m 64,
//                128, 256, tile_n a multiple of 8 up to 256, tile_k 64,
//                warpgroups (1, 2: 128 threads each, tile_m / warpgroups
//                rows of 64 or 128), stages (3..8, within 227 KiB), tma
//                (batch 1: a producer warpgroup loads the stages with TMA
//                for `warpgroups` consumer warpgroups, a persistent grid of
//                up to 132 blocks; default on for batch 1), group_m (TMA:
//                tile rows that sweep the columns together, default 8),
//                stream_k (TMA, cooperative, batch 1: the partial wave's k
//                tiles in even shares over 132 blocks, summed in the kernel
//                workspace, launchWorkspaceBytes; never a default yet),
//                swap_ab (TMA, batch 1, direct epilogue: the kernel computes
//                C^T = B^T A^T, tile_m along the output's columns, and
//                stores its tiles transposed).
//                "cublaslt" (never the heuristic's: measured or --set): a
//                cuBLASLt call instead of a kernel (LibraryCalls.h: only
//                where it computes exactly this launch), algo (0..7: which
//                answer of cuBLASLt's heuristic), lt_version (the measuring
//                library's cublasLtGetVersion, recorded in the engine).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_KERNELS_MATMUL_H
#define KILN_COMPILER_KERNELS_MATMUL_H

#include "compiler/kernels/Registry.h"

namespace kiln::codegen {

bool configureMatmul(LaunchSpec &s, std::string &error, const TargetOptions &target);
void matmulSpace(autotune::SearchLevel level, const std::string &arch,
                 std::vector<autotune::TuningConfig> &out);
extern const KernelKind kMatmulKind;

namespace cuda {
bool emitMatmul(const LaunchSpec &spec, KernelSource &out, std::string &error);
} // namespace cuda

} // namespace kiln::codegen

#endif

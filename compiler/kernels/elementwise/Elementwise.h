//===- Elementwise.h - Elementwise, fused programs, transpose, slice, trilu ---*- C++ -*-===//
//
// The elementwise kind folder's entry points: its heuristics (configure: fill the
// tuning keys the config lacks, check the rest, set the geometry), its
// search space and its CUDA emitters. The registry (Registry.cpp) is their
// only user outside the folder.
//
// Config keys (op parameters; the tuning keys, from common/TuningKeys.h, are
// filled by configure when absent):
//
//   elementwise  op: "add" "sub" "mul" "div" "max" "min" "pow" "equal" "less"
//                "less_or_equal" "greater" "greater_or_equal" "and" "or" "xor"
//                (2 inputs), "where" (3), unary "sqrt" "reciprocal" "exp" "log"
//                "erf" "tanh" "sigmoid" "sin" "cos" "floor" "ceil" "neg" "abs"
//                "relu" "not" "is_nan" "gelu" (approximate: "none"|"tanh")
//                "leaky_relu" (alpha) "clip" (min?, max?) "cast" "copy" (1).
//                Inputs broadcast (numpy) to the output. Tuning: vec.
//   transpose    perm. Tuning: vec (1: the read side is strided).
//   slice        starts, steps (every axis). Tuning: vec.
//   trilu        k, upper. Tuning: vec.
//   fused_elementwise  program (FusedProgram's text: steps of elementwise
//                ops over the inputs and earlier steps, or `const{value=v}()`
//                literals (the model's one-element constants), the last one
//                stored);
//                every value indexed by the output's coordinates, inputs
//                broadcast (numpy) to the output; or, with `space` (extents
//                of an iteration space of the output's element count, the
//                outputs row-major over it) and `input_strides` (each
//                input's strides over it, concatenated), each input read at
//                sum(coord[k] * stride[k]): a region's reshapes and
//                transposes. Tuning: vec.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_KERNELS_ELEMENTWISE_H
#define KILN_COMPILER_KERNELS_ELEMENTWISE_H

#include "compiler/kernels/Registry.h"

namespace kiln::codegen {

bool configureElementwise(LaunchSpec &s, std::string &error, const TargetOptions &target);
void transposeSpace(autotune::SearchLevel level, const std::string &arch,
                    std::vector<autotune::TuningConfig> &out);
extern const KernelKind kElementwiseKind, kFusedElementwiseKind, kTransposeKind,
    kSliceKind, kTriluKind;

namespace cuda {
bool emitElementwiseFamily(const LaunchSpec &spec, KernelSource &out,
                           std::string &error);
} // namespace cuda

} // namespace kiln::codegen

#endif

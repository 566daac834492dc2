//===- TensorBytes.h - Raw device bytes of constants and tensors -*- C++
//-*-===//
#ifndef KILN_COMPILER_CODEGEN_TENSORBYTES_H
#define KILN_COMPILER_CODEGEN_TENSORBYTES_H

#include "compiler/evaluator/Tensor.h"

#include "mlir/IR/BuiltinAttributeInterfaces.h"

#include <string>
#include <vector>

namespace kiln::codegen {

/// The bytes a kernel buffer holds for `t`: little-endian, row-major,
/// f16/bf16 as their 16-bit patterns, i1 one byte per element.
std::vector<char> packTensor(const eval::Tensor &t);

/// The bytes of a constant (dense, splat or dense_resource). Fails with
/// `error` for a missing (elided) blob or an unsupported element type.
bool packElements(mlir::ElementsAttr attr, std::vector<char> &out,
                  std::string &error);

} // namespace kiln::codegen

#endif // KILN_COMPILER_CODEGEN_TENSORBYTES_H

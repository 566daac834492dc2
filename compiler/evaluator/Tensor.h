//===- Tensor.h - Host tensors of the reference evaluator -------*- C++ -*-===//
//
// A dense, row-major host tensor with one of the element types the graph
// dialect uses, plus conversions to and from MLIR attributes and the bit-exact
// f16/bf16 converters that define how the evaluator rounds.
//
// Storage is `double` for float dtypes and `int64_t` for integer and bool
// dtypes. Values always hold what the dtype can represent: floats are rounded
// to the dtype's precision (round-to-nearest-even), integers are wrapped to
// the dtype's width (unsigned values zero-extended, so u64 keeps its bit
// pattern in an int64_t), bools are 0 or 1.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_EVALUATOR_TENSOR_H
#define KILN_COMPILER_EVALUATOR_TENSOR_H

#include "compiler/evaluator/HalfBits.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::eval {

enum class DType {
  F16,
  BF16,
  F32,
  F64,
  I1,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64
};

/// True for F16, BF16, F32 and F64.
bool isFloat(DType t);
/// True for U8..U64.
bool isUnsigned(DType t);
/// Bits per element (I1 counts as 1).
unsigned bitWidth(DType t);
/// The MLIR spelling: "f32", "bf16", "i1", "ui8", ...
llvm::StringRef dtypeName(DType t);

/// The MLIR element type of a dtype; signed integers are signless, unsigned
/// ones are `ui<N>`.
mlir::Type dtypeToMlir(DType t, mlir::MLIRContext *ctx);
/// The dtype of an MLIR element type; fails for types the evaluator lacks.
mlir::FailureOr<DType> dtypeFromMlir(mlir::Type t);

// floatToHalfBits, halfBitsToFloat, floatToBF16Bits, bf16BitsToFloat:
// compiler/evaluator/HalfBits.h (included above).

/// `v` rounded to the precision of float dtype `t`.
double roundToDType(DType t, double v);
/// `v` wrapped to the width of integer dtype `t` (two's complement; I1 is
/// `v != 0`).
int64_t wrapToDType(DType t, int64_t v);
/// ONNX Cast of a float value to integer dtype `t`: truncates toward zero,
/// saturates to the dtype's range, NaN becomes 0; to I1 it tests `!= 0`.
/// (Saturation and NaN -> 0 are what CUDA's conversions do.)
int64_t castFloatToInt(DType t, double v);

/// Row-major strides of a shape, in elements.
std::vector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape);
/// Product of the dimensions (1 for rank 0).
int64_t numElementsOf(llvm::ArrayRef<int64_t> shape);
/// "2x3xf32" style description for diagnostics.
std::string describe(DType t, llvm::ArrayRef<int64_t> shape);

class Tensor {
public:
  /// A rank-0 f32 zero; mostly a placeholder.
  Tensor() : Tensor(DType::F32, {}) {}
  /// A zero-filled tensor.
  Tensor(DType dtype, llvm::ArrayRef<int64_t> shape);

  static Tensor zeros(DType dtype, llvm::ArrayRef<int64_t> shape);
  /// Every element `value`, rounded (float) or converted with castFloatToInt
  /// (integer) to the dtype.
  static Tensor filled(DType dtype, llvm::ArrayRef<int64_t> shape,
                       double value);
  /// Tensors from explicit data; values are rounded/wrapped to the dtype.
  /// The data size must equal the element count.
  static Tensor fromFloats(DType dtype, llvm::ArrayRef<int64_t> shape,
                           std::vector<double> data);
  static Tensor fromInts(DType dtype, llvm::ArrayRef<int64_t> shape,
                         std::vector<int64_t> data);

  DType dtype() const { return type; }
  llvm::ArrayRef<int64_t> shape() const { return dims; }
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  int64_t dim(int64_t i) const { return dims[i]; }
  int64_t numElements() const { return count; }
  std::vector<int64_t> strides() const { return stridesOf(dims); }
  bool isFloat() const { return eval::isFloat(type); }
  bool isUnsigned() const { return eval::isUnsigned(type); }

  /// Raw storage; only the one matching the dtype is non-empty.
  std::vector<double> &floats() { return fdata; }
  const std::vector<double> &floats() const { return fdata; }
  std::vector<int64_t> &ints() { return idata; }
  const std::vector<int64_t> &ints() const { return idata; }

  /// Element `i` (linear, row-major) as a double, whatever the dtype
  /// (unsigned values read as unsigned).
  double getDouble(int64_t i) const;
  /// Element `i` as an integer: float elements go through castFloatToInt to
  /// I64; u64 returns its bit pattern.
  int64_t getInt(int64_t i) const;
  /// Stores `v` with rounding (float) or castFloatToInt (integer).
  void setDouble(int64_t i, double v);
  /// Stores `v` wrapped (integer) or converted to double and rounded (float).
  void setInt(int64_t i, int64_t v);

  /// The same data viewed with another shape of equal element count.
  Tensor reshaped(llvm::ArrayRef<int64_t> newShape) const;

  /// Rounds/wraps every element to the dtype (after raw writes to storage).
  void normalize();

  /// Same dtype, shape and bit-identical values (NaN equals NaN).
  bool identical(const Tensor &other) const;

private:
  DType type = DType::F32;
  std::vector<int64_t> dims;
  int64_t count = 1;
  std::vector<double> fdata;
  std::vector<int64_t> idata;
};

/// Reads a constant: DenseElementsAttr (splat or not),
/// DenseResourceElementsAttr (raw little-endian blob; f16/bf16 as 16-bit
/// patterns, i1 one byte per element) or any ElementsAttr that iterates as
/// APInt/APFloat. Fails on unsupported element types, missing (elided) blobs or
/// blobs of the wrong size.
mlir::FailureOr<Tensor> tensorFromAttr(mlir::ElementsAttr attr);
/// A DenseElementsAttr of `type` holding `t`; null if `type`'s shape or
/// element type does not match the tensor.
mlir::ElementsAttr tensorToAttr(const Tensor &t, mlir::RankedTensorType type);

/// A deterministic pseudo-random tensor (splitmix64 from `seed`): floats
/// uniform in [-1, 1) on a grid the dtype represents exactly, integers in
/// [0, 10), bools 0 or 1.
Tensor randomTensor(DType dtype, llvm::ArrayRef<int64_t> shape, uint64_t seed);

} // namespace kiln::eval

#endif // KILN_COMPILER_EVALUATOR_TENSOR_H

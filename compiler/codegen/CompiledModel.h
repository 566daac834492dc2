//===- CompiledModel.h - A compiled model, ready for the engine writer -*- C++
//-*-===//
//
// Everything the engine writer needs from the compiler for one plan: kernel
// images (cubin + PTX), the launches in order with their geometry and
// arguments, the buffers those arguments point into, weight blobs, the arena
// size and the model's inputs and outputs. It mirrors runtime/schema/
// engine.fbs (Plan.buffers, Plan.images, Plan.kernels, Arg) so the writer is
// a field-by-field copy:
//
//   CompiledModel.buffers[i]   -> fb::Buffer   (kind, offset, size,
//   io_index/weight) CompiledModel.kernels[i]   -> fb::Image    (cubin and PTX
//   sections) CompiledModel.launches[i]  -> fb::Kernel   (image, entry, grid,
//   block, smem, args) LaunchArg                  -> fb::Arg      (BufferRef:
//   buffer + byte offset; Scalar) CompiledModel.weights[i]   -> one weight
//   section each (alignment >= 256)
//
// Bound inputs/outputs must be 16-byte aligned (kernels use 16-byte vector
// accesses on them); the arena and weight sections must be 256-byte aligned.
// Outputs must not share memory with inputs or each other.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_COMPILEDMODEL_H
#define KILN_COMPILER_CODEGEN_COMPILEDMODEL_H

#include "autotune/TensorMap.h"
#include "compiler/kernels/common/KernelSpec.h"
#include "compiler/nvrtc/NvrtcCompiler.h"
#include "kiln/engine_writer.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::codegen {

/// A model input or output.
struct TensorDesc {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  uint64_t bytes = 0; // Bool: one byte per element
};

/// Constant data uploaded with the engine.
struct WeightBlob {
  std::string name;
  std::vector<char> data; // little-endian, row-major; Bool one byte per element
  uint64_t alignment = 256;
};

/// A region of memory that launch arguments point into (fb::Buffer).
struct BufferDesc {
  enum class Kind : uint8_t {
    Arena = 0,
    Weights = 1,
    Input = 2,
    Output = 3,
    Workspace = 4 ///< the context's zeroed kernel workspace (all of it)
  };
  Kind kind = Kind::Arena;
  /// Arena: byte offset in the arena; others: 0.
  uint64_t offset = 0;
  uint64_t size = 0;
  /// Weights: index into CompiledModel::weights; Input/Output: index into
  /// inputs/outputs; Arena: unused (0).
  uint32_t index = 0;
  std::string name; // for messages
};

enum class ScalarType : uint8_t {
  None = 0,
  I8 = 1,
  U8 = 2,
  I16 = 3,
  U16 = 4,
  I32 = 5,
  U32 = 6,
  I64 = 7,
  U64 = 8,
  F16 = 9,
  BF16 = 10,
  F32 = 11,
  F64 = 12,
};

/// One kernel parameter (fb::Arg): a buffer's device address plus a byte
/// offset, or a scalar immediate (its bits in the low bytes of `value`).
struct LaunchArg {
  /// TensorMap: Launch::tensorMaps[value].
  enum class Kind : uint8_t { BufferRef = 0, Scalar = 1, TensorMap = 2 };
  Kind kind = Kind::BufferRef;
  ScalarType scalarType = ScalarType::None;
  uint32_t buffer = 0;
  uint64_t value = 0;
};

struct Launch {
  std::string name; // the kernel.launch symbol (the ONNX node)
  std::string kind;
  uint32_t kernel = 0; // index into CompiledModel::kernels
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  uint32_t smem = 0; // dynamic shared memory bytes
  std::vector<LaunchArg> args;
  std::string nodes;  // ONNX nodes covered (from the op's location), ", " separated
  uint64_t bytes = 0; // operand bytes
  uint64_t flops = 0; // estimateFlops
  /// The kernel starts with kiln::grid_dependency_sync() (KernelSource).
  bool programmatic = false;
  /// TMA descriptors of the TensorMap arguments; `buffer` indexes
  /// CompiledModel::buffers.
  std::vector<autotune::TensorMapArg> tensorMaps;
  /// A library call in place of a kernel (`kernel` unused): a matmul whose
  /// config says path = cublaslt. Its operands index `args`.
  bool hasLibrary = false;
  engine::LibraryCallSpec library;
};

struct CompiledModel {
  std::string arch;                           // "sm_90"
  std::string nvrtcVersion;                   // "13.0"
  std::vector<nvrtc::CompiledKernel> kernels; // unique images
  /// Per kernel: the module defines `kiln_error` (u32, nonzero after a run
  /// when a gather index was out of range and clamped).
  std::vector<bool> kernelHasErrorFlag;
  std::vector<BufferDesc> buffers;
  std::vector<Launch> launches; // in launch order
  std::vector<WeightBlob> weights;
  uint64_t arenaSize = 0;
  /// Bytes of the kernel workspace (launchWorkspaceBytes' largest), which
  /// the launches that use one share: they run one after another.
  uint64_t workspaceSize = 0;
  std::vector<TensorDesc> inputs, outputs;
};

struct CodegenOptions {
  std::string arch = "sm_90";
  /// Parallel NVRTC compiles (0: one per hardware thread).
  unsigned jobs = 0;
  bool lineInfo = false;
  /// Skip NVRTC (kernels get source only): for printing CUDA without NVRTC.
  bool emitSourceOnly = false;
};

/// Compiles the planned kernel function of `kernelModule` (@main, or the only
/// kernel function): emits CUDA for every launch, compiles the distinct
/// kernels with NVRTC, packs the weights. Errors are emitted as diagnostics
/// at the failing op.
mlir::FailureOr<CompiledModel> compileModule(mlir::ModuleOp kernelModule,
                                             const CodegenOptions &options);

} // namespace kiln::codegen

namespace kiln {
/// Registers the lowering and kernel passes (kiln-lower-to-kernel,
/// kiln-plan-memory) for kiln-opt; the kernel dialect itself comes from
/// registerKernelDialect (dialects/kernel/KernelDialect.h).
void registerCodegenPasses();
} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_COMPILEDMODEL_H

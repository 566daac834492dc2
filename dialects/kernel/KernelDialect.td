//===- KernelDialect.td - Kiln kernel dialect definition --*- tablegen -*-===//
//
// The kernel dialect: explicit buffers and GPU launches. Lowering turns a
// graph-dialect function into a `func.func` over memref buffers (the model's
// inputs, then its outputs) whose body allocates activation buffers, names
// weights, views buffers through aliases and launches one kernel per op.
// Memory planning and autotuning work here; CUDA codegen reads it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_KERNEL_DIALECT
#define KILN_KERNEL_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"

def Kernel_Dialect : Dialect {
  let name = "kernel";
  let cppNamespace = "::kiln::kernel";
  let summary = "Kiln's buffer-and-launch dialect";
  let description = [{
    Values are statically shaped, identity-layout memrefs: byte ranges of
    device memory with an element type and a row-major shape. They come from
    four places: the function's arguments (model inputs and outputs, bound by
    the runtime), `kernel.alloc` (activation memory, placed in one arena by
    memory planning), `kernel.weight` (constant data uploaded with the engine)
    and `kernel.alias` (a view of another buffer's bytes, e.g. a reshape).
    Each `kernel.launch` is one GPU launch; it reads its `ins` and writes its
    `outs`, in program order.

    The function carries the attributes below; all are checked by the
    dialect's attribute verifiers:

    * argument attributes `kernel.input = <i>` / `kernel.output = <i>` (the
      index of the model input or output the argument binds) and
      `kernel.name = "<onnx name>"`;
    * the function attribute `kernel.arena_size = <bytes>`, set by memory
      planning.

    ```mlir
    func.func @main(%x: memref<2x8xf32> {kernel.input = 0 : i64, kernel.name = "x"},
                    %y: memref<2x8xf32> {kernel.output = 0 : i64, kernel.name = "y"})
        attributes {kernel.arena_size = 256 : i64} {
      %0 = kernel.alloc {offset = 0 : i64} : memref<2x8xf32>
      kernel.launch @relu_0 ins(%x : memref<2x8xf32>) outs(%0 : memref<2x8xf32>)
          {kind = "elementwise", config = {op = "relu", vec = 4 : i64},
           grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
      kernel.launch @exp_1 ins(%0 : memref<2x8xf32>) outs(%y : memref<2x8xf32>)
          {kind = "elementwise", config = {op = "exp", vec = 4 : i64},
           grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
      return
    }
    ```
  }];
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Attribute names used on functions and their arguments.
    static constexpr ::llvm::StringLiteral kInputAttr = "kernel.input";
    static constexpr ::llvm::StringLiteral kOutputAttr = "kernel.output";
    static constexpr ::llvm::StringLiteral kNameAttr = "kernel.name";
    static constexpr ::llvm::StringLiteral kArenaSizeAttr = "kernel.arena_size";
  }];
}

class Kernel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kernel_Dialect, mnemonic, traits>;

/// A statically shaped memref with the identity layout: a dense row-major
/// buffer.
def Kernel_Buffer : Type<
    And<[AnyStaticShapeMemRef.predicate,
         CPred<"::llvm::cast<::mlir::MemRefType>($_self).getLayout().isIdentity()">]>,
    "statically shaped row-major memref", "::mlir::MemRefType">;

#endif // KILN_KERNEL_DIALECT

//===- KernelOps.td - Kiln kernel dialect ops -------------*- tablegen -*-===//
//
// Buffers (alloc, weight, alias) and launches of the kernel dialect.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_KERNEL_OPS
#define KILN_KERNEL_OPS

include "KernelDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Kernel_AllocOp : Kernel_Op<"alloc", [
    MemoryEffects<[MemAlloc<DefaultResource, 0, FullEffect>]>]> {
  let summary = "an activation buffer in the arena";
  let description = [{
    A buffer of `memref` type whose bytes live in the execution context's
    activation arena. Memory planning sets `offset`, the byte offset in the
    arena (a multiple of its alignment, 256); before planning it is absent.
    The buffer's contents are undefined until a launch writes them.

    ```mlir
    %0 = kernel.alloc {offset = 512 : i64} : memref<4x16xf32>
    ```
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs Kernel_Buffer:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes the buffer occupies (element count times element bytes).
    int64_t getByteSize();
  }];
}

def Kernel_WeightOp : Kernel_Op<"weight", [Pure]> {
  let summary = "a constant buffer uploaded with the engine";
  let description = [{
    A read-only buffer holding `value` (a graph constant's elements,
    typically a `dense_resource` blob so weights stay out of printed IR). Its
    element type and shape equal the memref's. `name` names it in messages
    and in the engine (the ONNX initializer, when known).

    ```mlir
    %w = kernel.weight {name = "fc.weight"} dense_resource<fc_weight> : tensor<16x8xf32> -> memref<16x8xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value, OptionalAttr<StrAttr>:$name);
  let results = (outs Kernel_Buffer:$buffer);
  let assemblyFormat = "attr-dict $value `->` type($buffer)";
  let hasVerifier = 1;
}

def Kernel_AliasOp : Kernel_Op<"alias", [Pure]> {
  let summary = "a view of another buffer's bytes";
  let description = [{
    Reinterprets bytes `[offset, offset + size(result))` of `source` as the
    result memref: no copy, no launch. Reshapes lower to aliases at offset 0;
    a slice that selects one contiguous range becomes an alias at its byte
    offset. Writing through an alias writes the source. `offset` must be a
    multiple of the result's element size and the view must fit in the
    source.

    ```mlir
    %1 = kernel.alias %0 : memref<2x3xf32> -> memref<6xf32>
    %2 = kernel.alias %0 {offset = 12 : i64} : memref<2x3xf32> -> memref<3xf32>
    ```
  }];
  let arguments = (ins Kernel_Buffer:$source,
                   DefaultValuedAttr<I64Attr, "0">:$offset);
  let results = (outs Kernel_Buffer:$view);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($view)";
  let hasVerifier = 1;
}

def Kernel_LaunchOp : Kernel_Op<"launch", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "one GPU kernel launch";
  let description = [{
    Launches the kernel that codegen instantiates for `kind` with `config`
    (op parameters and tuning choices: tile sizes, vector width, block size)
    over the buffers `ins` (read) and `outs` (written), with the launch
    geometry `grid` x `block` and `smem` bytes of dynamic shared memory. The
    kernel's parameters are the buffers' device addresses, `ins` first. An
    output must not share bytes with an input of the same launch (as SSA
    values, checked by the verifier), except that kiln-plan-memory may place
    an elementwise output over an input that dies there: the pair is then
    named by `config.in_place` and its parameters are not `__restrict__`.

    Kinds: `elementwise` (unary/binary/where/cast/copy/expand with
    broadcasting: `config.op`), `transpose`, `slice`, `trilu`, `concat`,
    `reduce`, `softmax`, `layer_norm`, `batch_norm`, `matmul` (batched
    matmul and gemm), `conv`, `pool`, `gather`, `gather_elements`. Codegen
    documents the `config` keys of each (compiler/kernels/common/KernelSpec.h).

    ```mlir
    kernel.launch @fc ins(%x, %w : memref<4x8xf32>, memref<8x16xf32>)
        outs(%y : memref<4x16xf32>)
        {kind = "matmul", config = {path = "simt", tile_m = 64 : i64, tile_n = 64 : i64},
         grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>, smem = 0 : i64}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$name, Variadic<Kernel_Buffer>:$inputs,
                   Variadic<Kernel_Buffer>:$outputs, StrAttr:$kind,
                   DictionaryAttr:$config, DenseI64ArrayAttr:$grid,
                   DenseI64ArrayAttr:$block,
                   DefaultValuedAttr<I64Attr, "0">:$smem);
  let assemblyFormat = [{
    $name `ins` `(` ($inputs^ `:` type($inputs))? `)`
    `outs` `(` $outputs `:` type($outputs) `)` attr-dict
  }];
  let hasVerifier = 1;
}

#endif // KILN_KERNEL_OPS

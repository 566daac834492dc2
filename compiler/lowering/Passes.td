//===- Passes.td - Kiln lowering and kernel passes ---------*- tablegen -*-===//
//
// Graph -> kernel lowering and the passes over the kernel dialect.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LOWERING_PASSES
#define KILN_LOWERING_PASSES

include "mlir/Pass/PassBase.td"

def LowerToKernelPass : Pass<"kiln-lower-to-kernel", "mlir::ModuleOp"> {
  let summary = "lower graph-dialect functions to buffers and kernel launches";
  let description = [{
    Rewrites every `func.func` over tensors into a `func.func` over memref
    buffers: the model's inputs, then its outputs (argument attributes
    `kernel.input`/`kernel.output` and `kernel.name`). In the body,
    `graph.constant` becomes `kernel.weight` (the same ElementsAttr, so
    dense_resource blobs are not copied), `graph.reshape` and slices of one
    contiguous range become `kernel.alias` (no copy), and every other graph op
    becomes a `kernel.alloc` for its result plus one `kernel.launch` whose
    kind, config and geometry come from the CUDA launch heuristics.

    A returned value is written straight into its output buffer when it is
    the only view of a fresh allocation (the allocation is replaced by the
    output, through an alias for reshapes); otherwise (an input, a weight, a
    value returned twice, a slice view) a copy launch fills the output.
    Launches with no output elements are dropped.

    ```mlir
    func.func @main(%x: tensor<2x8xf32>) -> tensor<16xf32> {
      %0 = graph.relu %x : tensor<2x8xf32> -> tensor<2x8xf32>
      %1 = graph.reshape %0 : tensor<2x8xf32> -> tensor<16xf32>
      return %1 : tensor<16xf32>
    }
    ```
    becomes
    ```mlir
    func.func @main(%x: memref<2x8xf32> {kernel.input = 0 : i64},
                    %y: memref<16xf32> {kernel.output = 0 : i64}) {
      %0 = kernel.alias %y : memref<16xf32> -> memref<2x8xf32>
      kernel.launch @relu ins(%x : memref<2x8xf32>) outs(%0 : memref<2x8xf32>) {...}
      return
    }
    ```
  }];
  let dependentDialects = ["kiln::kernel::KernelDialect", "mlir::func::FuncDialect"];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_90\"",
           "GPU architecture the launch heuristics choose for">,
    Option<"matmulPath", "matmul-path", "std::string", /*default=*/"\"auto\"",
           "Path of matmul launches: auto (the heuristic's), mma, wgmma "
           "(sm_90; matmuls it cannot take keep mma) or simt">,
  ];
  let statistics = [
    Statistic<"numLaunches", "num-launches", "Number of kernel launches created">,
    Statistic<"numAliases", "num-aliases", "Number of views created instead of copies">,
    Statistic<"numOutputCopies", "num-output-copies",
              "Number of copy launches that fill an output buffer">,
  ];
}

def PlanMemoryPass : Pass<"kiln-plan-memory", "mlir::ModuleOp"> {
  let summary = "place activation buffers in one arena by liveness";
  let description = [{
    Gives every `kernel.alloc` an arena `offset` and every kernel function a
    `kernel.arena_size`. A buffer lives from the first launch that touches it
    (directly or through an alias) to the last; buffers whose lifetimes
    overlap (a launch's inputs and outputs always do) get disjoint byte
    ranges. Placement is greedy by size (largest first, each at the lowest
    `alignment`-aligned offset that fits between the ranges of conflicting
    buffers already placed), which is deterministic and packs well. Allocations
    no launch touches are erased.

    In place: the output of an `elementwise` or `fused_elementwise` launch
    takes the bytes of an input that dies at that launch when both are whole
    allocations of one shape and element size (each element is read at the
    output's own index before it is written). The launch's config records
    `in_place = array<i64: input, output, ...>`; codegen then drops
    `__restrict__` from those parameters.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"256",
           "Byte alignment of every buffer offset and of the arena size">,
    Option<"inPlace", "in-place", "bool", /*default=*/"true",
           "Let elementwise outputs reuse a dying input's bytes">,
  ];
  let statistics = [
    Statistic<"arenaBytes", "arena-bytes", "Bytes of the planned arena">,
    Statistic<"allocatedBytes", "allocated-bytes",
              "Sum of all activation buffer sizes (the arena without reuse)">,
    Statistic<"inPlaceBuffers", "in-place-buffers",
              "Elementwise outputs written over a dying input">,
  ];
}

#endif // KILN_LOWERING_PASSES

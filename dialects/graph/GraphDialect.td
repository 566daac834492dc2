//===- GraphDialect.td - Kiln graph dialect definition ----*- tablegen -*-===//
//
// The graph dialect: value-semantics tensor ops close to ONNX, with static
// shapes. The ONNX frontend produces it; graph passes (folding, fusion,
// attention, sharding) transform it; lowering turns it into the kernel dialect.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_DIALECT
#define KILN_GRAPH_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"

def Graph_Dialect : Dialect {
  let name = "graph";
  let cppNamespace = "::kiln::graph";
  let summary = "Kiln's tensor-level graph dialect";
  let description = [{
    Ops on ranked, statically shaped tensors with value semantics. Every op
    verifies its operand and result shapes and element types; every op
    imported from ONNX carries the ONNX node name as its location.
    Shape-only ONNX ops (Squeeze, Unsqueeze, Flatten, Reshape) become
    `graph.reshape`; Shape, ConstantOfShape and Range become constants since
    shapes are static; Identity disappears.
  }];
  let hasConstantMaterializer = 1;
  let hasCanonicalizer = 1;
}

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, traits>;

#endif // KILN_GRAPH_DIALECT

#!/usr/bin/env python3
"""Writes mlp.onnx, the example model the README's build command compiles:
a two-layer MLP classifier (Gemm, Relu, MatMul, Add, Softmax) with seeded
random weights and a symbolic-free static batch of 4."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)
w1 = numpy_helper.from_array(rng.standard_normal((64, 128)).astype(np.float32) * 0.1, "fc1.weight")
b1 = numpy_helper.from_array(rng.standard_normal(128).astype(np.float32) * 0.1, "fc1.bias")
w2 = numpy_helper.from_array(rng.standard_normal((128, 10)).astype(np.float32) * 0.1, "fc2.weight")
b2 = numpy_helper.from_array(rng.standard_normal(10).astype(np.float32) * 0.1, "fc2.bias")
nodes = [
    helper.make_node("Gemm", ["x", "fc1.weight", "fc1.bias"], ["h"], name="fc1"),
    helper.make_node("Relu", ["h"], ["a"], name="relu"),
    helper.make_node("MatMul", ["a", "fc2.weight"], ["l0"], name="fc2"),
    helper.make_node("Add", ["l0", "fc2.bias"], ["logits"], name="fc2_bias"),
    helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
]
graph = helper.make_graph(
    nodes, "mlp",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 64])],
    [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [4, 10])],
    [w1, b1, w2, b2])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, __file__.replace("make_mlp.py", "mlp.onnx"))

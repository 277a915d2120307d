#!/usr/bin/env python3
"""Writes tests/golden/small_net.onnx (checked in; run by hand only to change it): a small float
model for the known answers that reaches what the bundled tiny_cnn does not: an H != W input, a
strided conv with asymmetric pads, a grouped conv, odd channel counts, ceil_mode max pooling with
an overhanging window, a residual add of two branches, a concat (requantized inputs), average
pooling, and two outputs, one of them spatial (many int8 values to compare)."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(5)
inits, nodes = [], []


def const(name, shape, scale):
    inits.append(numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name))
    return name


def conv(x, y, cin, cout, k, relu, **attrs):
    group = attrs.get("group", 1)
    w = const(y + ".w", (cout, cin // group, k, k), 1.0 / np.sqrt(cin // group * k * k))
    b = const(y + ".b", (cout,), 0.1)
    out = y + ".pre" if relu else y
    nodes.append(helper.make_node("Conv", [x, w, b], [out], kernel_shape=[k, k], **attrs))
    if relu:
        nodes.append(helper.make_node("Relu", [out], [y]))
    return y


x = conv("input", "c1", 3, 7, 3, True, strides=[2, 2], pads=[1, 0, 1, 2])           # 7 x 5 x 6
x = conv(x, "c2", 7, 9, 3, True, group=1, pads=[1, 1, 1, 1])
x = conv(x, "c3", 9, 9, 3, True, group=3, pads=[1, 1, 1, 1])                       # grouped
nodes.append(helper.make_node("MaxPool", [x], ["p1"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1))  # 9 x 3 x 3: the last row's window overhangs
a = conv("p1", "a", 9, 5, 1, True)
b = conv("p1", "b", 9, 5, 3, False, pads=[1, 1, 1, 1])
nodes.append(helper.make_node("Add", [a, b], ["sum"]))
nodes.append(helper.make_node("Relu", ["sum"], ["res"]))
nodes.append(helper.make_node("Concat", ["res", "p1"], ["cat"], axis=1))            # 14 x 3 x 3
nodes.append(helper.make_node("AveragePool", ["cat"], ["features"], kernel_shape=[2, 2], strides=[1, 1]))  # 14 x 2 x 2
nodes.append(helper.make_node("GlobalAveragePool", ["features"], ["gap"]))
nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], axis=1))
fc_w, fc_b = const("fc.w", (7, 14), 1.0 / np.sqrt(14)), const("fc.b", (7,), 0.1)
nodes.append(helper.make_node("Gemm", ["flat", fc_w, fc_b], ["logits"], transB=1))

graph = helper.make_graph(
    nodes, "small_net", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 9, 12])],
    [helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, 14, 2, 2]),
     helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 7])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.checker.check_model(model, full_check=True)
onnx.save(model, os.path.join(os.path.dirname(os.path.abspath(__file__)), "small_net.onnx"))

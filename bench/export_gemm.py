#!/usr/bin/python3
"""Exports an N x N x N matrix product (an ONNX MatMul of an N x N input by an N x N initializer,
random weights, seed 0, opset 14): issue 12's GEMM utilisation figure (bench/gemm.sh).
usage: export_gemm.py OUT.onnx [N]   (does nothing if OUT.onnx exists)"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1024
if not os.path.exists(out):
    w = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32) / np.sqrt(n)
    graph = helper.make_graph([helper.make_node("MatMul", ["input", "w"], ["output"])], f"gemm{n}",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [n, n])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [n, n])],
                              [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    onnx.checker.check_model(model)
    tmp = out + ".tmp"
    onnx.save(model, tmp)
    os.replace(tmp, out)
print(f"{out}: {os.path.getsize(out)} bytes")

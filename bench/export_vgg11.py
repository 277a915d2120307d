#!/usr/bin/python3
"""Exports torchvision's VGG-11 (random weights, seed 0, batch 1, opset 14): a 531 MB model whose
first classifier layer is most of it, for bench/speed.sh's compile-memory figure.
usage: export_vgg11.py OUT.onnx   (does nothing if OUT.onnx exists)"""
import os
import sys

import torch
import torchvision

out = sys.argv[1]
if not os.path.exists(out):
    torch.manual_seed(0)
    model = torchvision.models.vgg11(weights=None).eval()
    tmp = out + ".tmp"
    torch.onnx.export(model, torch.randn(1, 3, 224, 224), tmp, opset_version=14, input_names=["input"], output_names=["output"],
                      do_constant_folding=True)
    os.replace(tmp, out)
print(f"{out}: {os.path.getsize(out)} bytes")

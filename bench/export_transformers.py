#!/usr/bin/python3
"""Export issue 32's transformer benchmarks for bench/transformers.sh.

    /usr/bin/python3 bench/export_transformers.py --out build/transformers [NAME...]

Random weights (torch.manual_seed(0)), opset 14, batch 1, eval mode:
  encoder      4-layer nn.TransformerEncoder: d_model 256, 4 heads, FFN 1024, GELU, sequence 128
  decoder      a GPT-2-style block: causal self-attention (an additive -inf mask above the
               diagonal), pre-LayerNorm, GELU MLP; d 256, 4 heads, sequence 128
  vit          torchvision's VisionTransformer, a small config: 64x64 images, patch 8 (64 patches
               and a class token: 65 tokens), 4 layers, d 192, 3 heads, MLP 768 (vit_b_16's
               shapes would be 197 tokens, d 768, 12 layers: too slow for this machine's bench)
  encoder_sNNN one encoder layer (d 256, 4 heads, FFN 1024) at sequence NNN, for the sweep
               of sequence length (64 ... 1024)
Each NAME.calib.npz holds 8 calibration samples of N(0, 1) inputs (another seed). An existing file
is kept.
"""
import argparse
import os
import sys

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "models"))
from export_models import DecoderBlock, vit  # noqa: E402  (the model zoo's definitions)


def encoder(layers=4, d=256, heads=4, ffn=1024):
    layer = nn.TransformerEncoderLayer(d, heads, ffn, dropout=0.0, activation="gelu", batch_first=True)
    return nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)


MODELS = {
    "encoder": (encoder, (1, 128, 256)),
    "decoder": (DecoderBlock, (1, 128, 256)),
    "vit": (vit, (1, 3, 64, 64)),
}
for seq in (64, 128, 256, 512, 1024):
    MODELS[f"encoder_s{seq}"] = (lambda: encoder(layers=1), (1, seq, 256))


def export(name, out_dir):
    path = os.path.join(out_dir, name + ".onnx")
    if os.path.exists(path):
        return
    make, shape = MODELS[name]
    torch.manual_seed(0)
    model = make().eval()
    # (not under torch.no_grad(): PyTorch's fused inference path of the encoder has no ONNX export)
    torch.onnx.export(model, torch.randn(shape), path + ".tmp", opset_version=14, input_names=["input"],
                      output_names=["output"])
    os.replace(path + ".tmp", path)
    rng = np.random.default_rng(1)
    calib = os.path.join(out_dir, name + ".calib")
    os.makedirs(calib, exist_ok=True)
    for i in range(8):
        np.save(os.path.join(calib, f"{i}.npy"), rng.standard_normal(shape).astype(np.float32))
    print(f"{name}: {os.path.getsize(path)} bytes")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in args.names or MODELS:
        export(name, args.out)


if __name__ == "__main__":
    main()

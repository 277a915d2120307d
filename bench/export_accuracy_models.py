#!/usr/bin/python3
"""Export the public torchvision architectures bench/int8_accuracy measures, with calibration and
evaluation data and PyTorch's outputs (bench/int8_accuracy.md shows how they are used).

    /usr/bin/python3 bench/export_accuracy_models.py --out build/int8/accuracy [MODEL...]

For each model NAME it writes, into OUT/NAME/:
  model.onnx         opset 14, batch 1, input "input" 1x3x224x224, BatchNorm folded (eval mode)
  calib/samples.npy  float32 [8, 3, 224, 224]: 8 calibration samples, N(0, 1), seed CALIB_SEED
                     (a directory systole's --calib / loadCalibrationDir reads as 8 samples)
  eval_inputs.npy    float32 [E, 3, 224, 224]: E evaluation inputs, N(0, 1), seed EVAL_SEED
  eval_outputs.npy   float32 [E, 1000]: PyTorch's outputs for them
Offline: weights=None with torch.manual_seed(0); BatchNorm running statistics come from a few
train-mode batches of N(0, 1) data (tests/models/export_models.py's settle_batchnorm), so an
untrained network's activations do not collapse. A model whose files exist is skipped.
"""
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "models"))
from export_models import save_atomic, settle_batchnorm, vision  # noqa: E402

MODELS = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b1", "densenet169",
          "regnet_y_400mf"]
SHAPE = (1, 3, 224, 224)
CALIB_SEED = 1
EVAL_SEED = 2
CALIB_SAMPLES = 8


def normal(count, seed):
    return torch.randn((count,) + SHAPE[1:], generator=torch.Generator().manual_seed(seed))


def save_npy(path, tensor):
    array = tensor.detach().numpy().astype(np.float32)
    save_atomic(path, lambda tmp: np.save(open(tmp, "wb"), array))


def export(name, out_dir, evals, opset):
    d = os.path.join(out_dir, name)
    paths = {k: os.path.join(d, k) for k in ("model.onnx", "calib/samples.npy", "eval_inputs.npy", "eval_outputs.npy")}
    if all(os.path.exists(p) for p in paths.values()):
        print(f"{name}: up to date")
        return
    os.makedirs(os.path.join(d, "calib"), exist_ok=True)
    torch.manual_seed(0)
    model = vision(name)
    settle_batchnorm(model, (4,) + SHAPE[1:])
    model.eval()
    x = normal(evals, EVAL_SEED)
    with torch.no_grad():
        y = torch.cat([model(x[i:i + 1]) for i in range(evals)])
    save_atomic(paths["model.onnx"], lambda tmp: torch.onnx.export(
        model, x[:1], tmp, opset_version=opset, training=torch.onnx.TrainingMode.EVAL, input_names=["input"],
        output_names=["output"], do_constant_folding=True))
    save_npy(paths["calib/samples.npy"], normal(CALIB_SAMPLES, CALIB_SEED))
    save_npy(paths["eval_inputs.npy"], x)
    save_npy(paths["eval_outputs.npy"], y)
    print(f"{name}: output {tuple(y.shape)}, max |y| {y.abs().max().item():.4g}, std {y.std().item():.4g}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="output directory (one subdirectory per model)")
    p.add_argument("--eval", type=int, default=32, help="evaluation inputs per model (default 32)")
    p.add_argument("--opset", type=int, default=14)
    p.add_argument("models", nargs="*", help=f"names to export (default: {' '.join(MODELS)})")
    args = p.parse_args()
    if args.eval < 20:
        p.error("--eval must be at least 20")
    torch.set_num_threads(1)
    for n in args.models or MODELS:
        export(n, args.out, args.eval, args.opset)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Export issue 11's model suite (public torchvision architectures) for bench/model_suite.sh.

    /usr/bin/python3 bench/export_suite_models.py --out build/suite [NAME...]
    bash bench/model_suite.sh default build/suite/*.onnx

Each NAME.onnx: opset 14, input "input" 1x3x224x224 (resnet18_b4: batch 4; resnet18_dynamic: a
dynamic batch axis, bind it with --shape input=1x3x224x224), random weights (weights=None,
torch.manual_seed(0)), BatchNorm statistics from a few train-mode batches of N(0, 1) data
(tests/models/export_models.py's settle_batchnorm). lraspp exports the "out" tensor of
lraspp_mobilenet_v3_large. An existing file is kept.
"""
import argparse
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "models"))
from export_models import lraspp, save_atomic, settle_batchnorm  # noqa: E402

SHAPE = (1, 3, 224, 224)


def classifier(name):
    return lambda: getattr(torchvision.models, name)(weights=None)


# name -> (constructor, batch, dynamic batch axis)
SUITE = {name: (classifier(name), 1, False) for name in [
    "mobilenet_v3_large", "efficientnet_b1", "shufflenet_v2_x1_0", "densenet169", "resnext50_32x4d",
    "regnet_y_400mf", "googlenet", "mnasnet0_5"]}
SUITE["lraspp"] = (lraspp, 1, False)
SUITE["resnet18_b4"] = (classifier("resnet18"), 4, False)
SUITE["resnet18_dynamic"] = (classifier("resnet18"), 1, True)


def export(name, out_dir):
    path = os.path.join(out_dir, name + ".onnx")
    if os.path.exists(path):
        print(f"{name}: up to date")
        return
    make, batch, dynamic = SUITE[name]
    torch.manual_seed(0)
    model = make()
    settle_batchnorm(model, (2,) + SHAPE[1:])
    model.eval()
    x = torch.randn((batch,) + SHAPE[1:])
    axes = {"input": {0: "batch"}, "output": {0: "batch"}} if dynamic else None
    save_atomic(path, lambda tmp: torch.onnx.export(
        model, x, tmp, opset_version=14, training=torch.onnx.TrainingMode.EVAL, input_names=["input"],
        output_names=["output"], do_constant_folding=True, dynamic_axes=axes))
    print(f"{name}: exported")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("models", nargs="*", help=f"names (default: all of {' '.join(SUITE)})")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    for name in args.models or SUITE:
        if name not in SUITE:
            p.error(f"unknown model {name}")
        export(name, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""How much of the INT8 loss is the model's own error gain: PyTorch, in float32, with only the
input rounded to int8 (the first QuantizeLinear every INT8 program has; min/max range of the
calibration samples, asymmetric, 255 steps), compared with the exact outputs. No quantizer can
do better than this on these figures, since the rest of the INT8 graph only adds error.

    /usr/bin/python3 bench/input_noise_sensitivity.py --dir build/int8/accuracy [MODEL...]

Reads the files bench/export_accuracy_models.py writes (the model is rebuilt from the same seed,
so its weights are the exported ones) and prints one markdown row per model.
"""
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_accuracy_models import MODELS, SHAPE  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "models"))
from export_models import settle_batchnorm, vision  # noqa: E402


def fake_quant(x, lo, hi):
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255
    zp = np.clip(np.round(-128 - lo / scale), -128, 127)
    q = np.clip(np.round(x / scale) + zp, -128, 127)
    return ((q - zp) * scale).astype(np.float32)


def row(name, directory):
    d = os.path.join(directory, name)
    calib = np.load(os.path.join(d, "calib", "samples.npy"))
    x = np.load(os.path.join(d, "eval_inputs.npy"))
    want = np.load(os.path.join(d, "eval_outputs.npy"))
    torch.manual_seed(0)
    model = vision(name)
    settle_batchnorm(model, (4,) + SHAPE[1:])
    model.eval()
    xq = fake_quant(x, float(calib.min()), float(calib.max()))
    with torch.no_grad():
        got = torch.cat([model(torch.from_numpy(xq[i:i + 1])) for i in range(len(xq))]).numpy()
    cos = (want * got).sum(1) / np.sqrt((want ** 2).sum(1) * (got ** 2).sum(1))
    sqnr = 10 * np.log10((want ** 2).sum() / ((want - got) ** 2).sum())
    input_sqnr = 10 * np.log10((x ** 2).sum() / ((x - xq) ** 2).sum())
    top1 = 100 * np.mean(want.argmax(1) == got.argmax(1))
    print(f"| {name} | {len(x)} | {input_sqnr:.1f} | {cos.mean():.5f} | {cos.min():.5f} | {sqnr:.2f} | {top1:.1f}% |",
          flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", required=True, help="the directory export_accuracy_models.py wrote")
    p.add_argument("models", nargs="*")
    args = p.parse_args()
    torch.set_num_threads(1)
    print("| model | inputs | input SQNR dB | mean cosine | worst cosine | output SQNR dB | top-1 agreement |\n"
          "| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in args.models or MODELS:
        row(name, args.dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Top-1 against real labels, float and quantized on the NPU, for trained networks (issue 33).

    PYTHONPATH=build/default/python /usr/bin/python3 tests/e2e/trained_top1.py DIR [NAME...] [--isa CONFIG]
        [--max-drop POINTS] [--precision int8|int4|auto] [--min-cosine X] [--bias-correction off|narrow|all]
        [--equalize off|on|relu6] [--set KEY=VALUE ...]

DIR holds NAME.onnx, NAME.logits.npy (the training framework's float logits on the test set),
test.npz (`x` [N, ...] float32 images, `labels` [N]) and calib/ (one .npy per calibration sample),
as bench/trained/train.py writes them (tests/models/trained/ holds a copy). Each network is compiled once (calibrated on calib/),
every test image run on the simulated NPU, checked bit for bit against the reference interpreter
(`check=True`), and its prediction compared with the label. Prints a Markdown row per network:
the float model's top-1 (PyTorch's logits), quantized top-1, their difference in points, the share of
images whose two predictions agree, the lowest and the mean cosine of the INT8 logits against
PyTorch's, NPU programs. Exits 1 if a run is not bit-exact (systole.Error) or, with --max-drop,
if a network's quantized top-1 is more than that many points below its float top-1.
"""
import argparse
import glob
import os
import sys

import numpy as np
import systole


def evaluate(path, config, x, labels, float_logits, calib, options):
    model = systole.compile(path, config, calibration=calib, **options)
    hits_float = hits_int8 = agree = 0
    cosines = []
    for image, label, want in zip(x, labels, float_logits):
        got = np.asarray(next(iter(model.run(image[None], check=True).outputs.values()))).ravel()
        hits_float += int(np.argmax(want)) == label
        hits_int8 += int(np.argmax(got)) == label
        agree += int(np.argmax(want)) == int(np.argmax(got))
        cosines.append(float(got @ want / (np.linalg.norm(got) * np.linalg.norm(want))))
    n = len(labels)
    return {"float": 100 * hits_float / n, "int8": 100 * hits_int8 / n, "agree": 100 * agree / n,
            "cos_min": min(cosines), "cos_mean": float(np.mean(cosines)), "programs": model.programs,
            "int4": sum(bits == 4 for _, bits in model.weight_bits), "layers": len(model.weight_bits)}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir")
    p.add_argument("models", nargs="*")
    p.add_argument("--isa", default="default")
    p.add_argument("--max-drop", type=float, default=None, help="fail if quantized top-1 falls more points than this")
    p.add_argument("--precision", default="", help="the weights' width: int8, int4 or auto (default: the config's)")
    p.add_argument("--min-cosine", type=float, default=0.99, help="--precision auto's target")
    p.add_argument("--bias-correction", default="narrow", choices=["off", "narrow", "all"],
                   help="which layers' biases absorb their weight rounding's mean shift")
    p.add_argument("--equalize", default="off", choices=["off", "on", "relu6"],
                   help="cross-layer equalization (relu6 also turns the joining ReLU6s into ReLUs)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a config override (repeatable), as systole's --set: types.accumulator=int16")
    args = p.parse_args()
    test = np.load(os.path.join(args.dir, "test.npz"))
    calib = [np.load(f) for f in sorted(glob.glob(os.path.join(args.dir, "calib", "*.npy")))]
    names = args.models or sorted(os.path.basename(f)[:-5] for f in glob.glob(os.path.join(args.dir, "*.onnx")))
    config = systole.load_config(args.isa, dict(kv.split("=", 1) for kv in args.set) or None)
    design = ", ".join([args.isa] + args.set + ([args.precision] if args.precision else []) +
                       ([f"equalize {args.equalize}"] if args.equalize != "off" else []))
    print(f"| network | float top-1 | quantized top-1 ({design}) | difference | predictions agree | cosine min / mean | int4 layers | NPU programs |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    failed = False
    for name in names:
        try:
            r = evaluate(os.path.join(args.dir, name + ".onnx"), config, test["x"], test["labels"],
                         np.load(os.path.join(args.dir, name + ".logits.npy")), calib,
                         {"precision": args.precision, "min_cosine": args.min_cosine,
                          "bias_correction": args.bias_correction, "equalize": args.equalize})
        except systole.Error as e:
            print(f"| {name} | error: {e} | | | | | | |")
            return 1
        print(f"| {name} | {r['float']:.2f}% | {r['int8']:.2f}% | {r['int8'] - r['float']:+.2f} | {r['agree']:.2f}% "
              f"| {r['cos_min']:.5f} / {r['cos_mean']:.5f} | {r['int4']} of {r['layers']} | {r['programs']} |")
        if args.max_drop is not None and r["float"] - r["int8"] > args.max_drop:
            print(f"{name}: quantized top-1 {r['int8']:.2f}% is more than {args.max_drop} points below float's {r['float']:.2f}%")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

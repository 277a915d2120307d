#!/usr/bin/python3
"""Packs one model of the wild bench (bench/wild/run.sh, issue 31) for the e2e tests: copies
WILD/NAME.onnx here and writes NAME.npz holding its measured input (`input`), its calibration
samples (`calib_*`) and onnxruntime's outputs on the input (`ort_<output>`), so that the e2e test
checks the NPU against onnxruntime without npm or onnxruntime at test time.
usage: pack.py WILD_DIR NAME"""
import glob
import os
import shutil
import sys

import numpy as np

wild, name = sys.argv[1:3]
here = os.path.dirname(os.path.abspath(__file__))
arrays = {"input": np.load(os.path.join(wild, name + ".input.npy"))}
for f in sorted(glob.glob(os.path.join(wild, name + ".calib", "*.npy"))):
    arrays["calib_" + os.path.basename(f)[:-4]] = np.load(f)
for f in sorted(glob.glob(os.path.join(wild, name + ".ort", "*.npy"))):
    arrays["ort_" + os.path.basename(f)[:-4]] = np.load(f)
shutil.copyfile(os.path.join(wild, name + ".onnx"), os.path.join(here, name + ".onnx"))
np.savez_compressed(os.path.join(here, name + ".npz"), **arrays)
print(name, {k: v.shape for k, v in arrays.items()})

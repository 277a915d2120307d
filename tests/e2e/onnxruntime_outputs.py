#!/usr/bin/python3
"""A pretrained model from the wild against onnxruntime (issue 31), a witness that shares no code
with Systole: its outputs on the measured input were computed by onnxruntime-node when the model
was packed (tests/models/wild/pack.py).

usage: onnxruntime_outputs.py SYSTOLE WILD_DIR MODEL INPUT=SHAPE CONFIG MIN_COSINE [RUN_FLAG...]

Runs `systole run WILD_DIR/MODEL.onnx --isa CONFIG --check` on the packed input, calibrated on the
packed samples (rendered the same way, other texts), and compares every output with onnxruntime's:
fails below MIN_COSINE on any of them or if the check is not bit-exact; prints cosine, SQNR and,
for class scores, the share of rows whose argmax agrees.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

systole, wild, model, binding, config, min_cosine = sys.argv[1:6] + [float(sys.argv[6])]
flags = sys.argv[7:]  # more `systole run` flags (--bias-correction on, --precision auto, ...)
data = np.load(os.path.join(wild, model + ".npz"))
failed = False
with tempfile.TemporaryDirectory() as tmp:
    os.mkdir(os.path.join(tmp, "calib"))
    for key in data.files:
        if key.startswith("calib_"):
            np.save(os.path.join(tmp, "calib", key[6:] + ".npy"), data[key])
    np.save(os.path.join(tmp, "input.npy"), data["input"])
    input_name = binding.split("=")[0]
    run = subprocess.run([systole, "run", os.path.join(wild, model + ".onnx"), "--isa", config, "--shape", binding,
                          "--input", f"{input_name}={tmp}/input.npy", "--calib", os.path.join(tmp, "calib"), "--check",
                          "--output-dir", os.path.join(tmp, "out"), "--quiet"] + flags, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"systole run failed ({run.returncode}):\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
    print(next(line for line in run.stdout.splitlines() if "NPU program(s)" in line).split(";")[0])
    for key in data.files:
        if not key.startswith("ort_"):
            continue
        ref = data[key].astype(np.float64)
        got = np.load(os.path.join(tmp, "out", key[4:] + ".npy")).astype(np.float64)
        if got.shape != ref.shape:
            sys.exit(f"{key[4:]}: shape {got.shape} is not onnxruntime's {ref.shape}")
        a, b = got.ravel(), ref.ravel()
        cosine = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
        sqnr = 10 * np.log10((b @ b) / max((a - b) @ (a - b), 1e-30))
        rows_a, rows_b = got.reshape(-1, got.shape[-1]), ref.reshape(-1, ref.shape[-1])
        agree = f", argmax agrees on {(rows_a.argmax(1) == rows_b.argmax(1)).sum()} of {len(rows_a)} rows" \
            if ref.ndim <= 3 and ref.shape[-1] > 1 else ""
        print(f"{model} on {config}: {key[4:]} against onnxruntime: cosine {cosine:.5f}, SQNR {sqnr:.1f} dB{agree} "
              f"(bound: cosine >= {min_cosine})")
        failed = failed or not cosine >= min_cosine
sys.exit(f"{model}: below the bound" if failed else 0)

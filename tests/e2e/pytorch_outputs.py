#!/usr/bin/python3
"""An exported model's NPU outputs against PyTorch's, a witness that shares no code with Systole.

usage: pytorch_outputs.py SYSTOLE MODELS_DIR MODEL MIN_COSINE

Runs `systole run MODELS_DIR/MODEL.onnx` calibrated on MODEL.calib (samples from the input's
distribution, another seed) on MODEL.input.npy, and compares the output it writes with
MODEL.output.npy, the output PyTorch computed for that input when the model was exported. Fails
below MIN_COSINE, the model's stated quantization tolerance; prints cosine and SQNR either way.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

systole, models, model, min_cosine = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
base = os.path.join(models, model)
with tempfile.TemporaryDirectory() as out:
    run = subprocess.run([systole, "run", base + ".onnx", "--calib", base + ".calib", "--input", "input=" + base + ".input.npy",
                          "--output-dir", out, "--quiet"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"systole run failed ({run.returncode}):\n{run.stderr[-3000:]}")
    npu = np.load(os.path.join(out, "output.npy")).astype(np.float64)
torch_out = np.load(base + ".output.npy").astype(np.float64)
if npu.shape != torch_out.shape:
    sys.exit(f"shape {npu.shape} is not PyTorch's {torch_out.shape}")
a, b = npu.ravel(), torch_out.ravel()
cosine = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
sqnr = 10 * np.log10((b @ b) / max((a - b) @ (a - b), 1e-30))
print(f"{model}: NPU output against PyTorch's: cosine {cosine:.5f}, SQNR {sqnr:.1f} dB (bound: cosine >= {min_cosine})")
if not cosine >= min_cosine:
    sys.exit(f"{model}: cosine {cosine:.5f} is below {min_cosine}")

"""The reference of isa/examples/gemm_int16.s, written out with numpy from its data directives:
y = clamp(requant(x @ W + b), -32768, 32767), requantize as docs/isa-semantics.md says. Prints
whether each given output equals it, and how many of its values are distinct and saturated.
Usage: gemm_int16_reference.py PROGRAM.s X.npy Y.npy..."""
import sys

import numpy as np

src, x_file, outputs = sys.argv[1], sys.argv[2], sys.argv[3:]
weights, words, section = [], [], None
for line in open(src):
    if line.startswith(".data"):
        section = int(line.split()[1], 16)
    elif line.startswith(".half") and section == 0x1000:
        weights.append([int(v) for v in line[5:].split(",")])
    elif line.startswith(".word"):
        words += [int(v) for v in line[5:].split(",")]
w = np.array(weights, dtype=np.int64)
bias, mult, shift = (np.array(words[i * 16:(i + 1) * 16], dtype=np.int64) for i in range(3))
x = np.load(x_file).astype(np.int64)
p = (x @ w + bias) * mult
r = (p >> shift) + ((p >> (shift - 1)) & 1)
want = np.clip(r - 128, -32768, 32767)
for name in outputs:
    got = np.load(name)
    print(f"{got.dtype} equal={bool((got == want).all())} distinct={len(np.unique(got))} "
          f"saturated={int(((got == 32767) | (got == -32768)).sum())}")

"""Using Systole from Python: compile an ONNX model for a shipped config, run it on the simulator
with the reference check, and print the top class and the cycles (the README's example).

    python3 classify.py MODEL.onnx CONFIG
"""
import sys

import numpy as np
import systole

model = systole.compile(sys.argv[1], sys.argv[2], calibration=np.random.default_rng(0).uniform(-1, 1, (8, 3, 16, 16)))
result = model.run(np.random.default_rng(7).uniform(-1, 1, (1, 3, 16, 16)), check=True)
assert result.checked and result.mismatch is None, result.mismatch
print(f"class {result.outputs['output'].argmax()}, {result.cycles} cycles on '{model.config.name}', outputs equal the reference bit for bit, "
      f"SQNR {result.accuracy[0].sqnr_db:.1f} dB against the float model")
print(f"configs from {systole.config_dir()}; {'from the compile cache' if model.from_cache else 'compiled'}")

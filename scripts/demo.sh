#!/usr/bin/env bash
# The main job on the bundled default: compile the bundled ONNX model for the default NPU config,
# calibrated on its bundled samples, simulate it on its bundled input with --check (every NPU
# output compared bit for bit with the reference interpreter), and print the cycle count,
# utilization, where the cycles went per layer, and the INT8 model's accuracy against the float model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
M=tests/models/bundled
build/default/tools/systole run $M/tiny_cnn.onnx --isa isa/configs/default.yaml --calib $M/tiny_cnn.calib \
  --input input=$M/tiny_cnn.input.npy --check --layers

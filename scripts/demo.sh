#!/usr/bin/env bash
# The main job on the bundled default: compile the bundled ONNX model for the default NPU config,
# simulate it with --check (every NPU output compared bit for bit with the reference
# interpreter), and print the cycle count, utilization and where the cycles went per layer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
build/default/tools/systole run tests/models/bundled/tiny_cnn.onnx --isa isa/configs/default.yaml --check --layers

#!/usr/bin/env bash
# The main job on a bundled default: export a real network (torchvision ResNet-18, fixed seed,
# BatchNorm statistics settled, opset 14) with calibration samples from its input's distribution,
# compile it for the default NPU config calibrated on them, simulate it with --check (every NPU
# output compared bit for bit with the reference interpreter), print the cycles, utilization,
# where the cycles went per layer and the INT8 model's accuracy against the float model, and write
# the HTML report (roofline, per-layer cycles, stalls, DMA and energy).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
D=build/demo
mkdir -p $D
/usr/bin/python3 tests/models/export_models.py --out $D --calib resnet18 >/dev/null
build/default/tools/systole run $D/resnet18.onnx --isa default --calib $D/resnet18.calib \
  --input input=$D/resnet18.input.npy --check --layers --stats $D/resnet18.stats.json
build/default/tools/systole report $D/resnet18.stats.json -o $D/resnet18.html --title "ResNet-18 on the default NPU"
echo "open $D/resnet18.html for the roofline, where each layer's cycles and energy went, and the config"

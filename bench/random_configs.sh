#!/usr/bin/env bash
# The differential suite over N random legal configs (issue 16 item 8; docs/random-configs.md):
# every config passes `isa check`, every model runs with `run --check --races`; prints each run and
# a summary (bit-exact, rejected with a clear error, bugs). Small models on every seed, the slower
# ones (squeezenet1_1, unet) on every 4th, the depthwise ones with Lut and Mul (mobilenet_v3_large,
# efficientnet_b0) on every 10th.
#   [MODELS=DIR] bench/random_configs.sh [N] [JOBS]      (models from build/default/models)
set -uo pipefail
cd "$(dirname "$0")/.."
N=${1:-200}
JOBS=${2:-2}
MODELS=${MODELS:-build/default/models}
drive() { nice -n 10 /usr/bin/python3 tests/randcfg/differential.py --systole build/default/tools/systole -j "$JOBS" "$@"; }
status=0
drive --seeds "1-$N" --model tests/models/bundled/tiny_cnn.onnx \
      $(for m in mlp mlp_wide transformer cnn_pixels upsamplers; do echo "--model $MODELS/$m.onnx"; done) || status=1
drive --seeds "1-$N/4" --model "$MODELS/squeezenet1_1.onnx" --model "$MODELS/unet.onnx" || status=1
drive --seeds "1-$N/10" --model "$MODELS/mobilenet_v3_large.onnx" --model "$MODELS/efficientnet_b0.onnx" || status=1
exit $status

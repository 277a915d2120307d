#!/usr/bin/env bash
# Issue 33's trained networks: trains them on the digits if build/trained has none
# (train_digits.py, a few minutes on 2 cores), then prints top-1 against the labels, float and
# INT8 on the NPU (every image bit-exact against the reference interpreter), for each config.
#   bash bench/trained/run.sh [CONFIG...]      (default: default tiny os16 large)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/trained}
[ -f "$OUT/mobilenet.onnx" ] || /usr/bin/python3 bench/trained/train_digits.py --out "$OUT" >&2
for config in "${@:-default tiny os16 large}"; do
  for c in $config; do
    echo "### $c"
    PYTHONPATH=build/default/python /usr/bin/python3 tests/e2e/trained_top1.py "$OUT" --isa "$c"
    echo
  done
done

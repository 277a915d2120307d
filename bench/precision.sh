#!/usr/bin/env bash
# Issue 33's precision figures on the networks trained on the 8x8 digits (tests/models/trained):
# top-1 against the 360 held-out labels per weight width (int8, int4, --precision auto at cosine
# 0.999), with int8 and with int16 activations, every image bit-exact on the simulated NPU; then
# the sweep of weight width x activation width x array size
# (bench/sweeps/precision.yaml: cycles, energy, area, cosine on one digit, the Pareto page); then
# top-1 with int24 and int16 accumulators of 1024 rows, and their sweep (bench/sweeps/accumulator.yaml).
#   bash bench/precision.sh        (writes build/precision/{sweep,acc}/report.html; bench/precision.md has the figures)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=build/precision
mkdir -p "$OUT"
for precision in int8 int4 auto; do
  PYTHONPATH=build/default/python /usr/bin/python3 tests/e2e/trained_top1.py tests/models/trained --isa default \
    --precision "$precision" --min-cosine 0.999
  echo
done
for precision in int8 int4 auto; do  # int16 activations
  PYTHONPATH=build/default/python /usr/bin/python3 tests/e2e/trained_top1.py tests/models/trained --isa default \
    --set types.activation=int16 --precision "$precision" --min-cosine 0.999
  echo
done
/usr/bin/python3 -c "import numpy as np; np.save('$OUT/digit.npy', np.load('tests/models/trained/test.npz')['x'][:1])"
rm -rf "$OUT/sweep"
build/default/tools/systole sweep bench/sweeps/precision.yaml -o "$OUT/sweep" > /dev/null
column -s, -t "$OUT/sweep/results.csv"
for acc in "int24 49152" "int16 32768"; do
  set -- $acc
  PYTHONPATH=build/default/python /usr/bin/python3 tests/e2e/trained_top1.py tests/models/trained --isa default \
    --set types.accumulator="$1" --set memories.accumulator.size="$2"
  echo
done
rm -rf "$OUT/acc"
build/default/tools/systole sweep bench/sweeps/accumulator.yaml -o "$OUT/acc" > /dev/null
column -s, -t "$OUT/acc/results.csv"

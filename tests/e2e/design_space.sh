#!/usr/bin/env bash
# A slice of bench/design_space.sh's grid (issue 30): squeezenet1_1 and mobilenet_v2 on six design
# points from 8x8 to 128x128 and the two skewed arrays, with scratchpads from 64 KiB to 1 MiB,
# each run with --check (bit-exact against the reference interpreter). `systole sweep` exits 1 if
# any run fails, and prints which.
#   design_space.sh SYSTOLE MODELS_DIR WORK_DIR
set -euo pipefail
systole=$1 models=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cat > "$work/spec.yaml" <<SPEC
isa: default
models: [$models/squeezenet1_1.onnx, $models/mobilenet_v2.onnx]
grid:
  design:
    - {array.rows: 8, array.cols: 8, memories.scratchpad.size: 1MiB}
    - {array.rows: 32, array.cols: 32, memories.scratchpad.size: 64KiB}
    - {array.rows: 64, array.cols: 64, memories.scratchpad.size: 256KiB}
    - {array.rows: 128, array.cols: 128, memories.scratchpad.size: 64KiB}
    - {array.rows: 16, array.cols: 64, memories.scratchpad.size: 256KiB}
    - {array.rows: 64, array.cols: 16, memories.scratchpad.size: 1MiB}
options: [--check]
SPEC
"$systole" sweep "$work/spec.yaml" -o "$work/out" -j 2 -q
# Every row ran and was checked: status ok and a cosine measured.
awk -F, 'NR > 1 { n++; if ($4 != "ok" || $13 == "") bad++ } END { print n " runs, " bad + 0 " not ok"; exit (n != 12 || bad > 0) }' \
  "$work/out/results.csv"

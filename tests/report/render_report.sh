#!/usr/bin/env bash
# Runs the bundled model on two configs, writes their report and checks it in headless Chromium
# (render_check.py). usage: render_report.sh SYSTOLE SOURCE_DIR WORK_DIR
set -euo pipefail
systole=$1 src=$2 work=$3
mkdir -p "$work"
model=$src/tests/models/bundled/tiny_cnn.onnx
"$systole" run "$model" --isa default -q --stats "$work/a.json" > /dev/null
"$systole" run "$model" --isa default -q --set array.rows=32 --set array.cols=32 --stats "$work/b.json" > /dev/null
"$systole" report "$work/a.json" "$work/b.json" -o "$work/report.html"
exec /usr/bin/python3 "$src/tests/report/render_check.py" "$work/report.html" "$work/report.png"

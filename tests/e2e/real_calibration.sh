#!/usr/bin/env bash
# Models whose inputs live far outside [-1, 1] (an MLP over +-50 features, a CNN over raw 0-255
# pixels; tests/models/export_models.py): with the default synthetic calibration the INT8 model is
# inaccurate and `run` says so (a warning, and --min-cosine fails with exit 1); calibrated on
# samples of the real data (--calib) it is accurate.
#   real_calibration.sh SYSTOLE MODELS_DIR
set -uo pipefail
SYSTOLE=$1
MODELS=$2
passed=0 failed=0
expect() {  # expect DESCRIPTION WANTED_EXIT PATTERN -- COMMAND...
  local what=$1 want=$2 pattern=$3
  shift 4
  local out
  out=$("$@" 2>&1)
  local got=$?
  if [ "$got" -eq "$want" ] && grep -q -- "$pattern" <<<"$out"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $what (exit $got, wanted $want; output lacks '$pattern'):"
    echo "$out" | sed 's/^/  | /'
  fi
}
for m in mlp_wide cnn_pixels; do
  run=("$SYSTOLE" run "$MODELS/$m.onnx" --input "input=$MODELS/$m.input.npy" --min-cosine 0.99 --min-sqnr 20)
  expect "$m: synthetic calibration warns" 1 "warning: INT8 ranges were calibrated on 8 synthetic inputs" -- "${run[@]}"
  expect "$m: synthetic calibration fails --min-cosine" 1 "error: accuracy below the threshold: output 'output' has cosine" -- "${run[@]}"
  expect "$m: real calibration passes" 0 "top-1 (argmax) agrees" -- "${run[@]}" --calib "$MODELS/$m.calib" --check
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# Operators are typed by their kind (Op::Conv) outside the importer and their definitions
# (compiler/src/ops/): counts the comparisons of an operator's name with a string literal
# (`op == "Conv"`, `n.op != "Add"`) in the product code elsewhere, lists them, and fails above the
# budget (issue 29: at most 10).
set -euo pipefail
root=${1:-$(dirname "$0")/../..}
budget=10
names=$(grep -oE 'X\([A-Za-z]+\)' "$root/compiler/include/systole/compiler/op.h" | sed 's/X(\(.*\))/\1/' | paste -sd'|')
hits=$(grep -rnE "(==|!=) *\"($names)\"|\"($names)\" *(==|!=)" --include='*.cpp' --include='*.h' \
         "$root/compiler" "$root/hostjit" "$root/runtime" "$root/tools" "$root/python" 2>/dev/null |
       grep -v -e '/compiler/src/ops/' -e '/compiler/src/onnx_' || true)
count=$(printf '%s' "$hits" | grep -c . || true)
printf '%s\n' "$hits" | sed '/^$/d'
echo "operator-name string comparisons outside ops/ and the importer: $count (budget $budget)"
[ "$count" -le "$budget" ]

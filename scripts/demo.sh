#!/usr/bin/env bash
# The main job on the bundled default: validate the default ISA config, assemble the bundled
# example program for it, and print the program back with its derived parameters.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
SYSTOLE=build/default/tools/systole
OUT=build/default/demo
mkdir -p "$OUT"
$SYSTOLE isa check isa/configs/default.yaml
$SYSTOLE asm isa/examples/gemm_relu.s --isa isa/configs/default.yaml -o "$OUT/gemm_relu.sbin"
echo "assembled $OUT/gemm_relu.sbin ($(stat -c %s "$OUT/gemm_relu.sbin") bytes); disassembly:"
$SYSTOLE disasm "$OUT/gemm_relu.sbin" | grep -v '^\.byte'

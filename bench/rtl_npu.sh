#!/usr/bin/env bash
# The whole-NPU RTL (rtl/npu) against the simulator: every model in build/<preset>/models on the
# configs given (default: tiny and default), timing-only, each NPU program run on the Verilated
# NPU and compared instruction by instruction (systole run --rtl=npu). Prints one line per model
# and config: programs, instructions, cycles, whether every instruction agrees, RTL cycles/s;
# exits 1 if any model differs or fails to run.
#   bash bench/rtl_npu.sh [BUILD_DIR] [CONFIG...]   (BUILD_DIR default build/default)
set -euo pipefail
build=${1:-build/default}
shift || true
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(tiny default)
systole=$build/tools/systole
models=${MODELS:-$(ls "$build"/models/*.onnx)}
failed=0
for config in "${configs[@]}"; do
  for model in $models; do
    # agrees; DIFFERS (the RTL and the simulator disagree); FAILED (the run stopped before any
    # comparison, e.g. a model that does not fit the config).
    if out=$("$systole" run "$model" --isa "$config" --timing-only --rtl=npu 2>&1); then
      status=agrees
    elif grep -q "RTL NPU DIFFERS" <<<"$out"; then
      status=DIFFERS
    else
      status=FAILED
    fi
    programs=$(grep -c "RTL NPU (rtl/npu" <<<"$out" || true)
    agree=$(grep -c "RTL NPU agrees" <<<"$out" || true)
    instructions=$(grep -o "instructions: [0-9]* of [0-9]*" <<<"$out" |
                   awk '{same += $2; all += $4} END {printf "%d of %d", same, all}' || true)
    rtl=$(grep -o "RTL NPU (rtl/npu, Verilated): [0-9]* cycles in [0-9.]* s" <<<"$out" |
          awk '{c += $5; s += $8} END {printf "%d cycles, %.1f s, %.2f M cycles/s", c, s, (s > 0 ? c / s / 1e6 : 0)}' || true)
    printf '%s\t%s\t%s\tprograms %s (%s agree)\tinstructions %s\tRTL %s\n' "$(basename "$model" .onnx)" "$config" \
      "$status" "$programs" "$agree" "$instructions" "$rtl"
    if [ "$status" != agrees ]; then
      failed=1
      grep -m3 "first divergence\|error" <<<"$out" | sed 's/^/    /'
    fi
  done
done
exit $failed

#!/usr/bin/env bash
# Synthesis of the RTL datapath blocks per config with Yosys (rtl/synth/): cells, flip-flops,
# memory bits and estimated transistors per block, and the NPU's count of each block. Yosys is
# the YoWASP WebAssembly build from npm (Debian's 0.23 cannot read the blocks), installed once
# into BUILD_DIR/yowasp; Node.js runs it. Writes BUILD_DIR/synth/<config>.json (bench/rtl.md
# sets the figures beside the YAML's area model).
#   bash bench/synth.sh [--check] [BUILD_DIR] [CONFIG...]   (BUILD_DIR default build/default; configs: tiny default)
#   --check: then runs each netlist through its block's Verilator check (rtl-netlist-* tests; the
#   netlists of every config synthesized into BUILD_DIR/synth so far).
#   BLOCKS="requant_lane ..." redoes only those blocks (the summary keeps the others' last results).
#   CHECK_BLOCKS="systolic_array ..." checks only those blocks' netlists (--check; default: all).
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
build=${1:-build/default}
shift || true
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(tiny default)
blocks=${BLOCKS:-systolic_array weight_transposer requant_lane vector_alu_lane vector_reduce_row recip_lane vector_mac_lane dma_addr_gen int4_unpack}
yowasp_version=0.55.944
yowasp=$build/yowasp
# Three tries: the registry is the one thing here that can fail for no fault of ours.
for try in 1 2 3; do
  [ -f "$yowasp/node_modules/@yowasp/yosys/package.json" ] && break
  npm install --prefix "$yowasp" --no-audit --no-fund --silent "@yowasp/yosys@$yowasp_version" >/dev/null ||
    { [ $try = 3 ] && { echo "error: npm could not install @yowasp/yosys@$yowasp_version" >&2; exit 1; }; sleep 10; }
done
for config in "${configs[@]}"; do
  package=$build/rtl/$config/systole_pkg.sv
  [ -f "$package" ] || { echo "error: $package not built (cmake --build $build)" >&2; exit 1; }
  work=$build/synth/$config
  mkdir -p "$work/src" "$work/stat"
  for block in $blocks; do
    rm -f "$work/stat/$block".*
    python3 rtl/synth/yosys_sv.py "$package" "rtl/$block.sv" "$work/src"
    start=$(date +%s%N)
    if ! node rtl/synth/yosys.mjs "$yowasp" "$block" "$work/stat/$block" \
        "$work/src/systole_pkg.sv" "$work/src/$block.sv" 2>"$work/$block.log"; then
      grep -m5 -i "error" "$work/$block.log" >&2 || tail -5 "$work/$block.log" >&2
      exit 1
    fi
    ms=$((($(date +%s%N) - start) / 1000000))
    printf '%s\t%s\tsynthesized in %d.%d s\n' "$config" "$block" $((ms / 1000)) $((ms % 1000 / 100))
  done
  python3 rtl/synth/summarize.py "$package" "$work/stat" "$build/synth/$config.json"
done
if [ $check = 1 ]; then
  # verilate() learns a model's file list at configure time: a new netlist needs a new one.
  rm -rf "$build"/tests/rtl/CMakeFiles/rtl_netlist_check_*
  cmake -S . -B "$build" -DSYSTOLE_RTL_NETLISTS="$(realpath "$build/synth")" \
    -DSYSTOLE_RTL_NETLIST_BLOCKS="$(echo ${CHECK_BLOCKS:-} | tr ' ' ';')" >/dev/null
  if [ -z "${CHECK_BLOCKS:-}" ]; then
    cmake --build "$build" --target rtl_netlist_checks -j "$(nproc)"
    ctest --test-dir "$build" -L rtl-netlist -j "$(nproc)" --output-on-failure
  else
    targets=() names=()
    for block in $CHECK_BLOCKS; do
      for config in "${configs[@]}"; do
        targets+=("rtl_netlist_check_${block}_$config")
        names+=("rtl-netlist-$block-$config")
      done
    done
    cmake --build "$build" --target "${targets[@]}" -j "$(nproc)"
    pattern=$(IFS='|'; echo "${names[*]}")
    ctest --test-dir "$build" -L rtl-netlist -R "^($pattern)\$" -j "$(nproc)" --output-on-failure
  fi
fi

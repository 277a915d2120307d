#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: clang, ASan + UBSan) and runs each for SECONDS
# (default 600) on its corpus, build/fuzz/corpus/<target>, seeded from the test inputs
# (tests/fuzz/collect_seeds.sh) and from the inputs of crashes already fixed
# (tests/fuzz/regressions/<target>/, committed). A crash leaves its input in build/fuzz/artifacts/
# and makes the script exit 1 after the other targets have run. Targets run one per core at a time
# (FUZZ_JOBS). CI runs `scripts/fuzz.sh 30`.
#   scripts/fuzz.sh [SECONDS] [TARGET...]     targets: config expr asm npy sim onnx
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(config expr asm npy sim onnx)
jobs=${FUZZ_BUILD_JOBS:-$(nproc)}

set -e
# The seeds need `systole asm` from the default build (a no-op after scripts/build.sh).
[ -f build/default/build.ninja ] || cmake --preset default >/dev/null
cmake --build build/default --target systole -j "$jobs"
cmake --preset fuzz >/dev/null
cmake --build build/fuzz --target fuzzers -j "$jobs"
bash tests/fuzz/collect_seeds.sh build/default/tools/systole build/fuzz/seeds
set +e

export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
mkdir -p build/fuzz/artifacts build/fuzz/logs
# Runs one target; its exit code goes to build/fuzz/logs/<target>.rc.
fuzz_one() {
  local t=$1 max_len log=build/fuzz/logs/$1.log
  rm -f "build/fuzz/logs/$t.rc"
  mkdir -p "build/fuzz/corpus/$t"
  # -timeout: one input taking longer than FUZZ_TIMEOUT s (default 10) is a finding (a hang);
  # -rss_limit_mb likewise.
  # Longest input: the largest seeds (deeply nested expressions, a model with big weights, a
  # program with a 1 MiB data segment) would otherwise set it and slow every run down.
  case $t in
    config) max_len=16384 ;;
    expr) max_len=4096 ;;
    onnx) max_len=32768 ;;
    sim) max_len=8192 ;;
    *) max_len=0 ;;  # libFuzzer's choice
  esac
  local regressions=()
  [ -d "tests/fuzz/regressions/$t" ] && regressions=("tests/fuzz/regressions/$t")
  build/fuzz/tests/fuzz/${t}_fuzzer "build/fuzz/corpus/$t" "build/fuzz/seeds/$t" "${regressions[@]}" \
    -max_total_time="$seconds" -max_len="$max_len" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=3072 -print_final_stats=1 \
    -artifact_prefix="build/fuzz/artifacts/$t-" >"$log" 2>&1
  echo $? >"build/fuzz/logs/$t.rc"
}

# One target per core at a time (each fuzzer is one process on one core), FUZZ_JOBS to change.
parallel=${FUZZ_JOBS:-$(nproc)}
running=0
for t in "${targets[@]}"; do
  echo "== ${t}_fuzzer: ${seconds} s (log: build/fuzz/logs/$t.log)"
  if [ "$running" -ge "$parallel" ]; then
    wait -n
    running=$((running - 1))
  fi
  fuzz_one "$t" &
  running=$((running + 1))
done
wait

failed=()
for t in "${targets[@]}"; do
  log=build/fuzz/logs/$t.log
  echo "== ${t}_fuzzer"
  grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)' "$log" | tail -2
  grep -E '^stat::number_of_executed_units' "$log"
  if [ "$(cat "build/fuzz/logs/$t.rc" 2>/dev/null)" != 0 ]; then
    failed+=("$t")
    grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -5
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in: ${failed[*]} (inputs in build/fuzz/artifacts/)"
  exit 1
fi
echo "fuzz: ${targets[*]}: no crashes"

#!/usr/bin/env bash
# Builds the `systole` driver with AddressSanitizer and UndefinedBehaviorSanitizer (the `asan`
# preset: GCC, debug) and runs the lit suite against it: every command-line path the lit tests
# take (assembler, configs, compiler stages and their errors, simulator faults, reports, sweeps)
# under the sanitizers; then the end-to-end gtests (random graphs compiled, simulated and checked
# against the interpreter on the shipped configs; config changes; strided convolutions). Without Verilator, to keep CI within its time (the RTL co-simulation's lit
# tests are then unsupported; `cmake --preset asan` alone builds them). CI runs this.
#   scripts/asan.sh [LIT ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${ASAN_BUILD_JOBS:-$(nproc)}
cmake --preset asan -DCMAKE_DISABLE_FIND_PACKAGE_verilator=ON >/dev/null
cmake --build build/asan --target systole e2e_tests -j "$jobs"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# A sanitizer report fails the test that triggered it (-fno-sanitize-recover=all: the process
# aborts); leak checking stays on.
/usr/bin/python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv -j "$jobs" build/asan/tests/lit "$@"
build/asan/tests/e2e/e2e_tests --gtest_brief=1

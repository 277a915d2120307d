#!/usr/bin/env bash
# Builds Systole and runs every test family (labels: unit, lit, sim, rtl, e2e).
# Pass ctest arguments to narrow it, e.g. `scripts/test.sh -L lit`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --preset default -j "$(nproc)" "$@"

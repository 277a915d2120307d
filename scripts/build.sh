#!/usr/bin/env bash
# Configures and builds Systole with the `default` preset (release with assertions, -Werror).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)"

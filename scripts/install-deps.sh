#!/usr/bin/env bash
# Installs every Debian package Systole's build and tests need. Safe to re-run: it only calls
# apt-get when something is missing. Used by the README's commands and by .ci/run.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config python3
  libyaml-cpp-dev libcli11-dev libfmt-dev nlohmann-json3-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev libhwy-dev
  pybind11-dev python3-dev python3-pytest  # the Python package (python/) and its tests
  llvm-19-tools llvm-19-dev  # FileCheck and lit; libLLVM-19 for the host JIT (hostjit/)
  clang libclang-rt-dev  # the fuzz preset: clang++ and libFuzzer (tests/fuzz)
  clang-format  # tests/code/format.sh checks the sources against .clang-format
  libsystemc-dev verilator
  libonnx-dev libprotobuf-dev protobuf-compiler
  python3-torch python3-torchvision python3-onnx python3-numpy python3-pil
  chromium-headless-shell slurm-wlm munge
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

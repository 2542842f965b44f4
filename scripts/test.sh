#!/usr/bin/env bash
# Installs dependencies, builds heft (Release) with tests, benchmarks and
# examples, and runs the whole test suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
ctest --test-dir build --output-on-failure --timeout 900 -j "$(nproc)"

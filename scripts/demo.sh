#!/usr/bin/env bash
# Installs dependencies, builds heft (Release) and runs the demo on its
# embedded defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --target heft_demo
./build/examples/heft_demo

#!/usr/bin/env bash
# Installs dependencies, builds heft (Release) and runs the demos on their
# embedded defaults: first what this CPU offers and which kernel level heft
# chose (heft_demo), then the main job, encrypted inference on real
# Fashion-MNIST test images with client and server roles (heft_inference;
# examples/fashion_mnist_inference.cpp says what it does).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --target heft_demo heft_inference
./build/examples/heft_demo
echo
./build/examples/heft_inference --images 100

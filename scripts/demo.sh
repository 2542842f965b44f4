#!/usr/bin/env bash
# Installs dependencies, builds heft (Release) with its Python package and
# runs the demos on their embedded defaults: first what this CPU offers and
# which kernel level heft chose (heft_demo), then the main job, encrypted
# inference on real Fashion-MNIST test images through the Python package,
# with client and server roles (python/examples/fashion_mnist_inference.py
# says what it does; examples/fashion_mnist_inference.cpp is the same in C++):
# TenSEAL's tutorial network, then a deeper one that bootstraps
# (python/examples/fashion_mnist_deep.py, one image per request, and
# fashion_mnist_deep_batch.py, 32 per request; about 20 GiB of memory at its peak).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHEFT_BUILD_PYTHON=ON
cmake --build build --target heft_demo _heft
./build/examples/heft_demo
echo
PYTHONPATH=build/python /usr/bin/python3 python/examples/fashion_mnist_inference.py \
  --report build/fashion_mnist_report.png

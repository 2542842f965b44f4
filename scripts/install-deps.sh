#!/usr/bin/env bash
# Installs what heft needs to build, test and benchmark on Debian 12 (run as
# root, or with sudo available). Safe to run again.
set -euo pipefail
# dataset-fashion-mnist: the real images the MNIST network's tests and the
# inference demo (scripts/demo.sh) run on. python3-dev, pybind11-dev, numpy and
# pytest: the Python package (python/) and its tests; tqdm and matplotlib: the
# demo's progress bar and report picture; python3-distributed: Dask, for
# heft.distributed and the demo's --dask.
packages=(build-essential cmake ninja-build pkg-config libssl-dev libgtest-dev libgmock-dev
          libbenchmark-dev libgmp-dev libsimde-dev libzstd-dev qemu-user dataset-fashion-mnist
          python3-dev pybind11-dev python3-numpy python3-pytest python3-tqdm python3-matplotlib
          python3-distributed)
missing=()
for p in "${packages[@]}"; do
  # (no `| grep -q`: under pipefail its early exit can fail the pipeline)
  [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" == "install ok installed" ]] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

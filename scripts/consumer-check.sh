#!/usr/bin/env bash
# Uses heft as another project would (examples/consumer: the README's examples,
# checked against double): installs the static library from the existing `build`
# directory and a shared one built here into temporary prefixes, then builds and
# runs the consumer with find_package (compiler's default C++ standard) against
# each, and once with pkg-config. Also checks the package's version rules and that
# the shared library exports the API but not the kernels' per-ISA internals.
# Needs `build` configured and built (scripts/test.sh does that).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() { echo "--- $1"; }

step "install the static library from build/"
cmake --build build --target heft
cmake --install build --prefix "$work/static" > /dev/null

# The consumer project sets no standard: whatever it gets must come from heft::heft.
build_consumer() {  # prefix, build dir
  cmake -S "$root/examples/consumer" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$1" > /dev/null
  cmake --build "$2"
}

step "consumer against the static install (find_package)"
build_consumer "$work/static" "$work/consumer-static"
"$work/consumer-static/app"

step "find_package version rules: 0.1 and 0.1.0 accepted, 0.2 and 1.0 refused"
version_accepted() {  # requested version
  cat > "$work/version/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(version_probe LANGUAGES CXX)
find_package(heft $1 REQUIRED)
CMAKE
  rm -rf "$work/version/build"
  cmake -S "$work/version" -B "$work/version/build" -DCMAKE_PREFIX_PATH="$work/static" \
        > /dev/null 2>&1
}
mkdir -p "$work/version"
for v in 0.1 0.1.0; do version_accepted "$v" || { echo "find_package(heft $v) refused" >&2; exit 1; }; done
for v in 0.2 1.0; do
  if version_accepted "$v"; then echo "find_package(heft $v) accepted 0.1" >&2; exit 1; fi
done

step "consumer through pkg-config against the static install (no CMake)"
export PKG_CONFIG_PATH="$work/static/lib/pkgconfig"
echo "pkg-config --static --cflags --libs heft: $(pkg-config --static --cflags --libs heft)"
# shellcheck disable=SC2046  # pkg-config's output is meant to split into words
g++ -O2 examples/consumer/main.cpp -o "$work/app-pkgconfig" $(pkg-config --static --cflags --libs heft)
"$work/app-pkgconfig"
unset PKG_CONFIG_PATH

step "shared library: build (library only) and install"
cmake -S . -B build-shared -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
      -DHEFT_BUILD_TESTS=OFF -DHEFT_BUILD_BENCH=OFF -DHEFT_BUILD_EXAMPLES=OFF > /dev/null
cmake --build build-shared
cmake --install build-shared --prefix "$work/shared" > /dev/null
so="$work/shared/lib/libheft.so"
# Hidden by default: the public API is exported, the per-ISA kernels are not.
internal=$(nm -D --defined-only "$so" | c++filt | grep -c 'heft::math::kernels::' || true)
api=$(nm -D --defined-only "$so" | c++filt | grep -c 'heft::rlwe::load_context' || true)
echo "libheft.so exports: $api load_context, $internal kernels:: symbols"
if [[ $internal -ne 0 || $api -eq 0 ]]; then echo "libheft.so exports the wrong symbols" >&2; exit 1; fi

step "consumer against the shared install (find_package)"
build_consumer "$work/shared" "$work/consumer-shared"
# ldd's output captured first: `ldd | grep -q` under pipefail fails whenever
# grep exits on its first match before ldd has written the rest (SIGPIPE).
libraries=$(ldd "$work/consumer-shared/app")
if ! grep -qF "$so" <<<"$libraries"; then
  echo "the consumer does not load $so:" >&2; echo "$libraries" >&2; exit 1
fi
"$work/consumer-shared/app"
echo "consumer check passed"

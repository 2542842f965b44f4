#!/usr/bin/env bash
# Fuzzing of every serialization load entry point (fuzz/): configures
# build-fuzz with clang (libFuzzer + AddressSanitizer + UBSan), builds the
# targets, writes the seed corpus into build-fuzz/corpus/<target>, then runs
# each target for SECONDS on a scratch copy of its corpus (build-fuzz/fuzz-work,
# remade every run, so inputs found never touch anything committed). Prints
# the executions per target and exits non-zero if any target found a crash,
# leak, timeout, out-of-memory or sanitizer report (the input is kept under
# build-fuzz/fuzz-work/<target>/artifacts/, the log next to it).
#
# fuzz_load_context builds every context it loads, so it also watches time and
# memory: the loads are held to fuzz::kMaxContextBytes (64 MiB of tables) and the
# target checks that each built context holds no more than the loader estimated;
# libFuzzer's limits below turn any load that still costs more (RSS, a single
# allocation over the bound, or a slow input) into a finding.
#
# Usage: bash scripts/fuzz.sh SECONDS_PER_TARGET
# Environment: HEFT_FUZZ_BUILD_JOBS (default: all cores), HEFT_FUZZ_TARGETS
# (space-separated subset, default: all), HEFT_FUZZ_SEED (libFuzzer -seed: a
# fixed seed makes a run repeatable, as CI wants; default: random).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:?usage: bash scripts/fuzz.sh SECONDS_PER_TARGET}
build=build-fuzz
targets=(${HEFT_FUZZ_TARGETS:-fuzz_load_parameters fuzz_load_secret_key fuzz_load_public_key
  fuzz_load_switch_key fuzz_load_relin_key fuzz_load_galois_keys fuzz_load_plaintext
  fuzz_load_ciphertext fuzz_load_integer_plaintext fuzz_load_bgv_ciphertext fuzz_load_key_set
  fuzz_load_context fuzz_read_object fuzz_load_tensor_context fuzz_load_ckks_vector
  fuzz_load_ckks_tensor fuzz_load_ckks_matrix})

cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DHEFT_SANITIZE=ON -DHEFT_BUILD_FUZZERS=ON \
      -DHEFT_BUILD_TESTS=OFF -DHEFT_BUILD_BENCH=OFF -DHEFT_BUILD_EXAMPLES=OFF
cmake --build "$build" -j "${HEFT_FUZZ_BUILD_JOBS:-$(nproc)}" --target make_corpus "${targets[@]}"

rm -rf "$build/corpus" "$build/fuzz-work"
"$build/fuzz/make_corpus" "$build/corpus"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
summary=()
for t in "${targets[@]}"; do
  work="$build/fuzz-work/$t"
  mkdir -p "$work/corpus" "$work/artifacts"
  cp -r "$build/corpus/$t/." "$work/corpus/"
  echo "--- $t: ${seconds} s on $(ls "$work/corpus" | wc -l) seed inputs"
  limits=(-rss_limit_mb=2048 -timeout=10)
  if [[ $t == fuzz_load_context ]]; then
    # Three loads an input (the load and two round trips), each at most
    # 64 MiB of tables: about 0.25 s natively, under 2 s with the sanitizers
    # (256 primes at N = 1024, the most primes, take 1.3 s). RSS (ASan's
    # quarantine included: about 550 MB seen), single allocations and time
    # get bounds a few times what that needs, far below the gigabytes and
    # seconds a load without the bound could take.
    limits=(-rss_limit_mb=1024 -malloc_limit_mb=64 -timeout=20)
  fi
  status=0
  began=$SECONDS
  "$build/fuzz/$t" ${HEFT_FUZZ_SEED:+-seed="$HEFT_FUZZ_SEED"} \
    -max_total_time="$seconds" "${limits[@]}" \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" \
    > "$work/log" 2>&1 || status=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
  per_second=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -n 1)
  line="$t: ${executions:-?} executions in $((SECONDS - began)) s (${per_second:-?}/s)"
  if [[ $status -ne 0 ]] || compgen -G "$work/artifacts/*" > /dev/null; then
    line+=", FAILED (exit $status)"
    failed+=("$t")
    tail -n 60 "$work/log"
    ls -l "$work/artifacts"
  fi
  echo "$line"
  summary+=("$line")
done

echo
echo "=== fuzz summary (${seconds} s per target)"
printf '%s\n' "${summary[@]}"
if [[ ${#failed[@]} -ne 0 ]]; then
  echo "fuzzing found problems in: ${failed[*]} (inputs and logs under $build/fuzz-work/)"
  exit 1
fi
echo "no crashes"

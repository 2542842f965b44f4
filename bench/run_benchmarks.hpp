// The main body every heft benchmark binary shares: Google Benchmark's run,
// with the context lines scripts/benchmark_record.py reads for the record's
// machine header (the ISA level heft chose and its thread count).
#pragma once

#include <benchmark/benchmark.h>

#include <string>

#include "heft/math/kernels.hpp"
#include "heft/util/parallel.hpp"

inline int run_benchmarks(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("heft_isa", heft::math::to_string(heft::math::active_isa()));
  benchmark::AddCustomContext("heft_threads", std::to_string(heft::num_threads()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

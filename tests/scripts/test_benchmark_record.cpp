// scripts/benchmark_record.py, which remakes BENCHMARKS.md's tables: run on
// the small Google Benchmark JSON files of tests/data/benchmark_record, its
// rows must carry the medians, the anchors (published, or the reference
// binary's medians summed) and the ratios worked out here by hand, and
// --update must replace only what lies between the markers.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

const std::string kSource = HEFT_SOURCE_DIR;
const std::string kData = kSource + "/tests/data/benchmark_record/";

bool have_python() {
  return std::system("python3 -c 'import json' > /dev/null 2>&1") == 0;
}

// Runs the script with these arguments; returns its standard output.
std::string run_script(const std::string& args, int* status = nullptr) {
  const std::string command =
      "python3 " + kSource + "/scripts/benchmark_record.py " + args + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string out;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr)
    out += buffer.data();
  const int rc = pclose(pipe);
  if (status != nullptr) *status = rc;
  return out;
}

// Fails the test, showing the whole output, unless out contains text.
void expect_contains(const std::string& out, const std::string& text) {
  EXPECT_NE(out.find(text), std::string::npos) << "missing: " << text << "\nin:\n" << out;
}

std::string sample_args() {
  return "--anchors " + kData + "anchors.json --anchor-json " + kData +
         "seal.json --commit abc1234 --cpu TestCPU " + kData + "heft_lib.json " + kData +
         "heft_serialization.json";
}

TEST(BenchmarkRecord, TablesCarryMediansAnchorsAndRatios) {
  if (!have_python()) GTEST_SKIP() << "python3 not found";
  int status = -1;
  const std::string out = run_script(sample_args(), &status);
  ASSERT_EQ(status, 0) << out;
  // Median 2.0 ms (not the mean, 2.5) against 8.0 ms: 0.25, within 0.40.
  expect_contains(out,
                  "| `CKKSrns_Relin/seal-n16384` | 2.00 ms | SEAL+HEXL | 8.00 ms | 0.25x | "
                  "0.40x | holds |");
  // 400 µs is 0.4 ms: 0.40 of 1.0 ms, above its 0.30 goal.
  expect_contains(out,
                  "| `CKKSrns_Rescale/seal-n16384` | 0.400 ms | SEAL+HEXL | 1.00 ms | 0.40x | "
                  "0.30x | **short** |");
  // No anchor: the goal is judged side by side, no ratio.
  expect_contains(out,
                  "| `CKKSrns_Decode/seal-n32768` | 0.700 ms |  |  |  | 0.10x (side by side "
                  "only) | side by side |");
  // The reference's own medians, 30 + 10 ms, replace the published 99 ms.
  expect_contains(out,
                  "| `BFVrns_MultRelin/seal-n16384` | 10.0 ms | SEAL+HEXL, here | 40.0 ms | "
                  "0.25x | 0.30x | holds |");
  // Iteration rows without aggregates: the median of 1.5, 1.75 and 9.0 ms;
  // the bytes counter as the size row.
  expect_contains(out,
                  "| `Save_Ciphertext/seal-n16384/none` | 750 B | SEAL save | 1,000 B | 0.75x |");
  expect_contains(out, "| `Save_Ciphertext/seal-n16384/none (time)` | 1.75 ms |");
  expect_contains(out, "**ISA level heft chose:** ifma. **Threads:** 1.");
  expect_contains(out, "**Commit:** abc1234.");
}

TEST(BenchmarkRecord, RunsOfTheSameBinaryGiveTheirMedianAndRange) {
  if (!have_python()) GTEST_SKIP() << "python3 not found";
  int status = -1;
  const std::string out = run_script(
      sample_args() + " " + kData + "heft_lib_run2.json " + kData + "heft_lib_run3.json", &status);
  ASSERT_EQ(status, 0) << out;
  // Relinearize ran at 2.0, 2.6 and 1.8 ms: median 2.0, ratio 2.0 / 8.0.
  expect_contains(out,
                  "| `CKKSrns_Relin/seal-n16384` | 2.00 ms (1.80–2.60) | SEAL+HEXL | 8.00 ms | "
                  "0.25x |");
  // A row of one run only keeps that run's figure, without a range.
  expect_contains(out, "| `CKKSrns_Rescale/seal-n16384` | 0.400 ms | ");
}

TEST(BenchmarkRecord, UpdateKeepsTheProseAroundTheMarkers) {
  if (!have_python()) GTEST_SKIP() << "python3 not found";
  const auto path = std::filesystem::temp_directory_path() / "heft_benchmark_record_test.md";
  {
    std::ofstream md(path);
    md << "# Prose before\n\n<!-- tables:begin -->\nold table\n<!-- tables:end -->\n\nProse "
          "after.\n";
  }
  int status = -1;
  run_script("--update " + path.string() + " " + sample_args(), &status);
  ASSERT_EQ(status, 0);
  std::ifstream md(path);
  std::stringstream text;
  text << md.rdbuf();
  const std::string s = text.str();
  std::filesystem::remove(path);
  EXPECT_EQ(s.rfind("# Prose before\n\n<!-- tables:begin -->\n", 0), 0u) << s;
  EXPECT_EQ(s.find("old table"), std::string::npos) << s;
  expect_contains(s, "| `CKKSrns_Relin/seal-n16384` | 2.00 ms");
  const std::string tail = "<!-- tables:end -->\n\nProse after.\n";
  ASSERT_GE(s.size(), tail.size());
  EXPECT_EQ(s.substr(s.size() - tail.size()), tail) << s;
}

TEST(BenchmarkRecord, FilterOfTheRepositoryAnchorsNamesTheGoalRows) {
  if (!have_python()) GTEST_SKIP() << "python3 not found";
  int status = -1;
  const std::string filter = run_script("--filter bench_lib", &status);
  ASSERT_EQ(status, 0);
  EXPECT_EQ(filter.rfind("^(", 0), 0u) << filter;
  expect_contains(filter, "|CKKSrns_Relin/seal-n32768|");
  expect_contains(filter, "|CKKSrns_MultRelinRescale/openfhe-n65536|");
  // A binary with no rows is an error, not an empty filter that runs everything.
  run_script("--filter bench_nothing", &status);
  EXPECT_NE(status, 0);
}

}  // namespace

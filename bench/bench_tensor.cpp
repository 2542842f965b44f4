// Tensor benchmarks: TenSEAL's own benchmark cases on its parameters, for
// the side-by-side figures of ../shared/ANCHORS.md ("TenSEAL workloads").
// - TenSEAL_CKKS_<op>/<values>/threads:<t>: N = 8192, primes 60/40/40/60,
//   scale 2^40, relinearization and power-of-two Galois keys; vectors of
//   8192 and 16384 values (2 and 4 ciphertexts); add, sub, negate, multiply,
//   square, dot, polyval [0, 1, 2], plain_multiply, plain_dot.
// - TenSEAL_Conv/28/threads:<t>: 4 channels of 7x7 stride 3 on an im2col
//   encoded 28x28 image, then pack_vectors (same context).
// - TenSEAL_MNIST_<stage>/threads:<t>: TenSEAL's MNIST tutorial network
//   (heft/tensor/mnist_network.hpp) on its context (N = 8192, primes
//   [40, 21 x 6, 40], scale 2^21): encrypt, conv, square1, fc1, square2,
//   fc2 (each stage on the previous stage's output) and full (from the
//   encrypted image to the logits).
// - TenSEAL_GenKeys/threads:<t>: the MNIST context made from nothing:
//   secret, public, relinearization and Galois keys.
// - TenSEAL_MNIST_batch/<images>/threads:<t>: throughput mode, the same
//   network on a batch of images, one per slot (MnistNetwork::
//   evaluate_batch), from the encrypted batch to the logits; the counter
//   images_per_second is the figure the tensor issue sets (500 at least).
//   TenSEAL has no such mode.
// - CKKS_EncMatmul/<n>/threads:<t>: an encrypted n x n matrix times another
//   (CKKSMatrix::matmul, one block of n x n), and CKKS_EncVecMatmul/<n>: an
//   encrypted vector of n times an encrypted n x n matrix; N = 8192, primes
//   50 / 30 x 3 / 50, scale 2^30, Galois keys for CKKSMatrix::galois_steps.
//   CKKS_EncMatmulPerElement/<n> is the same product as TenSEAL does it
//   (CKKSTensor::mm, one ciphertext per element, n^3 products) for scale.
// Set-up (contexts, encryption of the operands) is not timed.
#include <benchmark/benchmark.h>

#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "heft/tensor/ckks_matrix.hpp"
#include "heft/tensor/ckks_tensor.hpp"
#include "heft/tensor/ckks_vector.hpp"
#include "heft/tensor/context.hpp"
#include "heft/tensor/images.hpp"
#include "heft/tensor/mnist_network.hpp"
#include "heft/util/parallel.hpp"
#include "run_benchmarks.hpp"

namespace {

using heft::tensor::CKKSVector;
using heft::tensor::Matrix;
using heft::tensor::MnistNetwork;
using heft::tensor::TensorContext;

std::vector<double> random_values(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> v(n);
  for (auto& x : v)
    x = dist(rng);
  return v;
}

Matrix random_image(std::size_t side, uint64_t seed) {
  Matrix image;
  for (std::size_t r = 0; r < side; ++r)
    image.push_back(random_values(side, seed * 100 + r));
  return image;
}

// TenSEAL's benchmark context for CKKS operations.
const TensorContext::Ptr& ops_context() {
  static const TensorContext::Ptr context = [] {
    heft::tensor::TenSEALArguments arguments;
    arguments.poly_modulus_degree = 8192;
    arguments.coeff_mod_bit_sizes = {60, 40, 40, 60};
    arguments.global_scale = std::ldexp(1.0, 40);
    auto made = TensorContext::create(arguments);
    made->generate_galois_keys();
    return made;
  }();
  return context;
}

const TensorContext::Ptr& mnist_context() {
  static const TensorContext::Ptr context = MnistNetwork::make_context();
  return context;
}

void register_case(const std::string& name, int threads,
                   const std::function<void(benchmark::State&)>& body) {
  const std::string full = name + "/threads:" + std::to_string(threads);
  benchmark::RegisterBenchmark(full.c_str(),
                               [=](benchmark::State& state) {
                                 heft::set_num_threads(static_cast<std::size_t>(threads));
                                 body(state);
                               })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

// One operation on encrypted vectors of `size` values (a, b) and plain b.
using VectorOp =
    std::function<CKKSVector(const CKKSVector&, const CKKSVector&, const std::vector<double>&)>;

void register_vector_op(const std::string& op, const VectorOp& f, std::size_t size, int threads) {
  register_case("TenSEAL_CKKS_" + op + "/" + std::to_string(size), threads,
                [=](benchmark::State& state) {
                  const auto a_values = random_values(size, 1), b_values = random_values(size, 2);
                  const auto a = CKKSVector::encrypt(ops_context(), a_values);
                  const auto b = CKKSVector::encrypt(ops_context(), b_values);
                  benchmark::DoNotOptimize(f(a, b, b_values));  // warm
                  for (auto _ : state)
                    benchmark::DoNotOptimize(f(a, b, b_values));
                });
}

void register_vector_ops(int threads) {
  const std::vector<std::pair<std::string, VectorOp>> ops = {
      {"add", [](const auto& a, const auto& b, const auto&) { return a.add(b); }},
      {"sub", [](const auto& a, const auto& b, const auto&) { return a.sub(b); }},
      {"negate", [](const auto& a, const auto&, const auto&) { return a.negate(); }},
      {"multiply", [](const auto& a, const auto& b, const auto&) { return a.mul(b); }},
      {"square", [](const auto& a, const auto&, const auto&) { return a.square(); }},
      {"dot", [](const auto& a, const auto& b, const auto&) { return a.dot(b); }},
      {"polyval",
       [](const auto& a, const auto&, const auto&) {
         const std::vector<double> coefficients = {0, 1, 2};
         return a.polyval(coefficients);
       }},
      {"plain_multiply", [](const auto& a, const auto&, const auto& p) { return a.mul(p); }},
      {"plain_dot", [](const auto& a, const auto&, const auto& p) { return a.dot(p); }},
  };
  for (const auto& [name, f] : ops)
    for (const std::size_t size : {8192, 16384})
      register_vector_op(name, f, size, threads);
}

void register_conv(int threads) {
  register_case("TenSEAL_Conv/28", threads, [](benchmark::State& state) {
    const auto net = MnistNetwork::random(1);
    const auto encoded = heft::tensor::im2col_encoding(ops_context(), random_image(28, 3), 7, 7, 3);
    const auto run = [&] {
      std::vector<CKKSVector> channels;
      for (const auto& kernel : net.conv_kernels)
        channels.push_back(encoded.vector.conv2d_im2col(kernel, encoded.windows));
      return heft::tensor::pack_vectors(channels);
    };
    benchmark::DoNotOptimize(run());
    for (auto _ : state)
      benchmark::DoNotOptimize(run());
  });
}

// The MNIST stages, each timed on the previous one's output.
void register_mnist(int threads) {
  struct Stages {
    MnistNetwork net = MnistNetwork::random(1);
    Matrix image = random_image(28, 4);
    CKKSVector input, conv, square1, fc1, square2;
  };
  static const std::shared_ptr<Stages> stages = std::make_shared<Stages>();
  const auto prepared = [] {
    Stages& s = *stages;
    if (s.square2.size() == 0) {
      s.input = MnistNetwork::encrypt(mnist_context(), s.image);
      s.conv = s.net.convolve(s.input);
      s.square1 = s.conv.square();
      s.fc1 = s.net.fully_connected1(s.square1);
      s.square2 = s.fc1.square();
    }
    return stages;
  };
  using Stage = std::function<CKKSVector(const Stages&)>;
  const std::vector<std::pair<std::string, Stage>> list = {
      {"encrypt", [](const Stages& s) { return MnistNetwork::encrypt(mnist_context(), s.image); }},
      {"conv", [](const Stages& s) { return s.net.convolve(s.input); }},
      {"square1", [](const Stages& s) { return s.conv.square(); }},
      {"fc1", [](const Stages& s) { return s.net.fully_connected1(s.square1); }},
      {"square2", [](const Stages& s) { return s.fc1.square(); }},
      {"fc2", [](const Stages& s) { return s.net.fully_connected2(s.square2); }},
      {"full", [](const Stages& s) { return s.net.evaluate(s.input); }},
  };
  for (const auto& [name, stage] : list)
    register_case("TenSEAL_MNIST_" + name, threads, [=](benchmark::State& state) {
      const auto s = prepared();
      benchmark::DoNotOptimize(stage(*s));
      for (auto _ : state)
        benchmark::DoNotOptimize(stage(*s));
    });
  register_case("TenSEAL_GenKeys", threads, [](benchmark::State& state) {
    for (auto _ : state)
      benchmark::DoNotOptimize(MnistNetwork::make_context());
  });
}

void register_mnist_batch(int threads, std::size_t images) {
  register_case(
      "TenSEAL_MNIST_batch/" + std::to_string(images), threads, [=](benchmark::State& state) {
        std::vector<Matrix> batch;
        for (std::size_t i = 0; i < images; ++i)
          batch.push_back(random_image(28, 100 + i));
        const auto net = MnistNetwork::random(1);
        const auto encrypted = MnistNetwork::encrypt_batch(mnist_context(), batch);
        for (auto _ : state)
          benchmark::DoNotOptimize(net.evaluate_batch(encrypted));
        state.counters["images_per_second"] = benchmark::Counter(
            static_cast<double>(images * state.iterations()), benchmark::Counter::kIsRate);
      });
}

// Three levels for encrypted matrix products, keys for blocks of 16 and 64.
const TensorContext::Ptr& matrix_context() {
  static const TensorContext::Ptr context = [] {
    heft::tensor::TenSEALArguments arguments;
    arguments.poly_modulus_degree = 8192;
    arguments.coeff_mod_bit_sizes = {50, 30, 30, 30, 50};
    arguments.global_scale = std::ldexp(1.0, 30);
    auto made = TensorContext::create(arguments);
    std::vector<int64_t> steps;
    for (const std::size_t block : {16, 64})
      for (const int64_t step : heft::tensor::CKKSMatrix::galois_steps(*made, block))
        steps.push_back(step);
    made->generate_galois_keys(steps);
    return made;
  }();
  return context;
}

heft::tensor::CKKSMatrix::Rows random_rows(std::size_t n, uint64_t seed) {
  heft::tensor::CKKSMatrix::Rows rows;
  for (std::size_t r = 0; r < n; ++r)
    rows.push_back(random_values(n, seed * 1000 + r));
  return rows;
}

void register_matrix_products(int threads) {
  using heft::tensor::CKKSMatrix;
  for (const std::size_t n : {16, 64}) {
    register_case("CKKS_EncMatmul/" + std::to_string(n), threads, [=](benchmark::State& state) {
      const auto a = CKKSMatrix::encrypt(matrix_context(), random_rows(n, 1));
      const auto b = CKKSMatrix::encrypt(matrix_context(), random_rows(n, 2));
      for (auto _ : state)
        benchmark::DoNotOptimize(a.matmul(b));
    });
    register_case("CKKS_EncVecMatmul/" + std::to_string(n), threads, [=](benchmark::State& state) {
      const auto v = CKKSVector::encrypt(matrix_context(), random_values(n, 3));
      const auto m = CKKSMatrix::encrypt(matrix_context(), random_rows(n, 4));
      for (auto _ : state)
        benchmark::DoNotOptimize(v.matmul(m));
    });
  }
  register_case("CKKS_EncMatmulPerElement/16", threads, [](benchmark::State& state) {
    using heft::tensor::CKKSTensor;
    using heft::tensor::PlainTensor;
    const auto a =
        CKKSTensor::encrypt(matrix_context(), PlainTensor(random_values(256, 5), {1, 16, 16}));
    const auto b =
        CKKSTensor::encrypt(matrix_context(), PlainTensor(random_values(256, 6), {1, 16, 16}));
    for (auto _ : state)
      benchmark::DoNotOptimize(a.mm(b));
  });
}

}  // namespace

int main(int argc, char** argv) {
  for (int threads : {1, 2}) {
    register_vector_ops(threads);
    register_conv(threads);
    register_mnist(threads);
    register_mnist_batch(threads, 4096);
    register_matrix_products(threads);
  }
  return run_benchmarks(argc, argv);
}

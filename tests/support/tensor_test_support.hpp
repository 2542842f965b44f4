// What the tensor tests share: small insecure TenSEAL-style contexts
// (N = 4096) made once per process, and random inputs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "heft/tensor/context.hpp"
#include "heft/tensor/plain_tensor.hpp"

namespace heft::tensor::testing {

// CKKS, primes 60 / 40 x levels / 60 (the last special), scale 2^40,
// N = 4096: 2048 slots. Default Galois keys when asked.
inline TensorContext::Ptr make_ckks_context(std::size_t levels = 3, bool galois = true) {
  TenSEALArguments arguments;
  arguments.scheme = Scheme::ckks;
  arguments.poly_modulus_degree = 4096;
  arguments.coeff_mod_bit_sizes = {60};
  for (std::size_t i = 0; i < levels; ++i)
    arguments.coeff_mod_bit_sizes.push_back(40);
  arguments.coeff_mod_bit_sizes.push_back(60);
  arguments.global_scale = 1099511627776.0;  // 2^40
  arguments.security = rlwe::SecurityLevel::none;
  auto context = TensorContext::create(arguments);
  if (galois) context->generate_galois_keys();
  return context;
}

// One make_ckks_context(3) per test process, shared by its tests.
inline const TensorContext::Ptr& shared_ckks_context() {
  static const auto context = make_ckks_context(3);
  return context;
}

// BFV, N = 4096 (4096 slots in two rows), t = 1032193 (TenSEAL's example
// batching prime), primes 60 x 3 and a 60-bit special prime.
inline TensorContext::Ptr make_bfv_context(bool galois = true) {
  TenSEALArguments arguments;
  arguments.scheme = Scheme::bfv;
  arguments.poly_modulus_degree = 4096;
  arguments.plain_modulus = 1032193;
  arguments.coeff_mod_bit_sizes = {60, 60, 60, 60};
  arguments.security = rlwe::SecurityLevel::none;
  auto context = TensorContext::create(arguments);
  if (galois) context->generate_galois_keys();
  return context;
}

inline std::vector<double> random_reals(std::size_t n, uint64_t seed, double bound = 1.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-bound, bound);
  std::vector<double> v(n);
  for (auto& x : v)
    x = dist(rng);
  return v;
}

inline std::vector<int64_t> random_integers(std::size_t n, uint64_t seed, int64_t bound) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> dist(-bound, bound);
  std::vector<int64_t> v(n);
  for (auto& x : v)
    x = dist(rng);
  return v;
}

// A decrypted tensor has `shape` and is within `tol` of `want`, value by
// value (the first value out of tolerance fails the test).
inline void expect_close(const tensor::PlainTensor& got, const tensor::Shape& shape,
                         const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.shape(), shape);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got.data()[i], want[i], tol) << "at " << i;
}

}  // namespace heft::tensor::testing

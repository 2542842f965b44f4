// Integer arithmetic on functional bootstrapping (see the header).
#include "heft/circuits/integer_bootstrapping.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {

namespace {

// The residue m read as a signed integer in [-p/2, p/2).
double signed_residue(std::size_t m, std::size_t p) {
  return m < p / 2 ? static_cast<double>(m) : static_cast<double>(m) - static_cast<double>(p);
}

}  // namespace

std::vector<double> identity_table(std::size_t p) {
  std::vector<double> table(p);
  for (std::size_t m = 0; m < p; ++m)
    table[m] = static_cast<double>(m);
  return table;
}

std::vector<double> sign_table(std::size_t p) {
  std::vector<double> table(p);
  for (std::size_t m = 0; m < p; ++m) {
    const double v = signed_residue(m, p);
    table[m] = v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0);
  }
  return table;
}

std::vector<double> relu_table(std::size_t p) {
  std::vector<double> table(p);
  for (std::size_t m = 0; m < p; ++m)
    table[m] = std::max(signed_residue(m, p), 0.0);
  return table;
}

rlwe::Ciphertext refresh_integers(const FunctionalBootstrapper& fbt, const rlwe::Ciphertext& x,
                                  const BootstrapKeys& keys) {
  return fbt.evaluate(x, identity_table(fbt.modulus()), keys);
}

rlwe::Ciphertext compare(const FunctionalBootstrapper& fbt, const rlwe::Ciphertext& a,
                         const rlwe::Ciphertext& b, const BootstrapKeys& keys) {
  const ckks::Evaluator evaluator(fbt.context());
  return fbt.evaluate(evaluator.sub(a, b), sign_table(fbt.modulus()), keys);
}

rlwe::Ciphertext maximum(const FunctionalBootstrapper& fbt, const rlwe::Ciphertext& a,
                         const rlwe::Ciphertext& b, const BootstrapKeys& keys) {
  const ckks::Evaluator evaluator(fbt.context());
  rlwe::Ciphertext out = fbt.evaluate(evaluator.sub(a, b), relu_table(fbt.modulus()), keys);
  evaluator.add_inplace(out, refresh_integers(fbt, b, keys));
  return out;
}

std::vector<rlwe::Ciphertext> digits(const FunctionalBootstrapper& fbt, const rlwe::Ciphertext& x,
                                     std::size_t count, const BootstrapKeys& keys) {
  if (count == 0) throw InvalidArgument("digits: count must be at least 1");
  const ckks::Evaluator evaluator(fbt.context());
  const auto identity = identity_table(fbt.modulus());
  const auto p = static_cast<int64_t>(fbt.modulus());
  std::vector<rlwe::Ciphertext> out;
  out.push_back(fbt.evaluate(x, identity, keys));
  // rest = x - sum_(j <= i) d_j p^j = p^(i+1) x_(i+1), kept at the digits'
  // level and scale so that no round spends a level on it: digit i + 1 is
  // read with unit p^(i+1), the powers of p multiplied in as integers.
  rlwe::Ciphertext rest =
      x.level() > out[0].level() ? evaluator.align_to(x, out[0].level(), out[0].scale) : x.clone();
  int64_t power = 1;
  for (std::size_t i = 1; i < count; ++i) {
    evaluator.sub_inplace(rest, evaluator.multiply_integer(out.back(), power));
    power *= p;
    auto next = fbt.evaluate(rest, {identity}, keys, static_cast<double>(power));
    out.push_back(std::move(next[0]));
  }
  return out;
}

}  // namespace heft::circuits

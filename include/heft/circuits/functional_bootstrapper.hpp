// Functional CKKS bootstrapping: a ciphertext whose slots hold integers
// m modulo p is refreshed while a table f: Z_p -> R is applied slot-wise
// (Alexandru, Kim and Polyakov, eprint 2024/1623, in the simplest of its
// forms: the table as a trigonometric polynomial of the phase). Several
// tables on one input share all the expensive work (multi-value).
//
// The phases (SlotsToCoeffs first, real slots):
// 1. The input, at level >= entry_level(), is made real (x + conj(x)),
//    shifted to m - p/2, and brought to the exact scale q_0 / p by
//    Evaluator::align_to (one level) and an integer: the coefficient that
//    SlotsToCoeffs makes of the value m - p/2 is then (m - p/2) q_0 / p.
// 2. SlotsToCoeffs on the input's lowest levels, ModRaise (under the sparse
//    secret when the parameters encapsulate) and SubSum, CoeffsToSlots: slot
//    k holds a = (m - p/2) / p + I, I a small integer (|I| <= K), plus an
//    imaginary part that is an integer too.
// 3. In place of EvalMod's sine, each table as a function of u = 2 Re = 2a:
//      G(u) = Re sum_k c_k exp(i pi k u),  k in [-(p-1)/2, p/2] (integers),
//    c_k = (-1)^k / p sum_m f(m) w^(-k m) (w = exp(2 pi i / p), the inverse
//    DFT of the table), so that G(2a) = f(m) whatever the integer I is. G is
//    a trigonometric polynomial of frequency at most pi p / 2; its Chebyshev
//    interpolant on [-(2K + 1), 2K + 1] (the smallest degree 2^k - 1 within
//    2^-30 of the table's largest value) is evaluated as EvalMod's sine is,
//    at an exact scale. Several tables share the powers of u (multi-value).
//    The degree grows as p K: at K = 16, p = 16 takes degree 1023 (ten
//    levels), p = 256 degree 16383 (fourteen).
//
// Errors: a value that is not within about 1 / (2p) of an integer gives a
// blend of neighbouring entries; a table's error grows with p and with the
// table's roughness (the derivative of T); the tests and BENCHMARKS.md state
// what each preset keeps exact.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "heft/circuits/bootstrapper.hpp"
#include "heft/circuits/polynomial.hpp"
#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/evaluator.hpp"

namespace heft::circuits {

class HEFT_EXPORT FunctionalBootstrapper {
 public:
  // `bootstrap`: the chain's settings (functional_bootstrap_preset's); its
  // order is taken as SlotsToCoeffs first with real slots and no message
  // ratio, whatever they say. `modulus`: p in [2, 4096], even or odd (a
  // small prime, as BFV and BGV use).
  // InvalidArgument for a p out of range or parameters whose EvalMod levels
  // (the sine's depth) are fewer than a table's polynomial takes: the table
  // runs on EvalMod's primes, whose sizes keep its scales exact.
  FunctionalBootstrapper(std::shared_ptr<const rlwe::Context> context,
                         const BootstrapParameters& bootstrap, std::size_t modulus);

  // The degree of a table's polynomial for p = modulus and K = mod_range:
  // the smallest 2^k - 1 at which the highest frequency a table of p entries
  // has interpolates within 2^-32 on [-(2K + 1), 2K + 1]. A preset for
  // tables (functional_bootstrap_preset) gives EvalMod that many levels.
  [[nodiscard]] static std::size_t table_degree(std::size_t modulus, std::size_t mod_range);

  [[nodiscard]] std::size_t modulus() const noexcept { return modulus_; }
  // The lowest level evaluate() takes its input at (it spends the levels
  // below for the scale and SlotsToCoeffs).
  [[nodiscard]] std::size_t entry_level() const noexcept;
  // The level of evaluate()'s outputs.
  [[nodiscard]] std::size_t output_level() const noexcept;
  // Levels a table's polynomial takes (in place of EvalMod's sine).
  [[nodiscard]] std::size_t table_depth() const noexcept { return table_depth_; }
  // The polynomial G of `table` that evaluate() applies (see the file
  // comment): InvalidArgument for a table of another size or not finite.
  [[nodiscard]] Polynomial table_polynomial(std::span<const double> table) const;
  // The keys: those of a bootstrap in this order (Bootstrapper::create_keys).
  [[nodiscard]] BootstrapKeys create_keys(const rlwe::SecretKey& secret,
                                          const KeyProgress& progress = {}) const;
  [[nodiscard]] const Bootstrapper& bootstrapper() const noexcept { return bootstrapper_; }
  [[nodiscard]] const std::shared_ptr<const rlwe::Context>& context() const noexcept {
    return context_;
  }

  // f(m) in every slot, for the integer m mod p the slot holds (a real
  // within about 1 / (2p) of it). `table`: p values, f(0) .. f(p - 1).
  // InvalidArgument for a table of another size or a value that is not
  // finite, an input below entry_level() or of another slot count, missing
  // keys.
  [[nodiscard]] rlwe::Ciphertext evaluate(const rlwe::Ciphertext& x, std::span<const double> table,
                                          const BootstrapKeys& keys) const;
  // Several tables on one input: one bootstrap's work, then each table's
  // combination of the shared powers (multi-value bootstrapping).
  // `unit`: the slots hold unit * m (unit > 0; InvalidArgument otherwise):
  // what digit extraction passes to read x = p^i m without dividing by p^i.
  [[nodiscard]] std::vector<rlwe::Ciphertext> evaluate(
      const rlwe::Ciphertext& x, const std::vector<std::vector<double>>& tables,
      const BootstrapKeys& keys, double unit = 1.0) const;

 private:
  // Steps 1 and 2: slot k holding 2a = 2 (m - p/2) / p + 2I in its real part
  // (u = s + conj(s)).
  [[nodiscard]] rlwe::Ciphertext phase(const rlwe::Ciphertext& x, const BootstrapKeys& keys,
                                       double unit) const;

  std::shared_ptr<const rlwe::Context> context_;
  std::size_t modulus_;
  Bootstrapper bootstrapper_;
  ckks::Evaluator evaluator_;
  double range_ = 1;  // R = 2K + 1: u lies in [-R, R]
  std::size_t table_degree_ = 0, table_depth_ = 0;
  std::size_t coeffs_to_slots_levels_ = 0;
};

}  // namespace heft::circuits

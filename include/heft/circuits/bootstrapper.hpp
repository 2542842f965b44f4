// CKKS bootstrapping: a ciphertext at level 0 refreshed to a high level.
//
// The phases, in order (CoeffsToSlots first):
// 1. ModRaise (rlwe::mod_raise): the level-0 ciphertext read modulo Q_top
//    decrypts to t = m + q_0 I, I a small integer polynomial. Its scale label
//    becomes q_0, so its "values" are t / q_0 = I + m / q_0.
// 2. SubSum (sparse slots n < N/2 only): the sum of its rotations by n, 2n,
//    ..., N/4 keeps the coefficients on multiples of N / 2n (times N / 2n),
//    the ones sparse packing uses.
// 3. CoeffsToSlots: the special FFT's inverse as linear transforms
//    (homomorphic_dft.hpp), one level per group of stages: slot k then holds
//    (t_k + i t_(k+n)) / q_0 in bit-reversed order.
// 4. EvalMod: the real and imaginary parts, 2 Re and 2 Im (one conjugation),
//    each through sin(pi a) / 2 pi, a Chebyshev interpolant on [-R, R] with
//    R = 2K + 1 (K bounds |I|): sin(2 pi (I + e)) / 2 pi = e + O(e^3) for
//    e = m / q_0. Then Re + i Im (i: the monomial X^(N/2), exact).
// 5. SlotsToCoeffs: the special FFT's stages, one level per group: the
//    slots hold m's slots times Delta / q_0, and the scale label is
//    multiplied by Delta / q_0 to give back the input's values. EvalMod's
//    output scale is chosen so that this lands on the default scale of the
//    output level.
//
// Before ModRaise, two optional steps at level 0: the ciphertext is
// multiplied by an integer that brings its values to q_0 / 2^message_ratio_bits
// (so that every later error, fixed in units of q_0, is smaller relative to
// the message; the sine's cubic term, (2 pi 2^-bits)^2 / 6 relative, bounds
// how far this can go), and with sparse_secret_weight h' it is switched to
// an ephemeral sparse secret (sparse_secret_encapsulation.hpp), ModRaised
// under it, and switched back at the top level, so that |I| <= (h' + 1) / 2.
//
// Real slots (BootstrapParameters::real_slots): the input is first made
// real, x + conj(x) at its entry level (one key switch on few towers), and
// EvalMod then runs on 2 Re only, one sine instead of two. With SlotsToCoeffs
// first that is all (EvalMod's input is then the slots' values). With
// CoeffsToSlots first the imaginary parts t_(k+n) are not lost: a real
// message's coefficients satisfy t_(2n-k) = -t_k, so with r_k = t_k mod q_0
// (k < n) the slots are z = 2 Re(SlotsToCoeffs(D r)), D halving r_0; D is
// folded into the first SlotsToCoeffs matrix and 2 Re is one conjugation at
// the output level.
//
// Levels: everything above is spent from the top; output_level() is what is
// left. The failure probability is that of |I| > K: I's coefficients are
// about normal with standard deviation sqrt((h + 1) / 12) for a secret of
// Hamming weight h (dense ternary: h = 2N/3), so K should be about 6 to 8
// of those.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "heft/circuits/linear_transform.hpp"
#include "heft/circuits/polynomial.hpp"
#include "heft/circuits/polynomial_evaluator.hpp"
#include "heft/circuits/sparse_secret_encapsulation.hpp"
#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"

namespace heft::circuits {

// The order of the phases. CoeffsToSlots first takes a ciphertext at any
// level (it is brought to level 0) and spends every bootstrapping level from
// the top. SlotsToCoeffs first (OpenFHE's other order) runs SlotsToCoeffs on
// the input, before ModRaise, with the input's own lowest levels: the input
// must be at level >= slots_to_coeffs_levels (entry_level()), and the output
// has no SlotsToCoeffs after EvalMod, so EvalMod's per-slot errors reach the
// slots directly instead of being summed over n coefficients.
enum class BootstrapOrder { coeffs_to_slots_first, slots_to_coeffs_first };

struct HEFT_EXPORT BootstrapParameters {
  std::size_t slots = 0;                   // n, a power of two (0: N/2)
  std::size_t coeffs_to_slots_levels = 2;  // level budget of CoeffsToSlots (1 .. log2 n)
  std::size_t slots_to_coeffs_levels = 2;  // and of SlotsToCoeffs
  std::size_t mod_range = 16;              // K: EvalMod is exact for |I| <= K
  std::size_t sine_degree = 0;             // 0: the smallest 2^k - 1 within 2^-40
  // Hamming weight h' of the ephemeral sparse secret ModRaise runs under (0:
  // none, ModRaise under the key's own secret). With h' set, |I| <= (h' + 1) / 2.
  std::size_t sparse_secret_weight = 0;
  // log2(q_0 / values' scale) that the input is brought to by an integer
  // multiplication at level 0 (0: left at its own scale). Inputs are assumed
  // to be at most about 1 in absolute value.
  int message_ratio_bits = 0;
  BootstrapOrder order = BootstrapOrder::coeffs_to_slots_first;
  // Bootstrap the slots' real parts only (see the file comment): about half
  // EvalMod's work. The output's imaginary parts are zero (within the
  // precision), whatever the input's were.
  bool real_slots = false;
  // Arcsine correction after EvalMod's sine (0: none; otherwise an odd
  // degree in [3, 15]): arcsin(2 pi y) / 2 pi as its Taylor polynomial
  // undoes the sine, so EvalMod returns e itself rather than sin(2 pi e) /
  // 2 pi, whose cubic term, (2 pi e)^2 / 6 relative, is what bounds how low
  // message_ratio_bits can go. Costs ceil(log2(degree + 1)) levels.
  // Measured on the small preset at message_ratio_bits 4 with a constant
  // input (the cubic term at its largest): 5.7 -> 9.9 bits with degree 3;
  // degrees 5 and 7 gained nothing more there (a plateau near 2^-10 not
  // yet explained). Off in every preset.
  std::size_t arcsine_degree = 0;
};

// Every key a bootstrap needs (Bootstrapper::create_keys makes them).
struct HEFT_EXPORT BootstrapKeys {
  rlwe::RelinKey relin;
  rlwe::GaloisKeys galois;                 // rotations and conjugation
  std::optional<SparseSecretKeys> sparse;  // with sparse_secret_weight > 0
};

// Called after each key is made with the number made so far and the total.
using KeyProgress = std::function<void(std::size_t done, std::size_t total)>;

// Seconds each phase of one bootstrap took (Bootstrapper::bootstrap fills it
// when given one): ModRaise includes SubSum.
struct HEFT_EXPORT BootstrapPhaseTimes {
  double mod_raise = 0;
  double coeffs_to_slots = 0;
  double eval_mod = 0;
  double slots_to_coeffs = 0;
};

class HEFT_EXPORT Bootstrapper {
 public:
  // Builds the transforms and the sine polynomial. InvalidArgument if the
  // parameters have too few levels for them (the message says how many are
  // needed), no special primes, or a bad slot count or level budget.
  Bootstrapper(std::shared_ptr<const rlwe::Context> context, const BootstrapParameters& parameters);

  // Rotation steps to make Galois keys for (KeyGenerator::create_galois_keys
  // with include_conjugation = true): the SubSum steps and every transform's.
  [[nodiscard]] std::vector<int64_t> rotation_steps() const;
  // Each Galois element the bootstrap uses (rotations and conjugation) and
  // the highest level it is used at. create_keys makes each key for that
  // level only, which at N = 2^16 shrinks the SlotsToCoeffs keys by half or
  // more (KeyGenerator::create_galois_keys_for_elements with max_level).
  [[nodiscard]] std::map<uint64_t, std::size_t> galois_key_levels() const;
  // Levels the bootstrapping spends from the top, and the level of its output.
  [[nodiscard]] std::size_t depth() const noexcept;
  // The same for `parameters`, without building the transforms (it builds
  // the sine interpolant): what a parameter set must leave room for.
  [[nodiscard]] static std::size_t depth_for(const BootstrapParameters& parameters);
  [[nodiscard]] std::size_t output_level() const noexcept;
  // The lowest level bootstrap() accepts and brings its input to: 0 with
  // CoeffsToSlots first, slots_to_coeffs_levels with SlotsToCoeffs first
  // (whose transforms use levels entry_level() .. 1).
  [[nodiscard]] std::size_t entry_level() const noexcept;
  [[nodiscard]] BootstrapOrder order() const noexcept { return parameters_.order; }
  [[nodiscard]] std::size_t slots() const noexcept { return slots_; }
  [[nodiscard]] const Polynomial& sine() const noexcept { return sine_; }
  // The sparse-secret encapsulation (null without one): its small_context()
  // is the one the to_sparse key must be made or loaded under.
  [[nodiscard]] const SparseSecretEncapsulation* encapsulation() const noexcept {
    return encapsulation_ ? &*encapsulation_ : nullptr;
  }

  // Exactly the keys bootstrap() needs for `secret` (a key of this
  // context): relinearization, one Galois key per rotation step and
  // conjugation, and the sparse-secret keys when configured.
  [[nodiscard]] BootstrapKeys create_keys(const rlwe::SecretKey& secret,
                                          const KeyProgress& progress = {}) const;
  // How many keys create_keys makes (what its progress counts to).
  [[nodiscard]] std::size_t key_count() const;
  // The bytes of their polynomials, from the shapes alone (no key is made):
  // what to check against the memory before create_keys.
  [[nodiscard]] double key_bytes() const;

  // The refreshed ciphertext: same values (within the precision), at
  // output_level(). `x` may be at any level (it is brought to level 0) and
  // must have the bootstrapper's slot count. MismatchError / InvalidArgument
  // naming the missing keys.
  // `times`, if given, receives each phase's wall-clock time.
  [[nodiscard]] rlwe::Ciphertext bootstrap(const rlwe::Ciphertext& x, const rlwe::RelinKey& relin,
                                           const rlwe::GaloisKeys& keys,
                                           BootstrapPhaseTimes* times = nullptr) const;
  // The same with every key in one record; the form to use with
  // sparse_secret_weight > 0 (the overload above refuses it then).
  [[nodiscard]] rlwe::Ciphertext bootstrap(const rlwe::Ciphertext& x, const BootstrapKeys& keys,
                                           BootstrapPhaseTimes* times = nullptr) const;
  // The same with the keys held apart (a tensor context keeps the Galois
  // keys of bootstrapping with its own): `sparse` null without encapsulation.
  [[nodiscard]] rlwe::Ciphertext bootstrap(const rlwe::Ciphertext& x, const rlwe::RelinKey& relin,
                                           const rlwe::GaloisKeys& keys,
                                           const SparseSecretKeys* sparse,
                                           BootstrapPhaseTimes* times = nullptr) const;

  // Two iterations (META-BTS): y = bootstrap(x); the difference x - y, taken
  // at level 0 after the scale-up, is minus y's error, below 2^-bits in
  // value; its integers are multiplied by 2^(bits - 2) and bootstrapped as
  // if it were a full-size message (its integers are), so the second
  // bootstrap's error is 2^(bits - 2) times smaller relative to y's error;
  // y times an integer M plus the second output times M / 2^(bits - 2)
  // cancels the first error, and one rescale brings the sum to the level
  // below output_level(), at that level's default scale: the refined
  // output spends one level more than bootstrap(), whose last rounding (at
  // the output scale) is what bounds its precision. Two bootstraps' time,
  // the same keys. bits: a lower bound on one bootstrap's precision by max
  // error (BootstrapPreset::precision_bits); in [3, 50], InvalidArgument
  // otherwise (before any work). A bound above the true precision amplifies
  // the error past EvalMod's range and the result is wrong.
  [[nodiscard]] rlwe::Ciphertext bootstrap_refined(const rlwe::Ciphertext& x,
                                                   const rlwe::RelinKey& relin,
                                                   const rlwe::GaloisKeys& keys, int bits) const;
  [[nodiscard]] rlwe::Ciphertext bootstrap_refined(const rlwe::Ciphertext& x,
                                                   const BootstrapKeys& keys, int bits) const;

  // The phases alone (for tests and benchmarks). mod_raise includes the
  // scale-up (after x + conj(x) with real_slots), the sparse-secret switches
  // (with keys.sparse) and SubSum. slots_to_coeffs is the transforms alone
  // (with real_slots and CoeffsToSlots first, the first one halves slot 0,
  // and bootstrap() adds the conjugate after them).
  [[nodiscard]] rlwe::Ciphertext mod_raise(const rlwe::Ciphertext& x,
                                           const rlwe::GaloisKeys& keys) const;
  [[nodiscard]] rlwe::Ciphertext mod_raise(const rlwe::Ciphertext& x,
                                           const BootstrapKeys& keys) const;
  // ModRaise of a level-0 ciphertext whose coefficients already hold the
  // message (SlotsToCoeffs' output), under the sparse secret when this
  // bootstrapper encapsulates, then SubSum: what coeffs_to_slots takes. Its
  // scale label becomes q_0 (its values t / q_0). No scale-up, no real part.
  [[nodiscard]] rlwe::Ciphertext raise_coefficients(const rlwe::Ciphertext& level0,
                                                    const BootstrapKeys& keys) const;
  [[nodiscard]] rlwe::Ciphertext coeffs_to_slots(const rlwe::Ciphertext& x,
                                                 const rlwe::GaloisKeys& keys) const;
  // target_scale: the output's scale (0: the default scale of its level).
  // With real_slots, the real parts only (the output is real).
  [[nodiscard]] rlwe::Ciphertext eval_mod(const rlwe::Ciphertext& x, const rlwe::RelinKey& relin,
                                          const rlwe::GaloisKeys& keys,
                                          double target_scale = 0) const;
  [[nodiscard]] rlwe::Ciphertext slots_to_coeffs(const rlwe::Ciphertext& x,
                                                 const rlwe::GaloisKeys& keys) const;

 private:
  // x at level 0 (a pending rescale done first), after the slot-count check.
  [[nodiscard]] rlwe::Ciphertext at_level_zero(const rlwe::Ciphertext& x) const;
  // x at `level` (a pending rescale done first), after the slot-count
  // check; InvalidArgument if x is below it.
  [[nodiscard]] rlwe::Ciphertext at_level(const rlwe::Ciphertext& x, std::size_t level) const;
  // x at `level`, made real when real_slots is set, then scaled up to the
  // message ratio.
  [[nodiscard]] rlwe::Ciphertext scaled_up(const rlwe::Ciphertext& x, std::size_t level,
                                           const rlwe::GaloisKeys& keys) const;
  // x + conj(x), its scale label doubled: the same values' real parts.
  [[nodiscard]] rlwe::Ciphertext real_part(const rlwe::Ciphertext& x,
                                           const rlwe::GaloisKeys& keys) const;
  // Each phase after the level-0 preparation; `sparse` null without
  // encapsulation.
  [[nodiscard]] rlwe::Ciphertext raise(const rlwe::Ciphertext& x, const rlwe::GaloisKeys& keys,
                                       const SparseSecretKeys* sparse) const;
  [[nodiscard]] rlwe::Ciphertext run(const rlwe::Ciphertext& x, const rlwe::RelinKey& relin,
                                     const rlwe::GaloisKeys& keys, const SparseSecretKeys* sparse,
                                     BootstrapPhaseTimes* times) const;
  [[nodiscard]] rlwe::Ciphertext refine(const rlwe::Ciphertext& x, const rlwe::RelinKey& relin,
                                        const rlwe::GaloisKeys& keys,
                                        const SparseSecretKeys* sparse, int bits) const;
  // Levels EvalMod takes: the sine's and the arcsine correction's.
  [[nodiscard]] std::size_t eval_mod_depth() const noexcept;
  // 2^c: EvalMod's output scale over the one that would land on the output
  // scale unaided; the last SlotsToCoeffs transform divides it off.
  [[nodiscard]] double slots_to_coeffs_scale_down(std::size_t last_level) const;
  // InvalidArgument when this bootstrapper encapsulates and `sparse` is null.
  void require_sparse_keys(const SparseSecretKeys* sparse, const char* operation) const;
  // Each transform applied and rescaled in turn.
  [[nodiscard]] rlwe::Ciphertext apply_in_turn(const rlwe::Ciphertext& x,
                                               const std::vector<LinearTransform>& transforms,
                                               const rlwe::GaloisKeys& keys) const;

  std::shared_ptr<const rlwe::Context> context_;
  BootstrapParameters parameters_;
  std::size_t slots_;
  ckks::Encoder encoder_;
  ckks::Evaluator evaluator_;
  Polynomial sine_;
  std::optional<Polynomial> arcsine_;  // with arcsine_degree > 0
  std::vector<LinearTransform> coeffs_to_slots_;
  std::vector<LinearTransform> slots_to_coeffs_;
  LinearTransformEvaluator transforms_;
  std::optional<SparseSecretEncapsulation> encapsulation_;
  double slots_to_coeffs_scale_down_ = 1;
};

}  // namespace heft::circuits

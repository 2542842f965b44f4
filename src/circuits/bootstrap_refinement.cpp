// Bootstrapper::bootstrap_refined: two iterations of bootstrapping, the
// second on the first one's error scaled up (see the header).
#include <cmath>
#include <cstdint>
#include <string>

#include "heft/circuits/bootstrapper.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {

rlwe::Ciphertext Bootstrapper::bootstrap_refined(const rlwe::Ciphertext& x,
                                                 const rlwe::RelinKey& relin,
                                                 const rlwe::GaloisKeys& keys, int bits) const {
  require_sparse_keys(nullptr, "bootstrap_refined");
  return refine(x, relin, keys, nullptr, bits);
}

rlwe::Ciphertext Bootstrapper::bootstrap_refined(const rlwe::Ciphertext& x,
                                                 const BootstrapKeys& keys, int bits) const {
  const SparseSecretKeys* sparse = keys.sparse ? &*keys.sparse : nullptr;
  require_sparse_keys(sparse, "bootstrap_refined");
  return refine(x, keys.relin, keys.galois, sparse, bits);
}

rlwe::Ciphertext Bootstrapper::refine(const rlwe::Ciphertext& x, const rlwe::RelinKey& relin,
                                      const rlwe::GaloisKeys& keys, const SparseSecretKeys* sparse,
                                      int bits) const {
  // The first error's values are below 2^-bits; amplified by 2^(bits - 2)
  // they stay below 1/4, inside the range scaled_up() assumes, whatever the
  // scale. Beyond 2^50 nothing is gained (the output's own rounding rules).
  if (bits < 3 || bits > 50) {
    throw InvalidArgument("bootstrap_refined: bits = " + std::to_string(bits) +
                          " is outside [3, 50]; pass a lower bound on one bootstrap's "
                          "precision (BootstrapPreset::precision_bits)");
  }
  if (output_level() == 0)
    throw InvalidArgument(
        "bootstrap_refined: the output level is 0; the refined output needs one "
        "more level for its last rescale");
  const rlwe::Ciphertext low = scaled_up(x, entry_level(), keys);
  const rlwe::Ciphertext first = run(low, relin, keys, sparse, nullptr);
  // Back at low's level with low's scale exactly (one rescale).
  const rlwe::Ciphertext back = evaluator_.align_to(first, low.level(), low.scale);
  rlwe::Ciphertext error = evaluator_.sub(low, back);  // minus first's error
  // Amplified in place rather than by Evaluator::multiply_integer, whose
  // overflow check assumes values up to 1: these are below 2^-bits. The
  // label stays low's, so the second bootstrap treats 2^k times the error as
  // a full-size message: its EvalMod and SlotsToCoeffs keep a message's
  // integers, not 2^k times fewer (which is what had limited the gain to
  // about 2 bits: the error's integers at the output scale were few above
  // SlotsToCoeffs' rounding).
  const int amplification = bits - 2;
  const uint64_t factor = uint64_t{1} << amplification;
  for (auto& part : error.parts)
    part.multiply_scalar(factor);
  rlwe::Ciphertext second = run(error, relin, keys, sparse, nullptr);  // -2^k e at first's scale
  // The sum at scale S M, M the integer nearest scale_at(l - 1) q_l / S
  // (S = first's scale, l its level): first times M, second times m =
  // round(M / 2^k) (its values are 2^k too large), both exact integer
  // products. The first error cancels; second's label is then off by
  // |M - 2^k m| / M <= 2^(k - 1) / M (about 2^-23), on values of the size
  // of the first error: below 2^-40. One rescale brings the sum to level
  // l - 1 at that level's scale (to about 2^-40), and its rounding there is
  // what bounds the result.
  const std::size_t level = first.level();
  const double q_level = static_cast<double>(context_->parameters().ciphertext_moduli[level]);
  const double big_m = std::round(evaluator_.scale_at(level - 1) * q_level / first.scale);
  const double m = std::round(big_m / static_cast<double>(factor));
  if (!(m >= 1) || big_m > std::exp2(62))
    throw InvalidArgument("bootstrap_refined: bits = " + std::to_string(bits) +
                          " leaves no integer to bring the result to its scale");
  rlwe::Ciphertext sum = first.clone();
  for (auto& part : sum.parts)
    part.multiply_scalar(static_cast<uint64_t>(big_m));
  for (auto& part : second.parts)
    part.multiply_scalar(static_cast<uint64_t>(m));
  sum.scale = first.scale * big_m;
  second.scale = sum.scale;
  evaluator_.add_inplace(sum, second);
  return evaluator_.rescale(sum);
}

}  // namespace heft::circuits

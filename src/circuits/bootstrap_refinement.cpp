// Bootstrapper::bootstrap_refined: two iterations of bootstrapping, the
// second on the first one's error scaled up (see the header).
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
  const rlwe::Ciphertext low = scaled_up(x, entry_level(), keys);
  const rlwe::Ciphertext first = run(low, relin, keys, sparse, nullptr);
  // Back at low's level with low's scale exactly (one rescale).
  const rlwe::Ciphertext back = evaluator_.align_to(first, low.level(), low.scale);
  rlwe::Ciphertext error = evaluator_.sub(low, back);  // minus first's error
  // Amplified in place rather than by Evaluator::multiply_integer, whose
  // overflow check assumes values up to 1: these are below 2^-bits.
  const int amplification = bits - 2;
  const uint64_t factor = uint64_t{1} << amplification;
  for (auto& part : error.parts)
    part.multiply_scalar(factor);
  error.scale = low.scale * static_cast<double>(factor);  // same values, larger integers
  return evaluator_.add(first, run(error, relin, keys, sparse, nullptr));
}

}  // namespace heft::circuits

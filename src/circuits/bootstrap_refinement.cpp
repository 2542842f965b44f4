// Bootstrapper::bootstrap_refined: two iterations of bootstrapping, the
// second on the first one's error scaled up (see the header).
#include <cmath>
#include <string>

#include "heft/circuits/bootstrapper.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {

rlwe::Ciphertext Bootstrapper::bootstrap_refined(const rlwe::Ciphertext& x,
                                                 const rlwe::RelinKey& relin,
                                                 const rlwe::GaloisKeys& keys, int bits) const {
  const rlwe::Ciphertext low = at_level_zero(x);
  const double q0 = static_cast<double>(context_->parameters().ciphertext_moduli[0]);
  // The amplified error's scale label, low.scale * 2^bits, must stay well
  // below q_0: its integers are what ModRaise reads modulo q_0.
  const double headroom = std::log2(q0 / low.scale) - 2;
  if (bits < 1 || bits > headroom) {
    throw InvalidArgument("bootstrap_refined: bits = " + std::to_string(bits) +
                          " is outside [1, log2(q_0 / scale) - 2] = [1, " +
                          std::to_string(static_cast<int>(std::floor(headroom))) +
                          "] for this ciphertext's scale");
  }
  const rlwe::Ciphertext first = bootstrap(low, relin, keys);
  // Back at level 0 with low's scale exactly (one rescale by q_1).
  const rlwe::Ciphertext back = evaluator_.align_to(first, 0, low.scale);
  rlwe::Ciphertext error = evaluator_.sub(low, back);  // minus first's error
  error = evaluator_.multiply_integer(error, int64_t{1} << bits);
  error.scale = low.scale * std::ldexp(1.0, bits);  // values unchanged, integers 2^bits larger
  return evaluator_.add(first, bootstrap(error, relin, keys));
}

}  // namespace heft::circuits

// What a LinearTransform holds, counted: every diagonal exactly once, in the
// form evaluation consumes (NTT form, the level's Q towers plus the special
// towers, nothing else), so its bytes are diagonals x (level + 1 + special)
// x N x 8. A regression that keeps extra copies or towers shows here.
#include <gtest/gtest.h>

#include <cstddef>

#include "heft/circuits/bootstrap_presets.hpp"
#include "heft/circuits/homomorphic_dft.hpp"
#include "heft/circuits/linear_transform.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/schemes/ckks/encoder.hpp"

namespace heft::circuits {
namespace {

std::size_t stored_words(const LinearTransform& m) {
  std::size_t words = 0;
  for (const auto& giant : m.giant_steps())
    for (const auto& term : giant.terms)
      words += (term.diagonal.poly.q.tower_count() + term.diagonal.poly.p.tower_count()) *
               term.diagonal.poly.q.degree();
  return words;
}

TEST(LinearTransformMemory, SmallPresetTransformsHoldEachDiagonalOnceAtItsLevel) {
  const BootstrapPreset preset = bootstrap_preset("small");
  const auto context = rlwe::Context::create(preset.parameters);
  const ckks::Encoder encoder(context);
  const std::size_t n = context->degree() / 2;
  const std::size_t special = context->special_count();
  const auto matrices = coeffs_to_slots_matrices(n, preset.bootstrap.coeffs_to_slots_levels, 1.0);
  for (std::size_t i = 0; i < matrices.size(); ++i) {
    LinearTransformOptions options;
    options.level = context->max_level() - i;
    options.slots = n;
    const LinearTransform m = LinearTransform::from_diagonals(encoder, matrices[i], options);
    // The oracle: the nonzero diagonals of the plaintext stage product.
    EXPECT_EQ(m.diagonal_count(), matrices[i].size());
    for (const auto& giant : m.giant_steps()) {
      for (const auto& term : giant.terms) {
        EXPECT_EQ(term.diagonal.poly.q.tower_count(), options.level + 1);
        EXPECT_EQ(term.diagonal.poly.p.tower_count(), special);
        EXPECT_EQ(term.diagonal.poly.q.form(), ring::Form::ntt);
        EXPECT_EQ(term.diagonal.poly.p.form(), ring::Form::ntt);
      }
    }
    const std::size_t documented_bytes =
        matrices[i].size() * (options.level + 1 + special) * context->degree() * 8;
    EXPECT_EQ(stored_words(m) * 8, documented_bytes);
  }
}

}  // namespace
}  // namespace heft::circuits

// Transparent ciphertexts (a mask that cancelled, docs/security.md): every
// operation of the CKKS, BFV and BGV evaluators and of the circuits layer
// that can make one refuses it with TransparentCiphertextError, leaving its
// operands as they were; allowed, the result is indeed transparent (the
// refusal is not a false alarm), and the tensor layer re-randomises it.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "heft/circuits/linear_transform.hpp"
#include "heft/circuits/polynomial.hpp"
#include "heft/circuits/polynomial_evaluator.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bfv/encryptor.hpp"
#include "heft/schemes/bfv/evaluator.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/tensor/bfv_vector.hpp"
#include "heft/tensor/ckks_vector.hpp"
#include "heft/util/error.hpp"

namespace heft {
namespace {

bool same(const rlwe::Ciphertext& a, const rlwe::Ciphertext& b) {
  if (a.parts.size() != b.parts.size()) return false;
  for (std::size_t i = 0; i < a.parts.size(); ++i)
    if (!(a.parts[i] == b.parts[i])) return false;
  return true;
}

TEST(TransparentCiphertexts, CkksRefusesEveryOperationThatCancelsTheMask) {
  rlwe::Parameters parameters =
      rlwe::make_parameters(2048, {50, 40, 40}, {50}, 0, rlwe::SecurityLevel::none);
  parameters.scale = 0x1p40;
  auto context = rlwe::Context::create(parameters);
  rlwe::KeyGenerator keygen(context);
  const rlwe::Encryptor encryptor(keygen.create_public_key());
  const ckks::Encoder encoder(context);
  ckks::Evaluator evaluator(context);
  const std::vector<double> values{0.5, -0.25, 1.0};
  const rlwe::Ciphertext x = encryptor.encrypt(encoder.encode(values, 0x1p40, 2));
  EXPECT_FALSE(rlwe::is_transparent(x));
  const rlwe::Plaintext zero = encoder.encode(std::vector<double>(3, 0.0), 0x1p40, 2);

  EXPECT_THROW((void)evaluator.sub(x, x), TransparentCiphertextError);
  EXPECT_THROW((void)evaluator.add(x, evaluator.negate(x)), TransparentCiphertextError);
  EXPECT_THROW((void)evaluator.multiply_scalar(x, 0.0), TransparentCiphertextError);
  EXPECT_THROW((void)evaluator.multiply_integer(x, 0), TransparentCiphertextError);
  EXPECT_THROW((void)evaluator.multiply_plain(x, zero), TransparentCiphertextError);
  // A sum of rotations by all-zero diagonals.
  const std::vector<int64_t> steps{1, 2};
  const rlwe::GaloisKeys keys = keygen.create_galois_keys(steps);
  std::vector<ckks::ExtendedPlaintext> zero_diagonals;
  for (std::size_t i = 0; i < steps.size(); ++i)
    zero_diagonals.push_back(encoder.encode_extended(std::vector<double>(3, 0.0), 0x1p40, 2));
  EXPECT_THROW((void)evaluator.dot_rotations_plain(x, steps, zero_diagonals, keys),
               TransparentCiphertextError);
  // In place: refused, and the operand is as it was (the work is undone).
  rlwe::Ciphertext y = x.clone();
  EXPECT_THROW(evaluator.sub_inplace(y, x), TransparentCiphertextError);
  EXPECT_TRUE(same(y, x));
  // What is not transparent still goes through.
  EXPECT_NO_THROW((void)evaluator.add(x, x));
  EXPECT_NO_THROW((void)evaluator.multiply_scalar(x, 0.5));

  // Allowed: the results are indeed transparent.
  evaluator.allow_transparent_results(true);
  EXPECT_TRUE(rlwe::is_transparent(evaluator.sub(x, x)));
  EXPECT_TRUE(rlwe::is_transparent(evaluator.multiply_scalar(x, 0.0)));
  EXPECT_TRUE(rlwe::is_transparent(evaluator.multiply_plain(x, zero)));
}

TEST(TransparentCiphertexts, CircuitsRefuseTransparentResults) {
  rlwe::Parameters parameters =
      rlwe::make_parameters(2048, {50, 40, 40, 40}, {50}, 0, rlwe::SecurityLevel::none);
  parameters.scale = 0x1p40;
  auto context = rlwe::Context::create(parameters);
  rlwe::KeyGenerator keygen(context);
  const rlwe::RelinKey relin = keygen.create_relin_key();
  const rlwe::Encryptor encryptor(keygen.create_public_key());
  const ckks::Encoder encoder(context);
  const rlwe::Ciphertext x =
      encryptor.encrypt(encoder.encode(std::vector<double>{0.5, -0.25}, 0x1p40, 3));

  // A constant polynomial is a trivial ciphertext: refused unless allowed.
  circuits::PolynomialEvaluator polynomials(context, relin);
  const std::vector<double> constant_coefficients{0.75}, linear_coefficients{0.75, 0.5};
  const auto constant = circuits::Polynomial::power(constant_coefficients);
  EXPECT_THROW((void)polynomials.evaluate(x, constant), TransparentCiphertextError);
  EXPECT_NO_THROW((void)polynomials.evaluate(x, circuits::Polynomial::power(linear_coefficients)));
  polynomials.allow_transparent_results(true);
  EXPECT_TRUE(rlwe::is_transparent(polynomials.evaluate(x, constant)));

  // A transform whose diagonals are all zero.
  circuits::LinearTransformOptions options;
  options.level = 3;
  const std::size_t slots = encoder.max_slots();
  const std::vector<int64_t> diagonals{0, 1};
  const auto transform = circuits::LinearTransform::from_function(
      encoder, [&](int64_t) { return std::vector<std::complex<double>>(slots); }, diagonals,
      options);
  const rlwe::GaloisKeys keys = keygen.create_galois_keys(transform.rotation_steps());
  circuits::LinearTransformEvaluator transforms(context);
  EXPECT_THROW((void)transforms.evaluate(x, transform, keys), TransparentCiphertextError);
}

rlwe::Parameters integer_parameters(uint64_t t) {
  rlwe::Parameters p = rlwe::make_parameters(2048, {50, 50}, {60}, 0, rlwe::SecurityLevel::none);
  p.plain_modulus = t;
  return p;
}

// BFV and BGV alike: x - x and products by zero refused, a product by 2 not;
// allowed, x - x is indeed transparent.
template <class Evaluator, class Encryptor>
void expect_integer_scheme_refusals(const std::shared_ptr<const rlwe::Context>& context,
                                    const rlwe::KeyGenerator& keygen, uint64_t t) {
  const Encryptor encryptor(keygen.create_public_key());
  const schemes::BatchEncoder encoder(context->degree(), t);
  Evaluator evaluator(context);
  const rlwe::Ciphertext x = encryptor.encrypt(encoder.encode(std::vector<uint64_t>{1, 2, 3}));
  const auto zero = encoder.encode(std::vector<uint64_t>(3, 0));
  EXPECT_THROW((void)evaluator.sub(x, x), TransparentCiphertextError);
  EXPECT_THROW((void)evaluator.multiply_scalar(x, 0), TransparentCiphertextError);
  EXPECT_THROW((void)evaluator.multiply_plain(x, zero), TransparentCiphertextError);
  EXPECT_NO_THROW((void)evaluator.multiply_scalar(x, 2));
  evaluator.allow_transparent_results(true);
  EXPECT_TRUE(rlwe::is_transparent(evaluator.sub(x, x)));
}

TEST(TransparentCiphertexts, BfvRefusesEveryOperationThatCancelsTheMask) {
  constexpr uint64_t t = 12289;
  auto context = rlwe::Context::create(integer_parameters(t));
  const rlwe::KeyGenerator keygen(context);
  expect_integer_scheme_refusals<bfv::Evaluator, bfv::Encryptor>(context, keygen, t);
}

TEST(TransparentCiphertexts, BgvRefusesEveryOperationThatCancelsTheMask) {
  constexpr uint64_t t = 65537;
  auto context = rlwe::Context::create(integer_parameters(t));
  const rlwe::KeyGenerator keygen = bgv::make_key_generator(context);
  expect_integer_scheme_refusals<bgv::Evaluator, bgv::Encryptor>(context, keygen, t);
}

TEST(TransparentCiphertexts, TheTensorLayerReRandomisesThem) {
  tensor::TenSEALArguments ckks_arguments;
  ckks_arguments.poly_modulus_degree = 8192;
  ckks_arguments.coeff_mod_bit_sizes = {60, 40, 60};
  ckks_arguments.global_scale = 0x1p40;
  const auto ckks_context = tensor::TensorContext::create(ckks_arguments);
  const std::vector<double> values{0.5, -1.5, 2.0};
  const auto x = tensor::CKKSVector::encrypt(ckks_context, values);
  std::vector<tensor::CKKSVector> zeros;
  zeros.push_back(x.sub(x));
  zeros.push_back(x.mul(0.0));
  zeros.push_back(x.mul(std::vector<double>(3, 0.0)));
  for (const auto& zero : zeros) {
    for (const auto& ct : zero.ciphertexts())
      EXPECT_FALSE(rlwe::is_transparent(ct));
    for (const double v : zero.decrypt())
      EXPECT_NEAR(v, 0.0, 1e-3);
  }

  tensor::TenSEALArguments bfv_arguments;
  bfv_arguments.scheme = tensor::Scheme::bfv;
  bfv_arguments.poly_modulus_degree = 4096;
  bfv_arguments.plain_modulus = 1032193;
  const auto bfv_context = tensor::TensorContext::create(bfv_arguments);
  const auto y = tensor::BFVVector::encrypt(bfv_context, std::vector<int64_t>{3, -4, 5});
  const auto zero = y.sub(y);
  for (const auto& ct : zero.ciphertexts())
    EXPECT_FALSE(rlwe::is_transparent(ct));
  EXPECT_EQ(zero.decrypt(), (std::vector<int64_t>{0, 0, 0}));
}

}  // namespace
}  // namespace heft

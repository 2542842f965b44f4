// The BFV/BGV parameter helper: its output validates, is within the security
// bound, and really supports the requested depth: a chain of `depth`
// squarings on random batched values decrypts to x^(2^depth) mod t (exact
// integer oracle) with noise budget left.
#include <gtest/gtest.h>

#include <cstdint>

#include <random>
#include <vector>

#include "error_test_support.hpp"
#include "heft/rlwe/security.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bfv/encryptor.hpp"
#include "heft/schemes/bfv/evaluator.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/schemes/integer_parameters.hpp"
#include "heft/util/error.hpp"

namespace heft::schemes {
namespace {

std::vector<uint64_t> powers(const std::vector<uint64_t>& x, std::size_t depth, uint64_t t) {
  std::vector<uint64_t> y = x;
  for (std::size_t d = 0; d < depth; ++d)
    for (auto& v : y)
      v = static_cast<uint64_t>(static_cast<unsigned __int128>(v) * v % t);
  return y;
}

template <typename Encryptor, typename Decryptor, typename Evaluator>
void run_depth_chain(const rlwe::Parameters& params, rlwe::KeyGenerator keygen, std::size_t depth) {
  auto context = keygen.secret_key().context();
  const uint64_t t = params.plain_modulus;
  BatchEncoder encoder(params.degree, t);
  std::mt19937_64 rng(depth * 1000 + t);
  std::vector<uint64_t> x(params.degree);
  for (auto& v : x)
    v = rng() % t;
  const auto relin = keygen.create_relin_key();
  Encryptor encryptor(keygen.create_public_key());
  Decryptor decryptor(keygen.secret_key());
  Evaluator evaluator(context);
  auto ct = encryptor.encrypt(encoder.encode(x));
  for (std::size_t d = 0; d < depth; ++d)
    ct = evaluator.square(ct, relin);
  const int budget = decryptor.invariant_noise_budget(ct);
  std::printf("  N=%llu t=%llu log2(QP)=%d depth=%zu: budget left %d bits\n",
              static_cast<unsigned long long>(params.degree), static_cast<unsigned long long>(t),
              params.total_bits(), depth, budget);
  EXPECT_GT(budget, 0);
  EXPECT_EQ(encoder.decode(decryptor.decrypt(ct)), powers(x, depth, t));
}

TEST(IntegerParameters, SuggestedParametersSupportTheRequestedDepth) {
  for (IntegerScheme scheme : {IntegerScheme::bfv, IntegerScheme::bgv}) {
    for (std::size_t depth : {1, 2, 4}) {
      for (int plain_bits : {17, 20}) {
        IntegerParameterRequest request;
        request.scheme = scheme;
        request.depth = depth;
        request.plain_bits = plain_bits;
        const rlwe::Parameters p = suggest_integer_parameters(request);
        EXPECT_NO_THROW(p.validate());
        EXPECT_LE(p.total_bits(), rlwe::max_log_qp(p.degree, rlwe::SecurityLevel::classic128));
        EXPECT_EQ((p.plain_modulus - 1) % (2 * p.degree), 0u);  // batching prime
        auto context = rlwe::Context::create(p);
        if (scheme == IntegerScheme::bfv) {
          run_depth_chain<bfv::Encryptor, bfv::Decryptor, bfv::Evaluator>(
              p, rlwe::KeyGenerator(context), depth);
        } else {
          run_depth_chain<bgv::Encryptor, bgv::Decryptor, bgv::Evaluator>(
              p, bgv::make_key_generator(context), depth);
        }
      }
    }
  }
}

TEST(IntegerParameters, NonBatchingAndExplicitModuliAndErrors) {
  IntegerParameterRequest request;
  request.batching = false;
  request.plain_bits = 8;
  const rlwe::Parameters p = suggest_integer_parameters(request);
  EXPECT_EQ(p.plain_modulus, 256u);
  request.plain_modulus = 1000;
  EXPECT_EQ(suggest_integer_parameters(request).plain_modulus, 1000u);
  request.batching = true;  // 1000 is no batching prime
  EXPECT_THROW((void)suggest_integer_parameters(request), InvalidArgument);
  IntegerParameterRequest deep;
  deep.depth = 200;
  EXPECT_THROW((void)suggest_integer_parameters(deep), InvalidArgument);
  // Depths that used to wrap an int (an empty prime list written out of
  // bounds, or depth-0 parameters returned): refused up front.
  for (IntegerScheme scheme : {IntegerScheme::bfv, IntegerScheme::bgv}) {
    for (std::size_t depth : {std::size_t{1} << 32, std::size_t{0xFFFFFFFF}, SIZE_MAX}) {
      IntegerParameterRequest huge;
      huge.scheme = scheme;
      huge.depth = depth;
      EXPECT_THROW((void)suggest_integer_parameters(huge), InvalidArgument) << depth;
    }
  }
  IntegerParameterRequest bad;
  bad.plain_bits = 1;
  EXPECT_THROW((void)suggest_integer_parameters(bad), InvalidArgument);
  // t = 2 cannot batch at any N: the message says so instead of asking for
  // a lower depth.
  IntegerParameterRequest tiny_batching;
  tiny_batching.plain_modulus = 2;
  heft::testing::expect_error<InvalidArgument>(
      [&] { (void)suggest_integer_parameters(tiny_batching); }, "no batching plaintext modulus");
  // A scheme value cast from an integer the enum does not name (it used to
  // be taken as BGV).
  IntegerParameterRequest unknown;
  unknown.scheme = static_cast<IntegerScheme>(99);
  heft::testing::expect_error<InvalidArgument>([&] { (void)suggest_integer_parameters(unknown); },
                                               "unknown IntegerScheme 99");
}

}  // namespace
}  // namespace heft::schemes

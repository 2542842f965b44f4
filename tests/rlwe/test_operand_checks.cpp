// Malformed keys and key-switching operands (built by hand, edited after
// generation, or taken from another context) are refused with a typed error
// before any work, and the objects passed in are left as they were. Without
// these checks each case below read out of bounds, dereferenced a null ring
// or gave a silently wrong result.
#include <gtest/gtest.h>

#include <vector>

#include "error_test_support.hpp"
#include "heft/ring/prng.hpp"
#include "heft/ring/samplers.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/util/error.hpp"

namespace heft::rlwe {
namespace {

std::shared_ptr<const Context> make_context(std::size_t dnum, uint64_t plain_modulus = 0) {
  Parameters params = make_parameters(1024, {50, 40, 40, 40}, std::vector<int>(4 / dnum, 55), dnum,
                                      SecurityLevel::none);
  params.plain_modulus = plain_modulus;
  return Context::create(params);
}

ring::RnsPoly random_poly(const Context& context, std::size_t towers) {
  ring::Prng prng = ring::Prng::from_os_entropy();
  ring::RnsPoly c(context.ciphertext_ring(), towers, ring::Form::ntt);
  ring::sample_uniform(prng, c);
  return c;
}

bool same_key(const KeySwitchKey& a, const KeySwitchKey& b) {
  if (a.b.size() != b.b.size() || a.a.size() != b.a.size()) return false;
  for (std::size_t j = 0; j < a.b.size(); ++j) {
    if (!(a.b[j].q == b.b[j].q) || !(a.b[j].p == b.b[j].p)) return false;
  }
  for (std::size_t j = 0; j < a.a.size(); ++j) {
    if (!(a.a[j].q == b.a[j].q) || !(a.a[j].p == b.a[j].p)) return false;
  }
  return a.galois_element == b.galois_element && a.error_scale == b.error_scale;
}

KeySwitchKey clone_key(const KeySwitchKey& key) {
  KeySwitchKey copy;
  copy.context = key.context;
  for (const auto& x : key.b)
    copy.b.push_back(x.clone());
  for (const auto& x : key.a)
    copy.a.push_back(x.clone());
  copy.galois_element = key.galois_element;
  copy.error_scale = key.error_scale;
  copy.a_seed = key.a_seed;
  return copy;
}

TEST(MalformedInput, DecompositionFromAnotherContextIsRefused) {
  // Same primes, other digit counts: digits made under dnum = 4 hold four
  // pairs, a key under dnum = 1 only one (reading key.b[3] was out of bounds).
  const auto four_digits = make_context(4);
  const auto one_digit = make_context(1);
  KeyGenerator keygen(one_digit);
  const int64_t steps[] = {1};
  const GaloisKeys keys = keygen.create_galois_keys(steps);
  const KeySwitchKey& key = keys.at(keys.elements()[0]);
  const ring::RnsPoly c0 = random_poly(*one_digit, 4);
  const DecomposedPoly foreign = decompose(*four_digits, random_poly(*four_digits, 4));
  EXPECT_THROW((void)apply_galois(*one_digit, c0, foreign, key), MismatchError);
  EXPECT_THROW((void)inner_product(*one_digit, foreign, key), MismatchError);

  // Same shape, another context: the residues would be mixed silently.
  const auto twin = make_context(1);
  const DecomposedPoly twin_digits = decompose(*twin, random_poly(*twin, 4));
  EXPECT_THROW((void)apply_galois(*one_digit, c0, twin_digits, key), MismatchError);

  // A decomposition that claims a level it does not have.
  DecomposedPoly wrong_level = decompose(*one_digit, random_poly(*one_digit, 4));
  wrong_level.level = 2;
  EXPECT_THROW((void)inner_product(*one_digit, wrong_level, key), MismatchError);
  EXPECT_THROW((void)inner_product(*one_digit, DecomposedPoly{}, key), InvalidArgument);
}

TEST(MalformedInput, HandBuiltKeysOfTheWrongShapeAreRefused) {
  const auto context = make_context(2);
  KeyGenerator keygen(context);
  const RelinKey relin = keygen.create_relin_key();
  const ring::RnsPoly c = random_poly(*context, 4);

  KeySwitchKey short_a = clone_key(relin.key);
  short_a.a.pop_back();  // b has every digit, a one fewer: a[1] was read out of bounds
  EXPECT_THROW((void)switch_key(*context, c, short_a), MismatchError);
  EXPECT_THROW((void)require_relin_key(*context, RelinKey{clone_key(short_a)}, "relinearize"),
               MismatchError);

  KeySwitchKey coefficient_digit = clone_key(relin.key);
  coefficient_digit.b[1].q.intt();
  const KeySwitchKey kept = clone_key(coefficient_digit);
  EXPECT_THROW((void)switch_key(*context, c, coefficient_digit), MismatchError);
  EXPECT_TRUE(same_key(coefficient_digit, kept));  // untouched by the failed call

  KeySwitchKey low_digit = clone_key(relin.key);
  low_digit.a[0].q.drop_last_towers(1);
  EXPECT_THROW((void)decompose_and_multiply(*context, c, low_digit), MismatchError);

  KeySwitchKey scaled = clone_key(relin.key);
  scaled.error_scale = 3;  // not 1, and this context has no plaintext modulus
  EXPECT_THROW((void)switch_key(*context, c, scaled), InvalidArgument);

  // A Galois key in place of a relinearization key names the operation.
  const int64_t steps[] = {1};
  const GaloisKeys galois = keygen.create_galois_keys(steps);
  heft::testing::expect_error<InvalidArgument>(
      [&] {
        require_relin_key(*context, RelinKey{clone_key(galois.at(galois.elements()[0]))}, "multiply");
      },
      "multiply: this is a Galois key");
}

TEST(MalformedInput, ModDownChecksItsInput) {
  const auto context = make_context(2);
  KeyGenerator keygen(context);
  const RelinKey relin = keygen.create_relin_key();
  const ring::RnsPoly c = random_poly(*context, 4);

  auto products = decompose_and_multiply(*context, c, relin.key);
  products[0].q.intt();  // x must be in NTT form
  EXPECT_THROW((void)mod_down(*context, std::move(products[0])), MismatchError);

  auto more = decompose_and_multiply(*context, c, relin.key);
  more[1].p.drop_last_towers(1);  // one special tower short
  EXPECT_THROW((void)mod_down(*context, std::move(more[1]), c), MismatchError);

  // A context without special primes: mod_down_to_next used to dereference
  // its null special ring.
  const auto no_specials =
      Context::create(make_parameters(1024, {50, 40, 40, 40}, {}, 0, SecurityLevel::none));
  auto foreign = decompose_and_multiply(*context, c, relin.key);
  ExtendedPoly x{random_poly(*no_specials, 4), std::move(foreign[0].p)};
  EXPECT_THROW((void)mod_down_to_next(*no_specials, std::move(x), random_poly(*no_specials, 4)),
               InvalidArgument);
}

TEST(MalformedInput, GaloisKeySetsHoldOnlyMatchingKeys) {
  const auto context = make_context(2);
  const auto other = make_context(2);
  KeyGenerator keygen(context);
  KeyGenerator other_keygen(other);
  const int64_t steps[] = {1, 2};
  GaloisKeys keys = keygen.create_galois_keys(steps);
  const uint64_t g1 = context->galois_element_for_step(1);
  const uint64_t g2 = context->galois_element_for_step(2);
  // The key for step 2 filed under step 1's element would rotate by 2.
  EXPECT_THROW(keys.insert(g1, clone_key(keys.at(g2))), InvalidArgument);
  const GaloisKeys foreign = other_keygen.create_galois_keys(steps);
  EXPECT_THROW(keys.insert(g1, clone_key(foreign.at(g1))), MismatchError);
  EXPECT_NO_THROW(keys.insert(g1, clone_key(keys.at(g1))));
  EXPECT_EQ(keys.size(), 2u);
}

TEST(MalformedInput, KeyGenerationChecksSecretsAndErrorScales) {
  const auto context = make_context(2);
  KeyGenerator keygen(context);
  ring::RnsPoly s_coefficients = keygen.secret_key().q_part().coefficient_form();
  EXPECT_THROW((void)keygen.create_switch_key(s_coefficients), MismatchError);
  ring::RnsPoly s_short = keygen.secret_key().q_part().clone();
  s_short.drop_last_towers(1);
  EXPECT_THROW((void)keygen.create_switch_key(s_short), MismatchError);

  // Error scales: 1, or the context's plaintext modulus (BGV) only.
  EXPECT_THROW(KeyGenerator(context, 3), InvalidArgument);
  EXPECT_THROW(Encryptor(keygen.secret_key(), 3), InvalidArgument);
  const auto with_t = make_context(2, 65537);
  EXPECT_NO_THROW(KeyGenerator(with_t, 65537));
  EXPECT_THROW(KeyGenerator(with_t, 65539), InvalidArgument);
}

TEST(MalformedInput, HandBuiltSecretAndPublicKeysAreChecked) {
  const auto context = make_context(2);
  KeyGenerator keygen(context);
  const SecretKey& sk = keygen.secret_key();
  // A secret key in coefficient form decrypted to garbage without a word.
  const SecretKey coefficient_key(context, sk.q_part().coefficient_form(), sk.p_part().clone());
  EXPECT_THROW(Decryptor{coefficient_key}, MismatchError);
  EXPECT_THROW(Encryptor{coefficient_key}, MismatchError);
  EXPECT_THROW(KeyGenerator(context, coefficient_key), MismatchError);
  ring::RnsPoly short_q = sk.q_part().clone();
  short_q.drop_last_towers(1);
  EXPECT_THROW(Decryptor(SecretKey(context, std::move(short_q), sk.p_part().clone())),
               MismatchError);
  EXPECT_THROW(Decryptor(SecretKey(context, sk.q_part().clone(), ring::RnsPoly())),
               MismatchError);  // this context switches keys: s over P is needed

  PublicKey pk = keygen.create_public_key();
  PublicKey coefficient_pk{pk.context, pk.b.coefficient_form(), pk.a.clone(), 1, std::nullopt};
  EXPECT_THROW(Encryptor{coefficient_pk}, MismatchError);
  PublicKey scaled_pk{pk.context, pk.b.clone(), pk.a.clone(), 7, std::nullopt};
  EXPECT_THROW(Encryptor{scaled_pk}, InvalidArgument);
  EXPECT_NO_THROW(Encryptor{pk});
}

}  // namespace
}  // namespace heft::rlwe

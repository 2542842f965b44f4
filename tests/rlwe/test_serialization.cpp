// Saving and loading the RLWE objects (rlwe/serialization.cpp): round trips
// of parameters, ciphertexts, plaintexts, keys, key sets, contexts and
// streams at several parameter sets, with and without zstd, checked against
// the original objects (exact polynomial equality) and by using what was
// loaded (decryption against the plaintext values, keys that still
// relinearize and rotate correctly); the size promises (seeded <= 0.55x
// unseeded, bit-packed below 64-bit words); and refusal of out-of-range,
// non-canonical and oversized fields and of bad objects to save. The frame
// itself (checksum, version, zstd) is tested in test_serial_frame.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <random>
#include <sstream>
#include <vector>

#include "error_test_support.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "rlwe/serial_bytes.hpp"
#include "rlwe/serial_frame.hpp"
#include "serialization_test_support.hpp"

namespace heft::rlwe {
namespace {

using namespace testing;

void expect_same_switch_key(const KeySwitchKey& a, const KeySwitchKey& b) {
  EXPECT_EQ(a.galois_element, b.galois_element);
  EXPECT_EQ(a.error_scale, b.error_scale);
  ASSERT_EQ(a.a.size(), b.a.size());
  ASSERT_EQ(a.b.size(), b.b.size());
  for (std::size_t j = 0; j < a.a.size(); ++j) {
    EXPECT_TRUE(a.a[j].q == b.a[j].q && a.a[j].p == b.a[j].p) << "digit " << j;
    EXPECT_TRUE(a.b[j].q == b.b[j].q && a.b[j].p == b.b[j].p) << "digit " << j;
  }
}

// 64-bit words for `parts` polynomials with `towers` towers: what a format
// without bit packing (SEAL's) would need for the coefficients alone.
std::size_t word_bytes(const Context& context, std::size_t parts, std::size_t towers) {
  return parts * towers * context.degree() * 8;
}

// The payload of an uncompressed frame.
Bytes payload_of(const Bytes& frame) {
  return Bytes(frame.begin() + serial::kHeaderBytes, frame.end() - serial::kChecksumBytes);
}

// A frame with a valid checksum around an arbitrary payload.
Bytes reframe(ObjectType type, const Context& context, const Bytes& payload) {
  return serial::make_frame(type, parameter_hash(context.parameters()), payload, kPlain);
}

TEST(Serialization, ParametersRoundTrip) {
  for (const SaveOptions& options : {kPlain, kZstd}) {
    Parameters p = ckks_params(16384, 3, 2, SecurityLevel::classic128);
    p.secret = {SecretKind::sparse_ternary, 64};
    const Bytes bytes = save(p, options);
    const Parameters loaded = load_parameters(bytes);
    EXPECT_EQ(loaded.degree, p.degree);
    EXPECT_EQ(loaded.ciphertext_moduli, p.ciphertext_moduli);
    EXPECT_EQ(loaded.special_moduli, p.special_moduli);
    EXPECT_EQ(loaded.digit_count(), p.digit_count());
    EXPECT_EQ(loaded.secret.kind, p.secret.kind);
    EXPECT_EQ(loaded.secret.hamming_weight, p.secret.hamming_weight);
    EXPECT_EQ(loaded.security, p.security);
    EXPECT_EQ(loaded.scale, p.scale);
    EXPECT_EQ(loaded.plain_modulus, p.plain_modulus);
    EXPECT_EQ(parameter_hash(loaded), parameter_hash(p));
    const ObjectInfo info = inspect(bytes);
    EXPECT_EQ(info.type, ObjectType::parameters);
    EXPECT_EQ(info.parameter_hash, parameter_hash(p));
  }
  // dnum = 0 ("one digit per special prime") and its resolved value name the
  // same parameters.
  Parameters implicit = ckks_params(2048, 3, 2);
  Parameters explicit_dnum = implicit;
  implicit.dnum = 0;
  explicit_dnum.dnum = implicit.digit_count();
  EXPECT_EQ(parameter_hash(implicit), parameter_hash(explicit_dnum));
  // Any field that changes the parameters changes the hash.
  Parameters other = implicit;
  other.scale *= 2;
  EXPECT_NE(parameter_hash(other), parameter_hash(implicit));
}

TEST(Serialization, CkksCiphertextsRoundTripAndDecrypt) {
  std::mt19937_64 rng(7);
  for (std::size_t dnum : {std::size_t{1}, std::size_t{3}}) {
    for (uint64_t n : {uint64_t{2048}, uint64_t{4096}}) {
      CkksFixture f(ckks_params(n, 3, dnum));
      const Vec x = f.random_vector(rng), y = f.random_vector(rng);
      const Ciphertext public_ct = Encryptor(f.public_key).encrypt(f.encode(x));
      const Ciphertext secret_ct = Encryptor(f.keygen.secret_key()).encrypt(f.encode(y));
      ASSERT_TRUE(secret_ct.c1_seed.has_value());
      // A product (3 parts, awaiting rescale) and a rescaled one (lower level,
      // exact non-nominal scale).
      const Ciphertext product = f.eval.multiply(public_ct, secret_ct);
      const Ciphertext rescaled = f.eval.rescale(f.eval.relinearize(product, f.relin));
      ASSERT_TRUE(product.needs_rescale);
      Vec xy(x.size());
      for (std::size_t i = 0; i < x.size(); ++i)
        xy[i] = x[i] * y[i];

      for (const SaveOptions& options : {kPlain, kZstd, kUnseeded}) {
        for (const Ciphertext* ct : {&public_ct, &secret_ct, &product, &rescaled}) {
          const Bytes bytes = save(*f.context, *ct, options);
          const Ciphertext loaded = load_ciphertext(f.context, bytes);
          expect_same_ciphertext(*ct, loaded);
        }
        const Ciphertext loaded_public =
            load_ciphertext(f.context, save(*f.context, public_ct, options));
        EXPECT_LT(max_error(f.decrypt(f.keygen.secret_key(), loaded_public), x), 1e-5);
        const Ciphertext loaded_rescaled =
            load_ciphertext(f.context, save(*f.context, rescaled, options));
        EXPECT_LT(max_error(f.decrypt(f.keygen.secret_key(), loaded_rescaled), xy), 1e-4);
      }
    }
  }
}

TEST(Serialization, SeededCiphertextsAreAboutHalfTheSize) {
  std::mt19937_64 rng(8);
  CkksFixture f(ckks_params(4096, 4, 2));
  const Vec x = f.random_vector(rng);
  const Encryptor secret_encryptor(f.keygen.secret_key());
  const Ciphertext ct = secret_encryptor.encrypt(f.encode(x));
  const Bytes seeded = save(*f.context, ct);
  const Bytes full = save(*f.context, ct, kUnseeded);
  std::printf("  ciphertext N=4096 L=5: seeded %zu bytes, full %zu, 64-bit words %zu\n",
              seeded.size(), full.size(), word_bytes(*f.context, 2, 5));
  EXPECT_LE(static_cast<double>(seeded.size()), 0.55 * static_cast<double>(full.size()));
  // Bit-packing: every prime here is below 60 bits, so less than 64-bit words.
  EXPECT_LT(full.size(), word_bytes(*f.context, 2, 5));

  // A loaded seeded ciphertext keeps its seed: saving it again stays compact
  // and gives the same bytes.
  const Ciphertext loaded = load_ciphertext(f.context, seeded);
  ASSERT_TRUE(loaded.c1_seed.has_value());
  EXPECT_EQ(save(*f.context, loaded), seeded);
  EXPECT_LT(max_error(f.decrypt(f.keygen.secret_key(), loaded), x), 1e-5);

  // The SeededCiphertext form (c_0 and seed only) saves to the same format.
  const SeededCiphertext compact = secret_encryptor.encrypt_seeded(f.encode(x));
  const Ciphertext from_compact = load_ciphertext(f.context, save(*f.context, compact));
  expect_same_ciphertext(expand_seeded(*f.context, compact), from_compact);
  EXPECT_EQ(save(*f.context, compact, kUnseeded), save(*f.context, from_compact, kUnseeded));

  // Dropping towers keeps c_1 a prefix of the seed's expansion: still seeded.
  const Ciphertext dropped = f.eval.drop_to_level(ct, 2);
  const Bytes dropped_bytes = save(*f.context, dropped);
  EXPECT_LE(static_cast<double>(dropped_bytes.size()),
            0.55 * static_cast<double>(save(*f.context, dropped, kUnseeded).size()));
  expect_same_ciphertext(dropped, load_ciphertext(f.context, dropped_bytes));

  // An operation that changes c_1 may leave a stale seed hint behind (one
  // that copies the ciphertext, hint included, then works in place): it must
  // be detected and the ciphertext stored in full. negate() writes a new
  // ciphertext without the hint, so the stale hint is put back by hand.
  Ciphertext changed = f.eval.negate(ct);
  EXPECT_FALSE(changed.c1_seed.has_value());
  changed.c1_seed = ct.c1_seed;
  ASSERT_TRUE(changed.c1_seed.has_value());
  const Bytes changed_bytes = save(*f.context, changed);
  EXPECT_EQ(changed_bytes.size(), save(*f.context, changed, kUnseeded).size());
  const Ciphertext changed_loaded = load_ciphertext(f.context, changed_bytes);
  expect_same_ciphertext(changed, changed_loaded);
  Vec minus_x(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    minus_x[i] = -x[i];
  EXPECT_LT(max_error(f.decrypt(f.keygen.secret_key(), changed_loaded), minus_x), 1e-5);
}

TEST(Serialization, PlaintextRoundTrip) {
  std::mt19937_64 rng(9);
  CkksFixture f(ckks_params(2048, 3, 2));
  const Vec x = f.random_vector(rng);
  for (std::size_t level : {std::size_t{0}, std::size_t{2}}) {
    const Plaintext plain = f.encoder.encode(x, f.eval.scale_at(level), level);
    for (const SaveOptions& options : {kPlain, kZstd}) {
      const Plaintext loaded = load_plaintext(f.context, save(*f.context, plain, options));
      EXPECT_TRUE(loaded.poly == plain.poly);
      EXPECT_EQ(loaded.scale, plain.scale);
      EXPECT_EQ(loaded.slots, plain.slots);
      EXPECT_LT(max_error(f.encoder.decode(loaded), x), 1e-6);
    }
  }
}

TEST(Serialization, KeysRoundTripAndWork) {
  std::mt19937_64 rng(10);
  for (std::size_t dnum : {std::size_t{1}, std::size_t{2}, std::size_t{4}}) {
    Parameters params = ckks_params(2048, 3, dnum);
    if (dnum == 2) params.secret = {SecretKind::sparse_ternary, 32};
    CkksFixture f(params);
    const std::vector<int64_t> steps = {1, 2, -3};
    const GaloisKeys galois = f.keygen.create_galois_keys(steps, true);

    for (const SaveOptions& options : {kPlain, kZstd, kUnseeded}) {
      // Secret key: same polynomials in every tower.
      const SecretKey secret = load_secret_key(f.context, save(f.keygen.secret_key(), options));
      EXPECT_TRUE(secret.q_part() == f.keygen.secret_key().q_part());
      EXPECT_TRUE(secret.p_part() == f.keygen.secret_key().p_part());

      const PublicKey pk = load_public_key(f.context, save(f.public_key, options));
      EXPECT_TRUE(pk.a == f.public_key.a);
      EXPECT_TRUE(pk.b == f.public_key.b);
      EXPECT_EQ(pk.error_scale, f.public_key.error_scale);

      const RelinKey relin = load_relin_key(f.context, save(f.relin, options));
      expect_same_switch_key(relin.key, f.relin.key);
      const GaloisKeys loaded_galois = load_galois_keys(f.context, save(galois, options));
      ASSERT_EQ(loaded_galois.elements(), galois.elements());
      for (uint64_t g : galois.elements())
        expect_same_switch_key(loaded_galois.at(g), galois.at(g));
      const uint64_t g1 = f.context->galois_element_for_step(1);
      const KeySwitchKey single = load_switch_key(f.context, save(galois.at(g1), options));
      expect_same_switch_key(single, galois.at(g1));

      // The loaded keys work: encrypt with the loaded public key, multiply
      // and relinearize, rotate and conjugate, decrypt with the loaded secret.
      const Vec x = f.random_vector(rng), y = f.random_vector(rng);
      const Encryptor encryptor(pk);
      const Ciphertext cx = encryptor.encrypt(f.encode(x));
      const Ciphertext cy = encryptor.encrypt(f.encode(y));
      const Ciphertext product = f.eval.rescale(f.eval.multiply(cx, cy, relin));
      const Ciphertext rotated = f.eval.rotate(cx, -3, loaded_galois);
      const Ciphertext conjugated = f.eval.conjugate(cx, loaded_galois);
      const Vec got_product = f.decrypt(secret, product);
      const Vec got_rotated = f.decrypt(secret, rotated);
      const Vec got_conjugated = f.decrypt(secret, conjugated);
      const std::size_t slots = x.size();
      Vec want_product(slots), want_rotated(slots), want_conjugated(slots);
      for (std::size_t i = 0; i < slots; ++i) {
        want_product[i] = x[i] * y[i];
        want_rotated[i] = x[(i + slots - 3) % slots];
        want_conjugated[i] = std::conj(x[i]);
      }
      EXPECT_LT(max_error(got_product, want_product), 1e-4);
      EXPECT_LT(max_error(got_rotated, want_rotated), 1e-4);
      EXPECT_LT(max_error(got_conjugated, want_conjugated), 1e-4);
    }

    // Seeded keys are about half the size of full ones.
    const Bytes seeded = save(f.relin), full = save(f.relin, kUnseeded);
    EXPECT_LE(static_cast<double>(seeded.size()), 0.55 * static_cast<double>(full.size()));
    EXPECT_LE(static_cast<double>(save(f.public_key).size()),
              0.55 * static_cast<double>(save(f.public_key, kUnseeded).size()));
    // A secret key is 2 bits a coefficient.
    EXPECT_LE(save(f.keygen.secret_key()).size(), 72 + 1 + f.context->degree() / 4);
  }
}

// Keys large enough to be loaded on separate threads (> 1 MiB each): the
// result does not depend on the thread count.
TEST(Serialization, LargeGaloisKeySetsLoadTheSameOnAnyThreadCount) {
  CkksFixture f(ckks_params(8192, 3, 2));
  const std::vector<int64_t> steps = {1, 2, 3};
  const GaloisKeys keys = f.keygen.create_galois_keys(steps, true);
  const Bytes bytes = save(keys);
  const std::size_t threads = num_threads();
  for (std::size_t count : {std::size_t{1}, std::size_t{3}}) {
    set_num_threads(count);
    const GaloisKeys loaded = load_galois_keys(f.context, bytes);
    ASSERT_EQ(loaded.elements(), keys.elements());
    for (uint64_t g : keys.elements())
      expect_same_switch_key(loaded.at(g), keys.at(g));
    EXPECT_EQ(save(loaded), bytes);
    // A key cut short in the middle of the set is still refused.
    Bytes cut = payload_of(bytes);
    cut.resize(cut.size() - 1000);
    EXPECT_THROW(
        (void)load_galois_keys(f.context, reframe(ObjectType::galois_keys, *f.context, cut)),
        FormatError);
  }
  set_num_threads(threads);
}

TEST(Serialization, GaloisKeySubsetByStep) {
  CkksFixture f(ckks_params(2048, 2, 1));
  const std::vector<int64_t> steps = {1, 2, 4, 8};
  const GaloisKeys all = f.keygen.create_galois_keys(steps, true);
  const std::vector<uint64_t> wanted = {f.context->galois_element_for_step(2),
                                        f.context->conjugation_galois_element()};
  const GaloisKeys subset = load_galois_keys(f.context, save(all, wanted));
  std::vector<uint64_t> sorted = wanted;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(subset.elements(), sorted);
  EXPECT_FALSE(subset.has(f.context->galois_element_for_step(1)));
  EXPECT_LT(save(all, wanted).size(), save(all).size() / 2 + 1000);
  // An element that is not in the set is refused by name.
  const std::vector<uint64_t> missing = {f.context->galois_element_for_step(3)};
  EXPECT_THROW((void)save(all, missing), InvalidArgument);
}

TEST(Serialization, KeySetsAndContextsRoundTrip) {
  std::mt19937_64 rng(13);
  CkksFixture f(ckks_params(2048, 2, 2));
  const std::vector<int64_t> steps = {1, 5};
  const GaloisKeys galois = f.keygen.create_galois_keys(steps);
  const Bytes bytes = save_key_set(&f.public_key, &f.relin, &galois, kZstd);
  // The receiving side rebuilds the context from its saved parameters.
  const ContextPtr context = load_context(save(*f.context), kInsecure);
  const KeySet loaded = load_key_set(context, bytes);
  ASSERT_TRUE(loaded.public_key && loaded.relin_key && loaded.galois_keys);
  EXPECT_EQ(loaded.galois_keys->elements(), galois.elements());
  EXPECT_TRUE(std::equal(loaded.public_key->b.data().begin(), loaded.public_key->b.data().end(),
                         f.public_key.b.data().begin()));
  // Used under the rebuilt context: encrypt, multiply, rotate; decrypt with
  // the original secret key (same parameters, so the same polynomials).
  const ckks::Encoder encoder(context);
  const ckks::Evaluator eval(context);
  const Vec x = f.random_vector(rng);
  const Ciphertext cx =
      Encryptor(*loaded.public_key)
          .encrypt(encoder.encode(x, eval.scale_at(context->max_level()), context->max_level()));
  const Ciphertext result =
      eval.rotate(eval.rescale(eval.square(cx, *loaded.relin_key)), 5, *loaded.galois_keys);
  const Ciphertext back = load_ciphertext(f.context, save(*context, result));
  const Vec got = f.decrypt(f.keygen.secret_key(), back);
  Vec want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    want[i] = x[(i + 5) % x.size()] * x[(i + 5) % x.size()];
  EXPECT_LT(max_error(got, want), 1e-4);

  // A set with only some keys, and the Galois subset chosen by step.
  const KeySet partial = load_key_set(f.context, save_key_set(nullptr, &f.relin, nullptr));
  EXPECT_FALSE(partial.public_key || partial.galois_keys);
  EXPECT_TRUE(partial.relin_key.has_value());
  const std::vector<int64_t> one_step = {5};
  const GaloisKeys by_step = load_galois_keys(f.context, save_galois_steps(galois, one_step));
  EXPECT_EQ(by_step.elements(), std::vector<uint64_t>{f.context->galois_element_for_step(5)});
  EXPECT_THROW((void)save_key_set(nullptr, nullptr, nullptr), InvalidArgument);
  CkksFixture other(ckks_params(2048, 2, 2));
  EXPECT_THROW((void)save_key_set(&f.public_key, &other.relin, nullptr), MismatchError);
}

TEST(Serialization, StreamsCarrySeveralObjects) {
  std::mt19937_64 rng(11);
  CkksFixture f(ckks_params(2048, 2, 1));
  const Vec x = f.random_vector(rng);
  const Ciphertext ct = Encryptor(f.public_key).encrypt(f.encode(x));
  std::stringstream stream;
  write_object(stream, save(f.context->parameters()));
  write_object(stream, save(f.public_key, kZstd));
  write_object(stream, save(*f.context, ct));
  const Parameters params = load_parameters(read_object(stream), kInsecure);
  const auto context = Context::create(params);
  // A context rebuilt from loaded parameters accepts objects of the original.
  const PublicKey pk = load_public_key(context, read_object(stream));
  const Ciphertext loaded = load_ciphertext(context, read_object(stream));
  EXPECT_TRUE(pk.b.data().size() == f.public_key.b.data().size());
  EXPECT_EQ(parameter_hash(context->parameters()), parameter_hash(f.context->parameters()));
  EXPECT_TRUE(std::equal(loaded.parts[0].data().begin(), loaded.parts[0].data().end(),
                         ct.parts[0].data().begin()));
  EXPECT_THROW((void)read_object(stream), FormatError);  // nothing left

  // A stream cut short inside an object.
  const Bytes bytes = save(*f.context, ct);
  for (std::size_t cut : {std::size_t{10}, std::size_t{64}, bytes.size() - 1}) {
    std::stringstream partial(std::string(bytes.begin(), bytes.begin() + cut));
    EXPECT_THROW((void)read_object(partial), FormatError) << "cut at " << cut;
  }
}

// ---- refusal of bad input ----------------------------------------------------

TEST(Serialization, CoefficientAtOrAboveItsPrimeIsRefused) {
  CkksFixture f(ckks_params(1024, 2, 1));
  const Ciphertext ct = Encryptor(f.public_key).encrypt(f.encode(Vec(512, cd(1, 0))));
  const Bytes payload = payload_of(save(*f.context, ct));
  // Decode the first part's first tower, set its first coefficient to q,
  // re-pack and re-frame with a valid checksum.
  const uint64_t q = f.context->ciphertext_ring()->modulus(0).value();
  const int width = f.context->ciphertext_ring()->modulus(0).bit_count();
  const std::size_t header = 4 + 4 + 1 + 8 + 8;  // parts, towers, flags, scale, slots
  const std::size_t poly_start = header + 5;     // form, tower count
  serial::ByteReader reader(std::span<const uint8_t>(payload).subspan(poly_start));
  std::vector<uint64_t> tower(f.context->degree());
  reader.packed(tower, width, q, "tower");
  tower[0] = q;
  serial::ByteWriter writer;
  writer.packed(tower, width);
  Bytes forged = payload;
  std::copy(writer.buffer().begin(), writer.buffer().end(), forged.begin() + poly_start);
  heft::testing::expect_error<FormatError>(
      [&] {
        (void)load_ciphertext(f.context, reframe(ObjectType::ciphertext, *f.context, forged));
      },
      "modulus");
  // The unmodified payload re-framed the same way loads (the forgery is the
  // only difference).
  EXPECT_NO_THROW(
      (void)load_ciphertext(f.context, reframe(ObjectType::ciphertext, *f.context, payload)));

  // Out-of-range fields with valid checksums: part count, tower count, flags,
  // scale, slots.
  auto patched = [&](std::size_t offset, std::vector<uint8_t> value) {
    Bytes p = payload;
    std::copy(value.begin(), value.end(), p.begin() + offset);
    return reframe(ObjectType::ciphertext, *f.context, p);
  };
  EXPECT_THROW((void)load_ciphertext(f.context, patched(0, {1, 0, 0, 0})), FormatError);
  EXPECT_THROW((void)load_ciphertext(f.context, patched(0, {0xff, 0xff, 0xff, 0xff})), FormatError);
  EXPECT_THROW((void)load_ciphertext(f.context, patched(4, {9, 0, 0, 0})), FormatError);
  EXPECT_THROW((void)load_ciphertext(f.context, patched(8, {0x80})), FormatError);
  EXPECT_THROW((void)load_ciphertext(f.context, patched(9, {0, 0, 0, 0, 0, 0, 0xf8, 0x7f})),
               FormatError);  // NaN scale
  EXPECT_THROW((void)load_ciphertext(f.context, patched(17, {3, 0, 0, 0, 0, 0, 0, 0})),
               FormatError);  // 3 slots
  {
    // N slots: a power of two, but the encoder packs at most N/2.
    std::vector<uint8_t> n_slots(8);
    for (std::size_t i = 0; i < 8; ++i)
      n_slots[i] = static_cast<uint8_t>(f.context->degree() >> (8 * i));
    EXPECT_THROW((void)load_ciphertext(f.context, patched(17, n_slots)), FormatError);
  }
  // A secret key with the invalid 2-bit code 3.
  Bytes secret_payload = payload_of(save(f.keygen.secret_key()));
  secret_payload[1] |= 3;
  EXPECT_THROW(
      (void)load_secret_key(f.context, reframe(ObjectType::secret_key, *f.context, secret_payload)),
      FormatError);
}

// Found by fuzzing: fields that parse but would give an unusable or
// ambiguous object.
TEST(Serialization, UnusableOrNonCanonicalFieldsAreRefused) {
  CkksFixture f(ckks_params(1024, 1, 1));
  // A CKKS key with error scale 0 (only 1, or t for BGV, is meaningful).
  Bytes pk = payload_of(save(f.public_key));
  std::fill(pk.begin() + 1, pk.begin() + 9, 0);
  EXPECT_THROW((void)load_public_key(f.context, reframe(ObjectType::public_key, *f.context, pk)),
               FormatError);
  Bytes relin = payload_of(save(f.relin));
  std::fill(relin.begin() + 8, relin.begin() + 16, 0);
  EXPECT_THROW((void)load_relin_key(f.context, reframe(ObjectType::relin_key, *f.context, relin)),
               FormatError);

  // A key set without any key (it could not be saved again).
  EXPECT_THROW((void)load_key_set(f.context, reframe(ObjectType::key_set, *f.context, Bytes{0})),
               FormatError);

  // Parameters: dnum 0 and a scale of -0.0 would be second encodings of a set.
  const Parameters& p = f.context->parameters();
  const std::size_t primes = p.ciphertext_moduli.size() + p.special_moduli.size();
  const std::size_t dnum_offset = 8 + 4 + 4 + 8 * primes;
  const std::size_t scale_offset = dnum_offset + 4 + 1 + 8 + 1;
  auto reframed_parameters = [&](std::size_t offset, std::vector<uint8_t> value, Parameters q) {
    Bytes payload = payload_of(save(q));
    std::copy(value.begin(), value.end(), payload.begin() + offset);
    // A valid frame and checksum around it: only the payload checks can refuse it.
    return serial::make_frame(ObjectType::parameters, parameter_hash(q), payload, kPlain);
  };
  EXPECT_THROW((void)load_parameters(reframed_parameters(dnum_offset, {0, 0, 0, 0}, p)),
               FormatError);
  Parameters zero_scale = p;
  zero_scale.scale = 0.0;
  zero_scale.plain_modulus = 65537;
  EXPECT_NO_THROW((void)load_parameters(save(zero_scale), kInsecure));
  EXPECT_THROW((void)load_parameters(
                   reframed_parameters(scale_offset, {0, 0, 0, 0, 0, 0, 0, 0x80}, zero_scale)),
               FormatError);
  Parameters negative_zero = zero_scale;
  negative_zero.scale = -0.0;
  EXPECT_EQ(parameter_hash(negative_zero), parameter_hash(zero_scale));

  // A parameter set whose context would need more tables than the caller allows.
  LoadOptions small = kInsecure;
  small.max_context_bytes = context_bytes(p) - 1;
  const Bytes saved = save(p);
  EXPECT_THROW((void)load_parameters(saved, small), InvalidArgument);
  EXPECT_THROW((void)load_context(saved, small), InvalidArgument);
  small.max_context_bytes += 1;
  EXPECT_NO_THROW((void)load_context(saved, small));
}

// Parameters without special primes cannot have key-switching keys: loading
// one is refused (the size bound is computed without a special ring).
TEST(Serialization, KeySwitchingKeysUnderParametersWithoutSpecialPrimes) {
  CkksFixture f(ckks_params(1024, 1, 1));
  Parameters bare = make_parameters(1024, {50, 40}, {}, 0, SecurityLevel::none);
  bare.scale = std::ldexp(1.0, 40);
  const auto context = Context::create(bare);
  const Bytes relin = save(f.relin);
  // Same payload, framed under the bare parameters.
  const Bytes reframed = reframe(ObjectType::relin_key, *context, payload_of(relin));
  EXPECT_THROW((void)load_relin_key(context, reframed), FormatError);
  EXPECT_THROW((void)load_galois_keys(context, reframed), FormatError);
  EXPECT_THROW((void)load_key_set(context, reframed), FormatError);
}

TEST(Serialization, OversizedObjectsAreRefusedBeforeAllocation) {
  CkksFixture f(ckks_params(1024, 1, 1));
  const Bytes bytes =
      save(*f.context, Encryptor(f.public_key).encrypt(f.encode(Vec(512, cd(1, 0)))));
  // The caller's limit.
  LoadOptions small;
  small.max_bytes = 1000;
  EXPECT_THROW((void)load_ciphertext(f.context, bytes, small), InvalidArgument);
  std::stringstream stream(std::string(bytes.begin(), bytes.end()));
  EXPECT_THROW((void)read_object(stream, small), InvalidArgument);

  // A header announcing an enormous object: refused from the header alone.
  Bytes huge = bytes;
  for (int i = 0; i < 8; ++i)
    huge[48 + i] = 0xff;  // stored length
  std::stringstream huge_stream(std::string(huge.begin(), huge.end()));
  EXPECT_THROW((void)read_object(huge_stream), InvalidArgument);
  EXPECT_THROW((void)load_ciphertext(f.context, huge), FormatError);

  // A compressed payload that announces more than any ciphertext of these
  // parameters can hold ("zip bomb"): refused before decompression.
  const Bytes zeros(50u << 20, 0);
  const Bytes bomb = serial::make_frame(ObjectType::ciphertext,
                                        parameter_hash(f.context->parameters()), zeros, kZstd);
  EXPECT_LT(bomb.size(), 64u << 10);
  EXPECT_THROW((void)load_ciphertext(f.context, bomb), FormatError);
}

TEST(Serialization, SavingBadObjectsIsRefused) {
  CkksFixture f(ckks_params(1024, 1, 1));
  CkksFixture g(ckks_params(1024, 1, 1));
  const Ciphertext ct = Encryptor(f.public_key).encrypt(f.encode(Vec(512, cd(1, 0))));
  EXPECT_THROW((void)save(*g.context, ct), MismatchError);  // another context
  EXPECT_THROW((void)save(SecretKey()), InvalidArgument);
  Ciphertext many_parts = ct.clone();
  while (many_parts.parts.size() <= 16)
    many_parts.parts.push_back(ct.parts[0].clone());
  EXPECT_THROW((void)save(*f.context, many_parts), InvalidArgument);
  EXPECT_THROW((void)save(PublicKey()), InvalidArgument);
  EXPECT_THROW((void)load_ciphertext(nullptr, save(*f.context, ct)), MismatchError);
  // Metadata that load would refuse is refused by save, so whatever saves loads.
  Ciphertext nan_scale = ct.clone();
  nan_scale.scale = std::nan("");
  EXPECT_THROW((void)save(*f.context, nan_scale), InvalidArgument);
  Ciphertext odd_slots = ct.clone();
  odd_slots.slots = 3;
  EXPECT_THROW((void)save(*f.context, odd_slots), InvalidArgument);
  Plaintext plain = f.encode(Vec(512, cd(1, 0)));
  plain.scale = -1;
  EXPECT_THROW((void)save(*f.context, plain), InvalidArgument);
  EXPECT_THROW((void)save(*f.context, Plaintext{}), InvalidArgument);
  Parameters nan_parameters = f.context->parameters();
  nan_parameters.scale = std::nan("");
  EXPECT_THROW(nan_parameters.validate(), InvalidArgument);
  SaveOptions bad_level = kZstd;
  bad_level.zstd_level = 99;
  EXPECT_THROW((void)save(*f.context, ct, bad_level), InvalidArgument);
}

}  // namespace
}  // namespace heft::rlwe

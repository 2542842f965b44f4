// Seed-corpus generator for the fuzz targets (fuzz_load.cpp): writes valid
// saved objects, made under the fixed contexts of fuzz_contexts.hpp, into
// OUT_DIR/<target>/ for every target, in the variants the format has
// (uncompressed and zstd, seeded and in full, CKKS and BFV/BGV contexts,
// several levels and part counts, a Galois key set and subsets, ...).
//
// Usage: make_corpus OUT_DIR   (scripts/fuzz.sh runs it into build-fuzz/corpus)
#include <openssl/evp.h>

#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_contexts.hpp"
#include "heft/math/primes.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bfv/encryptor.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/schemes/serialization.hpp"
#include "heft/tensor/ckks_matrix.hpp"
#include "heft/tensor/ckks_tensor.hpp"
#include "heft/tensor/ckks_vector.hpp"
#include "heft/tensor/context.hpp"

namespace {

using namespace heft;
using rlwe::Bytes;
using rlwe::Compression;
using rlwe::SaveOptions;

namespace fs = std::filesystem;

// The option sets the corpus covers: {compression} x {seeded}.
struct Variant {
  const char* name;
  SaveOptions options;
};
const Variant kVariants[] = {
    {"seeded", {.compression = Compression::none, .zstd_level = 3, .seeded = true}},
    {"full", {.compression = Compression::none, .zstd_level = 3, .seeded = false}},
    {"seeded_zstd", {.compression = Compression::zstd, .zstd_level = 3, .seeded = true}},
    {"full_zstd", {.compression = Compression::zstd, .zstd_level = 19, .seeded = false}},
};

// A BGV ciphertext as format versions 1 and 2 wrote it (type 10: the
// correction factor and, from version 2, the noise estimate after the parts
// instead of in the header), from an uncompressed version-3 frame of it
// (docs/format.md), with the lengths and checksum of the new frame.
Bytes legacy_bgv_frame(const Bytes& v3, uint16_t version) {
  constexpr std::size_t kHeader = 64, kChecksum = 8;
  constexpr std::size_t kCorrectionAt = 25, kNoiseAt = 33, kPartsAt = 41;
  const std::span<const uint8_t> payload(v3.data() + kHeader, v3.size() - kHeader - kChecksum);
  Bytes out(v3.begin(), v3.begin() + kHeader);
  const auto append = [&out](std::span<const uint8_t> part) {
    out.insert(out.end(), part.begin(), part.end());
  };
  append(payload.first(kCorrectionAt));
  append(payload.subspan(kPartsAt));
  append(payload.subspan(kCorrectionAt, kNoiseAt - kCorrectionAt));
  if (version >= 2) append(payload.subspan(kNoiseAt, kPartsAt - kNoiseAt));
  const uint16_t type = static_cast<uint16_t>(rlwe::ObjectType::bgv_ciphertext);
  const uint64_t length = out.size() - kHeader;
  std::memcpy(out.data() + 4, &version, 2);  // little-endian host, as the format
  std::memcpy(out.data() + 6, &type, 2);
  std::memcpy(out.data() + 48, &length, 8);  // stored
  std::memcpy(out.data() + 56, &length, 8);  // uncompressed
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_length = 0;
  if (EVP_Digest(out.data(), out.size(), digest, &digest_length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed");
  }
  out.insert(out.end(), digest, digest + kChecksum);
  return out;
}

class Corpus {
 public:
  explicit Corpus(fs::path root) : root_(std::move(root)) {}

  // Writes bytes to <root>/<target>/<name>.bin, and uncompressed ones also
  // into the read_object corpus (a stream holds any object type).
  void write(const std::string& target, const std::string& name, const Bytes& bytes) {
    put(root_ / target, name, bytes);
    if (bytes.size() > 8 && bytes[8] == 0)
      put(root_ / "fuzz_read_object", target + "_" + name, bytes);
  }

  // One file per variant: save(options) for each.
  template <typename Save>
  void write_variants(const std::string& target, const std::string& name, Save save) {
    for (const Variant& v : kVariants)
      write(target, name + "_" + v.name, save(v.options));
  }

  void put(const fs::path& dir, const std::string& name, const Bytes& bytes) {
    fs::create_directories(dir);
    std::ofstream out(dir / (name + ".bin"), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + (dir / name).string());
    ++files_;
  }

  [[nodiscard]] int files() const { return files_; }

 private:
  fs::path root_;
  int files_ = 0;
};

// Parameter sets seed both the parameters and the context targets (a context
// is saved as its parameters).
void parameters(Corpus& corpus, const std::string& t) {
  corpus.write_variants(
      t, "ckks", [](const SaveOptions& o) { return rlwe::save(fuzz::ckks_parameters(), o); });
  corpus.write_variants(
      t, "integer", [](const SaveOptions& o) { return rlwe::save(fuzz::integer_parameters(), o); });
  // Other shapes: no special primes, a sparse secret, dnum = 1, 128-bit security.
  rlwe::Parameters no_special = fuzz::ckks_parameters();
  no_special.special_moduli.clear();
  no_special.dnum = 0;
  corpus.write(t, "no_special", rlwe::save(no_special));
  rlwe::Parameters sparse = fuzz::integer_parameters();
  sparse.secret = {rlwe::SecretKind::sparse_ternary, 64};
  sparse.dnum = 1;
  corpus.write(t, "sparse_dnum1", rlwe::save(sparse));
  rlwe::Parameters secure = rlwe::make_parameters(4096, {36, 36}, {36});
  secure.scale = 1 << 30;
  corpus.write(t, "n4096_classic128", rlwe::save(secure));
  // At the edges of what a load may build (fuzz::kMaxContextBytes): the
  // largest N with two primes (30 MB of tables), the most primes (256 at
  // N = 1024, 30 MB), and the 255 primes at N = 2^17 (3.9 GB: refused
  // before anything is built), uncompressed so that mutations keep the hash.
  const auto edge = [](uint64_t n, int bits, std::size_t count) {
    rlwe::Parameters p;
    p.degree = n;
    p.security = rlwe::SecurityLevel::none;
    for (const auto& q : math::generate_ntt_primes(bits, n, count))
      p.ciphertext_moduli.push_back(q.value());
    return p;
  };
  corpus.write(t, "n131072_two_primes", rlwe::save(edge(131072, 40, 2)));
  corpus.write(t, "n1024_256_primes", rlwe::save(edge(1024, 50, 256)));
  corpus.write(t, "n131072_255_primes", rlwe::save(edge(131072, 40, 255)));
}

void keys(Corpus& corpus) {
  for (const bool integer : {false, true}) {
    const rlwe::ContextPtr& context = integer ? fuzz::integer_context() : fuzz::ckks_context();
    const std::string tag = integer ? "bgv" : "ckks";
    const rlwe::SecretKey secret = fuzz::fixed_secret_key(context);
    // BGV keys carry error scale t; CKKS (and BFV) keys carry 1.
    const rlwe::KeyGenerator keygen =
        integer ? bgv::make_key_generator(context, secret) : rlwe::KeyGenerator(context, secret);

    corpus.write_variants("fuzz_load_secret_key", tag + "_fixed",
                          [&](const SaveOptions& o) { return rlwe::save(secret, o); });
    const rlwe::KeyGenerator fresh(context);
    corpus.write("fuzz_load_secret_key", tag + "_random", rlwe::save(fresh.secret_key()));

    const rlwe::PublicKey public_key = keygen.create_public_key();
    corpus.write_variants("fuzz_load_public_key", tag,
                          [&](const SaveOptions& o) { return rlwe::save(public_key, o); });

    const rlwe::RelinKey relin = keygen.create_relin_key();
    corpus.write_variants("fuzz_load_relin_key", tag,
                          [&](const SaveOptions& o) { return rlwe::save(relin, o); });

    // A general key (from another secret) and single Galois keys.
    const rlwe::SecretKey other = rlwe::KeyGenerator(context).secret_key().clone();
    const rlwe::KeySwitchKey general = keygen.create_switch_key(other.q_part());
    corpus.write_variants("fuzz_load_switch_key", tag + "_general",
                          [&](const SaveOptions& o) { return rlwe::save(general, o); });
    const int64_t steps[] = {1, -3};
    const rlwe::GaloisKeys galois = keygen.create_galois_keys(steps, /*include_conjugation=*/true);
    const uint64_t first = galois.elements().front();
    corpus.write_variants("fuzz_load_switch_key", tag + "_galois",
                          [&](const SaveOptions& o) { return rlwe::save(galois.at(first), o); });

    // Galois key sets: all three keys, a subset of one, and the empty set.
    const std::vector<uint64_t> elements = galois.elements();
    const std::vector<uint64_t> one = {elements.back()};
    corpus.write_variants("fuzz_load_galois_keys", tag + "_all",
                          [&](const SaveOptions& o) { return rlwe::save(galois, o); });
    corpus.write_variants("fuzz_load_galois_keys", tag + "_subset",
                          [&](const SaveOptions& o) { return rlwe::save(galois, one, o); });
    corpus.write("fuzz_load_galois_keys", tag + "_empty",
                 rlwe::save(galois, std::vector<uint64_t>{}));
    const int64_t one_step[] = {1};
    corpus.write("fuzz_load_galois_keys", tag + "_by_step",
                 rlwe::save_galois_steps(galois, one_step));

    // Key sets: all three kinds, the public key alone, relinearization and Galois keys.
    const std::string k = "fuzz_load_key_set";
    corpus.write_variants(k, tag + "_all", [&](const SaveOptions& o) {
      return rlwe::save_key_set(&public_key, &relin, &galois, o);
    });
    corpus.write(k, tag + "_public_only", rlwe::save_key_set(&public_key, nullptr, nullptr));
    corpus.write(k, tag + "_relin_galois", rlwe::save_key_set(nullptr, &relin, &galois));
  }
}

void ckks_objects(Corpus& corpus) {
  const rlwe::ContextPtr& context = fuzz::ckks_context();
  const ckks::Encoder encoder(context);
  const ckks::Evaluator evaluator(context, ckks::ScaleMode::manual);
  const rlwe::SecretKey secret = fuzz::fixed_secret_key(context);
  const rlwe::KeyGenerator keygen(context, secret);
  const rlwe::Encryptor public_encryptor(keygen.create_public_key());
  const rlwe::Encryptor secret_encryptor(secret);
  const std::vector<double> values = {0.5, -1.25, 3.0, 0.0, 7.5, -2.0, 1.0, 0.125};

  // Plaintexts: full and sparse packing, both levels, NTT and coefficient form.
  const rlwe::Plaintext top = encoder.encode(values, fuzz::kScale, 1);
  const rlwe::Plaintext sparse = encoder.encode(values, fuzz::kScale, 0, 8);
  rlwe::Plaintext coefficient_form = top.clone();
  coefficient_form.poly.intt();
  const std::string p = "fuzz_load_plaintext";
  corpus.write_variants(p, "top",
                        [&](const SaveOptions& o) { return rlwe::save(*context, top, o); });
  corpus.write_variants(p, "level0_slots8",
                        [&](const SaveOptions& o) { return rlwe::save(*context, sparse, o); });
  corpus.write(p, "coefficient_form", rlwe::save(*context, coefficient_form));

  // Ciphertexts: public-key (unseeded), secret-key (seeded), level 0, three
  // parts (a product not relinearized, needs_rescale set), the SeededCiphertext form.
  const std::string c = "fuzz_load_ciphertext";
  const rlwe::Ciphertext public_ct = public_encryptor.encrypt(top);
  const rlwe::Ciphertext secret_ct = secret_encryptor.encrypt(top);
  const rlwe::Ciphertext low = secret_encryptor.encrypt(sparse);
  rlwe::Ciphertext product = evaluator.multiply(public_ct, secret_ct);
  product.needs_rescale = true;
  const rlwe::SeededCiphertext seeded = secret_encryptor.encrypt_seeded(top);
  corpus.write_variants(c, "ckks_public",
                        [&](const SaveOptions& o) { return rlwe::save(*context, public_ct, o); });
  corpus.write_variants(c, "ckks_secret",
                        [&](const SaveOptions& o) { return rlwe::save(*context, secret_ct, o); });
  corpus.write_variants(c, "ckks_level0",
                        [&](const SaveOptions& o) { return rlwe::save(*context, low, o); });
  corpus.write_variants(c, "ckks_3parts",
                        [&](const SaveOptions& o) { return rlwe::save(*context, product, o); });
  corpus.write_variants(c, "ckks_seeded_form",
                        [&](const SaveOptions& o) { return rlwe::save(*context, seeded, o); });
}

// The tensor layer's objects: contexts with and without keys, vectors of
// one and two ciphertexts, batched tensors of rank 1 to 3.
void tensor_objects(Corpus& corpus) {
  const auto context = tensor::TensorContext::create(fuzz::ckks_parameters(), fuzz::kScale);
  context->generate_galois_keys(std::vector<int64_t>{1, 2});
  tensor::TensorContext::SaveParts no_secret;
  no_secret.secret_key = false;
  tensor::TensorContext::SaveParts parameters_only{false, false, false, false};
  const std::string c = "fuzz_load_tensor_context";
  corpus.write_variants(c, "all_keys", [&](const SaveOptions& o) {
    return context->serialize(tensor::TensorContext::SaveParts{}, o);
  });
  corpus.write_variants(c, "public",
                        [&](const SaveOptions& o) { return context->serialize(no_secret, o); });
  corpus.write(c, "parameters_only", context->serialize(parameters_only));

  const std::string v = "fuzz_load_ckks_vector";
  const std::vector<double> values = {0.5, -1.25, 3.0, 0.0, 7.5, -2.0, 1.0, 0.125};
  const auto one = tensor::CKKSVector::encrypt(context, values);
  std::vector<double> long_values(context->slot_count() + 3, 0.25);
  const auto two = tensor::CKKSVector::encrypt(context, long_values);
  corpus.write_variants(v, "one_ciphertext",
                        [&](const SaveOptions& o) { return one.serialize(o); });
  corpus.write_variants(v, "two_ciphertexts",
                        [&](const SaveOptions& o) { return two.serialize(o); });

  const std::string t = "fuzz_load_ckks_tensor";
  const auto rank1 = tensor::CKKSTensor::encrypt(context, tensor::PlainTensor(values, {8}));
  const auto rank3 = tensor::CKKSTensor::encrypt(context, tensor::PlainTensor(values, {2, 2, 2}));
  corpus.write_variants(t, "rank1", [&](const SaveOptions& o) { return rank1.serialize(o); });
  corpus.write_variants(t, "rank3", [&](const SaveOptions& o) { return rank3.serialize(o); });

  const std::string m = "fuzz_load_ckks_matrix";
  const auto matrix =
      tensor::CKKSMatrix::encrypt(context, {{0.5, -1.25, 3.0}, {0.0, 7.5, -2.0}}, 2);
  corpus.write_variants(m, "two_by_three",
                        [&](const SaveOptions& o) { return matrix.serialize(o); });
}

void integer_objects(Corpus& corpus) {
  const rlwe::ContextPtr& context = fuzz::integer_context();
  const rlwe::SecretKey secret = fuzz::fixed_secret_key(context);
  const schemes::BatchEncoder batch(fuzz::kDegree, fuzz::kPlainModulus);
  const std::vector<uint64_t> values = {1, 2, 3, 12288, 0, 42, 6000, 7};
  const schemes::IntegerPlaintext batched = batch.encode(values);
  const std::vector<int64_t> small = {1, -1, 5};
  const schemes::IntegerPlaintext coefficients =
      schemes::encode_coefficients(small, fuzz::kDegree, fuzz::kPlainModulus);

  const std::string i = "fuzz_load_integer_plaintext";
  corpus.write_variants(i, "batched",
                        [&](const SaveOptions& o) { return schemes::save(*context, batched, o); });
  corpus.write_variants(i, "coefficients", [&](const SaveOptions& o) {
    return schemes::save(*context, coefficients, o);
  });

  // BFV ciphertexts are rlwe::Ciphertexts under the integer context.
  const bfv::Encryptor bfv_encryptor(secret);
  const rlwe::Ciphertext bfv_top = bfv_encryptor.encrypt(batched);
  const rlwe::Ciphertext bfv_low = bfv_encryptor.encrypt(batched, 0);
  corpus.write_variants("fuzz_load_ciphertext", "bfv_top",
                        [&](const SaveOptions& o) { return rlwe::save(*context, bfv_top, o); });
  corpus.write_variants("fuzz_load_ciphertext", "bfv_level0",
                        [&](const SaveOptions& o) { return rlwe::save(*context, bfv_low, o); });

  // BGV: secret-key (seeded) and public-key encryptions, a product (three
  // parts), a modulus-switched one (correction factor != 1), level 0.
  const rlwe::KeyGenerator keygen = bgv::make_key_generator(context, secret);
  const bgv::Encryptor secret_encryptor(secret);
  const bgv::Encryptor public_encryptor(keygen.create_public_key());
  const bgv::Evaluator evaluator(context, bgv::ModSwitchMode::manual);
  const bgv::Ciphertext fresh = secret_encryptor.encrypt(batched);
  const bgv::Ciphertext public_ct = public_encryptor.encrypt(coefficients);
  const bgv::Ciphertext product = evaluator.multiply(fresh, public_ct);
  const bgv::Ciphertext switched = evaluator.mod_switch(public_ct);
  const bgv::Ciphertext low = secret_encryptor.encrypt(batched, 0);
  // Saved as every ciphertext is (format version 3), and, for the target of
  // the BGV type that versions 1 and 2 wrote, in those layouts.
  const std::pair<const char*, const bgv::Ciphertext*> bgv_cases[] = {{"secret", &fresh},
                                                                      {"public", &public_ct},
                                                                      {"3parts", &product},
                                                                      {"mod_switched", &switched},
                                                                      {"level0", &low}};
  for (const auto& bgv_case : bgv_cases) {
    const char* name = bgv_case.first;
    const bgv::Ciphertext* ct = bgv_case.second;
    corpus.write_variants("fuzz_load_ciphertext", std::string("bgv_") + name,
                          [&](const SaveOptions& o) { return rlwe::save(*context, *ct, o); });
    for (const bool seeded : {true, false}) {
      const Bytes v3 = rlwe::save(*context, *ct, {.seeded = seeded});
      for (const uint16_t version : {uint16_t{1}, uint16_t{2}}) {
        corpus.write(
            "fuzz_load_bgv_ciphertext",
            std::string(name) + (seeded ? "_seeded" : "_full") + "_v" + std::to_string(version),
            legacy_bgv_frame(v3, version));
      }
    }
  }
}

// Streams beyond one frame: two frames back to back, and a frame followed by
// junk (read_object must take exactly the first frame).
void streams(Corpus& corpus, const fs::path& root) {
  const Bytes params = rlwe::save(fuzz::ckks_parameters());
  const Bytes key = rlwe::save(fuzz::fixed_secret_key(fuzz::ckks_context()));
  Bytes two = params;
  two.insert(two.end(), key.begin(), key.end());
  corpus.put(root / "fuzz_read_object", "stream_two_frames", two);
  Bytes trailing = key;
  trailing.insert(trailing.end(), {'j', 'u', 'n', 'k'});
  corpus.put(root / "fuzz_read_object", "stream_trailing_bytes", trailing);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  try {
    const fs::path root = argv[1];
    Corpus corpus(root);
    parameters(corpus, "fuzz_load_parameters");
    parameters(corpus, "fuzz_load_context");
    keys(corpus);
    ckks_objects(corpus);
    integer_objects(corpus);
    tensor_objects(corpus);
    streams(corpus, root);
    std::printf("make_corpus: wrote %d files under %s\n", corpus.files(), root.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_corpus: %s\n", e.what());
    return 1;
  }
}

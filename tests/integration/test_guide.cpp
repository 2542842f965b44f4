// The code of docs/guide.md, run and checked against plain arithmetic. Each
// block of the guide is a region of this file between "// ---- guide: NAME"
// and "// ---- end guide" markers, and GuideMatchesThisFile checks that the
// guide holds every region verbatim, so the guide cannot drift from the API.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "heft/circuits/approximation.hpp"
#include "heft/circuits/bootstrap_presets.hpp"
#include "heft/circuits/linear_transform.hpp"
#include "heft/circuits/polynomial_evaluator.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bfv/encryptor.hpp"
#include "heft/schemes/bfv/evaluator.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/schemes/ckks/parameter_helper.hpp"
#include "heft/schemes/integer_parameters.hpp"
#include "heft/tensor/ckks_matrix.hpp"
#include "heft/tensor/ckks_vector.hpp"
#include "heft/tensor/context.hpp"
#include "heft/tensor/images.hpp"
#include "heft/util/error.hpp"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The regions of `source` between "// ---- guide: NAME" and "// ---- end
// guide" lines, by name, each with its common indentation removed.
std::map<std::string, std::string> guide_regions(const std::string& source) {
  std::map<std::string, std::string> regions;
  std::istringstream lines(source);
  std::string line, name;
  std::vector<std::string> body;
  const std::string begin_marker = "// ---- guide: ";
  const std::string end_marker = "// ---- end guide";
  while (std::getline(lines, line)) {
    const auto text = line.substr(std::min(line.find_first_not_of(' '), line.size()));
    if (text.rfind(begin_marker, 0) == 0) {
      name = text.substr(begin_marker.size());
      body.clear();
    } else if (text.rfind(end_marker, 0) == 0 && !name.empty()) {
      std::size_t indent = std::string::npos;
      for (const auto& l : body)
        if (!l.empty()) indent = std::min(indent, l.find_first_not_of(' '));
      std::string joined;
      for (const auto& l : body)
        joined += (l.empty() ? l : l.substr(indent)) + "\n";
      regions[name] = joined;
      name.clear();
    } else if (!name.empty()) {
      body.push_back(line);
    }
  }
  return regions;
}

TEST(Guide, GuideMatchesThisFile) {
  const std::string guide = read_file(std::string(HEFT_SOURCE_DIR) + "/docs/guide.md");
  ASSERT_FALSE(guide.empty()) << "docs/guide.md not found";
  // By its place in the sources, not __FILE__: a compiler launcher such as
  // ccache with a base directory makes __FILE__ relative to the build folder.
  const auto regions =
      guide_regions(read_file(std::string(HEFT_SOURCE_DIR) + "/tests/integration/test_guide.cpp"));
  ASSERT_GE(regions.size(), 6u);
  for (const auto& [name, code] : regions)
    EXPECT_NE(guide.find("```cpp\n" + code + "```"), std::string::npos)
        << "docs/guide.md lacks the block '" << name
        << "' of tests/integration/test_guide.cpp, verbatim";
}

using cd = std::complex<double>;

double max_error(const std::vector<double>& got, const std::vector<double>& want) {
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]));
  return worst;
}

TEST(Guide, CkksWalkthrough) {
  // ---- guide: ckks-setup
  heft::ckks::ParameterRequest request;
  request.depth = 3;        // three multiplications in sequence
  request.scale_bits = 40;  // the scale, and the size of the primes rescaling drops
  request.slots = 4096;     // at least this many slots
  auto context = heft::rlwe::Context::create(heft::ckks::suggest_parameters(request));

  heft::rlwe::KeyGenerator keygen(context);
  auto relin = keygen.create_relin_key();
  std::vector<int64_t> steps = {1, 4, -1};  // rotations wanted; others are composed
  auto galois = keygen.create_galois_keys(steps, /*include_conjugation=*/true);

  heft::ckks::Encoder encoder(context);
  heft::ckks::Evaluator eval(context);  // ScaleMode::automatic
  heft::rlwe::Encryptor encryptor(keygen.create_public_key());
  heft::rlwe::Decryptor decryptor(keygen.secret_key());
  // ---- end guide

  const std::size_t slots = context->degree() / 2;
  ASSERT_GE(slots, 4096u);
  std::vector<double> x(slots), y(slots);
  for (std::size_t i = 0; i < slots; ++i) {
    x[i] = std::sin(0.01 * static_cast<double>(i));
    y[i] = std::cos(0.02 * static_cast<double>(i));
  }

  // ---- guide: ckks-arithmetic
  const std::size_t top = context->max_level();
  auto cx = encryptor.encrypt(encoder.encode(x, eval.scale_at(top), top));
  auto cy = encryptor.encrypt(encoder.encode(y, eval.scale_at(top), top));

  auto sum = eval.add(cx, cy);                      // x + y
  auto poly = eval.multiply(cx, cx, relin);         // x^2, rescaled when next used
  poly = eval.add(eval.multiply_scalar(poly, 0.5),  // 0.5 x^2 + 2 x + 1
                  eval.add_scalar(eval.multiply_scalar(cx, 2.0), 1.0));
  auto cube = eval.multiply(poly, cx, relin);  // (0.5 x^2 + 2 x + 1) x: levels aligned for you

  std::vector<double> got = encoder.decode_real(decryptor.decrypt(cube));
  // ---- end guide
  std::vector<double> want(slots), want_sum(slots);
  for (std::size_t i = 0; i < slots; ++i) {
    want[i] = (0.5 * x[i] * x[i] + 2 * x[i] + 1) * x[i];
    want_sum[i] = x[i] + y[i];
  }
  EXPECT_LT(max_error(got, want), 1e-5);
  EXPECT_LT(max_error(encoder.decode_real(decryptor.decrypt(sum)), want_sum), 1e-6);

  // ---- guide: ckks-rotations
  auto left1 = eval.rotate(cx, 1, galois);    // slot i holds x[i + 1]
  auto left5 = eval.rotate(cx, 5, galois);    // no key for 5: composed from 4 and 1
  auto left3 = eval.rotate(cx, 3, galois);    // 4 - 1: two key switches, the fewest
  auto right1 = eval.rotate(cx, -1, galois);  // slot i holds x[i - 1]
  auto conj = eval.conjugate(cx, galois);     // complex conjugate of every slot
  // Several rotations of one ciphertext share one key-switching decomposition:
  std::vector<int64_t> hoisted_steps = {1, 4, -1};
  auto rotations = eval.rotate_hoisted(cx, hoisted_steps, galois);
  // ---- end guide
  const auto rotated = [&](int64_t step) {
    std::vector<double> r(slots);
    for (std::size_t i = 0; i < slots; ++i) {
      const auto n = static_cast<int64_t>(slots);
      r[i] = x[static_cast<std::size_t>(((static_cast<int64_t>(i) + step) % n + n) % n)];
    }
    return r;
  };
  const auto dec = [&](const heft::ckks::Ciphertext& ct) {
    return encoder.decode_real(decryptor.decrypt(ct));
  };
  // Key switching adds about 2^-20 at scale 2^40 (schemes/ckks/test_evaluator.cpp bounds it by
  // 2^-19), but this is the largest error over every slot of one random
  // encryption: 2^-18 failed about 3% of runs (up to 2^-17.8 in 300 runs).
  const double rotation_bound = std::ldexp(1.0, -17);
  EXPECT_LT(max_error(dec(left1), rotated(1)), rotation_bound);
  EXPECT_LT(max_error(dec(left5), rotated(5)), 2 * rotation_bound);  // two key switches
  EXPECT_LT(max_error(dec(left3), rotated(3)), 2 * rotation_bound);
  EXPECT_LT(max_error(dec(right1), rotated(-1)), rotation_bound);
  EXPECT_LT(max_error(dec(conj), x), rotation_bound);  // real values: conjugation changes nothing
  for (std::size_t k = 0; k < hoisted_steps.size(); ++k)
    EXPECT_LT(max_error(dec(rotations[k]), rotated(hoisted_steps[k])), rotation_bound);

  // ---- guide: ckks-linear-transform
  // sum_j y * rotate(x, baby_steps[j]): one decomposition and one division by P.
  std::vector<int64_t> baby_steps = {0, 1, 4};  // each nonzero step needs its own key
  std::vector<heft::ckks::ExtendedPlaintext> diagonals;
  for (std::size_t j = 0; j < baby_steps.size(); ++j)
    diagonals.push_back(encoder.encode_extended(y, eval.scale_at(top), top));
  auto inner = eval.dot_rotations_plain(cx, baby_steps, diagonals, galois);
  // ---- end guide
  std::vector<double> want_inner(slots, 0.0);
  for (const int64_t step : baby_steps) {
    const auto r = rotated(step);
    for (std::size_t i = 0; i < slots; ++i)
      want_inner[i] += y[i] * r[i];
  }
  EXPECT_LT(max_error(dec(inner), want_inner), rotation_bound);

  // ---- guide: ckks-manual
  heft::ckks::Evaluator manual(context, heft::ckks::ScaleMode::manual);
  auto square = manual.multiply(cx, cx, relin);  // level top, scale 2^80: not rescaled for you
  try {
    (void)manual.add(square, cx);  // the scales differ: refused, operands unchanged
  } catch (const heft::MismatchError& e) {
    // e.what() names the operation and what differs
  }
  square = manual.rescale(square);  // level top - 1, scale 2^80 / q_top exactly
  // By hand what automatic mode does to add them: cx to square's level and scale.
  auto cx_down = manual.align_to(cx, square.level(), square.scale);
  auto x2_plus_x = manual.add(square, cx_down);
  // ---- end guide
  EXPECT_EQ(square.level(), top - 1);
  EXPECT_DOUBLE_EQ(square.scale,
                   eval.scale_at(top) * eval.scale_at(top) /
                       static_cast<double>(context->parameters().ciphertext_moduli[top]));
  EXPECT_THROW((void)manual.add(square, cx), heft::MismatchError);
  std::vector<double> x_squared(slots);
  for (std::size_t i = 0; i < slots; ++i)
    x_squared[i] = x[i] * x[i];
  EXPECT_LT(max_error(dec(square), x_squared), 1e-6);
  std::vector<double> want_x2_plus_x(slots);
  for (std::size_t i = 0; i < slots; ++i)
    want_x2_plus_x[i] = x_squared[i] + x[i];
  EXPECT_LT(max_error(dec(x2_plus_x), want_x2_plus_x), 1e-6);
}

TEST(Guide, BfvAndBgvWalkthrough) {
  // ---- guide: bfv
  heft::schemes::IntegerParameterRequest request;
  request.scheme = heft::schemes::IntegerScheme::bfv;
  request.depth = 2;
  request.plain_bits = 20;  // t: a 20-bit prime with t = 1 mod 2N (batching)
  auto context = heft::rlwe::Context::create(heft::schemes::suggest_integer_parameters(request));
  const uint64_t t = context->parameters().plain_modulus;

  heft::rlwe::KeyGenerator keygen(context);
  auto relin = keygen.create_relin_key();
  std::vector<int64_t> steps = {1};
  auto galois = keygen.create_galois_keys(steps);
  heft::schemes::BatchEncoder encoder(context->degree(), t);  // N slots: 2 rows of N/2
  heft::bfv::Encryptor encryptor(keygen.create_public_key());
  heft::bfv::Decryptor decryptor(keygen.secret_key());
  heft::bfv::Evaluator eval(context);

  std::vector<uint64_t> a = {1, 2, 3, 4}, b = {5, 6, 7, 8};  // the rest are 0
  auto ca = encryptor.encrypt(encoder.encode(a));
  auto cb = encryptor.encrypt(encoder.encode(b));
  auto product = eval.multiply(ca, cb, relin);          // slot-wise a * b mod t
  auto shifted = eval.rotate_rows(product, 1, galois);  // each row rotated left by one
  std::vector<uint64_t> result = encoder.decode(decryptor.decrypt(shifted));
  // result starts 12, 21, 32, 0, ...; the noise budget left, in bits:
  int budget = decryptor.invariant_noise_budget(shifted);
  // ---- end guide
  ASSERT_EQ(result.size(), context->degree());
  EXPECT_EQ(result[0], 12u);
  EXPECT_EQ(result[1], 21u);
  EXPECT_EQ(result[2], 32u);
  EXPECT_EQ(result[3], 0u);
  EXPECT_EQ(result[context->degree() / 2 - 1], 5u);  // slot 0's product, rotated to the end
  EXPECT_GT(budget, 0);

  // ---- guide: bgv
  request.scheme = heft::schemes::IntegerScheme::bgv;
  auto bgv_context =
      heft::rlwe::Context::create(heft::schemes::suggest_integer_parameters(request));
  auto bgv_keygen = heft::bgv::make_key_generator(bgv_context);  // keys with error scale t
  auto bgv_relin = bgv_keygen.create_relin_key();
  heft::bgv::Encryptor bgv_encryptor(bgv_keygen.create_public_key());
  heft::bgv::Decryptor bgv_decryptor(bgv_keygen.secret_key());
  heft::bgv::Evaluator bgv_eval(bgv_context);  // ModSwitchMode::automatic
  heft::schemes::BatchEncoder bgv_encoder(bgv_context->degree(),
                                          bgv_context->parameters().plain_modulus);

  auto c = bgv_encryptor.encrypt(bgv_encoder.encode(a));
  auto c2 = bgv_eval.multiply(c, c, bgv_relin);    // a^2, switched down a level
  auto c4 = bgv_eval.multiply(c2, c2, bgv_relin);  // a^4
  std::vector<uint64_t> fourth = bgv_encoder.decode(bgv_decryptor.decrypt(c4));
  // fourth starts 1, 16, 81, 256, 0, ...; the evaluator's noise estimate (no key
  // needed) stays below the budget measured with the secret key:
  double estimate = bgv_eval.estimated_noise_budget(c4);
  // ---- end guide
  const uint64_t bgv_t = bgv_context->parameters().plain_modulus;
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(fourth[i], (a[i] * a[i] * a[i] * a[i]) % bgv_t);
  EXPECT_EQ(fourth[4], 0u);
  EXPECT_LT(c4.level(), c.level());
  EXPECT_GT(estimate, 0.0);
  EXPECT_LT(estimate, bgv_decryptor.invariant_noise_budget(c4) + 1.0);
}

TEST(Guide, ErrorsWalkthrough) {
  heft::ckks::ParameterRequest request;
  request.depth = 1;
  auto context = heft::rlwe::Context::create(heft::ckks::suggest_parameters(request));
  heft::rlwe::KeyGenerator keygen(context);
  heft::ckks::Encoder encoder(context);
  heft::ckks::Evaluator eval(context);
  heft::rlwe::Encryptor encryptor(keygen.create_public_key());
  const std::size_t top = context->max_level();
  auto ct = encryptor.encrypt(encoder.encode(std::vector<double>{1.0}, eval.scale_at(top), top));
  std::vector<int64_t> steps = {2};
  auto galois = keygen.create_galois_keys(steps);
  std::string message;
  // ---- guide: errors
  try {
    auto r = eval.rotate(ct, 3, galois);  // a key for step 2 only: sums of 2 are even
  } catch (const heft::InvalidArgument& e) {
    message = e.what();  // "rotate: no Galois key for step 3, and it cannot be composed ..."
  }
  // ---- end guide
  EXPECT_NE(message.find("rotate: no Galois key for step 3"), std::string::npos) << message;
}

TEST(Guide, CircuitsWalkthrough) {
  heft::ckks::ParameterRequest request;
  request.depth = 7;
  auto context = heft::rlwe::Context::create(heft::ckks::suggest_parameters(request));
  heft::rlwe::KeyGenerator keygen(context);
  auto relin = keygen.create_relin_key();
  heft::ckks::Encoder encoder(context);
  heft::ckks::Evaluator eval(context);
  heft::rlwe::Encryptor encryptor(keygen.create_public_key());
  heft::rlwe::Decryptor decryptor(keygen.secret_key());
  const std::size_t top = context->max_level();
  std::vector<double> x(8);
  std::vector<std::complex<double>> matrix(64);
  for (std::size_t i = 0; i < 8; ++i) {
    x[i] = -7.0 + 2.0 * static_cast<double>(i);
    for (std::size_t j = 0; j < 8; ++j)
      matrix[i * 8 + j] = 0.1 * static_cast<double>(i + 2 * j) - 0.5;
  }
  auto cx = encryptor.encrypt(encoder.encode(x, eval.scale_at(top), top, 8));
  // ---- guide: circuits
  heft::circuits::PolynomialEvaluator polynomials(context, relin);
  // The logistic function on [-8, 8], interpolated at degree 31: 5 levels for
  // the products, 1 for the change of variable to [-1, 1].
  auto sigmoid = heft::circuits::approximations::sigmoid(-8, 8, 31);
  auto s = polynomials.evaluate(cx, sigmoid);  // level top - 6, the default scale there

  // y = M x for an 8 x 8 matrix (row-major) on 8 slots, by baby-step giant-step.
  heft::circuits::LinearTransformOptions options;
  options.level = top;
  options.slots = 8;
  auto m = heft::circuits::LinearTransform::from_matrix(encoder, matrix, 8, options);
  auto keys = keygen.create_galois_keys(m.rotation_steps());  // the keys it uses, no more
  heft::circuits::LinearTransformEvaluator transforms(context);
  auto mx = eval.rescale(transforms.evaluate(cx, m, keys));  // a product: rescale it
  // ---- end guide
  EXPECT_EQ(s.level(), top - 6);
  EXPECT_EQ(sigmoid.depth(), 6u);
  const auto got = encoder.decode_real(decryptor.decrypt(s));
  const auto got_mx = encoder.decode_real(decryptor.decrypt(mx));
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_NEAR(got[i], 1 / (1 + std::exp(-x[i])), 1e-4);
    double want = 0;
    for (std::size_t j = 0; j < 8; ++j)
      want += matrix[i * 8 + j].real() * x[j];
    EXPECT_NEAR(got_mx[i], want, 1e-5);
  }
}

TEST(Guide, BootstrappingWalkthrough) {
  std::vector<double> values(2048);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = std::sin(static_cast<double>(i));
  // ---- guide: bootstrap
  auto preset = heft::circuits::bootstrap_preset("small-encaps");
  auto context = heft::rlwe::Context::create(preset.parameters);
  heft::circuits::Bootstrapper bootstrapper(context, preset.bootstrap);
  heft::rlwe::KeyGenerator keygen(context);
  // Relinearization, exactly the rotations needed, conjugation, the sparse-secret pair.
  auto keys = bootstrapper.create_keys(keygen.secret_key());
  heft::ckks::Encoder encoder(context);
  heft::ckks::Evaluator eval(context);
  heft::rlwe::Encryptor encryptor(keygen.create_public_key());
  // A ciphertext at level 0 (no level left) of values in [-1, 1], all slots.
  auto x = encryptor.encrypt(encoder.encode(values, eval.scale_at(0), 0));
  auto fresh = bootstrapper.bootstrap(x, keys);  // at level preset.output_level
  // ---- end guide
  EXPECT_EQ(fresh.level(), preset.output_level);
  heft::rlwe::Decryptor decryptor(keygen.secret_key());
  const auto got = encoder.decode_real(decryptor.decrypt(fresh));
  for (std::size_t i = 0; i < values.size(); ++i)
    ASSERT_NEAR(got[i], values[i], std::ldexp(1.0, -preset.precision_bits)) << i;
}

}  // namespace

TEST(Guide, TensorsWalkthrough) {
  // ---- guide: tensors
  // TenSEAL's ts.context(ts.SCHEME_TYPE.CKKS, 8192, coeff_mod_bit_sizes=[60, 40, 40, 60]).
  heft::tensor::TenSEALArguments arguments;
  arguments.scheme = heft::tensor::Scheme::ckks;
  arguments.poly_modulus_degree = 8192;
  arguments.coeff_mod_bit_sizes = {60, 40, 40, 60};  // the last one is the special prime
  arguments.global_scale = std::ldexp(1.0, 40);
  auto ctx = heft::tensor::TensorContext::create(arguments);
  ctx->generate_galois_keys();  // steps +-2^i and conjugation, TenSEAL's default

  std::vector<double> v = {0, 1, 2, 3, 4};  // any length: 5000 values span two ciphertexts
  auto enc = heft::tensor::CKKSVector::encrypt(ctx, v);
  auto doubled_square = enc.add(v).mul(v);  // (v + v) * v: one level
  auto dot = enc.dot(v);                    // one value, 30
  std::vector<std::vector<double>> matrix(5, std::vector<double>(3, 0.5));
  auto product = enc.matmul(matrix);                        // v (5) x matrix (5 x 3): 3 values
  auto poly = enc.polyval(std::vector<double>{1, 0, 0.5});  // 1 + 0.5 x^2
  std::vector<double> result = product.decrypt();           // 5, 5, 5

  // The server gets the context without its secret key and computes there.
  heft::tensor::TensorContext::SaveParts parts;
  parts.secret_key = false;
  auto server = heft::tensor::TensorContext::load(ctx->serialize(parts));
  auto remote = heft::tensor::CKKSVector::load(server, enc.serialize());
  auto remote_sum = heft::tensor::CKKSVector::load(ctx, remote.sum().serialize());  // 10

  // A 6x6 image, two 3x3 kernels with stride 3: 2x2 windows per channel.
  heft::tensor::Matrix image(6, std::vector<double>(6, 1.0));
  auto encoded = heft::tensor::im2col_encoding(ctx, image, 3, 3, 3);  // encoded.windows: 4
  std::vector<heft::tensor::CKKSVector> channels;
  channels.push_back(encoded.vector.conv2d_im2col(heft::tensor::Matrix(3, {1, 1, 1}), 4));
  channels.push_back(encoded.vector.conv2d_im2col(heft::tensor::Matrix(3, {0, 0, 1}), 4));
  auto features = heft::tensor::pack_vectors(channels);  // 9, 9, 9, 9, 3, 3, 3, 3

  // Both operands encrypted (three levels: a context with primes 60 / 40 x 3 / 60 has them).
  heft::tensor::TenSEALArguments deep = arguments;
  deep.coeff_mod_bit_sizes = {60, 40, 40, 40, 60};
  deep.security = heft::rlwe::SecurityLevel::none;  // 260 bits: above 128-bit security at 8192
  auto deep_ctx = heft::tensor::TensorContext::create(deep);
  deep_ctx->generate_galois_keys(heft::tensor::CKKSMatrix::galois_steps(*deep_ctx, 4));
  auto a = heft::tensor::CKKSMatrix::encrypt(deep_ctx, {{1, 2}, {3, 4}}, 4);
  auto b = heft::tensor::CKKSMatrix::encrypt(deep_ctx, {{0, 1, 0}, {1, 0, 1}}, 4);
  auto ab = a.matmul(b).decrypt();  // {{2, 1, 2}, {4, 3, 4}}
  auto row = heft::tensor::CKKSVector::encrypt(deep_ctx, std::vector<double>{1, -1});
  auto vb = row.matmul(b).decrypt();  // {-1, 1, -1}
  // ---- end guide
  EXPECT_LT(max_error(ab[0], {2, 1, 2}), 1e-4);
  EXPECT_LT(max_error(ab[1], {4, 3, 4}), 1e-4);
  EXPECT_LT(max_error(vb, {-1, 1, -1}), 1e-4);
  EXPECT_EQ(encoded.windows, 4u);
  EXPECT_LT(max_error(features.decrypt(), {9, 9, 9, 9, 3, 3, 3, 3}), 1e-4);
  EXPECT_FALSE(server->is_private());
  EXPECT_THROW((void)remote.decrypt(), heft::InvalidArgument);
  EXPECT_LT(max_error(doubled_square.decrypt(), {0, 2, 8, 18, 32}), 1e-4);
  EXPECT_NEAR(dot.decrypt()[0], 30, 1e-4);
  EXPECT_LT(max_error(result, {5, 5, 5}), 1e-4);
  EXPECT_LT(max_error(poly.decrypt(), {1, 1.5, 3, 5.5, 9}), 1e-4);
  EXPECT_NEAR(remote_sum.decrypt()[0], 10, 1e-4);
}

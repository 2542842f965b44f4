// TensorContext: construction from TenSEAL's arguments or heft's helpers,
// keys, flags and the scheme objects (serialization is in
// context_serialization.cpp).
#include "heft/tensor/context.hpp"

#include <cmath>
#include <string>

#include "heft/rlwe/rotation_plan.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "tensor/messages.hpp"

namespace heft::tensor {

namespace {

// SEAL's CoeffModulus::BFVDefault bit sizes at 128-bit security, which
// TenSEAL uses when a BFV context is made without coeff_mod_bit_sizes (the
// last prime is the special one).
std::vector<int> bfv_default_bit_sizes(uint64_t degree) {
  switch (degree) {
    case 1024:
      return {27};
    case 2048:
      return {54};
    case 4096:
      return {36, 36, 37};
    case 8192:
      return {43, 43, 44, 44, 44};
    case 16384:
      return {48, 48, 48, 49, 49, 49, 49, 49, 49};
    case 32768:
      return std::vector<int>(16, 55);
    default:
      throw InvalidArgument(
          "TensorContext: no default coeff_mod_bit_sizes for poly_modulus_degree " +
          std::to_string(degree) + "; give them explicitly");
  }
}

double log2_modulus(const rlwe::Parameters& parameters) {
  double bits = 0;
  for (const uint64_t q : parameters.ciphertext_moduli)
    bits += std::log2(static_cast<double>(q));
  return bits;
}

// The top level's scale for a requested CKKS scale. heft's evaluator gives
// level l - 1 the scale s_l^2 / q_l, which doubles any gap between the scale
// and the primes at every level: TenSEAL's MNIST set (scale 2^21, 21-bit
// primes that are all below 2^20.8, the only ones of 21 bits for N = 8192)
// would reach 2^41 at level 1. When the requested scale drifts by more than
// a bit so, the chain is built from the bottom instead (s_l = sqrt(s_(l-1)
// q_l) from s_0 = the request), which stays between the request and the
// primes at every level.
double stable_top_scale(const rlwe::Parameters& parameters, double requested) {
  const auto& primes = parameters.ciphertext_moduli;
  double scale = requested;
  bool drifts = false;
  for (std::size_t level = primes.size() - 1; level > 0; --level) {
    scale = scale * scale / static_cast<double>(primes[level]);
    drifts = drifts || std::abs(std::log2(scale / requested)) > 1;
  }
  if (!drifts) return requested;
  scale = requested;
  for (std::size_t level = 1; level < primes.size(); ++level)
    scale = std::sqrt(scale * static_cast<double>(primes[level]));
  return scale;
}

}  // namespace

TensorContext::Ptr TensorContext::create(const TenSEALArguments& arguments) {
  if (arguments.scheme == Scheme::ckks && arguments.coeff_mod_bit_sizes.empty())
    throw InvalidArgument(
        "TensorContext: CKKS needs coeff_mod_bit_sizes (the last is the special "
        "prime, as in TenSEAL)");
  if (arguments.scheme == Scheme::bfv && arguments.plain_modulus == 0)
    throw InvalidArgument("TensorContext: BFV needs a plain_modulus (a batching prime)");
  if (arguments.global_scale < 0 || !std::isfinite(arguments.global_scale))
    throw InvalidArgument("TensorContext: global_scale must be positive and finite");
  rlwe::require_ring_degree(arguments.poly_modulus_degree, "TensorContext");
  std::vector<int> bits = arguments.coeff_mod_bit_sizes;
  if (bits.empty()) bits = bfv_default_bit_sizes(arguments.poly_modulus_degree);
  // TenSEAL's (SEAL's) convention: with two primes or more, the last one is
  // the special prime; a single prime is a ciphertext prime and no key
  // switching is possible.
  std::vector<int> special;
  if (bits.size() > 1) {
    special.push_back(bits.back());
    bits.pop_back();
  }
  auto parameters =
      rlwe::make_parameters(arguments.poly_modulus_degree, bits, special, 0, arguments.security);
  double global_scale = arguments.global_scale;
  if (arguments.scheme == Scheme::ckks) {
    const double requested = arguments.global_scale > 0
                                 ? arguments.global_scale
                                 : std::ldexp(1.0, bits.size() > 1 ? bits[1] : bits[0] / 2);
    parameters.scale = stable_top_scale(parameters, requested);
    // Fresh values at the top level's scale: any other would drift again.
    if (parameters.scale != requested) global_scale = parameters.scale;
  } else {
    parameters.plain_modulus = arguments.plain_modulus;
  }
  if (arguments.n_threads > 0) set_num_threads(arguments.n_threads);
  return create(parameters, global_scale);
}

TensorContext::Ptr TensorContext::create_ckks(const ckks::ParameterRequest& request,
                                              double global_scale) {
  return create(ckks::suggest_parameters(request), global_scale);
}

TensorContext::Ptr TensorContext::create_bfv(const schemes::IntegerParameterRequest& request) {
  if (request.scheme != schemes::IntegerScheme::bfv)
    throw InvalidArgument("TensorContext::create_bfv: the request is not for BFV");
  return create(schemes::suggest_integer_parameters(request));
}

TensorContext::Ptr TensorContext::create(const rlwe::Parameters& parameters, double global_scale) {
  auto context = std::make_shared<TensorContext>(PrivateTag{}, rlwe::Context::create(parameters),
                                                 global_scale);
  context->secret_key_.emplace(context->keygen_.emplace(context->context_).secret_key().clone());
  context->public_key_.emplace(context->keygen_->create_public_key());
  if (context->context_->supports_key_switching()) context->generate_relin_keys();
  context->make_crypto_objects();
  return context;
}

TensorContext::TensorContext(PrivateTag, std::shared_ptr<const rlwe::Context> context,
                             double global_scale)
    : context_(std::move(context)) {
  const auto& parameters = context_->parameters();
  if (parameters.plain_modulus != 0) {
    scheme_ = Scheme::bfv;
  } else if (parameters.scale > 0) {
    scheme_ = Scheme::ckks;
    global_scale_ = parameters.scale;
    if (global_scale > 0) set_global_scale(global_scale);
  } else {
    throw InvalidArgument(
        "TensorContext: the parameters have neither a CKKS scale nor a plain modulus");
  }
  make_scheme_objects();
}

void TensorContext::make_scheme_objects() {
  if (scheme_ == Scheme::ckks) {
    ckks_encoder_.emplace(context_);
    ckks_automatic_.emplace(context_, ckks::ScaleMode::automatic);
    ckks_manual_.emplace(context_, ckks::ScaleMode::manual);
    ckks_automatic_->allow_transparent_results(true);  // re-randomised as tensors are made
    ckks_manual_->allow_transparent_results(true);
  } else {
    batch_encoder_.emplace(context_->degree(), plain_modulus());
    bfv_evaluator_.emplace(context_);
    bfv_evaluator_->allow_transparent_results(true);
  }
}

void TensorContext::make_crypto_objects() {
  public_encryptor_.reset();
  ckks_decryptor_.reset();
  bfv_encryptor_.reset();
  bfv_decryptor_.reset();
  if (public_key_) public_encryptor_.emplace(*public_key_);
  if (scheme_ == Scheme::ckks) {
    if (secret_key_) ckks_decryptor_.emplace(*secret_key_);
  } else {
    if (public_key_) bfv_encryptor_.emplace(*public_key_);
    if (secret_key_) bfv_decryptor_.emplace(*secret_key_);
  }
}

std::size_t TensorContext::slot_count() const noexcept {
  const auto n = static_cast<std::size_t>(context_->degree());
  return scheme_ == Scheme::ckks ? n / 2 : n;
}

void TensorContext::set_global_scale(double scale) {
  require_scheme(Scheme::ckks, "set_global_scale");
  // A fresh value of magnitude about 1 must fit below Q / 2 with room for
  // the encoding's rounding.
  if (!(scale > 0) || !std::isfinite(scale) ||
      std::log2(scale) + 2 > log2_modulus(context_->parameters())) {
    throw InvalidArgument("set_global_scale: the scale must be positive, finite and below Q / 4 (" +
                          std::to_string(log2_modulus(context_->parameters())) + " bits)");
  }
  global_scale_ = scale;
}

std::vector<int64_t> TensorContext::default_galois_steps() const {
  std::vector<int64_t> steps;
  const auto row = static_cast<int64_t>(context_->degree() / 2);
  for (int64_t step = 1; step < row; step *= 2) {
    steps.push_back(step);
    steps.push_back(-step);
  }
  return steps;
}

const rlwe::KeyGenerator& TensorContext::key_generator(const char* operation) const {
  if (!keygen_)
    throw InvalidArgument(std::string(operation) +
                          ": the context is public (no secret key), so it cannot make keys");
  if (!context_->supports_key_switching())
    throw InvalidArgument(std::string(operation) +
                          ": the parameters have no special prime, so no key switching");
  return *keygen_;
}

void TensorContext::generate_galois_keys() {
  const auto steps = default_galois_steps();
  generate_galois_keys(steps, true);
}

void TensorContext::generate_galois_keys(std::span<const int64_t> steps, bool include_swap,
                                         std::optional<std::size_t> max_level) {
  auto made =
      key_generator("generate_galois_keys").create_galois_keys(steps, include_swap, max_level);
  if (!galois_keys_) {
    galois_keys_.emplace(std::move(made));
    return;
  }
  // Added to the keys present; a key already there that reaches at least as
  // high (a bootstrapping key, say) is kept.
  for (const uint64_t element : made.elements()) {
    if (galois_keys_->has(element) &&
        galois_keys_->at(element).max_level() >= made.at(element).max_level())
      continue;
    galois_keys_->insert(element, made.extract(element));
  }
}

void TensorContext::generate_relin_keys() {
  relin_key_.emplace(key_generator("generate_relin_keys").create_relin_key());
}

void TensorContext::make_context_public(bool generate_galois, bool generate_relin) {
  if (generate_galois && is_private()) generate_galois_keys();
  if (generate_relin && is_private()) generate_relin_keys();
  keygen_.reset();
  secret_key_.reset();
  make_crypto_objects();
}

const rlwe::SecretKey& TensorContext::secret_key(const char* operation) const {
  if (!secret_key_)
    throw InvalidArgument(std::string(operation) +
                          ": the context is public (no secret key); decrypt with a private "
                          "context");
  return *secret_key_;
}

const rlwe::PublicKey& TensorContext::public_key(const char* operation) const {
  if (!public_key_)
    throw InvalidArgument(std::string(operation) + ": the context has no public key");
  return *public_key_;
}

const rlwe::RelinKey& TensorContext::relin_key(const char* operation) const {
  if (!relin_key_)
    throw InvalidArgument(std::string(operation) +
                          ": the context has no relinearization key; call generate_relin_keys()");
  return *relin_key_;
}

const rlwe::GaloisKeys& TensorContext::galois_keys(const char* operation) const {
  if (!galois_keys_)
    throw InvalidArgument(std::string(operation) +
                          ": the context has no Galois keys; call generate_galois_keys()");
  return *galois_keys_;
}

void TensorContext::require_rotations(std::span<const int64_t> steps, bool swap,
                                      const char* operation) const {
  std::vector<int64_t> missing;
  const std::size_t cycle = context_->degree() / 2;
  for (const int64_t step : steps) {
    if (!galois_keys_) {
      missing.push_back(step);
      continue;
    }
    try {
      (void)rlwe::plan_rotation(*context_, *galois_keys_, step, cycle, operation);
    } catch (const InvalidArgument&) {
      missing.push_back(step);
    }
  }
  const bool swap_missing =
      swap && !(galois_keys_ && galois_keys_->has(context_->conjugation_galois_element()));
  if (missing.empty() && !swap_missing) return;
  std::string message = std::string(operation) + ": needs Galois keys for rotation steps " +
                        detail::join(steps) + " (no key or composition of keys for " +
                        detail::join(missing) + ")";
  if (swap_missing) message += " and for the row swap / conjugation";
  throw InvalidArgument(message + "; call generate_galois_keys() or generate_galois_keys(steps)");
}

void TensorContext::require_scheme(Scheme scheme, const char* operation) const {
  if (scheme_ != scheme)
    throw InvalidArgument(std::string(operation) + ": the context is " +
                          (scheme_ == Scheme::ckks ? "CKKS" : "BFV") + ", not " +
                          (scheme == Scheme::ckks ? "CKKS" : "BFV"));
}

const ckks::Encoder& TensorContext::ckks_encoder() const {
  require_scheme(Scheme::ckks, "ckks_encoder");
  return *ckks_encoder_;
}

const ckks::Evaluator& TensorContext::ckks_evaluator() const {
  require_scheme(Scheme::ckks, "ckks_evaluator");
  return auto_rescale_ && auto_mod_switch_ ? *ckks_automatic_ : *ckks_manual_;
}

const schemes::BatchEncoder& TensorContext::batch_encoder() const {
  require_scheme(Scheme::bfv, "batch_encoder");
  return *batch_encoder_;
}

const bfv::Evaluator& TensorContext::bfv_evaluator() const {
  require_scheme(Scheme::bfv, "bfv_evaluator");
  return *bfv_evaluator_;
}

const rlwe::Encryptor& TensorContext::ckks_encryptor(const char* operation) const {
  require_scheme(Scheme::ckks, operation);
  (void)public_key(operation);
  return *public_encryptor_;
}

const rlwe::Decryptor& TensorContext::ckks_decryptor(const char* operation) const {
  require_scheme(Scheme::ckks, operation);
  (void)secret_key(operation);
  return *ckks_decryptor_;
}

void TensorContext::rerandomize_transparent(std::vector<rlwe::Ciphertext>& ciphertexts) const {
  for (rlwe::Ciphertext& ct : ciphertexts) {
    if (!rlwe::is_transparent(ct)) continue;
    if (!public_encryptor_) {
      throw TransparentCiphertextError(
          "a result's mask cancelled (a product by zero, x - x) and this context has no public "
          "key to re-randomise it with");
    }
    // A fresh encryption of zero at the ciphertext's level: the values stay,
    // the mask is new (the scale and slots only label the zero).
    rlwe::Plaintext zero;
    zero.poly = ring::RnsPoly(context_->ciphertext_ring(), ct.level() + 1, ring::Form::ntt);
    zero.scale = ct.scale;
    zero.slots = ct.slots;
    const rlwe::Ciphertext fresh = public_encryptor_->encrypt(zero);
    ct.parts[0] += fresh.parts[0];
    ct.parts[1] += fresh.parts[1];
  }
}

void TensorContext::set_noise_flooding(std::optional<ckks::FloodingOptions> options) {
  require_scheme(Scheme::ckks, "set_noise_flooding");
  if (options) (void)ckks::flooding_bits(*options);  // its checks first: nothing changes on error
  flooding_ = options;
}

const bfv::Encryptor& TensorContext::bfv_encryptor(const char* operation) const {
  require_scheme(Scheme::bfv, operation);
  (void)public_key(operation);
  return *bfv_encryptor_;
}

const bfv::Decryptor& TensorContext::bfv_decryptor(const char* operation) const {
  require_scheme(Scheme::bfv, operation);
  (void)secret_key(operation);
  return *bfv_decryptor_;
}

}  // namespace heft::tensor

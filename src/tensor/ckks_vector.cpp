// CKKSVector: encryption, decryption and the element-wise operations
// (reductions, polynomials and matrix products are in
// ckks_vector_products.cpp and ckks_vector_matmul.cpp).
#include "heft/tensor/ckks_vector.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>

#include "heft/util/error.hpp"
#include "tensor/chunks.hpp"
#include "tensor/ckks_decryption.hpp"
#include "tensor/ckks_vector_ops.hpp"
#include "tensor/messages.hpp"
#include "tensor/power_tree.hpp"

namespace heft::tensor {

using rlwe::Ciphertext;

// ---- per-ciphertext steps ----

bool CKKSVectorOps::aligns_levels(const TensorContext& context) {
  return context.ckks_evaluator().mode() != ckks::ScaleMode::automatic && context.auto_mod_switch();
}

void CKKSVectorOps::align_levels(const TensorContext& context, Ciphertext& a, Ciphertext& b) {
  const auto& evaluator = context.ckks_evaluator();
  if (!aligns_levels(context)) return;
  if (a.level() > b.level()) a = evaluator.drop_to_level(a, b.level());
  if (b.level() > a.level()) b = evaluator.drop_to_level(b, a.level());
}

Ciphertext CKKSVectorOps::finish_product(const TensorContext& context, Ciphertext product) {
  if (context.auto_rescale() && product.needs_rescale && product.level() > 0)
    return context.ckks_evaluator().rescale(product);
  return product;
}

Ciphertext CKKSVectorOps::product(const TensorContext& context, const Ciphertext& a_in,
                                  const Ciphertext& b_in, const char* operation) {
  const auto& evaluator = context.ckks_evaluator();
  if (aligns_levels(context) && a_in.level() != b_in.level()) {
    Ciphertext a = a_in.clone(), b = b_in.clone();
    align_levels(context, a, b);
    return product(context, a, b, operation);  // now at one level: no copy
  }
  const Ciphertext &a = a_in, &b = b_in;
  if (!context.auto_relin()) return finish_product(context, evaluator.multiply(a, b));
  const auto& relin = context.relin_key(operation);
  // Relinearization and rescale share one division (relinearize_rescale).
  if (context.auto_rescale()) return evaluator.multiply_rescale(a, b, relin);
  return evaluator.multiply(a, b, relin);
}

Ciphertext CKKSVectorOps::plain_product(const TensorContext& context, const Ciphertext& a,
                                        std::span<const double> values) {
  const auto& evaluator = context.ckks_evaluator();
  const std::size_t level = evaluator.effective_level(a);
  const auto plain = context.ckks_encoder().encode(values, evaluator.scale_at(level), level);
  return finish_product(context, evaluator.multiply_plain(a, plain));
}

Ciphertext CKKSVectorOps::plain_sum(const TensorContext& context, const Ciphertext& a,
                                    std::span<const double> values, bool subtract) {
  const auto& evaluator = context.ckks_evaluator();
  const auto plain = context.ckks_encoder().encode(values, evaluator.effective_scale(a),
                                                   evaluator.effective_level(a));
  return subtract ? evaluator.sub_plain(a, plain) : evaluator.add_plain(a, plain);
}

// ---- construction ----

CKKSVector::CKKSVector(TensorContext::Ptr context, std::vector<Ciphertext> chunks, std::size_t size,
                       bool clean_padding)
    : context_(std::move(context)),
      chunks_(std::move(chunks)),
      size_(size),
      clean_padding_(clean_padding) {
  if (context_) context_->rerandomize_transparent(chunks_);  // docs/security.md
}

CKKSVector CKKSVector::encrypt(TensorContext::Ptr context, std::span<const double> values,
                               double scale) {
  constexpr const char* op = "CKKSVector::encrypt";
  if (!context) throw InvalidArgument(std::string(op) + ": no context");
  if (values.empty()) throw InvalidArgument(std::string(op) + ": an empty vector");
  const auto& encoder = context->ckks_encoder();
  const auto& encryptor = context->ckks_encryptor(op);
  if (scale == 0) scale = context->global_scale();
  const std::size_t slots = context->slot_count();
  const std::size_t level = context->encryption_level();
  CKKSVector out(context, {}, values.size(), true);
  out.chunks_ = detail::map_chunks(detail::chunk_count(values.size(), slots), [&](std::size_t c) {
    const auto part = values.subspan(c * slots, std::min(slots, values.size() - c * slots));
    return encryptor.encrypt(encoder.encode(part, scale, level));
  });
  return out;
}

CKKSVector CKKSVector::copy() const {
  return {context_, chunks_copy(), size_, clean_padding_};
}

std::vector<double> CKKSVector::decrypt() const {
  return decrypt_with(nullptr);
}

std::vector<double> CKKSVector::decrypt(const rlwe::SecretKey& secret_key) const {
  return decrypt_with(&secret_key);
}

std::vector<double> CKKSVector::decrypt_with(const rlwe::SecretKey* secret_key) const {
  constexpr const char* op = "CKKSVector::decrypt";
  require_valid(op);
  const detail::CkksDecryption decryption(*context_, secret_key, op);
  const auto& encoder = context_->ckks_encoder();
  const std::size_t slots = context_->slot_count();
  std::vector<double> out(size_);
  const auto fill = [&](std::size_t c) {
    const auto values = encoder.decode_real(decryption(chunks_[c]));
    const std::size_t count = std::min(slots, size_ - c * slots);
    std::copy_n(values.begin(), count, out.begin() + static_cast<std::ptrdiff_t>(c * slots));
  };
  if (chunks_.size() == 1) {
    fill(0);
  } else {
    parallel_for(0, chunks_.size(), fill);
  }
  return out;
}

double CKKSVector::measure_noise_bits(std::span<const double> expected) const {
  constexpr const char* op = "CKKSVector::measure_noise_bits";
  require_valid(op);
  const auto& decryptor = context_->ckks_decryptor(op);
  if (expected.size() != size_) {
    throw MismatchError(std::string(op) + ": " + std::to_string(expected.size()) +
                        " expected values for a vector of " + std::to_string(size_));
  }
  if (!clean_padding_) {
    throw InvalidArgument(std::string(op) +
                          ": the vector's padding slots may hold values it does not track; "
                          "measure a vector whose padding is clean (before sum() or polyval)");
  }
  const std::size_t slots = context_->slot_count();
  std::vector<double> bits(chunks_.size());
  parallel_for(0, chunks_.size(), [&](std::size_t c) {
    std::vector<std::complex<double>> values(slots);
    const std::size_t count = std::min(slots, size_ - c * slots);
    for (std::size_t i = 0; i < count; ++i)
      values[i] = expected[c * slots + i];
    bits[c] = ckks::measure_noise_bits(decryptor, context_->ckks_encoder(), chunks_[c], values);
  });
  return *std::max_element(bits.begin(), bits.end());
}

std::size_t CKKSVector::level() const {
  require_valid("CKKSVector::level");
  return detail::lowest_level(context_->ckks_evaluator(), chunks_);
}

double CKKSVector::scale() const {
  require_valid("CKKSVector::scale");
  return context_->ckks_evaluator().effective_scale(chunks_[0]);
}

void CKKSVector::require_valid(const char* operation) const {
  if (!context_ || chunks_.empty())
    throw InvalidArgument(std::string(operation) + ": an empty CKKSVector (encrypt one first)");
}

void CKKSVector::require_compatible(const CKKSVector& other, const char* operation) const {
  require_valid(operation);
  other.require_valid(operation);
  detail::require_same_context(context_, other.context_, operation);
  detail::require_same_size(size_, other.size_, operation);
}

std::vector<double> CKKSVector::chunk_values(std::span<const double> plain, std::size_t c) const {
  const std::size_t slots = context_->slot_count();
  const std::size_t begin = c * slots, count = std::min(slots, size_ - begin);
  return {plain.begin() + static_cast<std::ptrdiff_t>(begin),
          plain.begin() + static_cast<std::ptrdiff_t>(begin + count)};
}

// ---- addition and subtraction ----

CKKSVector CKKSVector::replicated(std::size_t size, const char* operation) const {
  // Slot 0 doubled into every slot: x + rotate(x, -1), then -2, -4, ...
  // (TenSEAL's replication of a 1-sized operand); the padding must be zero
  // first so that only slot 0 is copied.
  const CKKSVector clean = with_zero_padding(operation);
  const std::size_t slots = context_->slot_count();
  std::vector<int64_t> steps;
  for (std::size_t k = 1; k < slots && k < size; k *= 2)
    steps.push_back(-static_cast<int64_t>(k));
  context_->require_rotations(steps, false, operation);
  const auto& evaluator = context_->ckks_evaluator();
  Ciphertext x = clean.chunks_[0].clone();
  for (const int64_t step : steps)
    evaluator.add_inplace(x, evaluator.rotate(x, step, context_->galois_keys(operation)));
  std::vector<Ciphertext> chunks;
  for (std::size_t c = 0; c * slots < size; ++c)
    chunks.push_back(x.clone());
  // Past `size` the slots hold copies too (when size is not a power of two).
  return {context_, std::move(chunks), size, size % slots == 0};
}

CKKSVector CKKSVector::add_or_sub(const CKKSVector& other, bool subtract,
                                  const char* operation) const {
  if (other.size_ == 1 && size_ > 1 && other.context_ == context_) {
    return add_or_sub(other.replicated(size_, operation), subtract, operation);
  }
  require_compatible(other, operation);
  const auto& evaluator = context_->ckks_evaluator();
  auto chunks = detail::map_chunks(chunks_.size(), [&](std::size_t c) {
    const Ciphertext &x = chunks_[c], &y = other.chunks_[c];
    // Copies only when the flags make this layer align levels (a copy of
    // two ciphertexts costs as much as the sum itself).
    if (CKKSVectorOps::aligns_levels(*context_) && x.level() != y.level()) {
      Ciphertext a = x.clone(), b = y.clone();
      CKKSVectorOps::align_levels(*context_, a, b);
      return subtract ? evaluator.sub(a, b) : evaluator.add(a, b);
    }
    return subtract ? evaluator.sub(x, y) : evaluator.add(x, y);
  });
  return {context_, std::move(chunks), size_, clean_padding_ && other.clean_padding_};
}

CKKSVector CKKSVector::add_or_sub(std::span<const double> plain, bool subtract,
                                  const char* operation) const {
  require_valid(operation);
  detail::require_same_size(size_, plain.size(), operation);
  auto chunks = detail::map_chunks(chunks_.size(), [&](std::size_t c) {
    return CKKSVectorOps::plain_sum(*context_, chunks_[c], chunk_values(plain, c), subtract);
  });
  return {context_, std::move(chunks), size_, clean_padding_};
}

CKKSVector CKKSVector::add(const CKKSVector& other) const {
  return add_or_sub(other, false, "CKKSVector::add");
}
CKKSVector CKKSVector::sub(const CKKSVector& other) const {
  return add_or_sub(other, true, "CKKSVector::sub");
}
CKKSVector CKKSVector::add(std::span<const double> plain) const {
  return add_or_sub(plain, false, "CKKSVector::add");
}
CKKSVector CKKSVector::sub(std::span<const double> plain) const {
  return add_or_sub(plain, true, "CKKSVector::sub");
}
// A scalar is added to the vector's own slots only, as a plain vector, so
// the padding keeps its zeros.
CKKSVector CKKSVector::add(double scalar) const {
  return add_or_sub(std::vector<double>(size_, scalar), false, "CKKSVector::add");
}
CKKSVector CKKSVector::sub(double scalar) const {
  return add_or_sub(std::vector<double>(size_, scalar), true, "CKKSVector::sub");
}

// ---- multiplication ----

CKKSVector CKKSVector::mul(const CKKSVector& other) const {
  constexpr const char* op = "CKKSVector::mul";
  if (other.size_ == 1 && size_ > 1 && other.context_ == context_) {
    return mul(other.replicated(size_, op));
  }
  require_compatible(other, op);
  if (auto refreshed = refreshed_if_short(1)) return refreshed->mul(other);
  if (auto refreshed = other.refreshed_if_short(1)) return mul(*refreshed);
  detail::require_levels(1, std::min(level(), other.level()), op);
  auto chunks = detail::map_chunks(chunks_.size(), [&](std::size_t c) {
    return CKKSVectorOps::product(*context_, chunks_[c], other.chunks_[c], op);
  });
  return {context_, std::move(chunks), size_, clean_padding_ || other.clean_padding_};
}

CKKSVector CKKSVector::mul(std::span<const double> plain) const {
  constexpr const char* op = "CKKSVector::mul";
  require_valid(op);
  detail::require_same_size(size_, plain.size(), op);
  if (auto refreshed = refreshed_if_short(1)) return refreshed->mul(plain);
  detail::require_levels(1, level(), op);
  auto chunks = detail::map_chunks(chunks_.size(), [&](std::size_t c) {
    return CKKSVectorOps::plain_product(*context_, chunks_[c], chunk_values(plain, c));
  });
  return {context_, std::move(chunks), size_, true};
}

CKKSVector CKKSVector::mul(double scalar) const {
  constexpr const char* op = "CKKSVector::mul";
  require_valid(op);
  // An integer is an exact multiple and costs no level.
  const bool integer = std::round(scalar) == scalar && std::abs(scalar) < 4.6e18;
  if (!integer) {
    if (auto refreshed = refreshed_if_short(1)) return refreshed->mul(scalar);
    detail::require_levels(1, level(), op);
  }
  const auto& evaluator = context_->ckks_evaluator();
  auto chunks = detail::map_chunks(chunks_.size(), [&](std::size_t c) {
    return CKKSVectorOps::finish_product(*context_, evaluator.multiply_scalar(chunks_[c], scalar));
  });
  return {context_, std::move(chunks), size_, clean_padding_};
}

CKKSVector CKKSVector::negate() const {
  require_valid("CKKSVector::negate");
  const auto& evaluator = context_->ckks_evaluator();
  auto chunks = detail::map_chunks(chunks_.size(),
                                   [&](std::size_t c) { return evaluator.negate(chunks_[c]); });
  return {context_, std::move(chunks), size_, clean_padding_};
}

CKKSVector CKKSVector::square() const {
  constexpr const char* op = "CKKSVector::square";
  require_valid(op);
  if (auto refreshed = refreshed_if_short(1)) return refreshed->square();
  detail::require_levels(1, level(), op);
  auto chunks = detail::map_chunks(chunks_.size(), [&](std::size_t c) {
    return CKKSVectorOps::product(*context_, chunks_[c], chunks_[c], op);
  });
  return {context_, std::move(chunks), size_, clean_padding_};
}

CKKSVector CKKSVector::pow(unsigned k) const {
  constexpr const char* op = "CKKSVector::pow";
  require_valid(op);
  if (k == 0) {
    // TenSEAL's pow(0): ones in the vector's slots (x * 0, exact, plus 1).
    return mul(0.0).add(1.0);
  }
  if (auto refreshed = refreshed_if_short(detail::power_depth(k))) return refreshed->pow(k);
  detail::require_levels(detail::power_depth(k), level(), op);
  const auto multiply = [&](const Ciphertext& a, const Ciphertext& b) {
    return CKKSVectorOps::product(*context_, a, b, op);
  };
  auto chunks = detail::map_chunks(
      chunks_.size(), [&](std::size_t c) { return detail::power_tree(chunks_[c], k, multiply); });
  return {context_, std::move(chunks), size_, clean_padding_};
}

// ---- in-place forms: computed aside, then swapped in (operands unchanged
// on error) ----

CKKSVector& CKKSVector::add_inplace(const CKKSVector& other) {
  return *this = add(other);
}
CKKSVector& CKKSVector::add_inplace(std::span<const double> plain) {
  return *this = add(plain);
}
CKKSVector& CKKSVector::add_inplace(double scalar) {
  return *this = add(scalar);
}
CKKSVector& CKKSVector::sub_inplace(const CKKSVector& other) {
  return *this = sub(other);
}
CKKSVector& CKKSVector::sub_inplace(std::span<const double> plain) {
  return *this = sub(plain);
}
CKKSVector& CKKSVector::sub_inplace(double scalar) {
  return *this = sub(scalar);
}
CKKSVector& CKKSVector::mul_inplace(const CKKSVector& other) {
  return *this = mul(other);
}
CKKSVector& CKKSVector::mul_inplace(std::span<const double> plain) {
  return *this = mul(plain);
}
CKKSVector& CKKSVector::mul_inplace(double scalar) {
  return *this = mul(scalar);
}

}  // namespace heft::tensor

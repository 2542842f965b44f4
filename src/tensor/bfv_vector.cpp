// BFVVector: encryption, decryption and the element-wise operations
// (reductions, polynomials and matrix products are in bfv_vector_products.cpp).
#include "heft/tensor/bfv_vector.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "heft/util/error.hpp"
#include "tensor/chunks.hpp"
#include "tensor/messages.hpp"
#include "tensor/power_tree.hpp"

namespace heft::tensor {

using rlwe::Ciphertext;

BFVVector::BFVVector(TensorContext::Ptr context, std::vector<Ciphertext> chunks, std::size_t size,
                     bool clean_padding)
    : context_(std::move(context)),
      chunks_(std::move(chunks)),
      size_(size),
      clean_padding_(clean_padding) {
  if (context_) context_->rerandomize_transparent(chunks_);  // docs/security.md
}

uint64_t BFVVector::reduce(int64_t value) const {
  const auto t = static_cast<int64_t>(context_->plain_modulus());
  const int64_t r = value % t;
  return static_cast<uint64_t>(r < 0 ? r + t : r);
}

std::vector<uint64_t> BFVVector::chunk_values(std::span<const int64_t> plain, std::size_t c) const {
  const std::size_t slots = context_->slot_count();
  const std::size_t begin = c * slots, count = std::min(slots, size_ - begin);
  std::vector<uint64_t> out(count);
  for (std::size_t i = 0; i < count; ++i)
    out[i] = reduce(plain[begin + i]);
  return out;
}

BFVVector BFVVector::encrypt(TensorContext::Ptr context, std::span<const int64_t> values) {
  constexpr const char* op = "BFVVector::encrypt";
  if (!context) throw InvalidArgument(std::string(op) + ": no context");
  if (values.empty()) throw InvalidArgument(std::string(op) + ": an empty vector");
  const auto& encoder = context->batch_encoder();
  const auto& encryptor = context->bfv_encryptor(op);
  BFVVector out(context, {}, values.size(), true);
  out.chunks_ = detail::map_chunks(
      detail::chunk_count(values.size(), context->slot_count()), [&](std::size_t c) {
        return encryptor.encrypt(encoder.encode(out.chunk_values(values, c)));
      });
  return out;
}

BFVVector BFVVector::copy() const {
  std::vector<Ciphertext> chunks;
  for (const auto& ct : chunks_)
    chunks.push_back(ct.clone());
  return {context_, std::move(chunks), size_, clean_padding_};
}

std::vector<int64_t> BFVVector::decrypt() const {
  return decrypt_with(nullptr);
}

std::vector<int64_t> BFVVector::decrypt(const rlwe::SecretKey& secret_key) const {
  return decrypt_with(&secret_key);
}

std::vector<int64_t> BFVVector::decrypt_with(const rlwe::SecretKey* secret_key) const {
  constexpr const char* op = "BFVVector::decrypt";
  require_valid(op);
  std::optional<bfv::Decryptor> own;  // with a key the caller kept aside
  const bfv::Decryptor& decryptor =
      secret_key ? own.emplace(*secret_key) : context_->bfv_decryptor(op);
  const auto& encoder = context_->batch_encoder();
  const std::size_t slots = context_->slot_count();
  std::vector<int64_t> out(size_);
  const auto fill = [&](std::size_t c) {
    // A spent noise budget decrypts to wrong values without a sign: refuse
    // instead (the budget is the client's own measurement; see
    // bfv/encryptor.hpp on not sharing it).
    if (decryptor.invariant_noise_budget(chunks_[c]) == 0)
      throw NoiseBudgetError(std::string(op) + ": the noise has used up the budget of " +
                             (chunks_.size() == 1 ? std::string("the ciphertext")
                                                  : "ciphertext " + std::to_string(c)) +
                             ", so its values would be wrong (use a larger coefficient modulus, "
                             "a smaller plain modulus or fewer multiplications)");
    const auto values = encoder.decode_signed(decryptor.decrypt(chunks_[c]));
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

void BFVVector::require_valid(const char* operation) const {
  if (!context_ || chunks_.empty())
    throw InvalidArgument(std::string(operation) + ": an empty BFVVector (encrypt one first)");
}

void BFVVector::require_compatible(const BFVVector& other, const char* operation) const {
  require_valid(operation);
  other.require_valid(operation);
  detail::require_same_context(context_, other.context_, operation);
  detail::require_same_size(size_, other.size_, operation);
}

Ciphertext BFVVector::product(const Ciphertext& a, const Ciphertext& b,
                              const char* operation) const {
  const auto& evaluator = context_->bfv_evaluator();
  if (!context_->auto_relin()) return evaluator.multiply(a, b);
  return evaluator.multiply(a, b, context_->relin_key(operation));
}

Ciphertext BFVVector::power(const Ciphertext& x, unsigned k, const char* operation) const {
  return detail::power_tree(
      x, k, [&](const Ciphertext& a, const Ciphertext& b) { return product(a, b, operation); });
}

BFVVector BFVVector::add_or_sub(const BFVVector& other, bool subtract,
                                const char* operation) const {
  require_compatible(other, operation);
  const auto& evaluator = context_->bfv_evaluator();
  auto chunks = detail::map_chunks(chunks_.size(), [&](std::size_t c) {
    return subtract ? evaluator.sub(chunks_[c], other.chunks_[c])
                    : evaluator.add(chunks_[c], other.chunks_[c]);
  });
  return {context_, std::move(chunks), size_, clean_padding_ && other.clean_padding_};
}

BFVVector BFVVector::add_or_sub(std::span<const int64_t> plain, bool subtract,
                                const char* operation) const {
  require_valid(operation);
  detail::require_same_size(size_, plain.size(), operation);
  const auto& evaluator = context_->bfv_evaluator();
  const auto& encoder = context_->batch_encoder();
  auto chunks = detail::map_chunks(chunks_.size(), [&](std::size_t c) {
    const auto p = encoder.encode(chunk_values(plain, c));
    return subtract ? evaluator.sub_plain(chunks_[c], p) : evaluator.add_plain(chunks_[c], p);
  });
  return {context_, std::move(chunks), size_, clean_padding_};
}

BFVVector BFVVector::add(const BFVVector& other) const {
  return add_or_sub(other, false, "BFVVector::add");
}
BFVVector BFVVector::sub(const BFVVector& other) const {
  return add_or_sub(other, true, "BFVVector::sub");
}
BFVVector BFVVector::add(std::span<const int64_t> plain) const {
  return add_or_sub(plain, false, "BFVVector::add");
}
BFVVector BFVVector::sub(std::span<const int64_t> plain) const {
  return add_or_sub(plain, true, "BFVVector::sub");
}
// Scalars go into the vector's own slots only (the padding keeps its zeros).
BFVVector BFVVector::add(int64_t scalar) const {
  return add_or_sub(std::vector<int64_t>(size_, scalar), false, "BFVVector::add");
}
BFVVector BFVVector::sub(int64_t scalar) const {
  return add_or_sub(std::vector<int64_t>(size_, scalar), true, "BFVVector::sub");
}

BFVVector BFVVector::mul(const BFVVector& other) const {
  constexpr const char* op = "BFVVector::mul";
  require_compatible(other, op);
  auto chunks = detail::map_chunks(
      chunks_.size(), [&](std::size_t c) { return product(chunks_[c], other.chunks_[c], op); });
  return {context_, std::move(chunks), size_, clean_padding_ || other.clean_padding_};
}

BFVVector BFVVector::mul(std::span<const int64_t> plain) const {
  constexpr const char* op = "BFVVector::mul";
  require_valid(op);
  detail::require_same_size(size_, plain.size(), op);
  const auto& evaluator = context_->bfv_evaluator();
  const auto& encoder = context_->batch_encoder();
  auto chunks = detail::map_chunks(chunks_.size(), [&](std::size_t c) {
    return evaluator.multiply_plain(chunks_[c], encoder.encode(chunk_values(plain, c)));
  });
  return {context_, std::move(chunks), size_, true};
}

BFVVector BFVVector::mul(int64_t scalar) const {
  require_valid("BFVVector::mul");
  const auto& evaluator = context_->bfv_evaluator();
  const uint64_t value = reduce(scalar);
  auto chunks = detail::map_chunks(
      chunks_.size(), [&](std::size_t c) { return evaluator.multiply_scalar(chunks_[c], value); });
  return {context_, std::move(chunks), size_, clean_padding_};
}

BFVVector BFVVector::negate() const {
  require_valid("BFVVector::negate");
  const auto& evaluator = context_->bfv_evaluator();
  auto chunks = detail::map_chunks(chunks_.size(),
                                   [&](std::size_t c) { return evaluator.negate(chunks_[c]); });
  return {context_, std::move(chunks), size_, clean_padding_};
}

BFVVector BFVVector::square() const {
  constexpr const char* op = "BFVVector::square";
  require_valid(op);
  auto chunks = detail::map_chunks(
      chunks_.size(), [&](std::size_t c) { return product(chunks_[c], chunks_[c], op); });
  return {context_, std::move(chunks), size_, clean_padding_};
}

BFVVector BFVVector::pow(unsigned k) const {
  constexpr const char* op = "BFVVector::pow";
  require_valid(op);
  if (k == 0) return mul(int64_t{0}).add(int64_t{1});  // TenSEAL's pow(0): ones
  auto chunks =
      detail::map_chunks(chunks_.size(), [&](std::size_t c) { return power(chunks_[c], k, op); });
  return {context_, std::move(chunks), size_, clean_padding_};
}

BFVVector& BFVVector::add_inplace(const BFVVector& other) {
  return *this = add(other);
}
BFVVector& BFVVector::add_inplace(std::span<const int64_t> plain) {
  return *this = add(plain);
}
BFVVector& BFVVector::add_inplace(int64_t scalar) {
  return *this = add(scalar);
}
BFVVector& BFVVector::sub_inplace(const BFVVector& other) {
  return *this = sub(other);
}
BFVVector& BFVVector::sub_inplace(std::span<const int64_t> plain) {
  return *this = sub(plain);
}
BFVVector& BFVVector::sub_inplace(int64_t scalar) {
  return *this = sub(scalar);
}
BFVVector& BFVVector::mul_inplace(const BFVVector& other) {
  return *this = mul(other);
}
BFVVector& BFVVector::mul_inplace(std::span<const int64_t> plain) {
  return *this = mul(plain);
}
BFVVector& BFVVector::mul_inplace(int64_t scalar) {
  return *this = mul(scalar);
}

}  // namespace heft::tensor

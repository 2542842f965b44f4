// serialize / load of CKKSVector and BFVVector: the layer's header (size,
// whether the padding is zero, ciphertext count), then each ciphertext as a
// frame of heft's rlwe serialization.
#include <string>

#include "heft/tensor/bfv_vector.hpp"
#include "heft/tensor/ckks_vector.hpp"
#include "tensor/bfv_vector_ops.hpp"
#include "tensor/chunks.hpp"
#include "tensor/ckks_vector_ops.hpp"
#include "tensor/envelope.hpp"

namespace heft::tensor {

namespace {

constexpr detail::Magic kCkksMagic = {'H', 'E', 'F', 'T', 'C', 'K', 'V', 'C'};
constexpr detail::Magic kBfvMagic = {'H', 'E', 'F', 'T', 'B', 'F', 'V', 'V'};
constexpr uint16_t kVersion = 1;

rlwe::Bytes save_vector(const detail::Magic& magic, const TensorContext& context,
                        const std::vector<rlwe::Ciphertext>& chunks, std::size_t size, bool clean,
                        const rlwe::SaveOptions& options) {
  detail::EnvelopeWriter out(magic, kVersion);
  out.u64(size);
  out.u8(clean ? 1 : 0);
  out.u64(chunks.size());
  for (const auto& ct : chunks)
    out.frame(rlwe::save(*context.rlwe_context(), ct, options));
  return out.take();
}

struct LoadedVector {
  std::vector<rlwe::Ciphertext> chunks;
  std::size_t size = 0;
  bool clean = true;
};

// The ciphertexts, checked against the size and each other: one per
// slot_count values, 2 parts each (CKKS: fully packed), one level.
LoadedVector load_vector(const detail::Magic& magic, const char* what, const TensorContext& context,
                         std::span<const uint8_t> bytes, const rlwe::LoadOptions& options) {
  detail::EnvelopeReader in(bytes, magic, kVersion, what);
  LoadedVector out;
  out.size = in.u64();
  const uint8_t clean = in.u8();
  const uint64_t count = in.u64();
  if (clean > 1) in.fail("bad padding flag");
  if (out.size == 0 || count != detail::chunk_count(out.size, context.slot_count()))
    in.fail("the ciphertext count does not fit the size");
  out.clean = clean == 1;
  for (uint64_t c = 0; c < count; ++c) {
    auto ct = rlwe::load_ciphertext(context.rlwe_context(), in.frame(options), options);
    if (ct.size() != 2) in.fail("a ciphertext that is not 2 parts");
    // CKKS vectors pack every ciphertext fully (N/2 slots).
    if (context.scheme() == Scheme::ckks && ct.slots != context.slot_count())
      in.fail("a ciphertext that is not fully packed");
    if (!out.chunks.empty() && ct.level() != out.chunks[0].level())
      in.fail("ciphertexts at different levels");
    out.chunks.push_back(std::move(ct));
  }
  in.finish();
  return out;
}

}  // namespace

rlwe::Bytes CKKSVector::serialize(const rlwe::SaveOptions& options) const {
  require_valid("CKKSVector::serialize");
  return save_vector(kCkksMagic, *context_, chunks_, size_, clean_padding_, options);
}

CKKSVector CKKSVector::load(TensorContext::Ptr context, std::span<const uint8_t> bytes,
                            const rlwe::LoadOptions& options) {
  if (!context) throw InvalidArgument("CKKSVector::load: no context");
  (void)context->ckks_encoder();  // a CKKS context
  auto loaded = load_vector(kCkksMagic, "CKKSVector", *context, bytes, options);
  return CKKSVectorOps::make(std::move(context), std::move(loaded.chunks), loaded.size,
                             loaded.clean);
}

rlwe::Bytes BFVVector::serialize(const rlwe::SaveOptions& options) const {
  require_valid("BFVVector::serialize");
  return save_vector(kBfvMagic, *context_, chunks_, size_, clean_padding_, options);
}

BFVVector BFVVector::load(TensorContext::Ptr context, std::span<const uint8_t> bytes,
                          const rlwe::LoadOptions& options) {
  if (!context) throw InvalidArgument("BFVVector::load: no context");
  (void)context->batch_encoder();  // a BFV context
  auto loaded = load_vector(kBfvMagic, "BFVVector", *context, bytes, options);
  return BFVVectorOps::make(std::move(context), std::move(loaded.chunks), loaded.size,
                            loaded.clean);
}

}  // namespace heft::tensor

// serialize / load of the encrypted tensors (CKKSTensor, BFVTensor): the
// layer's header (shape, whether the padding is zero, ciphertext count),
// then each ciphertext as a frame of heft's rlwe serialization
// (docs/format.md, "Tensor objects"). Loading checks the shape against the
// context before reading any ciphertext.
#include "tensor/tensor_frames.hpp"

#include <string>

#include "heft/tensor/bfv_tensor.hpp"
#include "heft/tensor/ckks_tensor.hpp"
#include "heft/util/parallel.hpp"

namespace heft::tensor {

namespace detail {

namespace {

// More axes than any network needs; bounds what a header can ask for.
constexpr uint64_t kMaxRank = 16;

}  // namespace

rlwe::Bytes write_tensor(const Magic& magic, uint16_t version, const TensorContext& context,
                         const Shape& shape, bool clean_padding,
                         const std::vector<rlwe::Ciphertext>& elements,
                         const rlwe::SaveOptions& options) {
  EnvelopeWriter out(magic, version);
  out.u64(shape.size());
  for (const std::size_t d : shape)
    out.u64(d);
  out.u8(clean_padding ? 1 : 0);
  out.u64(elements.size());
  for (const auto& ct : elements)
    out.frame(rlwe::save(*context.rlwe_context(), ct, options));
  return out.take();
}

TensorParts read_tensor(const Magic& magic, uint16_t version, const char* what,
                        const TensorContext& context, std::span<const uint8_t> bytes,
                        const rlwe::LoadOptions& options) {
  EnvelopeReader in(bytes, magic, version, what);
  const uint64_t rank = in.u64();
  if (rank == 0 || rank > kMaxRank) in.fail("a rank of " + std::to_string(rank));
  TensorParts parts;
  uint64_t elements = 1;
  for (uint64_t axis = 0; axis < rank; ++axis) {
    const uint64_t d = in.u64();
    if (d == 0) in.fail("an axis of length 0");
    // The batch runs along the slots; the other axes count ciphertexts,
    // each at least a frame header long, so no more than the bytes given.
    if (axis == 0 && d > context.slot_count()) in.fail("a batch longer than the slots");
    if (axis > 0) {
      if (d > bytes.size() || elements * d > bytes.size()) in.fail("more ciphertexts than bytes");
      elements *= d;
    }
    parts.shape.push_back(static_cast<std::size_t>(d));
  }
  const uint8_t clean = in.u8();
  if (clean > 1) in.fail("bad padding flag");
  parts.clean_padding = clean == 1;
  if (in.u64() != elements) in.fail("the ciphertext count does not fit the shape");
  // The frames in order, then the ciphertexts decoded in parallel (a batch
  // of images is hundreds of them).
  std::vector<std::span<const uint8_t>> frames;
  for (uint64_t e = 0; e < elements; ++e)
    frames.push_back(in.frame(options));
  in.finish();
  parts.elements.resize(frames.size());
  parallel_for(0, frames.size(), [&](std::size_t e) {
    parts.elements[e] = rlwe::load_ciphertext(context.rlwe_context(), frames[e], options);
  });
  for (const auto& ct : parts.elements) {
    if (ct.size() != 2) in.fail("a ciphertext that is not 2 parts");
    if (ct.level() != parts.elements[0].level()) in.fail("ciphertexts at different levels");
  }
  return parts;
}

}  // namespace detail

namespace {

constexpr detail::Magic kCkksMagic = {'H', 'E', 'F', 'T', 'C', 'K', 'T', 'N'};
constexpr detail::Magic kBfvMagic = {'H', 'E', 'F', 'T', 'B', 'F', 'T', 'N'};
constexpr uint16_t kVersion = 1;

}  // namespace

rlwe::Bytes CKKSTensor::serialize(const rlwe::SaveOptions& options) const {
  require_valid("CKKSTensor::serialize");
  return detail::write_tensor(kCkksMagic, kVersion, *context_, shape_, clean_padding_, elements_,
                              options);
}

CKKSTensor CKKSTensor::load(TensorContext::Ptr context, std::span<const uint8_t> bytes,
                            const rlwe::LoadOptions& options) {
  if (!context) throw InvalidArgument("CKKSTensor::load: no context");
  (void)context->ckks_encoder();  // a CKKS context
  auto parts = detail::read_tensor(kCkksMagic, kVersion, "CKKSTensor", *context, bytes, options);
  return {std::move(context), std::move(parts.elements), std::move(parts.shape),
          parts.clean_padding};
}

rlwe::Bytes BFVTensor::serialize(const rlwe::SaveOptions& options) const {
  require_valid("BFVTensor::serialize");
  return detail::write_tensor(kBfvMagic, kVersion, *context_, shape_, clean_padding_, elements_,
                              options);
}

BFVTensor BFVTensor::load(TensorContext::Ptr context, std::span<const uint8_t> bytes,
                          const rlwe::LoadOptions& options) {
  if (!context) throw InvalidArgument("BFVTensor::load: no context");
  (void)context->batch_encoder();  // a BFV context
  auto parts = detail::read_tensor(kBfvMagic, kVersion, "BFVTensor", *context, bytes, options);
  return {std::move(context), std::move(parts.elements), std::move(parts.shape),
          parts.clean_padding};
}

}  // namespace heft::tensor

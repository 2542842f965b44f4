// serialize / load of CKKSTensor: the layer's header (shape, whether the
// padding is zero, ciphertext count), then each ciphertext as a frame of
// heft's rlwe serialization (docs/format.md, "Tensor objects"). Loading
// checks the shape against the context before reading any ciphertext.
#include <string>

#include "heft/tensor/ckks_tensor.hpp"
#include "heft/util/parallel.hpp"
#include "tensor/envelope.hpp"

namespace heft::tensor {

namespace {

constexpr detail::Magic kMagic = {'H', 'E', 'F', 'T', 'C', 'K', 'T', 'N'};
constexpr uint16_t kVersion = 1;
// More axes than any network needs; bounds what a header can ask for.
constexpr uint64_t kMaxRank = 16;

}  // namespace

rlwe::Bytes CKKSTensor::serialize(const rlwe::SaveOptions& options) const {
  require_valid("CKKSTensor::serialize");
  detail::EnvelopeWriter out(kMagic, kVersion);
  out.u64(shape_.size());
  for (const std::size_t d : shape_)
    out.u64(d);
  out.u8(clean_padding_ ? 1 : 0);
  out.u64(elements_.size());
  for (const auto& ct : elements_)
    out.frame(rlwe::save(*context_->rlwe_context(), ct, options));
  return out.take();
}

CKKSTensor CKKSTensor::load(TensorContext::Ptr context, std::span<const uint8_t> bytes,
                            const rlwe::LoadOptions& options) {
  if (!context) throw InvalidArgument("CKKSTensor::load: no context");
  (void)context->ckks_encoder();  // a CKKS context
  detail::EnvelopeReader in(bytes, kMagic, kVersion, "CKKSTensor");
  const uint64_t rank = in.u64();
  if (rank == 0 || rank > kMaxRank) in.fail("a rank of " + std::to_string(rank));
  Shape shape;
  uint64_t elements = 1;
  for (uint64_t axis = 0; axis < rank; ++axis) {
    const uint64_t d = in.u64();
    if (d == 0) in.fail("an axis of length 0");
    // The batch runs along the slots; the other axes count ciphertexts,
    // each at least a frame header long, so no more than the bytes given.
    if (axis == 0 && d > context->slot_count()) in.fail("a batch longer than the slots");
    if (axis > 0) {
      if (d > bytes.size() || elements * d > bytes.size()) in.fail("more ciphertexts than bytes");
      elements *= d;
    }
    shape.push_back(static_cast<std::size_t>(d));
  }
  const uint8_t clean = in.u8();
  if (clean > 1) in.fail("bad padding flag");
  if (in.u64() != elements) in.fail("the ciphertext count does not fit the shape");
  // The frames in order, then the ciphertexts decoded in parallel (a batch
  // of images is hundreds of them).
  std::vector<std::span<const uint8_t>> frames;
  for (uint64_t e = 0; e < elements; ++e)
    frames.push_back(in.frame(options));
  in.finish();
  std::vector<rlwe::Ciphertext> cts(frames.size());
  parallel_for(0, frames.size(), [&](std::size_t e) {
    cts[e] = rlwe::load_ciphertext(context->rlwe_context(), frames[e], options);
  });
  for (const auto& ct : cts) {
    if (ct.size() != 2) in.fail("a ciphertext that is not 2 parts");
    if (ct.level() != cts[0].level()) in.fail("ciphertexts at different levels");
  }
  return {std::move(context), std::move(cts), std::move(shape), clean == 1};
}

}  // namespace heft::tensor

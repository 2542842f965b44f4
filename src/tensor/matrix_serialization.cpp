// serialize / load of CKKSMatrix: the layer's header (rows, columns, block
// size, ciphertext count), then each block as a frame of heft's rlwe
// serialization (docs/format.md, "Tensor objects").
#include <bit>
#include <string>

#include "heft/tensor/ckks_matrix.hpp"
#include "tensor/envelope.hpp"

namespace heft::tensor {

namespace {

constexpr detail::Magic kMagic = {'H', 'E', 'F', 'T', 'C', 'K', 'M', 'X'};
constexpr uint16_t kVersion = 1;

}  // namespace

rlwe::Bytes CKKSMatrix::serialize(const rlwe::SaveOptions& options) const {
  require_valid("CKKSMatrix::serialize");
  detail::EnvelopeWriter out(kMagic, kVersion);
  out.u64(rows_);
  out.u64(cols_);
  out.u64(block_);
  out.u64(blocks_.size());
  for (const auto& ct : blocks_)
    out.frame(rlwe::save(*context_->rlwe_context(), ct, options));
  return out.take();
}

CKKSMatrix CKKSMatrix::load(TensorContext::Ptr context, std::span<const uint8_t> bytes,
                            const rlwe::LoadOptions& options) {
  if (!context) throw InvalidArgument("CKKSMatrix::load: no context");
  (void)context->ckks_encoder();  // a CKKS context
  detail::EnvelopeReader in(bytes, kMagic, kVersion, "CKKSMatrix");
  const uint64_t rows = in.u64(), cols = in.u64(), block = in.u64(), count = in.u64();
  const std::size_t slots = context->slot_count();
  if (block == 0 || !std::has_single_bit(block) || block > slots / block)
    in.fail("a block size that is not a power of two whose square fits the slots");
  // Checked against the bytes before the product can overflow or allocate.
  if (rows == 0 || cols == 0 || rows > bytes.size() * block || cols > bytes.size() * block)
    in.fail("a matrix shape that does not fit the bytes");
  if (count != ((rows + block - 1) / block) * ((cols + block - 1) / block))
    in.fail("the ciphertext count does not fit the shape");
  std::vector<rlwe::Ciphertext> blocks;
  for (uint64_t c = 0; c < count; ++c) {
    auto ct = rlwe::load_ciphertext(context->rlwe_context(), in.frame(options), options);
    if (ct.size() != 2) in.fail("a ciphertext that is not 2 parts");
    if (ct.slots != slots) in.fail("a ciphertext that is not fully packed");
    if (!blocks.empty() && ct.level() != blocks[0].level())
      in.fail("ciphertexts at different levels");
    blocks.push_back(std::move(ct));
  }
  in.finish();
  return {std::move(context), std::move(blocks), rows, cols, block};
}

}  // namespace heft::tensor

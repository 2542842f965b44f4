// CKKSVector: rotations of the vector's own values and slices, both as one
// gather that keeps the data encrypted. Output value p comes from input value
// (p + offset) mod size(); each output ciphertext is a sum of input
// ciphertexts rotated by whole slot steps and masked to the output slots
// they fill. A rotation by the same step of the same input ciphertext serves
// every output run that needs it (once), and its mask is the union of those
// runs: a vector that fills its ciphertexts exactly and rotates within one of
// them needs no mask and no level.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "heft/tensor/ckks_vector.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "tensor/chunks.hpp"
#include "tensor/ckks_vector_ops.hpp"
#include "tensor/messages.hpp"

namespace heft::tensor {

using rlwe::Ciphertext;

namespace {

// One input ciphertext rotated left by `step` slots, kept where `mask` is 1.
struct Source {
  std::size_t chunk = 0;
  std::size_t step = 0;  // in [0, slots)
  std::vector<double> mask;
};

// For each output ciphertext of an `out_size`-value gather from `in_size`
// values, `slots` per ciphertext: the rotated input ciphertexts it sums.
std::vector<std::vector<Source>> plan_gather(std::size_t in_size, std::size_t out_size,
                                             std::size_t offset, std::size_t slots) {
  std::vector<std::vector<Source>> plan(detail::chunk_count(out_size, slots));
  for (std::size_t c = 0; c < plan.size(); ++c) {
    std::map<std::pair<std::size_t, std::size_t>, std::vector<double>> masks;
    const std::size_t begin = c * slots, end = std::min(out_size, begin + slots);
    for (std::size_t p = begin; p < end;) {
      // A run: consecutive outputs whose inputs are consecutive slots of one
      // ciphertext (it ends at that ciphertext's end or at the wrap).
      const std::size_t s = (p + offset) % in_size;
      const std::size_t run = std::min({end - p, slots - s % slots, in_size - s});
      const std::size_t out_slot = p - begin, in_slot = s % slots;
      const std::size_t step = (in_slot + slots - out_slot) % slots;
      auto& mask = masks[{s / slots, step}];
      if (mask.empty()) mask.assign(slots, 0.0);
      std::fill_n(mask.begin() + static_cast<std::ptrdiff_t>(out_slot), run, 1.0);
      p += run;
    }
    for (auto& [source, mask] : masks)
      plan[c].push_back({source.first, source.second, std::move(mask)});
  }
  return plan;
}

bool all_ones(const std::vector<double>& mask) {
  return std::all_of(mask.begin(), mask.end(), [](double v) { return v == 1.0; });
}

}  // namespace

CKKSVector CKKSVector::gather(std::size_t out_size, std::size_t offset,
                              const char* operation) const {
  require_valid(operation);
  const std::size_t slots = context_->slot_count();
  const auto plan = plan_gather(size_, out_size, offset, slots);
  std::vector<std::pair<std::size_t, std::size_t>> rotations;  // distinct (chunk, step)
  std::vector<int64_t> steps;
  bool masked = false;
  for (const auto& sources : plan) {
    for (const Source& source : sources) {
      rotations.emplace_back(source.chunk, source.step);
      if (source.step != 0) steps.push_back(static_cast<int64_t>(source.step));
      masked = masked || !all_ones(source.mask);
    }
  }
  std::sort(rotations.begin(), rotations.end());
  rotations.erase(std::unique(rotations.begin(), rotations.end()), rotations.end());
  // Every check before any work: the keys, then a level for the masks.
  if (!steps.empty()) context_->require_rotations(steps, false, operation);
  if (masked) detail::require_levels(1, level(), operation);

  const auto& evaluator = context_->ckks_evaluator();
  std::vector<Ciphertext> rotated(rotations.size());
  parallel_for(0, rotations.size(), [&](std::size_t r) {
    const auto [chunk, step] = rotations[r];
    Ciphertext x = chunks_[chunk].clone();
    if (masked && x.needs_rescale && x.level() > 0) x = evaluator.rescale(x);
    rotated[r] = step == 0 ? std::move(x)
                           : evaluator.rotate(x, static_cast<int64_t>(step),
                                              context_->galois_keys(operation));
  });
  const auto find = [&](const Source& source) -> const Ciphertext& {
    const auto it = std::lower_bound(rotations.begin(), rotations.end(),
                                     std::make_pair(source.chunk, source.step));
    return rotated[static_cast<std::size_t>(it - rotations.begin())];
  };
  auto chunks = detail::map_chunks(plan.size(), [&](std::size_t c) {
    Ciphertext sum;
    for (const Source& source : plan[c]) {
      const Ciphertext& x = find(source);
      Ciphertext term;
      if (masked) {
        // Masks at scale q_l, so that the rescale restores the scale (as
        // with_zero_padding's); an all-ones mask keeps every ciphertext at
        // one level.
        const std::size_t level = x.level();
        const auto q =
            static_cast<double>(context_->rlwe_context()->parameters().ciphertext_moduli[level]);
        term = evaluator.rescale(
            evaluator.multiply_plain(x, context_->ckks_encoder().encode(source.mask, q, level)));
      } else {
        term = x.clone();
      }
      if (sum.parts.empty()) {
        sum = std::move(term);
      } else {
        evaluator.add_inplace(sum, term);
      }
    }
    return sum;
  });
  // Without masks every output ciphertext is one whole input ciphertext
  // rotated within itself: its padding is the input's.
  return {context_, std::move(chunks), out_size, masked || clean_padding_};
}

CKKSVector CKKSVector::rotate(int64_t steps) const {
  constexpr const char* op = "CKKSVector::rotate";
  require_valid(op);
  const auto n = static_cast<int64_t>(size_);
  const auto offset = static_cast<std::size_t>(((steps % n) + n) % n);
  return gather(size_, offset, op);
}

CKKSVector CKKSVector::slice(std::size_t begin, std::size_t end) const {
  constexpr const char* op = "CKKSVector::slice";
  require_valid(op);
  if (begin >= end || end > size_) {
    throw InvalidArgument(std::string(op) + ": [" + std::to_string(begin) + ", " +
                          std::to_string(end) + ") is not a non-empty range of the " +
                          std::to_string(size_) + " values");
  }
  return gather(end - begin, begin, op);
}

CKKSVector CKKSVector::truncated(std::size_t size) const {
  constexpr const char* op = "CKKSVector::truncated";
  require_valid(op);
  if (size == 0 || size > size_) {
    throw InvalidArgument(std::string(op) + ": " + std::to_string(size) + " is not a size in [1, " +
                          std::to_string(size_) + "]");
  }
  const std::size_t count = detail::chunk_count(size, context_->slot_count());
  std::vector<Ciphertext> chunks;
  for (std::size_t c = 0; c < count; ++c)
    chunks.push_back(chunks_[c].clone());
  return {context_, std::move(chunks), size, clean_padding_ && size == size_};
}

}  // namespace heft::tensor

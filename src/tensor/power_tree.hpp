// x^k in the fewest levels: the repeated squares x^(2^i) for the bits of k,
// then multiplied two at a time, shallowest first, so the depth is
// ceil(log2 k) (Huffman's merge on depths). Shared by CKKSVector and
// BFVVector.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <queue>
#include <vector>

#include "heft/rlwe/ciphertext.hpp"

namespace heft::tensor::detail {

struct PowerFactor {
  std::size_t depth;
  std::size_t index;  // into the factors' storage
  bool operator>(const PowerFactor& other) const { return depth > other.depth; }
};

// The products in sequence power_tree takes for k >= 1.
inline std::size_t power_depth(unsigned k) {
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> depths;
  for (std::size_t bit = 0; (k >> bit) != 0; ++bit)
    if ((k >> bit) & 1u) depths.push(bit);
  while (depths.size() > 1) {
    const std::size_t a = depths.top();
    depths.pop();
    const std::size_t b = depths.top();
    depths.pop();
    depths.push(std::max(a, b) + 1);
  }
  return depths.top();
}

// x^k for k >= 1; multiply(a, b) is the scheme's product.
template <class Multiply>
rlwe::Ciphertext power_tree(const rlwe::Ciphertext& x, unsigned k, const Multiply& multiply) {
  std::vector<rlwe::Ciphertext> storage;
  std::priority_queue<PowerFactor, std::vector<PowerFactor>, std::greater<>> factors;
  rlwe::Ciphertext square = x.clone();
  for (std::size_t bit = 0; (k >> bit) != 0; ++bit) {
    if (bit) square = multiply(square, square);
    if ((k >> bit) & 1u) {
      factors.push({bit, storage.size()});
      storage.push_back(square.clone());
    }
  }
  while (factors.size() > 1) {
    const PowerFactor a = factors.top();
    factors.pop();
    const PowerFactor b = factors.top();
    factors.pop();
    storage[a.index] = multiply(storage[a.index], storage[b.index]);
    factors.push({std::max(a.depth, b.depth) + 1, a.index});
  }
  return std::move(storage[factors.top().index]);
}

}  // namespace heft::tensor::detail

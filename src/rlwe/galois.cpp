// Galois automorphisms of ciphertexts for every scheme (galois.hpp).
#include "rlwe/galois.hpp"

#include <string>
#include <utility>

#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "rlwe/operand_checks.hpp"

namespace heft::rlwe {
namespace {

// Automorphisms whose inner products share one pass over a decomposition
// (rlwe::inner_products). More share the digits' reads more widely but hold
// more products at once (two polynomials over Q*P each).
constexpr std::size_t kKeysPerInnerProductPass = 8;

// The keys of the group of terms keyed[first ...] (at most
// kKeysPerInnerProductPass of them); elements[j]: term j's Galois element.
std::vector<const KeySwitchKey*> key_group(std::span<const std::size_t> keyed, std::size_t first,
                                           std::span<const uint64_t> elements,
                                           const GaloisKeys& keys) {
  std::vector<const KeySwitchKey*> group;
  for (std::size_t k = first; k < keyed.size() && group.size() < kKeysPerInnerProductPass; ++k)
    group.push_back(&keys.at(elements[keyed[k]]));
  return group;
}

// The ciphertext (c0, c1) with a's metadata.
Ciphertext with_parts(const Ciphertext& a, std::array<ring::RnsPoly, 2> parts) {
  Ciphertext out = Ciphertext::with_metadata(a);
  out.parts.push_back(std::move(parts[0]));
  out.parts.push_back(std::move(parts[1]));
  return out;
}

// Every key of `elements` present (element 1 needs none), before any work.
void require_keys(const GaloisKeys& keys, std::span<const uint64_t> elements,
                  const char* operation) {
  for (const uint64_t g : elements) {
    if (g != 1) (void)keys.at(g, operation);
  }
}

}  // namespace

void require_galois_operands(const Context& context, const Ciphertext& a, const GaloisKeys& keys,
                             const char* operation) {
  require_ciphertext(context, a, operation);
  detail::require_relinearized(a, operation);
  detail::require_galois_keys(context, keys, operation);
}

const KeySwitchKey& conjugation_key(const Context& context, const GaloisKeys& keys,
                                    const char* operation) {
  const uint64_t g = context.conjugation_galois_element();
  if (!keys.has(g)) {
    throw InvalidArgument(std::string(operation) + ": no conjugation key (Galois element " +
                          std::to_string(g) +
                          "); generate it with KeyGenerator::create_galois_keys(steps, "
                          "include_conjugation = true)");
  }
  return keys.at(g);
}

Ciphertext apply_galois_sequence(const Context& context, const Ciphertext& a,
                                 std::span<const uint64_t> sequence, const GaloisKeys& keys,
                                 const char* operation) {
  require_keys(keys, sequence, operation);
  Ciphertext out;
  const Ciphertext* from = &a;
  for (const uint64_t g : sequence) {
    if (g == 1) continue;
    out = with_parts(*from, apply_galois(context, from->parts[0], from->parts[1], keys.at(g)));
    from = &out;
  }
  return from == &a ? a.clone() : std::move(out);
}

std::vector<Ciphertext> apply_galois_hoisted(const Context& context, const Ciphertext& a,
                                             std::span<const std::vector<uint64_t>> sequences,
                                             const GaloisKeys& keys, const char* operation) {
  // The first automorphism of each sequence shares the decomposition;
  // element 1 (the identity) takes none.
  std::vector<uint64_t> firsts;
  for (const auto& sequence : sequences) {
    require_keys(keys, sequence, operation);
    std::size_t i = 0;
    while (i < sequence.size() && sequence[i] == 1)
      ++i;
    firsts.push_back(i < sequence.size() ? sequence[i] : 1);
  }
  std::vector<Ciphertext> out(sequences.size());
  std::vector<std::size_t> keyed;  // the sequences that take a key switch
  for (std::size_t i = 0; i < firsts.size(); ++i) {
    if (firsts[i] == 1) {
      out[i] = a.clone();
    } else {
      keyed.push_back(i);
    }
  }
  if (!keyed.empty()) {
    const DecomposedPoly digits = decompose(context, a.parts[1]);
    // The inner products of a group of automorphisms in one pass over the
    // digits, then each one's division by P and automorphism: independent,
    // the coarsest grain to spread over threads.
    for (std::size_t first = 0; first < keyed.size(); first += kKeysPerInnerProductPass) {
      const auto group = key_group(keyed, first, firsts, keys);
      auto products = inner_products(context, digits, group);
      parallel_for(0, group.size(), [&](std::size_t k) {
        out[keyed[first + k]] = with_parts(
            a, apply_galois_to_products(context, a.parts[0], std::move(products[k]), *group[k]));
      });
    }
  }
  // The rest of each sequence, after the element taken above.
  for (std::size_t i = 0; i < sequences.size(); ++i) {
    const auto& sequence = sequences[i];
    std::size_t start = 0;
    while (start < sequence.size() && sequence[start] == 1)
      ++start;
    if (start + 1 < sequence.size()) {
      out[i] = apply_galois_sequence(
          context, out[i], std::span<const uint64_t>(sequence).subspan(start + 1), keys, operation);
    }
  }
  return out;
}

std::array<ring::RnsPoly, 2> dot_galois_extended(const Context& context, const Ciphertext& a,
                                                 std::span<const uint64_t> elements,
                                                 std::span<const ExtendedPoly* const> diagonals,
                                                 const GaloisKeys& keys, const char* operation) {
  if (elements.empty() || elements.size() != diagonals.size()) {
    throw InvalidArgument(std::string(operation) +
                          ": needs one diagonal per term and at least one term (" +
                          std::to_string(elements.size()) + " terms, " +
                          std::to_string(diagonals.size()) + " diagonals)");
  }
  require_keys(keys, elements, operation);
  const std::size_t level = a.level();
  for (const ExtendedPoly* d : diagonals) {
    if (d == nullptr) throw InvalidArgument(std::string(operation) + ": a diagonal is null");
    if (d->q.tower_count() < level + 1) {
      throw MismatchError(
          std::string(operation) + ": a diagonal has " + std::to_string(d->q.tower_count()) +
          " ciphertext towers, fewer than the ciphertext's " + std::to_string(level + 1));
    }
    detail::require_extended(context, *d, d->q.tower_count(), operation, "a diagonal");
  }

  const DecomposedPoly digits = decompose(context, a.parts[1]);
  std::array<ExtendedPoly, 2> sum;
  for (auto& part : sum) {
    part.q = ring::RnsPoly(context.ciphertext_ring(), level + 1, ring::Form::ntt);
    part.p = ring::RnsPoly(context.special_ring(), context.special_count(), ring::Form::ntt);
  }
  // A copy of a diagonal's Q part cut to the ciphertext's towers, only when
  // it has more.
  const auto at_level = [&](const ExtendedPoly& d, ring::RnsPoly& cut) -> const ring::RnsPoly& {
    if (d.q.tower_count() <= level + 1) return d.q;
    cut = d.q.clone();
    cut.drop_last_towers(cut.tower_count() - level - 1);
    return cut;
  };
  // (P c0, P c1): the identity's term, and P c0 is also what every
  // automorphism's products take before their automorphism. With the Galois
  // keys stored as sigma^-1(k), an automorphism's image in QP is
  // sigma(products + (P c0, 0)) (rlwe::apply_galois_extended), and the
  // automorphism is taken in the same pass as the product with the diagonal,
  // so no image is ever stored. The inner products come a group of terms at
  // a time, from one pass over the digits (rlwe::inner_products).
  const auto lifted = lift_to_extended(context, a.parts[0], a.parts[1]);
  std::vector<std::size_t> keyed;  // the terms that take a key switch
  for (std::size_t j = 0; j < elements.size(); ++j) {
    if (elements[j] != 1) {
      keyed.push_back(j);
      continue;
    }
    ring::RnsPoly cut;
    const ring::RnsPoly& d_q = at_level(*diagonals[j], cut);
    for (std::size_t k = 0; k < 2; ++k) {
      sum[k].q.add_product(lifted[k].q, d_q);
      sum[k].p.add_product(lifted[k].p, diagonals[j]->p);
    }
  }
  for (std::size_t first = 0; first < keyed.size(); first += kKeysPerInnerProductPass) {
    const auto group = key_group(keyed, first, elements, keys);
    auto products = inner_products(context, digits, group);
    for (std::size_t k = 0; k < group.size(); ++k) {
      const std::size_t j = keyed[first + k];
      ring::RnsPoly cut;
      const ring::RnsPoly& d_q = at_level(*diagonals[j], cut);
      products[k][0].q += lifted[0].q;
      for (std::size_t part = 0; part < 2; ++part) {
        sum[part].q.add_product_automorphism(d_q, products[k][part].q, elements[j]);
        sum[part].p.add_product_automorphism(diagonals[j]->p, products[k][part].p, elements[j]);
      }
    }
  }
  // Divided by P with the keys' error scale (t for BGV keys), as a single
  // key switch would be.
  const uint64_t error_scale = keyed.empty() ? 1 : keys.at(elements[keyed[0]]).error_scale;
  return {mod_down(context, std::move(sum[0]), error_scale),
          mod_down(context, std::move(sum[1]), error_scale)};
}

}  // namespace heft::rlwe

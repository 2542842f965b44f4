// BFV evaluator: additions, plaintext products, the exact RNS product scaled
// by t/Q (see evaluator.hpp for the method and why), relinearization,
// row and column rotations and modulus switching.
#include "heft/schemes/bfv/evaluator.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <string>

#include "heft/math/kernels.hpp"
#include "heft/math/primes.hpp"
#include "heft/ring/poly_context.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/rlwe/modulus_switching.hpp"
#include "heft/rlwe/rotation_plan.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "rlwe/ciphertext_arithmetic.hpp"
#include "rlwe/galois.hpp"
#include "rlwe/operand_checks.hpp"
#include "rlwe/relinearization.hpp"
#include "schemes/common/plaintext_lift.hpp"

namespace heft::bfv {

// What multiplication at one level needs: the auxiliary ring R and the exact
// converters between Q_l and R (see evaluator.hpp for the method).
struct Evaluator::MultiplyTables {
  std::shared_ptr<const ring::PolyContext> aux;
  // The first operand's parts into R, exactly (centred).
  std::unique_ptr<ring::BaseConverter> q_to_r;
  // The second operand's b' = round(R b / Q_l) in R: [R b]_Q converted and
  // multiplied by -Q_l^-1 (R mod q_i and the factor folded into its constants).
  std::unique_ptr<ring::BaseConverter> scale_up;
  // b' back to Q_l, exactly (|b'| < R / 2).
  std::unique_ptr<ring::BaseConverter> r_to_q;
  // The rounding term of t d / R: -R^-1 [t d]_R in Q_l.
  std::unique_ptr<ring::BaseConverter> scale_down;
  std::vector<uint64_t> t_over_r_mod_q;  // t R^-1 mod q_i
};

namespace {

// Centred representative of c mod t as a residue modulo q (c < t).
uint64_t centered_mod(uint64_t c, uint64_t t, const math::Modulus& q) {
  return c > t / 2 ? q.negate(q.reduce(t - c)) : q.reduce(c);
}

}  // namespace

Evaluator::Evaluator(std::shared_ptr<const rlwe::Context> context)
    : context_(std::move(context)), t_(0) {
  if (!context_) throw InvalidArgument("bfv::Evaluator needs a context");
  t_ = schemes::require_plain_modulus(*context_, "bfv::Evaluator");
  tables_.resize(context_->level_count());
}

Evaluator::~Evaluator() = default;

const Evaluator::MultiplyTables& Evaluator::multiply_tables(std::size_t level) const {
  std::lock_guard lock(tables_mutex_);
  if (tables_[level]) return *tables_[level];
  const ring::RnsBase q_base = schemes::level_base(*context_, level);
  // R > 2 t N Q_l (see evaluator.hpp), with a bit to spare.
  int q_bits = 0;
  for (const auto& q : q_base.moduli())
    q_bits += q.bit_count();
  const int t_bits = 64 - std::countl_zero(t_);
  const int needed = q_bits + t_bits + context_->ciphertext_ring()->log_degree() + 3;
  // Primes below 2^50 when Q's are: every conversion into and out of R and
  // R's NTTs then take the kernels' double-precision paths, several times
  // cheaper per product than 60-bit integer arithmetic without a 64-bit vector
  // multiplier, which outweighs the extra tower or two. The same holds for
  // Q's primes up to 55 bits (SEAL's N = 32768 set) where the kernels have
  // AVX-512: conversions between them and 50-bit primes take floating-point
  // quotients both ways (avx512_weighted_sum_fp.hpp) and R's transforms take
  // IFMA where present, which outweighs the three towers more in R at
  // N = 32768. Otherwise the conversions
  // take the integer paths anyway; 59-bit primes keep R to about the fewest
  // towers, and the AVX2 integer sums take 16 products of operands up to 59
  // bits before reducing (against 8 at 60 bits), so with Q's primes at most
  // 59 bits a conversion from 15 primes plus its correction row is one pass.
  // R only changes the cost: the product is exact for any R > 2 t N Q_l.
  uint64_t widest_q = 0;
  for (const auto& q : q_base.moduli())
    widest_q = std::max(widest_q, q.value());
  const bool q_fits_doubles = widest_q < (uint64_t{1} << 50);
  const bool q_fits_fp_quotients =
      widest_q < (uint64_t{1} << 55) && math::active_isa() >= math::Isa::avx512;
  const int aux_bits = q_fits_doubles || q_fits_fp_quotients ? 50 : 59;
  const std::size_t count = static_cast<std::size_t>((needed + aux_bits - 2) / (aux_bits - 1));
  std::vector<uint64_t> exclude;
  for (uint64_t q : context_->parameters().ciphertext_moduli)
    exclude.push_back(q);
  for (uint64_t p : context_->parameters().special_moduli)
    exclude.push_back(p);
  exclude.push_back(t_);
  auto primes = math::generate_ntt_primes(aux_bits, context_->degree(), count, exclude);
  auto tables = std::make_unique<MultiplyTables>();
  ring::RnsBase r_base(primes);
  tables->aux = ring::PolyContext::create(context_->degree(), r_base);
  tables->q_to_r = std::make_unique<ring::BaseConverter>(q_base, r_base);
  tables->r_to_q = std::make_unique<ring::BaseConverter>(r_base, q_base);
  const std::vector<uint64_t> q_mod_r = r_base.decompose(q_base.product());
  const std::vector<uint64_t> r_mod_q = q_base.decompose(r_base.product());
  ring::BaseConverter::Scaling up{1, {}, r_mod_q};
  for (std::size_t j = 0; j < r_base.size(); ++j) {
    const math::Modulus& r = r_base[j];
    up.output_factors.push_back(r.negate(r.inverse(q_mod_r[j])));
  }
  ring::BaseConverter::Scaling down{t_, {}, {}};
  for (std::size_t i = 0; i < q_base.size(); ++i) {
    const math::Modulus& q = q_base[i];
    const uint64_t inv_r = q.inverse(r_mod_q[i]);
    down.output_factors.push_back(q.negate(inv_r));
    tables->t_over_r_mod_q.push_back(q.mul(q.reduce(t_), inv_r));
  }
  tables->scale_up = std::make_unique<ring::BaseConverter>(q_base, r_base, up);
  tables->scale_down = std::make_unique<ring::BaseConverter>(r_base, q_base, down);
  tables_[level] = std::move(tables);
  return *tables_[level];
}

void Evaluator::require_operand(const Ciphertext& a, const char* operation) const {
  rlwe::require_ciphertext(*context_, a, operation);
}

void Evaluator::require_same_level_operands(const Ciphertext& a, const Ciphertext& b,
                                            const char* operation) const {
  require_operand(a, operation);
  require_operand(b, operation);
  rlwe::detail::require_same_level(a.level(), b.level(), operation,
                                   "mod_switch_to_next the higher one first");
}

Ciphertext Evaluator::add_or_sub(const Ciphertext& a, const Ciphertext& b, bool subtract,
                                 const char* operation) const {
  require_same_level_operands(a, b, operation);
  Ciphertext out = rlwe::detail::sum_of_parts(a, b, subtract);  // one pass, no copy of a
  check_transparent(out, operation);
  return out;
}

Ciphertext Evaluator::add(const Ciphertext& a, const Ciphertext& b) const {
  return add_or_sub(a, b, false, "add");
}

Ciphertext Evaluator::sub(const Ciphertext& a, const Ciphertext& b) const {
  return add_or_sub(a, b, true, "sub");
}

Ciphertext Evaluator::negate(const Ciphertext& a) const {
  require_operand(a, "negate");
  return rlwe::detail::negated(a);
}

Ciphertext Evaluator::add_plain(const Ciphertext& a, const IntegerPlaintext& p) const {
  require_operand(a, "add_plain");
  schemes::require_integer_plaintext(*context_, p, "add_plain");
  Ciphertext out = a.clone();
  out.parts[0] += schemes::lift_scaled(*context_, p, a.level());
  return out;
}

Ciphertext Evaluator::sub_plain(const Ciphertext& a, const IntegerPlaintext& p) const {
  require_operand(a, "sub_plain");
  schemes::require_integer_plaintext(*context_, p, "sub_plain");
  Ciphertext out = a.clone();
  out.parts[0] -= schemes::lift_scaled(*context_, p, a.level());
  return out;
}

Ciphertext Evaluator::add_scalar(const Ciphertext& a, uint64_t value) const {
  require_operand(a, "add_scalar");
  schemes::require_below_plain_modulus(value, t_, "add_scalar", "the constant");
  // Delta * value is a constant polynomial: the same value at every NTT point.
  const std::vector<uint64_t> delta = schemes::delta_residues(*context_, a.level());
  Ciphertext out = a.clone();
  ring::RnsPoly& c0 = out.parts[0];
  for (std::size_t i = 0; i < c0.tower_count(); ++i) {
    const math::Modulus& q = c0.modulus(i);
    const uint64_t add = q.mul(delta[i], q.reduce(value));
    for (uint64_t& x : c0.tower(i))
      x = q.add(x, add);
  }
  return out;
}

Ciphertext Evaluator::multiply_plain(const Ciphertext& a, const IntegerPlaintext& p) const {
  require_operand(a, "multiply_plain");
  schemes::require_integer_plaintext(*context_, p, "multiply_plain");
  const ring::RnsPoly lifted = schemes::lift_centered(*context_, p, a.level());
  Ciphertext out = a.clone();
  for (auto& part : out.parts)
    part *= lifted;
  check_transparent(out, "multiply_plain");
  return out;
}

Ciphertext Evaluator::multiply_scalar(const Ciphertext& a, uint64_t value) const {
  require_operand(a, "multiply_scalar");
  schemes::require_below_plain_modulus(value, t_, "multiply_scalar", "the constant");
  Ciphertext out = a.clone();
  std::vector<uint64_t> scalars(a.level() + 1);
  for (std::size_t i = 0; i < scalars.size(); ++i)
    scalars[i] = centered_mod(value, t_, out.parts[0].modulus(i));
  for (auto& part : out.parts)
    part.multiply_scalar(scalars);
  check_transparent(out, "multiply_scalar");
  return out;
}

Ciphertext Evaluator::multiply(const Ciphertext& a, const Ciphertext& b) const {
  return scaled_tensor(a, b, true, "multiply");
}

Ciphertext Evaluator::scaled_tensor(const Ciphertext& a, const Ciphertext& b, bool last_in_ntt,
                                    const char* operation) const {
  require_same_level_operands(a, b, operation);
  rlwe::detail::require_relinearized(a, operation);
  rlwe::detail::require_relinearized(b, operation);
  const std::size_t level = a.level();
  const MultiplyTables& tables = multiply_tables(level);
  const std::size_t r_count = tables.aux->tower_count();
  const auto& q_ring = context_->ciphertext_ring();
  const bool same = &a == &b;

  // Step 1: a's parts exactly in R; b' = round(R b / Q) in R and in Q_l.
  // The converters write every word of their outputs.
  std::array<ring::RnsPoly, 2> a_r, b_r, b_q;
  for (std::size_t k = 0; k < 2; ++k) {
    const ring::RnsPoly a_coefficients = a.parts[k].coefficient_form();
    a_r[k] = ring::RnsPoly::uninitialized(tables.aux, r_count);
    tables.q_to_r->convert_exact_centered(a_coefficients, a_r[k]);
    b_r[k] = ring::RnsPoly::uninitialized(tables.aux, r_count);
    if (same) {
      tables.scale_up->convert_exact_centered(a_coefficients, b_r[k]);
    } else {
      tables.scale_up->convert_exact_centered(b.parts[k].coefficient_form(), b_r[k]);
    }
    b_q[k] = ring::RnsPoly::uninitialized(q_ring, level + 1);
    tables.r_to_q->convert_exact_centered(b_r[k], b_q[k]);
    b_q[k].ntt();
  }

  // Step 2: d = a (x) b', in Q_l in NTT form and in R in coefficient form
  // (each R tower transformed, multiplied and transformed back while in
  // cache: at N = 32768 the parts far exceed the cache, and separate passes
  // streamed them through memory several times).
  std::array<ring::RnsPoly, 3> d_q = ring::tensor_product(a.parts[0], a.parts[1], b_q[0], b_q[1]);
  std::array<ring::RnsPoly, 3> d_r =
      ring::tensor_product_to_coefficients(a_r[0], a_r[1], b_r[0], b_r[1]);

  // Step 3: c = round(t d / R) = (t d - [t d]_R) / R in Q_l: the converter
  // gives -R^-1 [t d]_R, to which t R^-1 d is added, in NTT form (or in
  // coefficient form for a last part that stays there), tower by tower
  // right after its transform, while it is in cache.
  Ciphertext out;
  for (std::size_t k = 0; k < 3; ++k) {
    auto result = ring::RnsPoly::uninitialized(q_ring, level + 1);
    tables.scale_down->convert_exact_centered(d_r[k], result);
    const bool in_ntt = k < 2 || last_in_ntt;
    parallel_for(0, level + 1, [&](std::size_t i) {
      const math::NttTables& transform = q_ring->ntt_tables(i);
      if (in_ntt) {
        math::ntt_forward(result.tower(i), transform);
      } else {
        math::ntt_inverse(d_q[k].tower(i), transform);  // d_q[k] is not read again
      }
      math::fma_scalar_mod(d_q[k].tower(i), tables.t_over_r_mod_q[i], result.tower(i),
                           result.tower(i), result.modulus(i));
    });
    result.declare_form(in_ntt ? ring::Form::ntt : ring::Form::coefficient);
    out.parts.push_back(std::move(result));
  }
  return out;
}

Ciphertext Evaluator::square(const Ciphertext& a) const {
  return scaled_tensor(a, a, true, "square");
}

Ciphertext Evaluator::relinearize(const Ciphertext& a, const rlwe::RelinKey& key) const {
  rlwe::require_relinearization_operands(*context_, a, key, "relinearize");
  return rlwe::relinearize_unchecked(*context_, a, key);
}

// The third part goes to key switching in coefficient form, as the tensor
// product leaves it: its digits are cut from it directly, which saves
// transforming it into NTT form and back (net L tower transforms fewer: the
// digits' own towers take a forward NTT instead).
Ciphertext Evaluator::multiply(const Ciphertext& a, const Ciphertext& b,
                               const rlwe::RelinKey& key) const {
  rlwe::require_relin_key(*context_, key, "multiply");
  return rlwe::relinearize_unchecked(*context_, scaled_tensor(a, b, false, "multiply"), key);
}

Ciphertext Evaluator::square(const Ciphertext& a, const rlwe::RelinKey& key) const {
  rlwe::require_relin_key(*context_, key, "square");
  return rlwe::relinearize_unchecked(*context_, scaled_tensor(a, a, false, "square"), key);
}

Ciphertext Evaluator::apply_galois(const Ciphertext& a, uint64_t galois_element,
                                   const rlwe::GaloisKeys& keys) const {
  rlwe::require_galois_operands(*context_, a, keys, "apply_galois");
  const uint64_t sequence[] = {galois_element};  // 1, the identity, gives a copy
  return rlwe::apply_galois_sequence(*context_, a, sequence, keys, "apply_galois");
}

Ciphertext Evaluator::rotate_rows(const Ciphertext& a, int64_t step,
                                  const rlwe::GaloisKeys& keys) const {
  rlwe::require_galois_operands(*context_, a, keys, "rotate_rows");
  // The key of the step, or the fewest keys that compose it (both rows turn
  // together: a cycle of N/2), all known present before any work.
  const auto plan =
      rlwe::plan_rotation(*context_, keys, step, context_->degree() / 2, "rotate_rows");
  return rlwe::apply_galois_sequence(*context_, a, plan, keys, "rotate_rows");
}

Ciphertext Evaluator::rotate_columns(const Ciphertext& a, const rlwe::GaloisKeys& keys) const {
  rlwe::require_galois_operands(*context_, a, keys, "rotate_columns");
  const uint64_t sequence[] = {
      rlwe::conjugation_key(*context_, keys, "rotate_columns").galois_element};
  return rlwe::apply_galois_sequence(*context_, a, sequence, keys, "rotate_columns");
}

Ciphertext Evaluator::mod_switch_to_next(const Ciphertext& a) const {
  require_operand(a, "mod_switch_to_next");
  rlwe::detail::require_prime_to_drop(a.level(), "mod_switch_to_next");
  Ciphertext out = Ciphertext::with_metadata(a);
  out.parts.resize(a.parts.size());
  // round(c / q_l) part by part (the scaled plaintext Delta m keeps its
  // ratio to the new modulus up to rounding).
  rlwe::divide_by_last_prime(*context_, a.parts, out.parts);
  return out;
}

}  // namespace heft::bfv

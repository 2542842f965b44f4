// RnsPoly: storage, validation, and element-wise ring operations expressed as
// calls to the math kernels, one tower at a time.
#include "heft/ring/rns_poly.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "heft/math/kernels.hpp"
#include "ring/tower_loop.hpp"

namespace heft::ring {

const char* to_string(Form form) noexcept {
  return form == Form::ntt ? "NTT" : "coefficient";
}

RnsPoly::RnsPoly(std::shared_ptr<const PolyContext> context, std::size_t tower_count, Form form)
    : RnsPoly(std::move(context), tower_count, form, Uninitialized{}) {
  std::memset(storage_.data(), 0, tower_count_ * degree_ * sizeof(uint64_t));
}

RnsPoly::RnsPoly(std::shared_ptr<const PolyContext> context, std::size_t tower_count, Form form,
                 Uninitialized)
    : context_(std::move(context)), tower_count_(tower_count), form_(form) {
  if (context_ == nullptr) throw InvalidArgument("RnsPoly: the context is null");
  if (tower_count == 0 || tower_count > context_->tower_count()) {
    throw InvalidArgument("RnsPoly: asked for " + std::to_string(tower_count) +
                          " towers but the context has " + std::to_string(context_->tower_count()) +
                          " (need 1..L)");
  }
  degree_ = context_->degree();
  storage_ =
      AlignedBuffer<uint64_t>(tower_count_ * degree_, AlignedBuffer<uint64_t>::Uninitialized{});
}

RnsPoly RnsPoly::uninitialized(std::shared_ptr<const PolyContext> context, std::size_t tower_count,
                               Form form) {
  return RnsPoly(std::move(context), tower_count, form, Uninitialized{});
}

RnsPoly::RnsPoly(RnsPoly&& other) noexcept
    : context_(std::move(other.context_)),
      degree_(std::exchange(other.degree_, 0)),
      tower_count_(std::exchange(other.tower_count_, 0)),
      form_(other.form_),
      secret_(std::exchange(other.secret_, false)),
      storage_(std::move(other.storage_)) {}

RnsPoly& RnsPoly::operator=(RnsPoly&& other) noexcept {
  if (this != &other) {
    // The old storage is released below: wipe it first if it held a secret.
    if (secret_) storage_.wipe();
    context_ = std::move(other.context_);
    degree_ = std::exchange(other.degree_, 0);
    tower_count_ = std::exchange(other.tower_count_, 0);
    form_ = other.form_;
    secret_ = std::exchange(other.secret_, false);
    storage_ = std::move(other.storage_);
  }
  return *this;
}

RnsPoly::~RnsPoly() {
  if (secret_) storage_.wipe();
}

RnsPoly RnsPoly::clone() const {
  RnsPoly copy;
  if (empty()) return copy;
  copy = RnsPoly(context_, tower_count_, form_, Uninitialized{});
  copy.secret_ = secret_;
  std::memcpy(copy.storage_.data(), storage_.data(), tower_count_ * degree_ * sizeof(uint64_t));
  return copy;
}

const math::Modulus& RnsPoly::modulus(std::size_t tower) const {
  require_not_empty("modulus");
  if (tower >= tower_count_) {
    throw InvalidArgument("RnsPoly::modulus: tower " + std::to_string(tower) +
                          " out of range (the polynomial has " + std::to_string(tower_count_) +
                          ")");
  }
  return context_->modulus(tower);
}

std::span<uint64_t> RnsPoly::tower(std::size_t i) {
  if (i >= tower_count_) {
    throw InvalidArgument("RnsPoly::tower: index " + std::to_string(i) +
                          " out of range (the polynomial has " + std::to_string(tower_count_) +
                          " towers)");
  }
  return {storage_.data() + i * degree_, degree_};
}

std::span<const uint64_t> RnsPoly::tower(std::size_t i) const {
  return const_cast<RnsPoly*>(this)->tower(i);
}

std::span<uint64_t> RnsPoly::data() noexcept {
  return {storage_.data(), tower_count_ * degree_};
}

std::span<const uint64_t> RnsPoly::data() const noexcept {
  return {storage_.data(), tower_count_ * degree_};
}

void RnsPoly::require_not_empty(const char* operation) const {
  if (empty()) {
    throw InvalidArgument(std::string("RnsPoly::") + operation +
                          ": the polynomial is empty (default-constructed or moved from)");
  }
}

void RnsPoly::require_compatible(const RnsPoly& other, const char* operation) const {
  require_not_empty(operation);
  other.require_not_empty(operation);
  if (context_ != other.context_) {
    throw MismatchError(std::string("RnsPoly::") + operation +
                        ": operands belong to different contexts (create both from the same "
                        "PolyContext)");
  }
  if (tower_count_ != other.tower_count_) {
    throw MismatchError(std::string("RnsPoly::") + operation + ": operands have " +
                        std::to_string(tower_count_) + " and " +
                        std::to_string(other.tower_count_) +
                        " towers; drop towers from the larger one first");
  }
  if (form_ != other.form_) {
    throw MismatchError(std::string("RnsPoly::") + operation + ": operands are in " +
                        to_string(form_) + " and " + to_string(other.form_) +
                        " form; convert one with ntt() or intt()");
  }
}

void RnsPoly::set_coefficients(std::span<const int64_t> values) {
  require_not_empty("set_coefficients");
  if (values.size() != degree_) {
    throw MismatchError("RnsPoly::set_coefficients: got " + std::to_string(values.size()) +
                        " values for a polynomial of degree " + std::to_string(degree_));
  }
  // Largest magnitude, computed without branches on the values. Samplers'
  // outputs (ternary, Gaussian) are always far below every modulus, and then
  // the per-coefficient Barrett reduction is unnecessary: the branch below
  // depends only on that bound, never on an individual secret value.
  uint64_t largest = 0;
  for (const int64_t v : values) {
    const uint64_t value = static_cast<uint64_t>(v);
    const uint64_t negative_mask = 0 - (value >> 63);
    const uint64_t magnitude = (value ^ negative_mask) - negative_mask;
    largest |= magnitude;  // an upper bound's worth of bits is enough
  }
  uint64_t smallest_modulus = ~uint64_t{0};
  for (std::size_t i = 0; i < tower_count_; ++i) {
    smallest_modulus = std::min(smallest_modulus, context_->modulus(i).value());
  }
  if (largest < smallest_modulus) {
    detail::for_each_tower(tower_count_, degree_, [&](std::size_t i) {
      const uint64_t modulus = context_->modulus(i).value();
      // Restrict-qualified locals: int64 inputs may alias uint64 outputs as
      // far as the compiler knows, which kept this loop scalar.
      uint64_t* __restrict out = storage_.data() + i * degree_;
      const int64_t* __restrict in = values.data();
      const std::size_t n = degree_;
      for (std::size_t k = 0; k < n; ++k) {
        // v in (-q, q): add q exactly when v is negative (mask, no branch).
        const uint64_t value = static_cast<uint64_t>(in[k]);
        out[k] = value + (modulus & (0 - (value >> 63)));
      }
    });
    form_ = Form::coefficient;
    return;
  }
  detail::for_each_tower(tower_count_, degree_, [&](std::size_t i) {
    const math::Modulus& q = context_->modulus(i);
    const uint64_t modulus = q.value();
    uint64_t* out = storage_.data() + i * degree_;
    for (std::size_t k = 0; k < degree_; ++k) {
      // Reduce |v|, then select q - r for negative v with masks, not branches,
      // because secrets (ternary keys, errors) pass through here.
      const uint64_t value = static_cast<uint64_t>(values[k]);
      const uint64_t negative_mask = 0 - (value >> 63);
      const uint64_t magnitude = (value ^ negative_mask) - negative_mask;
      const uint64_t residue = q.reduce(magnitude);
      uint64_t result = ((modulus - residue) & negative_mask) | (residue & ~negative_mask);
      result -= modulus & (0 - static_cast<uint64_t>(result >= modulus));  // q - 0 -> 0
      out[k] = result;
    }
  });
  form_ = Form::coefficient;
}

void RnsPoly::ntt() {
  require_not_empty("ntt");
  if (form_ == Form::ntt) {
    throw MismatchError("RnsPoly::ntt: the polynomial is already in NTT form");
  }
  detail::for_each_tower(tower_count_, degree_, [&](std::size_t i) {
    math::ntt_forward(tower(i), context_->ntt_tables(i));
  });
  form_ = Form::ntt;
}

void RnsPoly::intt() {
  require_not_empty("intt");
  if (form_ == Form::coefficient) {
    throw MismatchError("RnsPoly::intt: the polynomial is already in coefficient form");
  }
  detail::for_each_tower(tower_count_, degree_, [&](std::size_t i) {
    math::ntt_inverse(tower(i), context_->ntt_tables(i));
  });
  form_ = Form::coefficient;
}

RnsPoly RnsPoly::coefficient_form() const {
  require_not_empty("coefficient_form");
  if (form_ == Form::coefficient) return clone();
  RnsPoly out(context_, tower_count_, Form::coefficient, Uninitialized{});
  detail::for_each_tower(tower_count_, degree_, [&](std::size_t i) {
    math::ntt_inverse(tower(i), out.tower(i), context_->ntt_tables(i));
  });
  out.secret_ = secret_;
  return out;
}

RnsPoly& RnsPoly::operator+=(const RnsPoly& other) {
  require_compatible(other, "operator+=");
  detail::for_each_tower_streaming(tower_count_, degree_, [&](std::size_t i) {
    math::add_mod(tower(i), other.tower(i), tower(i), context_->modulus(i));
  });
  secret_ = secret_ || other.secret_;
  return *this;
}

RnsPoly& RnsPoly::operator-=(const RnsPoly& other) {
  require_compatible(other, "operator-=");
  detail::for_each_tower_streaming(tower_count_, degree_, [&](std::size_t i) {
    math::sub_mod(tower(i), other.tower(i), tower(i), context_->modulus(i));
  });
  secret_ = secret_ || other.secret_;
  return *this;
}

RnsPoly& RnsPoly::operator*=(const RnsPoly& other) {
  require_compatible(other, "operator*=");
  if (form_ != Form::ntt) {
    throw MismatchError(
        "RnsPoly::operator*=: multiplication needs both operands in NTT form (call ntt() "
        "first); heft does not multiply in coefficient form");
  }
  detail::for_each_tower(tower_count_, degree_, [&](std::size_t i) {
    math::mul_mod(tower(i), other.tower(i), tower(i), context_->modulus(i));
  });
  secret_ = secret_ || other.secret_;
  return *this;
}

void RnsPoly::add_product(const RnsPoly& a, const RnsPoly& b) {
  require_compatible(a, "add_product");
  require_compatible(b, "add_product");
  if (form_ != Form::ntt) {
    throw MismatchError(
        "RnsPoly::add_product: multiplication needs all operands in NTT form (call ntt() "
        "first)");
  }
  detail::for_each_tower(tower_count_, degree_, [&](std::size_t i) {
    math::fma_mod(a.tower(i), b.tower(i), tower(i), tower(i), context_->modulus(i));
  });
  secret_ = secret_ || a.secret_ || b.secret_;
}

void RnsPoly::add_product_automorphism(const RnsPoly& a, const RnsPoly& x,
                                       uint64_t galois_element) {
  require_compatible(a, "add_product_automorphism");
  require_compatible(x, "add_product_automorphism");
  if (form_ != Form::ntt) {
    throw MismatchError(
        "RnsPoly::add_product_automorphism: all operands must be in NTT form (call ntt() first)");
  }
  if (&x == this) {
    throw InvalidArgument(
        "RnsPoly::add_product_automorphism: the permuted operand must be a different polynomial "
        "from the sum");
  }
  context_->require_galois_element(galois_element);
  const std::span<const uint32_t> map = context_->ntt_automorphism_map(galois_element);
  detail::for_each_tower(tower_count_, degree_, [&](std::size_t i) {
    math::fma_permuted_mod(a.tower(i), x.tower(i), map, tower(i), tower(i), context_->modulus(i));
  });
  secret_ = secret_ || a.secret_ || x.secret_;
}

void RnsPoly::negate() {
  require_not_empty("negate");
  detail::for_each_tower_streaming(tower_count_, degree_, [&](std::size_t i) {
    math::negate_mod(tower(i), tower(i), context_->modulus(i));
  });
}

void RnsPoly::multiply_scalar(uint64_t scalar) {
  require_not_empty("multiply_scalar");
  detail::for_each_tower(tower_count_, degree_, [&](std::size_t i) {
    const math::Modulus& q = context_->modulus(i);
    math::mul_scalar_mod(tower(i), q.reduce(scalar), tower(i), q);
  });
}

void RnsPoly::multiply_scalar(std::span<const uint64_t> scalars) {
  require_not_empty("multiply_scalar");
  if (scalars.size() != tower_count_) {
    throw MismatchError("RnsPoly::multiply_scalar: got " + std::to_string(scalars.size()) +
                        " scalars for " + std::to_string(tower_count_) + " towers");
  }
  detail::for_each_tower(tower_count_, degree_, [&](std::size_t i) {
    const math::Modulus& q = context_->modulus(i);
    math::mul_scalar_mod(tower(i), q.reduce(scalars[i]), tower(i), q);
  });
}

void RnsPoly::drop_last_towers(std::size_t count) {
  require_not_empty("drop_last_towers");
  if (count >= tower_count_) {
    throw InvalidArgument("RnsPoly::drop_last_towers: cannot drop " + std::to_string(count) +
                          " of " + std::to_string(tower_count_) +
                          " towers (at least one must remain)");
  }
  // The dropped towers stay in the allocation (wiped with it if secret).
  tower_count_ -= count;
}

RnsPoly RnsPoly::automorphism(uint64_t galois_element) const {
  require_not_empty("automorphism");
  context_->require_galois_element(galois_element);
  RnsPoly out(context_, tower_count_, form_, Uninitialized{});  // every coefficient is written
  automorphism(galois_element, out);
  return out;
}

void RnsPoly::automorphism(uint64_t galois_element, RnsPoly& out) const {
  require_not_empty("automorphism");
  out.require_not_empty("automorphism");
  if (&out == this) {
    throw InvalidArgument(
        "RnsPoly::automorphism: the output must be a different polynomial from the input");
  }
  if (out.context_ != context_ || out.tower_count_ != tower_count_) {
    throw MismatchError(
        "RnsPoly::automorphism: the output must have the input's context and tower count");
  }
  context_->require_galois_element(galois_element);

  const std::size_t n = degree_;
  if (form_ == Form::ntt) {
    const std::span<const uint32_t> map = context_->ntt_automorphism_map(galois_element);
    // The map sends aligned blocks of 8 slots onto aligned blocks of 8
    // (ring/automorphism.hpp), so whole blocks move at once.
    detail::for_each_tower(
        tower_count_, n, [&](std::size_t i) { math::permute_blocks(tower(i), map, out.tower(i)); });
  } else {
    const uint64_t index_mask = 2 * n - 1;  // reduction mod 2N
    detail::for_each_tower(tower_count_, n, [&](std::size_t i) {
      const uint64_t q = context_->modulus(i).value();
      const uint64_t* in = storage_.data() + i * n;
      uint64_t* result = out.storage_.data() + i * n;
      // i*g mod 2N is a bijection on [0, 2N) mapping [0, N) onto one
      // representative of each position up to the sign, so every output
      // coefficient is written exactly once.
      for (std::size_t k = 0; k < n; ++k) {
        const uint64_t target = (k * galois_element) & index_mask;
        const uint64_t value = in[k];
        if (target < n) {
          result[target] = value;
        } else {
          result[target - n] = value == 0 ? 0 : q - value;
        }
      }
    });
  }
  out.form_ = form_;
  out.secret_ = out.secret_ || secret_;
}

bool operator==(const RnsPoly& a, const RnsPoly& b) {
  if (a.context_ != b.context_ || a.tower_count_ != b.tower_count_ || a.form_ != b.form_) {
    return false;
  }
  const auto left = a.data(), right = b.data();
  return std::equal(left.begin(), left.end(), right.begin());
}

// The binary operators write the result out of place into fresh storage: one
// pass over the operands instead of a copy followed by an in-place pass.
RnsPoly operator+(const RnsPoly& a, const RnsPoly& b) {
  a.require_compatible(b, "operator+");
  RnsPoly result(a.context_, a.tower_count_, a.form_, RnsPoly::Uninitialized{});
  detail::for_each_tower_streaming(a.tower_count_, a.degree_, [&](std::size_t i) {
    math::add_mod(a.tower(i), b.tower(i), result.tower(i), a.context_->modulus(i));
  });
  result.secret_ = a.secret_ || b.secret_;
  return result;
}

RnsPoly operator-(const RnsPoly& a, const RnsPoly& b) {
  a.require_compatible(b, "operator-");
  RnsPoly result(a.context_, a.tower_count_, a.form_, RnsPoly::Uninitialized{});
  detail::for_each_tower_streaming(a.tower_count_, a.degree_, [&](std::size_t i) {
    math::sub_mod(a.tower(i), b.tower(i), result.tower(i), a.context_->modulus(i));
  });
  result.secret_ = a.secret_ || b.secret_;
  return result;
}

RnsPoly operator*(const RnsPoly& a, const RnsPoly& b) {
  a.require_compatible(b, "operator*");
  if (a.form_ != Form::ntt) {
    throw MismatchError(
        "RnsPoly::operator*: multiplication needs both operands in NTT form (call ntt() "
        "first); heft does not multiply in coefficient form");
  }
  RnsPoly result(a.context_, a.tower_count_, a.form_, RnsPoly::Uninitialized{});
  detail::for_each_tower(a.tower_count_, a.degree_, [&](std::size_t i) {
    math::mul_mod(a.tower(i), b.tower(i), result.tower(i), a.context_->modulus(i));
  });
  result.secret_ = a.secret_ || b.secret_;
  return result;
}

namespace {

// Blocks of the tensor products small enough that the four inputs and three
// outputs of one block stay in L1/L2 between the four kernel calls.
constexpr std::size_t kTensorBlock = 1024;

// One block of (x0 + x1 s)(y0 + y1 s) into o0, o1, o2 (NTT form). An output
// may be the input it replaces (o0 = x0, o1 = x1, o2 = y1): every input is
// read before that output is written. `partial` holds count words.
void tensor_block(const uint64_t* x0, const uint64_t* x1, const uint64_t* y0, const uint64_t* y1,
                  uint64_t* o0, uint64_t* o1, uint64_t* o2, std::size_t count, uint64_t* partial,
                  const math::Modulus& q) {
  const auto in = [count](const uint64_t* p) { return std::span<const uint64_t>(p, count); };
  const auto out = [count](uint64_t* p) { return std::span<uint64_t>(p, count); };
  math::mul_mod(in(x0), in(y1), out(partial), q);          // x0 y1
  math::mul_mod(in(x1), in(y1), out(o2), q);               // x1 y1
  math::fma_mod(in(x1), in(y0), in(partial), out(o1), q);  // x1 y0 + x0 y1
  math::mul_mod(in(x0), in(y0), out(o0), q);               // x0 y0
}

}  // namespace

std::array<RnsPoly, 3> tensor_product(const RnsPoly& a0, const RnsPoly& a1, const RnsPoly& b0,
                                      const RnsPoly& b1) {
  for (const RnsPoly* operand : {&a1, &b0, &b1})
    a0.require_compatible(*operand, "tensor_product");
  if (a0.form_ != Form::ntt) {
    throw MismatchError(
        "RnsPoly tensor_product: multiplication needs all operands in NTT form (call ntt() first)");
  }
  std::array<RnsPoly, 3> out;
  for (auto& part : out)
    part = RnsPoly(a0.context_, a0.tower_count_, a0.form_, RnsPoly::Uninitialized{});
  detail::for_each_tower(a0.tower_count_, a0.degree_, [&](std::size_t i) {
    const math::Modulus& q = a0.context_->modulus(i);
    alignas(64) uint64_t partial[kTensorBlock];
    for (std::size_t begin = 0; begin < a0.degree_; begin += kTensorBlock) {
      const std::size_t count = std::min(kTensorBlock, a0.degree_ - begin);
      const auto at = [&](const RnsPoly& p) { return p.tower(i).data() + begin; };
      const auto out_at = [&](RnsPoly& p) { return p.tower(i).data() + begin; };
      tensor_block(at(a0), at(a1), at(b0), at(b1), out_at(out[0]), out_at(out[1]), out_at(out[2]),
                   count, partial, q);
    }
  });
  const bool secret = a0.secret_ || a1.secret_ || b0.secret_ || b1.secret_;
  for (auto& part : out)
    part.secret_ = secret;
  return out;
}

std::array<RnsPoly, 3> tensor_product_to_coefficients(const RnsPoly& a0, const RnsPoly& a1,
                                                      const RnsPoly& b0, const RnsPoly& b1) {
  for (const RnsPoly* operand : {&a1, &b0, &b1})
    a0.require_compatible(*operand, "tensor_product_to_coefficients");
  const std::size_t n = a0.degree_, towers = a0.tower_count_;
  // Operands in coefficient form are transformed a tower at a time into
  // scratch, where their products then replace them.
  const bool transform_operands = a0.form_ == Form::coefficient;
  std::array<RnsPoly, 3> out;
  for (auto& part : out)
    part = RnsPoly(a0.context_, towers, Form::coefficient, RnsPoly::Uninitialized{});

  const auto one_tower = [&](std::size_t i, uint64_t* scratch) {
    const math::Modulus& q = a0.context_->modulus(i);
    const math::NttTables& tables = a0.context_->ntt_tables(i);
    std::array<const uint64_t*, 4> x{a0.tower(i).data(), a1.tower(i).data(), b0.tower(i).data(),
                                     b1.tower(i).data()};
    // Where the three products go: out's towers, or in place of the
    // transformed operands (a0, a1, b1).
    std::array<uint64_t*, 3> products{out[0].tower(i).data(), out[1].tower(i).data(),
                                      out[2].tower(i).data()};
    if (transform_operands) {
      for (std::size_t k = 0; k < 4; ++k) {
        const std::span<uint64_t> row(scratch + k * n, n);
        math::ntt_forward(std::span<const uint64_t>(x[k], n), row, tables);
        x[k] = row.data();
      }
      products = {scratch, scratch + n, scratch + 3 * n};
    }
    alignas(64) uint64_t partial[kTensorBlock];
    for (std::size_t begin = 0; begin < n; begin += kTensorBlock) {
      const std::size_t count = std::min(kTensorBlock, n - begin);
      tensor_block(x[0] + begin, x[1] + begin, x[2] + begin, x[3] + begin, products[0] + begin,
                   products[1] + begin, products[2] + begin, count, partial, q);
    }
    for (std::size_t k = 0; k < 3; ++k) {
      math::ntt_inverse(std::span<const uint64_t>(products[k], n), out[k].tower(i), tables);
    }
  };
  // One scratch per chunk of towers, so each thread allocates once.
  const bool parallel =
      !in_parallel_region() && towers > 1 && towers * n >= detail::kMinParallelWords;
  const std::size_t chunks = parallel ? std::min(num_threads(), towers) : 1;
  parallel_for(0, chunks, [&](std::size_t chunk) {
    AlignedBuffer<uint64_t> scratch(transform_operands ? 4 * n : 1,
                                    AlignedBuffer<uint64_t>::Uninitialized{});
    for (std::size_t i = towers * chunk / chunks; i < towers * (chunk + 1) / chunks; ++i)
      one_tower(i, scratch.data());
  });
  const bool secret = a0.secret_ || a1.secret_ || b0.secret_ || b1.secret_;
  for (auto& part : out)
    part.secret_ = secret;
  return out;
}

RnsPoly operator-(const RnsPoly& a) {
  a.require_not_empty("operator-");
  // One pass (read a, write the result), not a copy and then a negation.
  RnsPoly result(a.context_, a.tower_count_, a.form_, RnsPoly::Uninitialized{});
  detail::for_each_tower_streaming(a.tower_count_, a.degree_, [&](std::size_t i) {
    math::negate_mod(a.tower(i), result.tower(i), a.context_->modulus(i));
  });
  result.secret_ = a.secret_;
  return result;
}

}  // namespace heft::ring

// RnsPoly: a polynomial of Z_Q[X]/(X^N + 1) in RNS form, N coefficients x L
// towers, where tower i holds the residues modulo the context's i-th modulus
// and L <= the context's tower count (a polynomial at a lower level uses the
// first L moduli).
//
// Storage is one 64-byte-aligned allocation, tower-major (tower i is N
// contiguous words), so whole towers go straight to the math kernels. Values
// are always fully reduced ([0, q_i)). The Form flag says whether towers hold
// coefficients or NTT values (bit-reversed evaluation order, see
// automorphism.hpp). Moving is cheap, copying is explicit (clone()).
//
// Every operation validates first and throws MismatchError (different
// contexts, tower counts or forms) or InvalidArgument before it writes
// anything, so a failed call leaves all operands as they were. Contexts are
// compared by identity.
//
// Secrets: mark_secret() makes the destructor (and move-assignment over it)
// wipe the storage. Results computed from a secret operand are secret too.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "heft/export.hpp"
#include "heft/ring/poly_context.hpp"
#include "heft/util/aligned_buffer.hpp"

namespace heft::ring {

enum class Form { coefficient, ntt };

HEFT_EXPORT const char* to_string(Form form) noexcept;

class HEFT_EXPORT RnsPoly {
 public:
  // An empty polynomial (no context); only assignment, empty() and
  // destruction are meaningful.
  RnsPoly() = default;
  // The zero polynomial with the first `tower_count` towers of `context`.
  // Throws InvalidArgument on a null context or tower_count outside [1, L].
  RnsPoly(std::shared_ptr<const PolyContext> context, std::size_t tower_count,
          Form form = Form::coefficient);
  // A polynomial whose values are unspecified, for hot paths that write every
  // tower in full before reading any (kernel outputs, NTTs of copies): zeroing
  // megabytes only to overwrite them cost a tenth of a key switch. Same
  // checks as the constructor.
  [[nodiscard]] static RnsPoly uninitialized(std::shared_ptr<const PolyContext> context,
                                             std::size_t tower_count,
                                             Form form = Form::coefficient);

  RnsPoly(RnsPoly&& other) noexcept;
  RnsPoly& operator=(RnsPoly&& other) noexcept;
  RnsPoly(const RnsPoly&) = delete;
  RnsPoly& operator=(const RnsPoly&) = delete;
  ~RnsPoly();

  [[nodiscard]] RnsPoly clone() const;

  [[nodiscard]] bool empty() const noexcept { return context_ == nullptr; }
  [[nodiscard]] const std::shared_ptr<const PolyContext>& context() const noexcept {
    return context_;
  }
  [[nodiscard]] std::size_t degree() const noexcept { return degree_; }
  [[nodiscard]] std::size_t tower_count() const noexcept { return tower_count_; }
  [[nodiscard]] Form form() const noexcept { return form_; }
  [[nodiscard]] bool is_ntt() const noexcept { return form_ == Form::ntt; }
  [[nodiscard]] const math::Modulus& modulus(std::size_t tower) const;

  // Write access to the values (towers, data, declare_form) is for code that
  // fills a polynomial directly; such code must leave every value of tower i
  // in [0, q_i) and the form declared truthfully: the operations below rely
  // on it and do not re-check values.
  // Tower i (N words); throws InvalidArgument if i >= tower_count().
  [[nodiscard]] std::span<uint64_t> tower(std::size_t i);
  [[nodiscard]] std::span<const uint64_t> tower(std::size_t i) const;
  // All towers, tower-major (tower_count() * N words).
  [[nodiscard]] std::span<uint64_t> data() noexcept;
  [[nodiscard]] std::span<const uint64_t> data() const noexcept;

  // States that the stored values are in `form` without transforming them,
  // for code that writes towers directly (samplers, deserialization).
  void declare_form(Form form) noexcept { form_ = form; }

  // Sets the polynomial (coefficient form) to one integer polynomial reduced
  // into every tower: tower i, coefficient k = values[k] mod q_i. Branch-free
  // in the values, so it may be fed secrets. Throws MismatchError unless
  // values.size() == N.
  void set_coefficients(std::span<const int64_t> values);

  // Forward / inverse NTT of every tower (parallel over towers). Throws
  // MismatchError if already in the target form.
  void ntt();
  void intt();
  // A copy in coefficient form: out-of-place inverse NTTs (no separate copy
  // pass), or a plain clone if this polynomial is in coefficient form already.
  [[nodiscard]] RnsPoly coefficient_form() const;

  // Element-wise ring operations; operands must share context, tower count
  // and form. Multiplication needs both operands in NTT form: a coefficient-
  // form product would be an O(N^2) convolution, which heft never does
  // implicitly.
  RnsPoly& operator+=(const RnsPoly& other);
  RnsPoly& operator-=(const RnsPoly& other);
  RnsPoly& operator*=(const RnsPoly& other);
  // this += a * b (all three in NTT form): the inner product step of key switching.
  void add_product(const RnsPoly& a, const RnsPoly& b);
  // this += a * x(X^g) (all three in NTT form, x not this object): the
  // automorphism and the product in one pass per tower, without storing x's
  // image (math::fma_permuted_mod). A linear transform's inner sum over
  // rotations takes each rotation this way.
  void add_product_automorphism(const RnsPoly& a, const RnsPoly& x, uint64_t galois_element);
  void negate();
  // Multiplies by an integer, reduced modulo each tower's modulus (any form).
  void multiply_scalar(uint64_t scalar);
  // Multiplies tower i by scalars[i] mod q_i; scalars.size() must equal tower_count().
  void multiply_scalar(std::span<const uint64_t> scalars);

  // Removes the last `count` towers (count < tower_count()): the level drop of
  // modulus switching. Keeps the allocation, so this is O(1).
  void drop_last_towers(std::size_t count);

  // The image under X -> X^g (g odd in [1, 2N)), in this polynomial's form:
  // signed coefficient permutation in coefficient form, index permutation
  // (cached in the context) in NTT form.
  [[nodiscard]] RnsPoly automorphism(uint64_t galois_element) const;
  // Same into `out` (same context and tower count, not this object); out's
  // form becomes this form.
  void automorphism(uint64_t galois_element, RnsPoly& out) const;

  void mark_secret() noexcept { secret_ = true; }
  // Declares a value derived from secrets safe to release without wiping:
  // ciphertexts and public/evaluation keys (their security rests on RLWE, not
  // on being erased).
  void mark_public() noexcept { secret_ = false; }
  [[nodiscard]] bool is_secret() const noexcept { return secret_; }
  // Zeroes the storage (values become 0) in a way the compiler cannot elide.
  void wipe() noexcept { storage_.wipe(); }

  // Same context, towers, form and values. Not constant-time.
  friend bool operator==(const RnsPoly& a, const RnsPoly& b);
  friend RnsPoly operator+(const RnsPoly& a, const RnsPoly& b);
  friend RnsPoly operator-(const RnsPoly& a, const RnsPoly& b);
  friend RnsPoly operator-(const RnsPoly& a);
  friend RnsPoly operator*(const RnsPoly& a, const RnsPoly& b);
  friend std::array<RnsPoly, 3> tensor_product(const RnsPoly& a0, const RnsPoly& a1,
                                               const RnsPoly& b0, const RnsPoly& b1);
  friend std::array<RnsPoly, 3> tensor_product_to_coefficients(const RnsPoly& a0, const RnsPoly& a1,
                                                               const RnsPoly& b0,
                                                               const RnsPoly& b1);

 private:
  struct Uninitialized {};
  RnsPoly(std::shared_ptr<const PolyContext> context, std::size_t tower_count, Form form,
          Uninitialized);

  void require_compatible(const RnsPoly& other, const char* operation) const;
  void require_not_empty(const char* operation) const;

  std::shared_ptr<const PolyContext> context_;
  std::size_t degree_ = 0;
  std::size_t tower_count_ = 0;
  Form form_ = Form::coefficient;
  bool secret_ = false;
  AlignedBuffer<uint64_t> storage_;
};

// Declared again here (the friend declarations above cannot carry HEFT_EXPORT).
HEFT_EXPORT bool operator==(const RnsPoly& a, const RnsPoly& b);
[[nodiscard]] HEFT_EXPORT RnsPoly operator+(const RnsPoly& a, const RnsPoly& b);
[[nodiscard]] HEFT_EXPORT RnsPoly operator-(const RnsPoly& a, const RnsPoly& b);
[[nodiscard]] HEFT_EXPORT RnsPoly operator*(const RnsPoly& a, const RnsPoly& b);
[[nodiscard]] HEFT_EXPORT RnsPoly operator-(const RnsPoly& a);

// The product of two degree-1 polynomials in s, (a0 + a1 s)(b0 + b1 s):
// {a0 b0, a0 b1 + a1 b0, a1 b1}, the tensor step of ciphertext
// multiplication. All four operands in NTT form, same context and towers.
// One pass over the operands (block by block, so each input is read once
// from memory) instead of four separate products.
[[nodiscard]] HEFT_EXPORT std::array<RnsPoly, 3> tensor_product(const RnsPoly& a0,
                                                                const RnsPoly& a1,
                                                                const RnsPoly& b0,
                                                                const RnsPoly& b1);

// The same product returned in coefficient form, for callers that leave the
// NTT domain next (BFV's scaling by t/Q). The operands may be in either form
// (all four the same) and are left unchanged. Each tower is finished while it
// is in cache: operands in coefficient form are transformed into scratch, the
// four products computed block by block, and the three results transformed
// back, instead of a pass over every tower for each step.
[[nodiscard]] HEFT_EXPORT std::array<RnsPoly, 3> tensor_product_to_coefficients(const RnsPoly& a0,
                                                                                const RnsPoly& a1,
                                                                                const RnsPoly& b0,
                                                                                const RnsPoly& b1);

}  // namespace heft::ring

// The terms of the BGV noise estimate (noise_model.hpp), precomputed per
// level so that each operation's update is a few double operations.
#include "heft/schemes/bgv/noise_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "heft/ring/samplers.hpp"
#include "heft/schemes/bgv/encryptor.hpp"

namespace heft::bgv {
namespace {

constexpr double kDeviations = 6.0;             // D in noise_model.hpp
constexpr double kTernaryVariance = 2.0 / 3.0;  // uniform in {-1, 0, 1}

}  // namespace

double log2_sum(double a, double b) noexcept {
  // A NaN set by hand is as unknown as infinity.
  if (!(a < kUnknownNoise) || !(b < kUnknownNoise)) return kUnknownNoise;
  const double high = std::max(a, b), low = std::min(a, b);
  if (low == -std::numeric_limits<double>::infinity()) return high;
  return high + std::log2(1.0 + std::exp2(low - high));
}

NoiseModel::NoiseModel(const rlwe::Context& context) {
  const rlwe::Parameters& p = context.parameters();
  const double n = static_cast<double>(context.degree());
  log2_t_ = std::log2(static_cast<double>(plain_modulus(context)));
  log2_n_ = std::log2(n);
  secret_variance_ = p.secret.kind == rlwe::SecretKind::sparse_ternary
                         ? static_cast<double>(p.secret.hamming_weight) / n
                         : kTernaryVariance;
  const double sigma2 = ring::kGaussianSigma * ring::kGaussianSigma;
  const double log2_d = std::log2(kDeviations);
  // u of public-key encryption is uniform ternary. The message: centered coefficients, ||m||^can <=
  // ||m||_1 <= N t / 2.
  const double message = log2_n_ + log2_t_ - 1.0;
  fresh_public_ = log2_sum(
      message, log2_t_ + log2_d +
                   0.5 * std::log2(n * sigma2 * (1.0 + n * (kTernaryVariance + secret_variance_))));
  fresh_secret_ = log2_sum(message, log2_t_ + log2_d + 0.5 * std::log2(n * sigma2));

  for (uint64_t q : p.ciphertext_moduli)
    log2_primes_.push_back(std::log2(static_cast<double>(q)));
  double log2_q = 0;
  for (double bits : log2_primes_) {
    log2_q += bits;
    limits_.push_back(log2_q - 1.0);
  }
  if (!context.supports_key_switching()) return;
  double log2_p = 0;
  for (uint64_t prime : p.special_moduli)
    log2_p += std::log2(static_cast<double>(prime));
  const double special = static_cast<double>(p.special_moduli.size());
  // The t-aware division by P leaves residues tau in [0, K) (in [0, K + 1)
  // fused with the switch by q_l): tau_0 by its l1 norm N K, tau_1 s by the
  // heuristic with E[tau^2] <= K^2 / 3.
  const double residue_factor = 1.0 + kDeviations * std::sqrt(secret_variance_ / 3.0);
  const double division = log2_n_ + std::log2(special * residue_factor);
  const double fused_division = log2_n_ + std::log2((special + 1.0) * residue_factor);
  for (std::size_t level = 0; level < limits_.size(); ++level) {
    // sum_j d_j e_j with |d_j| < k_j Q_j (approximate mod up):
    // D N sigma sqrt(sum_j k_j^2 Q_j^2 / 3).
    double digits = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < context.digit_count_at(level); ++j) {
      const std::size_t begin = j * context.digit_size();
      const std::size_t end = std::min(begin + context.digit_size(), level + 1);
      double log2_qj = 0;
      for (std::size_t i = begin; i < end; ++i)
        log2_qj += log2_primes_[i];
      const double k = static_cast<double>(end - begin);
      digits = log2_sum(digits, 2.0 * (std::log2(k) + log2_qj) - std::log2(3.0));
    }
    const double inner = log2_d + log2_n_ + 0.5 * std::log2(sigma2) + 0.5 * digits - log2_p;
    key_switch_.push_back(log2_t_ + log2_sum(inner, division));
    key_switch_divided_.push_back(log2_t_ + log2_sum(inner - log2_primes_[level], fused_division));
  }
}

double NoiseModel::mod_switched(double noise, std::size_t level, std::size_t parts) const {
  // tau_i s^i with tau_i in [-1/2, 1/2]: variance (1/12) (N V_s)^i per coefficient.
  const double n = std::exp2(log2_n_);
  double variance = 0, power = 1;
  for (std::size_t i = 0; i < parts; ++i, power *= n * secret_variance_)
    variance += power / 12.0;
  const double rounding = log2_t_ + std::log2(kDeviations) + 0.5 * (log2_n_ + std::log2(variance));
  return log2_sum(noise - log2_primes_[level], rounding);
}

double NoiseModel::key_switched(double noise, std::size_t level) const {
  return log2_sum(noise, key_switch_[level]);
}

double NoiseModel::key_switched_and_divided(double tensor_noise, std::size_t level) const {
  return log2_sum(tensor_noise - log2_primes_[level], key_switch_divided_[level]);
}

}  // namespace heft::bgv

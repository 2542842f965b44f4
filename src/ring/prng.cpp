// Prng: AES-256-CTR keystream via OpenSSL EVP, OS seeds via getrandom(2).
#include "heft/ring/prng.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "heft/util/error.hpp"

namespace heft::ring {

// Keystream is produced 4 KiB at a time by encrypting zeros: one EVP call
// amortised over 512 next_u64() calls.
struct Prng::State {
  static constexpr std::size_t kBufferBytes = 4096;
  EVP_CIPHER_CTX* cipher = nullptr;
  std::array<uint8_t, kBufferBytes> buffer{};
  std::size_t position = kBufferBytes;  // empty: the first read refills

  ~State() {
    OPENSSL_cleanse(buffer.data(), buffer.size());
    if (cipher != nullptr) EVP_CIPHER_CTX_free(cipher);  // also cleanses the key schedule
  }
};

Prng::Prng(const Seed& seed) : state_(std::make_unique<State>()) {
  state_->cipher = EVP_CIPHER_CTX_new();
  const std::array<uint8_t, 16> zero_counter{};
  if (state_->cipher == nullptr || EVP_EncryptInit_ex(state_->cipher, EVP_aes_256_ctr(), nullptr,
                                                      seed.data(), zero_counter.data()) != 1) {
    throw Error("Prng: OpenSSL could not initialise AES-256-CTR");
  }
}

Prng Prng::from_os_entropy() {
  Seed seed = os_entropy_seed();
  Prng prng(seed);
  OPENSSL_cleanse(seed.data(), seed.size());
  return prng;
}

Prng::Seed Prng::os_entropy_seed() {
  Seed seed{};
  std::size_t filled = 0;
  while (filled < seed.size()) {
    const ssize_t got = getrandom(seed.data() + filled, seed.size() - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("Prng: getrandom failed: ") + std::strerror(errno));
    }
    filled += static_cast<std::size_t>(got);
  }
  return seed;
}

Prng::Prng(Prng&& other) noexcept = default;
Prng& Prng::operator=(Prng&& other) noexcept = default;
Prng::~Prng() = default;

void Prng::refill() {
  if (state_ == nullptr) throw InvalidArgument("Prng: used after being moved from");
  state_->buffer.fill(0);
  int written = 0;
  if (EVP_EncryptUpdate(state_->cipher, state_->buffer.data(), &written, state_->buffer.data(),
                        static_cast<int>(state_->buffer.size())) != 1 ||
      written != static_cast<int>(state_->buffer.size())) {
    throw Error("Prng: OpenSSL AES-256-CTR encryption failed");
  }
  state_->position = 0;
}

void Prng::fill(std::span<uint8_t> out) {
  if (state_ == nullptr) throw InvalidArgument("Prng: used after being moved from");
  std::size_t done = 0;
  while (done < out.size()) {
    if (state_->position == State::kBufferBytes) refill();
    const std::size_t take = std::min(out.size() - done, State::kBufferBytes - state_->position);
    std::memcpy(out.data() + done, state_->buffer.data() + state_->position, take);
    // Bytes handed out are not kept: zero them so a later memory leak of this
    // object cannot reveal past output.
    std::memset(state_->buffer.data() + state_->position, 0, take);
    state_->position += take;
    done += take;
  }
}

uint64_t Prng::next_u64() {
  std::array<uint8_t, 8> bytes;
  fill(bytes);
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = (value << 8) | bytes[i];
  return value;
}

uint64_t Prng::uniform_below(uint64_t bound) {
  if (bound == 0) throw InvalidArgument("Prng::uniform_below: the bound must be positive");
  // Accept r below the largest multiple of bound that fits in 2^64; the
  // rejected fraction is below 1/2 for any bound.
  const uint64_t rejection_threshold = (0 - bound) % bound;  // 2^64 mod bound
  for (;;) {
    const uint64_t r = next_u64();
    if (r >= rejection_threshold) return r % bound;
  }
}

}  // namespace heft::ring

// A 64-byte-aligned, fixed-size array of trivially copyable values.
//
// Polynomials and precomputed tables live in these so that vector kernels can
// use aligned loads and one allocation holds a whole RNS polynomial. Moving is
// cheap; copying is explicit (clone()) so hidden copies of large data cannot
// slip into hot code. Storage comes from the memory pool (memory_pool.hpp),
// so hot loops that allocate and free the same sizes do not hit the kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

#include <string.h>  // explicit_bzero (glibc)
#include <span>
#include <type_traits>

#include <utility>
#include "heft/util/error.hpp"
#include "heft/util/memory_pool.hpp"

namespace heft {

inline constexpr std::size_t kBufferAlignment = 64;

template <typename T>
class AlignedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "AlignedBuffer holds plain data only");

 public:
  AlignedBuffer() = default;

  // Allocates `size` zero-initialised elements.
  explicit AlignedBuffer(std::size_t size) : AlignedBuffer(size, Uninitialized{}) {
    if (size_ != 0) std::memset(static_cast<void*>(data_), 0, size_ * sizeof(T));
  }

  // Allocates `size` elements without initialising them, for buffers that are
  // written in full before they are read.
  struct Uninitialized {};
  AlignedBuffer(std::size_t size, Uninitialized) : size_(size) {
    // size * sizeof(T) must not wrap into a small allocation.
    if (size_ > SIZE_MAX / sizeof(T)) throw InvalidArgument("AlignedBuffer: size overflows");
    if (size_ != 0) data_ = static_cast<T*>(pool_allocate(size_ * sizeof(T)));
  }

  AlignedBuffer(AlignedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  ~AlignedBuffer() { release(); }

  [[nodiscard]] AlignedBuffer clone() const {
    AlignedBuffer copy(size_, Uninitialized{});
    if (size_ != 0) std::memcpy(static_cast<void*>(copy.data_), data_, size_ * sizeof(T));
    return copy;
  }

  // Overwrites the contents with zeros (used to wipe secrets before release).
  void wipe() noexcept {
    if (size_ == 0) return;
    // explicit_bzero: a memset the compiler may not drop even though the
    // memory is about to be freed (and as fast as memset).
    explicit_bzero(static_cast<void*>(data_), size_ * sizeof(T));
  }

  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  [[nodiscard]] std::span<T> span() noexcept { return {data_, size_}; }
  [[nodiscard]] std::span<const T> span() const noexcept { return {data_, size_}; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }

 private:
  void release() noexcept {
    if (data_ != nullptr) pool_release(data_, size_ * sizeof(T));
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace heft

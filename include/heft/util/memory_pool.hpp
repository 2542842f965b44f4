// A process-wide cache of freed 64-byte-aligned blocks, by exact size.
//
// Homomorphic operations allocate and free the same few sizes (one tower,
// one polynomial, one ciphertext) over and over. Through malloc, blocks of
// that size are mmap-ed and unmapped each time, so every operation pays page
// faults and kernel page zeroing: that, not arithmetic, dominated light
// operations such as ciphertext addition (OpenFHE has the same problem). The
// pool keeps freed blocks and hands them out again. It holds at most
// HEFT_POOL_LIMIT_MB MiB (default 2048) of idle memory, read once at first
// use (pool_limit_from_text); beyond that blocks go back to the system.
#pragma once

#include <cstddef>

#include "heft/export.hpp"

namespace heft {

// Returns a block of at least `bytes` bytes aligned to 64 (contents undefined).
HEFT_EXPORT void* pool_allocate(std::size_t bytes);
// Gives back a block from pool_allocate of the same size.
HEFT_EXPORT void pool_release(void* block, std::size_t bytes) noexcept;
// Gives the pool's idle blocks, and what malloc keeps free, back to the
// system (between two large computations: a bootstrappable N = 2^16 context
// after a smaller one). Returns the pool's bytes released. Safe at any time;
// later allocations simply miss the pool.
HEFT_EXPORT std::size_t release_idle_memory() noexcept;
// The idle-byte limit a HEFT_POOL_LIMIT_MB value sets: a decimal count of MiB
// (values too large for the address space mean "no limit"); null, empty or
// not a plain decimal number gives the default, 2048 MiB.
HEFT_EXPORT std::size_t pool_limit_from_text(const char* text) noexcept;

// Marks the whole 2 MiB pages inside [data, data + bytes) for transparent
// huge pages, before they are first written: for large byte buffers made
// outside the pool (a serialized key set at N = 2^16 is gigabytes, and
// faulting it in 4 KiB pages cost more than writing it). Advice only; does
// nothing for ranges below 4 MiB.
HEFT_EXPORT void advise_huge_pages(void* data, std::size_t bytes) noexcept;

}  // namespace heft

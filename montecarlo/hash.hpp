#pragma once
// 64-bit FNV-1a (Fowler, Noll, Vo; offset basis 0xcbf29ce484222325, prime 0x100000001b3): the one
// stable hash of the project (scenario keys of the RNG, build ids of certificates). Stable across
// machines, compilers and runs; pinned by the reference values of tests/montecarlo/exact_test.cpp.
// Incremental: fnv1a64_update(fnv1a64_update(basis, a), b) == fnv1a64(a + b).
#include <cstdint>
#include <string_view>

namespace retrylab::montecarlo {

inline constexpr std::uint64_t fnv1a64_basis = 0xcbf29ce484222325ULL;
inline constexpr std::uint64_t fnv1a64_prime = 0x100000001b3ULL;

// The hash state h after more bytes.
inline constexpr std::uint64_t fnv1a64_update(std::uint64_t h, std::string_view bytes) noexcept {
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= fnv1a64_prime;
  }
  return h;
}

// 64-bit FNV-1a of any text.
inline constexpr std::uint64_t fnv1a64(std::string_view text) noexcept { return fnv1a64_update(fnv1a64_basis, text); }

}  // namespace retrylab::montecarlo

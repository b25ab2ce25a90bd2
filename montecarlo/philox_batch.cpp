// Philox4x32-10 kernels (philox_batch.hpp). Each follows Random123's philox.h round by round
// (_philox4x32round, _philox4x32bumpkey) on several blocks side by side: lane b of c[w] is word w of
// block b, and two independent register sets per call let the multiply chains overlap.
#include "montecarlo/philox_batch.hpp"

#include <Random123/philox.h>

#if defined(__x86_64__) || defined(__SSE2__)
#include <immintrin.h>
#endif

namespace retrylab::montecarlo::detail {

void philox16_scalar(const PhiloxCounters& c, PhiloxWords& out) noexcept {
  using Philox = r123::Philox4x32_R<10>;
  const Philox::key_type key{{c.key0, c.key1}};
  for (int b = 0; b < philox_batch; ++b) {
    const Philox::ctr_type ctr{{c.lo + static_cast<std::uint32_t>(b), c.hi, c.run_lo, c.run_hi}};
    const Philox::ctr_type o = Philox()(ctr, key);
    for (int w = 0; w < 4; ++w) out[w][b] = o.v[w];
  }
}

#if defined(__SSE2__)

namespace {

// The 4 lanes' 32×32→64 products with m: low halves into lo, high halves into hi.
inline void mulhilo_sse2(__m128i m, __m128i c, __m128i& lo, __m128i& hi) noexcept {
  const __m128i even = _mm_shuffle_epi32(_mm_mul_epu32(c, m), _MM_SHUFFLE(3, 1, 2, 0));  // lo0 lo2 hi0 hi2
  const __m128i odd = _mm_shuffle_epi32(_mm_mul_epu32(_mm_srli_epi64(c, 32), m), _MM_SHUFFLE(3, 1, 2, 0));
  lo = _mm_unpacklo_epi32(even, odd);
  hi = _mm_unpackhi_epi32(even, odd);
}

inline void round_sse2(__m128i (&c)[4], __m128i k0, __m128i k1, __m128i m0, __m128i m1) noexcept {
  __m128i lo0, hi0, lo1, hi1;
  mulhilo_sse2(m0, c[0], lo0, hi0);
  mulhilo_sse2(m1, c[2], lo1, hi1);
  c[0] = _mm_xor_si128(_mm_xor_si128(hi1, c[1]), k0);
  c[1] = lo1;
  c[2] = _mm_xor_si128(_mm_xor_si128(hi0, c[3]), k1);
  c[3] = lo0;
}

// Blocks first .. first + 7 of the batch, in two sets of 4.
inline void philox8_sse2(const PhiloxCounters& c, int first, PhiloxWords& out) noexcept {
  const auto lo = static_cast<int>(c.lo + static_cast<std::uint32_t>(first));
  __m128i a[4] = {_mm_add_epi32(_mm_set1_epi32(lo), _mm_set_epi32(3, 2, 1, 0)), _mm_set1_epi32(static_cast<int>(c.hi)),
                  _mm_set1_epi32(static_cast<int>(c.run_lo)), _mm_set1_epi32(static_cast<int>(c.run_hi))};
  __m128i b[4] = {_mm_add_epi32(_mm_set1_epi32(lo), _mm_set_epi32(7, 6, 5, 4)), a[1], a[2], a[3]};
  __m128i k0 = _mm_set1_epi32(static_cast<int>(c.key0)), k1 = _mm_set1_epi32(static_cast<int>(c.key1));
  const __m128i m0 = _mm_set1_epi32(static_cast<int>(PHILOX_M4x32_0));
  const __m128i m1 = _mm_set1_epi32(static_cast<int>(PHILOX_M4x32_1));
  const __m128i w0 = _mm_set1_epi32(static_cast<int>(PHILOX_W32_0));
  const __m128i w1 = _mm_set1_epi32(static_cast<int>(PHILOX_W32_1));
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 = _mm_add_epi32(k0, w0);
      k1 = _mm_add_epi32(k1, w1);
    }
    round_sse2(a, k0, k1, m0, m1);
    round_sse2(b, k0, k1, m0, m1);
  }
  for (int w = 0; w < 4; ++w) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(&out[w][first]), a[w]);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(&out[w][first + 4]), b[w]);
  }
}

}  // namespace

void philox16_sse2(const PhiloxCounters& c, PhiloxWords& out) noexcept {
  philox8_sse2(c, 0, out);
  philox8_sse2(c, 8, out);
}

#else

void philox16_sse2(const PhiloxCounters& c, PhiloxWords& out) noexcept { philox16_scalar(c, out); }

#endif

#if defined(__x86_64__)

// Compiled for AVX2 whatever the build's target, and called only after the processor said it has it.
namespace {

[[gnu::target("avx2")]] inline void mulhilo_avx2(__m256i m, __m256i c, __m256i& lo, __m256i& hi) noexcept {
  // Within each 128-bit half, as in mulhilo_sse2: the even and the odd lanes' products, then
  // the low and the high halves gathered in lane order.
  const __m256i even = _mm256_shuffle_epi32(_mm256_mul_epu32(c, m), _MM_SHUFFLE(3, 1, 2, 0));
  const __m256i odd = _mm256_shuffle_epi32(_mm256_mul_epu32(_mm256_srli_epi64(c, 32), m), _MM_SHUFFLE(3, 1, 2, 0));
  lo = _mm256_unpacklo_epi32(even, odd);
  hi = _mm256_unpackhi_epi32(even, odd);
}

[[gnu::target("avx2")]] inline void round_avx2(__m256i (&c)[4], __m256i k0, __m256i k1, __m256i m0,
                                               __m256i m1) noexcept {
  __m256i lo0, hi0, lo1, hi1;
  mulhilo_avx2(m0, c[0], lo0, hi0);
  mulhilo_avx2(m1, c[2], lo1, hi1);
  c[0] = _mm256_xor_si256(_mm256_xor_si256(hi1, c[1]), k0);
  c[1] = lo1;
  c[2] = _mm256_xor_si256(_mm256_xor_si256(hi0, c[3]), k1);
  c[3] = lo0;
}

}  // namespace

bool philox16_has_avx2() noexcept { return __builtin_cpu_supports("avx2") != 0; }

[[gnu::target("avx2")]] void philox16_avx2(const PhiloxCounters& c, PhiloxWords& out) noexcept {
  const auto lo = static_cast<int>(c.lo);
  __m256i a[4] = {_mm256_add_epi32(_mm256_set1_epi32(lo), _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0)),
                  _mm256_set1_epi32(static_cast<int>(c.hi)), _mm256_set1_epi32(static_cast<int>(c.run_lo)),
                  _mm256_set1_epi32(static_cast<int>(c.run_hi))};
  __m256i b[4] = {_mm256_add_epi32(_mm256_set1_epi32(lo), _mm256_set_epi32(15, 14, 13, 12, 11, 10, 9, 8)), a[1], a[2],
                  a[3]};
  __m256i k0 = _mm256_set1_epi32(static_cast<int>(c.key0)), k1 = _mm256_set1_epi32(static_cast<int>(c.key1));
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(PHILOX_M4x32_0));
  const __m256i m1 = _mm256_set1_epi32(static_cast<int>(PHILOX_M4x32_1));
  const __m256i w0 = _mm256_set1_epi32(static_cast<int>(PHILOX_W32_0));
  const __m256i w1 = _mm256_set1_epi32(static_cast<int>(PHILOX_W32_1));
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 = _mm256_add_epi32(k0, w0);
      k1 = _mm256_add_epi32(k1, w1);
    }
    round_avx2(a, k0, k1, m0, m1);
    round_avx2(b, k0, k1, m0, m1);
  }
  for (int w = 0; w < 4; ++w) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(&out[w][0]), a[w]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(&out[w][8]), b[w]);
  }
}

void philox16(const PhiloxCounters& c, PhiloxWords& out) noexcept {
  if (philox16_has_avx2())
    philox16_avx2(c, out);
  else
    philox16_sse2(c, out);
}

#else

bool philox16_has_avx2() noexcept { return false; }
void philox16_avx2(const PhiloxCounters& c, PhiloxWords& out) noexcept { philox16_scalar(c, out); }
void philox16(const PhiloxCounters& c, PhiloxWords& out) noexcept { philox16_sse2(c, out); }

#endif

}  // namespace retrylab::montecarlo::detail

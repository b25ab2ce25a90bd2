// Known-answer tests of the engine's randomness (kat_vectors.txt) and the stream layout.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "montecarlo/random.hpp"

namespace mc = retrylab::montecarlo;

namespace {

std::uint32_t hex32(const std::string& s) { return static_cast<std::uint32_t>(std::stoul(s, nullptr, 16)); }
std::uint64_t hex64(const std::string& s) { return std::stoull(s, nullptr, 16); }

TEST(Kat, FileIsCompleteAndEveryCaseHolds) {
  std::ifstream in(RETRYLAB_KAT_FILE);
  ASSERT_TRUE(in) << RETRYLAB_KAT_FILE;
  std::string line;
  int philox = 0, uniform = 0, expo = 0, index = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    SCOPED_TRACE(line);
    ASSERT_EQ(line.find("UNWRITTEN"), std::string::npos) << "never generated: run retrylab_kat_generate";
    std::istringstream ls(line);
    std::string kind;
    ls >> kind;
    if (kind == "philox4x32_10") {
      std::string w[10];
      for (auto& x : w) ls >> x;
      const mc::Philox::ctr_type ctr{{hex32(w[0]), hex32(w[1]), hex32(w[2]), hex32(w[3])}};
      const mc::Philox::key_type key{{hex32(w[4]), hex32(w[5])}};
      const auto out = mc::Philox()(ctr, key);
      for (int i = 0; i < 4; ++i) EXPECT_EQ(out.v[i], hex32(w[6 + i])) << "word " << i;
      ++philox;
    } else if (kind == "uniform_open") {
      std::string x, v;
      ls >> x >> v;
      EXPECT_EQ(mc::uniform_open(hex64(x)), std::strtod(v.c_str(), nullptr));  // exact
      ++uniform;
    } else if (kind == "exponential") {
      std::string x, v;
      ls >> x >> v;
      const double ref = std::strtod(v.c_str(), nullptr);
      const double got = mc::exponential(hex64(x));
      // At most 1 ulp from the correctly rounded value (glibc log's documented accuracy).
      EXPECT_LE(std::abs(got - ref), std::nextafter(ref, INFINITY) - ref) << got << " vs " << ref;
      ++expo;
    } else if (kind == "uniform_index") {
      std::string x;
      std::uint64_t m = 0, v = 0;
      ls >> x >> m >> v;
      EXPECT_EQ(mc::uniform_index(hex64(x), m), v);
      ++index;
    } else {
      ADD_FAILURE() << "unknown case kind " << kind;
    }
  }
  EXPECT_EQ(philox, 3);
  EXPECT_GE(uniform, 10);
  EXPECT_GE(expo, 8);
  EXPECT_GE(index, 6);
}

TEST(Stream, DrawsAreThePhiloxBlocksOfItsCounter) {
  const std::uint64_t key = 0x0123456789abcdefULL, run = 0x1122334455667788ULL;
  mc::Stream s(key, mc::StreamId::sleeps, run);
  const mc::Philox::key_type k{{0x89abcdefu, 0x01234567u}};
  for (std::uint32_t block = 0; block < 9; ++block) {  // across the blocks computed together
    const mc::Philox::ctr_type ctr{{block, 2u << 24, 0x55667788u, 0x11223344u}};
    const auto out = mc::Philox()(ctr, k);
    EXPECT_EQ(s.next_u64(), out.v[0] | std::uint64_t{out.v[1]} << 32);
    EXPECT_EQ(s.draws(), 2u * block + 1);
    EXPECT_EQ(s.next_u64(), out.v[2] | std::uint64_t{out.v[3]} << 32);
  }
  EXPECT_EQ(s.draws(), 18u);
}

// The stream computes 16 blocks at a time (philox_batch.hpp: AVX2 or SSE2 on x86-64): any key, purpose and
// run, over several refills, gives Random123's own Philox4x32-10 blocks in counter order.
RC_GTEST_PROP(Stream, DrawsAreRandom123sPhiloxForAnyKeyAndRun, (std::uint64_t key, std::uint64_t run)) {
  const auto id = *rc::gen::element(mc::StreamId::arrivals, mc::StreamId::sleeps, mc::StreamId::ties,
                                    mc::StreamId::service, mc::StreamId::throttle);
  const auto blocks = *rc::gen::inRange<std::uint32_t>(1, 40);
  mc::Stream s(key, id, run);
  const mc::Philox::key_type k{{static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)}};
  for (std::uint32_t block = 0; block < blocks; ++block) {
    const mc::Philox::ctr_type ctr{{block, static_cast<std::uint32_t>(id) << 24, static_cast<std::uint32_t>(run),
                                    static_cast<std::uint32_t>(run >> 32)}};
    const auto out = mc::Philox()(ctr, k);
    RC_ASSERT(s.next_u64() == (out.v[0] | std::uint64_t{out.v[1]} << 32));
    RC_ASSERT(s.next_u64() == (out.v[2] | std::uint64_t{out.v[3]} << 32));
  }
}

// Every Philox kernel a Stream may use gives Random123's words, whichever one this processor picks:
// scalar, SSE2 and (when the processor has it) AVX2, for any counter and key.
RC_GTEST_PROP(PhiloxBatch, EveryKernelIsRandom123sPhilox,
              (std::uint32_t lo, std::uint32_t hi, std::uint32_t run_lo, std::uint32_t run_hi, std::uint32_t key0,
               std::uint32_t key1)) {
  const mc::detail::PhiloxCounters c{lo & ~15u, hi, run_lo, run_hi, key0, key1};
  mc::detail::PhiloxWords expected, got;
  const mc::Philox::key_type k{{key0, key1}};
  for (int b = 0; b < mc::detail::philox_batch; ++b) {
    const mc::Philox::ctr_type ctr{{c.lo + static_cast<std::uint32_t>(b), hi, run_lo, run_hi}};
    const auto out = mc::Philox()(ctr, k);
    for (int w = 0; w < 4; ++w) expected[w][b] = out.v[w];
  }
  const auto same = [&] {
    for (int w = 0; w < 4; ++w)
      for (int b = 0; b < mc::detail::philox_batch; ++b)
        if (got[w][b] != expected[w][b]) return false;
    return true;
  };
  mc::detail::philox16_scalar(c, got);
  RC_ASSERT(same());
  mc::detail::philox16_sse2(c, got);
  RC_ASSERT(same());
  if (mc::detail::philox16_has_avx2()) {
    mc::detail::philox16_avx2(c, got);
    RC_ASSERT(same());
  }
  mc::detail::philox16(c, got);
  RC_ASSERT(same());
}

TEST(Stream, PurposesAndRunsAreIndependentStreams) {
  mc::Stream a(7, mc::StreamId::arrivals, 0), b(7, mc::StreamId::sleeps, 0), c(7, mc::StreamId::arrivals, 1);
  const auto x = a.next_u64();
  EXPECT_NE(x, b.next_u64());
  EXPECT_NE(x, c.next_u64());
}

RC_GTEST_PROP(Conversions, UniformIsOpenAndExponentialFinite, (std::uint64_t x)) {
  const double u = mc::uniform_open(x);
  RC_ASSERT(u > 0.0);
  RC_ASSERT(u < 1.0);
  const double e = mc::exponential(x);
  RC_ASSERT(e > 0.0);
  RC_ASSERT(std::isfinite(e));
}

// uniform_open builds its double from bits (1 + k·2^−52, minus 1 − 2^−53): the same value, to the
// bit, as the arithmetic definition in the header, at random draws and at both ends of the range.
double uniform_by_arithmetic(std::uint64_t x) { return static_cast<double>(x >> 12) * 0x1p-52 + 0x1p-53; }

RC_GTEST_PROP(Conversions, UniformBitsEqualTheArithmeticDefinition, (std::uint64_t x)) {
  RC_ASSERT(mc::uniform_open(x) == uniform_by_arithmetic(x));
}

TEST(Conversions, UniformAtTheEndsOfItsRange) {
  for (const std::uint64_t x : {std::uint64_t{0}, std::uint64_t{0xfff}, std::uint64_t{0x1000}, ~std::uint64_t{0},
                                ~std::uint64_t{0} - 0x1000, std::uint64_t{1} << 63}) {
    SCOPED_TRACE(x);
    EXPECT_EQ(mc::uniform_open(x), uniform_by_arithmetic(x));
  }
  EXPECT_EQ(mc::uniform_open(0), 0x1p-53);
  EXPECT_EQ(mc::uniform_open(~std::uint64_t{0}), 1.0 - 0x1p-53);
}

RC_GTEST_PROP(Conversions, UniformIndexInRange, (std::uint64_t x, std::uint64_t m)) {
  RC_PRE(m > 0u);
  RC_ASSERT(mc::uniform_index(x, m) < m);
}

}  // namespace

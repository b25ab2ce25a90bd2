// advise_brute: the measurement behind docs/advise.md's "Against brute force": advise's
// recommendation for a burst, and the best policy a brute-force grid finds for each strategy
// (tests/advise/brute_force.hpp), both re-run on the same fresh seed. Run by hand:
//   build/release/tests/advise/advise_brute collision 300      # the README's question
//   build/release/tests/advise/advise_brute shared 300
// Prints one line per strategy and the ratio of the recommended policy's mean drain time to the
// brute force's best over all strategies. Also the measurement behind docs/advise.md's "Sustainable
// steady load": advise's sustainable load of one policy on ten seeds,
//   build/release/tests/advise/advise_brute sustainable collision full 1 1000
#include <fmt/format.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "advise/advise.hpp"
#include "advise/sustainable.hpp"
#include "tests/advise/brute_force.hpp"

namespace {

// advise's sustainable load of one policy on the request seeds 1..10 (its runs: seeds 3..12).
int sustainable(retrylab::Model model, retrylab::Strategy s, double base, double cap) {
  using namespace retrylab;
  double lo = 1.0, hi = 0.0, sum = 0.0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    advise::Request r;
    r.model = model;
    r.seed = seed;
    const auto v = advise::sustainable_load(r, advise::Policy{s, base, cap});
    fmt::print("seed {:>2}: {:.4f} (collapsed at {:.4f}){}\n", seed + 2, v.rate, v.collapsed_at,
               v.whole_range ? " (whole range)" : "");
    lo = std::min(lo, v.rate), hi = std::max(hi, v.rate), sum += v.rate;
  }
  fmt::print("{} {} base {} cap {}: mean {:.4f}, range [{:.4f}, {:.4f}] over 10 seeds\n", to_string(model),
             to_string(s), base, cap, sum / 10, lo, hi);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace retrylab;
  if (argc == 6 && std::string(argv[1]) == "sustainable") {
    const auto model = parse_model(argv[2]);
    const auto s = parse_strategy(argv[3]);
    if (!model || !s) return 2;
    return sustainable(*model, *s, std::atof(argv[4]), std::atof(argv[5]));
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: advise_brute collision|free|shared N [seed]\n");
    return 2;
  }
  const auto model = parse_model(argv[1]);
  if (!model) {
    std::fprintf(stderr, "advise_brute: unknown model %s\n", argv[1]);
    return 2;
  }
  advise::Request r;
  r.model = *model;
  r.clients = std::atoll(argv[2]);
  const std::uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 7001;
  constexpr std::int64_t screen = 8, runs = 200;
  const advise::Advice a = advise::advise(r);
  double best = std::numeric_limits<double>::infinity();
  for (Strategy s : r.strategies) {
    const auto b = advise::test::brute_force(r, s, seed, screen, 5, runs);
    if (!std::isfinite(b.best.mean)) {
      fmt::print("{:<13} brute force: {} grid points; none drained in every run\n", to_string(s), b.points);
      continue;
    }
    fmt::print(
        "{:<13} brute force: {} grid points; best base {:.4g} cap {:.4g}: mean drain time {:.5g} ({} runs, seed {})\n",
        to_string(s), b.points, b.best.policy.base, b.best.policy.cap, b.best.mean, runs, seed + 1);
    best = std::min(best, b.best.mean);
  }
  if (a.candidates.empty() || !a.candidates.front().confirmed) {
    fmt::print("advise: no recommendation\n");
    return 1;
  }
  const auto& p = a.candidates.front().policy;
  const double rec = advise::test::mean_drain_time(r, p, seed + 1, runs);
  fmt::print(
      "recommended: {} base {:.4g} cap {:.4g}: mean drain time {:.5g} ({} runs, seed {}); ratio to the brute "
      "force's best {:.3f}\n",
      to_string(p.strategy), p.base, p.cap, rec, runs, seed + 1, rec / best);
  return 0;
}

// rapidcheck properties: random parameters for catalogue cases 1–4, judged by the same
// rules as the catalogue (t·sd/√n + floor; KS at alpha). Seeds: ctest fixes RC_PARAMS
// ("seed=... max_success=..."), printed below for replay:
//   RC_PARAMS="seed=<seed> max_success=<m>" ./validation_tests --gtest_filter='ValidationProperties.*'
// False alarms: the budget kPropertyBudget is split (Bonferroni) over every trial of every property,
// using max_success from RC_PARAMS (rapidcheck's default 100 when unset), so the stated rate holds
// for any trial count.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "analytic/strategy.hpp"
#include "validation/catalogue.hpp"
#include "validation/statistics.hpp"
#include "validation/suite.hpp"

namespace properties_test {

namespace rv = retrylab::validation;
using retrylab::Backoff;
using retrylab::Strategy;

namespace {

constexpr double kPropertyBudget = 1e-3;  // P(any property trial fails | engine right) <= this
constexpr int kProperties = 4;

int max_success() {
  const char* p = std::getenv("RC_PARAMS");
  if (p == nullptr) return 100;
  const std::string s(p);
  const auto at = s.find("max_success=");
  return at == std::string::npos ? 100 : std::max(1, std::atoi(s.c_str() + at + 12));
}

double trial_alpha() {
  return rv::bonferroni_alpha(kPropertyBudget, static_cast<std::int64_t>(kProperties) * max_success());
}

void announce() {
  static const bool once = [] {
    const char* p = std::getenv("RC_PARAMS");
    std::printf("validation properties: RC_PARAMS=\"%s\", alpha per trial %.3g, total <= %.3g\n", p ? p : "(unset)",
                trial_alpha(), kPropertyBudget);
    return true;
  }();
  (void)once;
}

void expect_pass(const rv::CaseResult& r) {
  RC_LOG() << r.name << " [" << r.parameters << "] " << r.check << "\n";
  RC_ASSERT(r.verdict == rv::Verdict::pass);
}

}  // namespace

RC_GTEST_PROP(ValidationProperties, CollisionGoodputMatchesAloha, ()) {
  announce();
  const double rate = *rc::gen::inRange(5, 201) / 100.0;  // λ in [0.05, 2]
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  expect_pass(rv::run_case(rv::collision_goodput_case({rate, 2000.0, 10.0, 16}), {seed, trial_alpha(), 1}));
}

RC_GTEST_PROP(ValidationProperties, FreeGoodputMatchesOcc, ()) {
  announce();
  const double rate = *rc::gen::inRange(5, 301) / 100.0;  // λ in [0.05, 3]
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  expect_pass(rv::run_case(rv::free_goodput_case({rate, 2000.0, 20.0, 16}), {seed, trial_alpha(), 1}));
}

RC_GTEST_PROP(ValidationProperties, PsSojournMatchesOneOverOneMinusRho, ()) {
  announce();
  const double rho = *rc::gen::inRange(5, 81) / 100.0;  // ρ in [0.05, 0.8]
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const double tau = rv::ps_relaxation_time(rho);
  const double warmup = std::ceil(10.0 * tau);
  const double window = std::max(2000.0, 50.0 * tau);
  expect_pass(rv::run_case(rv::ps_sojourn_case({rho, warmup + window, warmup, 16}), {seed, trial_alpha(), 1}));
}

RC_GTEST_PROP(ValidationProperties, SleepsMatchTheirExactLaw, ()) {
  announce();
  const Strategy st = *rc::gen::element(Strategy::full, Strategy::equal, Strategy::window, Strategy::decorrelated);
  const double base = *rc::gen::element(0.25, 0.5, 1.0, 2.0, 8.0);
  const double cap = base * *rc::gen::element(1.0, 3.0, 10.0, 100.0, 1000.0);
  const double window = *rc::gen::inRange(1, 500) / 4.0;
  const int k = *rc::gen::inRange(1, 21);
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const Backoff b{st, base, cap, st == Strategy::window ? window : 0.0};
  expect_pass(rv::run_case(rv::sleep_case(b, k, 20000), {seed, trial_alpha(), 1}));
}

}  // namespace properties_test

#pragma once
// Running the catalogue: the suite-wide false-alarm budget split evenly (Bonferroni) over the
// statistical cases of the chosen scale, cases run in parallel (each a pure function of its
// configuration and the seed, so the results never depend on the thread count), results in
// catalogue order, and the certificate that records them.
// Invariant: P(some statistical case fails | engine right) <= alpha_total (the Bonferroni bound,
// whatever the dependence between cases); exact and info cases add nothing to it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "validation/case.hpp"
#include "validation/catalogue.hpp"
#include "validation/certificate.hpp"

namespace retrylab::validation {

inline constexpr double default_alpha_total = 1e-3;
inline constexpr std::uint64_t default_seed = 20261130;

struct SuiteOptions {
  Scale scale = Scale::quick;
  std::uint64_t seed = default_seed;
  int threads = 0;  // 0 = all cores
  double alpha_total = default_alpha_total;
  std::vector<std::string> only;  // run only cases whose name contains one of these (empty: all)
};

struct SuiteResult {
  SuiteOptions options;
  std::vector<CaseResult> cases;       // catalogue order
  std::int64_t statistical_cases = 0;  // in the whole catalogue of the scale (the Bonferroni divisor)
  double alpha_per_case = 0.0;
  double alpha_run = 0.0;  // sum of the alphas of the cases that ran (<= alpha_total)
  bool filtered = false;   // `only` removed some cases: no certificate is written
  bool passed = false;     // no case failed
  double seconds = 0.0;
};

// Throws InputError (threads, alpha, only) on bad options. on_case_done(result, cases chosen) is
// called as each case finishes (one call at a time, from any thread).
SuiteResult run_suite(const SuiteOptions& options,
                      const std::function<void(const CaseResult&, std::size_t)>& on_case_done = {});

// Runs one case under the given context, timing it and turning a thrown exception into a failed row.
CaseResult run_case(const ValidationCase& c, const CaseContext& ctx);

// The certificate for a suite result on this build (version, build id, seed, verdicts).
Certificate make_certificate(const SuiteResult& r, const std::string& version);

}  // namespace retrylab::validation

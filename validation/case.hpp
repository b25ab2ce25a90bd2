#pragma once
// One validation case: an engine configuration held against a closed form (or an invariant) with a
// tolerance rule and a stated false-alarm probability, and the row it produces in the table.
// Invariants: a statistical case's verdict is `fail` with probability at most `alpha` when the
// engine is right; an exact case has alpha = 0 (a deterministic identity, checked to rounding); an
// info case never fails: it documents an estimate's accuracy (`expected` the estimate, `observed` the
// engine, rel_error the estimate's error), and the reports list it apart, under "Estimates".
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>

namespace retrylab::validation {

enum class Verdict { pass, fail, info };
enum class CaseKind { statistical, exact, info };

std::string_view to_string(Verdict v) noexcept;
std::string_view to_string(CaseKind k) noexcept;

struct CaseResult {
  static constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  std::string name;         // stable id, e.g. "collision-goodput-0.5"
  std::string parameters;   // engine configuration, e.g. "λ=0.5 T=5000 T0=10 runs=32"
  std::string closed_form;  // formula it is held to, e.g. "λe^−2λ"
  CaseKind kind = CaseKind::statistical;
  double expected = nan;   // closed-form value
  double observed = nan;   // simulated mean (engine)
  double ci95 = nan;       // half-width of the 95% Student-t interval of `observed`
  double rel_error = nan;  // (observed − expected)/|expected|, NaN when expected = 0; info: expected/observed − 1
  double tolerance = nan;  // allowed |observed − expected| (KS cases: the critical D)
  std::string check;       // what was compared, e.g. "|Δ| 3.1e-4 ≤ 2.2e-3 = t·sd/√n + floor"
  Verdict verdict = Verdict::fail;
  double alpha = 0.0;    // false-alarm probability of this case
  std::int64_t n = 0;    // runs (or draws) the case rests on
  double seconds = 0.0;  // wall time of the case
};

// What a case is given when it runs: the suite seed, its share of the false-alarm budget, threads.
struct CaseContext {
  std::uint64_t seed = 1;
  double alpha = 1e-5;
  int threads = 1;
};

struct ValidationCase {
  std::string name;
  std::string parameters;
  CaseKind kind = CaseKind::statistical;
  double cost = 1.0;  // rough relative work, for scheduling the longest cases first (never a result)
  std::function<CaseResult(const CaseContext&)> run;
};

}  // namespace retrylab::validation

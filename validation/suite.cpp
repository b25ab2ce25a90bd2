#include "validation/suite.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

#include "analytic/error.hpp"
#include "validation/statistics.hpp"

namespace retrylab::validation {

std::string_view to_string(Verdict v) noexcept {
  switch (v) {
    case Verdict::pass: return "pass";
    case Verdict::fail: return "FAIL";
    case Verdict::info: return "info";
  }
  return "?";
}

std::string_view to_string(CaseKind k) noexcept {
  switch (k) {
    case CaseKind::statistical: return "statistical";
    case CaseKind::exact: return "exact";
    case CaseKind::info: return "info";
  }
  return "?";
}

CaseResult run_case(const ValidationCase& c, const CaseContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult r;
  try {
    r = c.run(ctx);
  } catch (const std::exception& e) {
    // A case that cannot run is a failed case, never a skipped one.
    r = CaseResult{};
    r.kind = c.kind;
    r.verdict = Verdict::fail;
    r.check = fmt::format("error: {}", e.what());
  }
  r.name = c.name;
  r.parameters = c.parameters;
  r.alpha = r.kind == CaseKind::statistical ? ctx.alpha : 0.0;
  if (c.kind == CaseKind::info) r.verdict = Verdict::info;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

SuiteResult run_suite(const SuiteOptions& options,
                      const std::function<void(const CaseResult&, std::size_t)>& on_case_done) {
  if (options.threads < 0)
    throw InputError("threads", fmt::format("must be >= 0, 0 = all cores (got {})", options.threads));
  if (!(options.alpha_total > 0.0 && options.alpha_total < 1.0))
    throw InputError("alpha", fmt::format("must be in (0, 1) (got {})", options.alpha_total));
  const auto start = std::chrono::steady_clock::now();
  const std::vector<ValidationCase> all = catalogue(options.scale);

  SuiteResult out;
  out.options = options;
  out.statistical_cases =
      std::count_if(all.begin(), all.end(), [](const ValidationCase& c) { return c.kind == CaseKind::statistical; });
  // The budget is split over the whole catalogue of the scale, so a filtered run keeps each case's
  // alpha (and its verdicts) identical to the full run's.
  out.alpha_per_case = bonferroni_alpha(options.alpha_total, std::max<std::int64_t>(1, out.statistical_cases));

  std::vector<const ValidationCase*> chosen;
  for (const auto& c : all) {
    const bool keep =
        options.only.empty() || std::any_of(options.only.begin(), options.only.end(),
                                            [&](const std::string& s) { return c.name.find(s) != std::string::npos; });
    if (keep) chosen.push_back(&c);
  }
  if (chosen.empty())
    throw InputError("cases", fmt::format("must match at least one case name of the {} catalogue (got {})",
                                          to_string(options.scale), fmt::join(options.only, ",")));
  out.filtered = chosen.size() != all.size();

  // Cases run in parallel, longest first; each case is a pure function of (configuration, seed),
  // so the order and the thread count change only the wall time.
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const int threads = options.threads > 0 ? options.threads : static_cast<int>(hw);
  std::vector<std::size_t> order(chosen.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return chosen[a]->cost > chosen[b]->cost; });
  std::vector<CaseResult> results(chosen.size());
  std::atomic<std::size_t> next{0};
  std::mutex report_mutex;
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < order.size();) {
      const ValidationCase& c = *chosen[order[i]];
      results[order[i]] = run_case(c, CaseContext{options.seed, out.alpha_per_case, 1});
      if (on_case_done) {
        const std::lock_guard<std::mutex> lock(report_mutex);
        on_case_done(results[order[i]], order.size());
      }
    }
  };
  std::vector<std::thread> pool;
  const int n_workers = std::min<int>(threads, static_cast<int>(order.size()));
  for (int t = 1; t < n_workers; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  out.cases = std::move(results);
  out.passed =
      std::none_of(out.cases.begin(), out.cases.end(), [](const CaseResult& r) { return r.verdict == Verdict::fail; });
  for (const auto& r : out.cases) out.alpha_run += r.alpha;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

Certificate make_certificate(const SuiteResult& r, const std::string& version) {
  Certificate c;
  c.version = version;
  c.build_id = current_build_id();
  c.scale = std::string(to_string(r.options.scale));
  c.seed = r.options.seed;
  c.passed = r.passed && !r.filtered;
  c.id = fmt::format("{}-{}-{}", c.build_id, c.scale, c.seed);
  for (const auto& x : r.cases) c.cases.push_back({x.name, x.verdict != Verdict::fail});
  return c;
}

}  // namespace retrylab::validation

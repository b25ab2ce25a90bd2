#include "advise/report.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "advise/search.hpp"
#include "advise/sustainable.hpp"

namespace retrylab::advise {

namespace {

using Json = nlohmann::ordered_json;

Json jnum(double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); }

// A summary in the user's unit (times d; d = 1 for counts): mean, 95% interval and n.
Json mean_json(const MeanSummary& m, double d) {
  return {{"mean", jnum(m.mean * d)}, {"ci95", {jnum(m.ci95.lo * d), jnum(m.ci95.hi * d)}}, {"n", m.n}};
}

Json proportion_json(const ProportionSummary& p) {
  return {{"count", p.count}, {"n", p.n}, {"fraction", jnum(p.fraction)}, {"ci95", {jnum(p.ci95.lo), jnum(p.ci95.hi)}}};
}

Json stats_json(const Request& r, const Stats& s, double d) {
  return {{"base", s.policy.base * d},
          {"cap", s.policy.cap * d},
          {"drained", proportion_json(s.drained)},
          {"drain_time", mean_json(s.drain_time, d)},
          {"drain_time_p99", mean_json(s.drain_time_p99, d)},
          {"attempts_per_client", mean_json(s.attempts_per_client, 1.0)},
          {"objective", mean_json(s.objective, objective_scale(r, d))}};
}

Json point_json(const Request& r, const Stats& s, double d) {
  return {{"cap", s.policy.cap * d},
          {"base", s.policy.base * d},
          {"drained", s.drained.count},
          {"n", s.drained.n},
          {"drain_time", mean_json(s.drain_time, d)},
          {"attempts_per_client", mean_json(s.attempts_per_client, 1.0)},
          {"objective", mean_json(s.objective, objective_scale(r, d))}};
}

Json comparisons_json(const Request& r, const std::vector<RunnerUp>& v, double d, bool margin) {
  Json out = Json::array();
  for (const RunnerUp& u : v) {
    Json x = point_json(r, u.stats, d);
    x["difference"] = mean_json(u.difference, objective_scale(r, d));
    if (margin) x["margin"] = std::string(to_string(u.margin));
    out.push_back(x);
  }
  return out;
}

void found_json(Json& x, const Request& r, const Candidate& c, double d) {
  const Stats& h = headline(c);
  x["base"] = c.policy.base * d;
  x["cap"] = c.policy.cap * d;
  x["least_cap"] = c.least_cap * d;
  for (const char* key : {"drained", "drain_time", "drain_time_p99", "attempts_per_client", "objective"})
    x[key] = stats_json(r, h, d)[key];
  x["drain_bound"] = jnum(c.drain_bound * d);
  x["search"] = stats_json(r, c.search, d);
  x["margin"] = {{"factor", margin_factor},
                 {"lower", c.lower.drained.n > 0 ? stats_json(r, c.lower, d) : Json(nullptr)},
                 {"upper", c.upper.drained.n > 0 ? stats_json(r, c.upper, d) : Json(nullptr)}};
  x["runner_ups"] = comparisons_json(r, c.runner_ups, d, true);
  x["near_base"] = comparisons_json(r, c.near_base, d, false);
  x["sustainable_rate"] = jnum(c.sustainable_rate / d);
  x["sustainable_collapsed_at"] = jnum(c.sustainable_collapsed_at / d);
  x["sustainable_whole_range"] = c.confirmed ? Json(c.sustainable_whole_range) : Json(nullptr);
  if (c.low_end_run)
    x["low_end"] = {{"clients", r.clients_low},
                    {"drained", proportion_json(c.low_end.drained)},
                    {"drain_time", mean_json(c.low_end.drain_time, d)},
                    {"drain_time_p99", mean_json(c.low_end.drain_time_p99, d)},
                    {"attempts_per_client", mean_json(c.low_end.attempts_per_client, 1.0)}};
}

Json candidate_json(const Request& r, const Candidate& c, double d) {
  Json x = {{"strategy", std::string(to_string(c.strategy))},
            {"first_guess", {{"cap", c.guess.cap ? jnum(*c.guess.cap * d) : nullptr}, {"source", c.guess.source}}},
            {"found", c.found},
            {"confirmed", c.confirmed}};
  if (c.found) found_json(x, r, c, d);
  x["behind"] = c.behind ? Json{{"strategy", std::string(to_string(*c.behind))},
                                {"base", c.curve_best.base * d},
                                {"cap", c.curve_best.cap * d},
                                {"difference", mean_json(c.behind_by, objective_scale(r, d))}}
                         : Json(nullptr);
  x["near_bound"] = c.near_bound ? Json{{"strategy", std::string(to_string(*c.near_bound))},
                                        {"base", c.curve_best.base * d},
                                        {"cap", c.curve_best.cap * d},
                                        {"upper", c.near_upper * objective_scale(r, d)},
                                        {"least_objective", least_objective(r) * objective_scale(r, d)}}
                                 : Json(nullptr);
  x["curve_ratio"] = c.ratio > 0 ? jnum(c.ratio) : Json(nullptr);
  Json curve = Json::array();
  for (const Stats& s : c.curve) curve.push_back(point_json(r, s, d));
  x["curve"] = curve;
  x["runs_simulated"] = c.runs_simulated;
  return x;
}

std::string percent(const MeanSummary& diff, double of) {
  return fmt::format("{:+.1f}% [{:+.1f}%, {:+.1f}%]", 100 * diff.mean / of, 100 * diff.ci95.lo / of,
                     100 * diff.ci95.hi / of);
}

// Mean first sleep of a strategy as a multiple of the base (docs/models.md §2).
double first_sleep(Strategy s) {
  switch (s) {
    case Strategy::nojitter: return 1.0;
    case Strategy::equal: return 0.75;
    case Strategy::decorrelated: return 2.0;
    default: return 0.5;
  }
}

}  // namespace

const char* plain_words(Model m) noexcept {
  switch (m) {
    case Model::free: return "failed attempts are free";
    case Model::shared: return "failed attempts use capacity";
    default: return "failed attempts collide";
  }
}

double objective_scale(const Request& r, double d) noexcept { return r.objective == Objective::attempts ? 1.0 : d; }

const Stats& headline(const Candidate& c) noexcept { return c.confirmed ? c.confirm : c.search; }

std::vector<std::string> warnings(const Advice& a) {
  std::vector<std::string> w;
  const Request& r = a.request;
  const bool any = !a.candidates.empty() && a.candidates.front().confirmed;
  if (r.model == Model::shared)
    w.push_back(fmt::format(
        "failed attempts use the server's capacity: no client backoff raises much the steady load this resource "
        "sustains (paper 1, papers/cap-is-doing-the-work){}; server-side mechanisms do (papers/raising-the-ceiling): "
        "a FIFO queue or lock in front of the hot row (simulate with `limit=1` `overflow=queue`, or `lock=on`), "
        "or a concurrency limit that rejects early (`limit=1` `overflow=reject`)",
        any ? fmt::format(": the recommended policy sustains {:.3g} per attempt-duration",
                          a.candidates.front().sustainable_rate)
            : ""));
  if (!can_drain(r)) {
    w.push_back(fmt::format(
        "{} clients cannot drain within {:g} attempt-durations whatever the policy: every success holds the "
        "resource for a whole attempt-duration (collide: no other attempt overlaps it; free: commits at least "
        "one apart; use-capacity: one unit of the server's work), so the last of N clients succeeds no sooner "
        "than N attempt-durations after the burst; nothing was simulated. Give a deadline of at least N "
        "attempt-durations",
        r.clients, r.drain_within));
    return w;
  }
  if (!any && std::any_of(a.candidates.begin(), a.candidates.end(), [](const Candidate& c) { return c.found; }))
    w.push_back(
        fmt::format("no strategy's policy kept its margin in the confirming runs (every run drains at its "
                    "cap, at cap x {0} and at cap / {0}, the neighbours within {1}x its objective): no "
                    "recommendation",
                    margin_factor, margin_slack));
  if (any && r.rate > 0.0 && r.rate >= a.candidates.front().sustainable_rate)
    w.push_back(
        fmt::format("the steady load ({:.3g} per attempt-duration) is at or above the recommended policy's "
                    "sustainable load ({:.3g} per attempt-duration): expect collapse",
                    r.rate, a.candidates.front().sustainable_rate));
  for (const auto& c : a.candidates)
    if (!c.found && !c.behind && !c.near_bound)
      w.push_back(
          fmt::format("{}: no policy drained the burst within the objective in every search run with its margin{}",
                      to_string(c.strategy),
                      c.strategy == Strategy::nojitter ? " (without jitter the clients retry in lock-step)" : ""));
  return w;
}

std::vector<std::string> notes(const Advice& a) {
  std::vector<std::string> n;
  if (a.candidates.empty() || !a.candidates.front().confirmed) return n;
  const Request& r = a.request;
  const Candidate& c = a.candidates.front();
  const double at = c.confirm.objective.mean;
  n.push_back(
      fmt::format("margin: cap x {0} and cap / {0} drained in all {1} and {2} confirming runs too, their {3} "
                  "{4:+.1f}% and {5:+.1f}% of the recommended's (the rule: every run drains, at most {6}x the "
                  "objective), so an estimate of N or of the attempt-duration up to {7:.2f}x off neither stops "
                  "the burst draining nor makes it much slower",
                  margin_factor, c.lower.drained.n, c.upper.drained.n, to_string(r.objective),
                  100 * (c.lower.objective.mean / at - 1), 100 * (c.upper.objective.mean / at - 1), margin_slack,
                  1 / margin_factor));
  if (std::isfinite(c.drain_bound))
    n.push_back(fmt::format(
        "confirmation: on free without steady load every sleep of {0} jitter is at most the cap, so a commit "
        "follows the last within cap + 2 attempt-durations and every run of the policy and of both neighbours "
        "drains, certainly; the confirming runs ({1}, {2} and {3} of the {4} a drain probability of {5} would "
        "need) only estimate the numbers and settle each neighbour's objective, stopping once both are within "
        "or beyond {6}x the recommended's by one-sided {7:g}% intervals",
        to_string(c.strategy), c.confirm.drained.n, c.lower.drained.n, c.upper.drained.n,
        static_cast<std::int64_t>(std::ceil(std::log(0.05) / std::log(r.probability))), r.probability, margin_slack,
        100 * (1 - sift_error)));
  if (!c.near_base.empty()) {
    std::string why = r.model == Model::free ? "on free a failed attempt costs the resource nothing, so the burst "
                                               "drains at one success per attempt-duration whatever the cap; "
                                             : "";
    why += "against the recommended, in the search's runs";
    for (const RunnerUp& u : c.near_base) {
      const bool twice = u.stats.policy.cap > c.policy.cap;
      why += fmt::format("{} {}: {} {} (margin {})", twice ? ":" : ";",
                         twice ? "twice the cap, same base" : "the least base, same cap", to_string(r.objective),
                         percent(u.difference, c.search.objective.mean), to_string(u.margin));
    }
    n.push_back("why a cap within 2x the base: " + why);
  }
  for (const Candidate& x : a.candidates)
    if (x.behind)
      n.push_back(
          fmt::format("{}: set aside after its curve, neither refined nor confirmed: its best curve policy is "
                      "behind {}'s, {} {} on the same {} runs (paired; one-sided {:g}% interval above 0)",
                      to_string(x.strategy), to_string(*x.behind), to_string(r.objective),
                      percent(x.behind_by, x.behind_objective), coarse_runs, 100 * (1 - sift_error)));
  std::string unsearched;  // one note for every strategy not searched near the bound (all near one leader)
  const Candidate* near = nullptr;
  for (const Candidate& x : a.candidates)
    if (x.near_bound) {
      unsearched += (near ? ", " : "") + std::string(to_string(x.strategy));
      near = &x;
    }
  if (near)
    n.push_back(fmt::format(
        "{}: not searched: {}'s best curve policy, searched before, has a mean {} at most {:+.1f}% above the "
        "least any policy can reach ({}; one-sided {:g}% bound over its {} runs), so no policy of theirs could "
        "beat it by more than that",
        unsearched, to_string(*near->near_bound), to_string(r.objective),
        100 * (near->near_upper / least_objective(r) - 1),
        r.objective == Objective::attempts ? "one attempt per client"
        : r.objective == Objective::weighted
            ? "N attempt-durations of drain time, every success holding the resource a whole one, plus one attempt"
            : "N attempt-durations: every success holds the resource a whole one",
        100 * (1 - sift_error), coarse_runs));
  if (r.base == 0.0 && c.policy.base > least_base(r))
    n.push_back(
        fmt::format("the base was searched: a lone client whose attempt fails waits {:g}x the base on average "
                    "before its retry; give `base` to pin a shorter one",
                    first_sleep(c.strategy)));
  return n;
}

Json advice_json(const Advice& a, double d) {
  const Request& r = a.request;
  Json j;
  j["request"] = {{"clients", r.clients},
                  {"clients_low", r.clients_low > 0 ? Json(r.clients_low) : nullptr},
                  {"failed_attempts", plain_words(r.model)},
                  {"model", std::string(to_string(r.model))},
                  {"rate", r.rate / d},
                  {"base", r.base > 0.0 ? Json(r.base * d) : Json(nullptr)},
                  {"drain_within", r.drain_within * d},
                  {"probability", r.probability},
                  {"objective", std::string(to_string(r.objective))},
                  {"weight", r.objective == Objective::weighted ? Json(r.weight * d) : Json(nullptr)},
                  {"seed", r.seed}};
  j["search"] = {{"cap_range", {least_base(r) * d, max_cap(r) * d}},
                 {"curve_runs", coarse_runs},
                 {"curve_first_runs", sift_runs},
                 {"elimination_error", sift_error},
                 {"refine_runs", refine_runs},
                 {"margin_factor", margin_factor},
                 {"sustainable_runs", sustainable_runs},
                 {"sustainable_collapse", sustainable_collapse},
                 {"sustainable_horizon", sustainable_horizon * d}};
  Json cands = Json::array();
  for (const auto& c : a.candidates) cands.push_back(candidate_json(r, c, d));
  const bool any = !a.candidates.empty() && a.candidates.front().confirmed;
  j["recommended"] = any ? cands.front() : Json(nullptr);
  j["candidates"] = cands;
  j["warnings"] = warnings(a);
  j["notes"] = notes(a);
  return j;
}

}  // namespace retrylab::advise

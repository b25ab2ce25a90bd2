#include "api/advise.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "advise/report.hpp"
#include "advise/search.hpp"
#include "advise/sustainable.hpp"
#include "analytic/error.hpp"
#include "api/format.hpp"
#include "api/simulate.hpp"

namespace retrylab::api {

namespace {

// A decimal integer (an optional sign, digits), as the CLI's strict parsers read one; empty if not.
std::optional<std::int64_t> decimal_integer(const std::string& t) {
  const char* first = t.data();
  const char* last = t.data() + t.size();
  if (first != last && *first == '+') ++first;  // from_chars takes '-' but not '+'
  std::int64_t v{};
  const auto [end, ec] = std::from_chars(first, last, v, 10);
  if (first == last || ec != std::errc() || end != last) return std::nullopt;
  return v;
}

// The option's name as the front end spells it (another option a message names is a reference:
// api/spelling.hpp).
struct Names {
  Spelling how;
  std::string operator()(std::string_view option) const { return spelled(option, how); }
};

// What a failed attempt costs, in plain terms, and the contention model it names (docs/models.md §1).
Model model_of(const std::string& failed, const Names& n) {
  if (failed == "free") return Model::free;
  if (failed == "use-capacity") return Model::shared;
  if (failed == "collide") return Model::collision;
  throw InputError(n("failed_attempts"), fmt::format("must be free, use-capacity or collide (got {})", failed));
}

// D: the length of one attempt-duration in the user's unit (1 with --unit attempt).
double attempt_length(const AdviseRequest& o, const Names& n) {
  if (o.unit == "attempt") {
    if (o.attempt_duration && *o.attempt_duration != 1.0)
      throw InputError(n("attempt_duration"), fmt::format("must be 1 (or left out) with {} (got {})",
                                                          ref("unit", "attempt"), *o.attempt_duration));
    return 1.0;
  }
  if (o.unit != "ms" && o.unit != "s")
    throw InputError(n("unit"), fmt::format("must be attempt, ms or s (got {})", o.unit));
  if (!o.attempt_duration)
    throw InputError(n("attempt_duration"), fmt::format("is required with {}: the mean time of one attempt in {}",
                                                        ref("unit", o.unit), o.unit));
  if (!(*o.attempt_duration > 0.0) || !std::isfinite(*o.attempt_duration))
    throw InputError(n("attempt_duration"), fmt::format("must be a finite number > 0 (got {})", *o.attempt_duration));
  return *o.attempt_duration;
}

std::vector<Strategy> strategies_of(const std::optional<std::string>& text, const Names& n) {
  if (!text) return advise::capped_strategies();
  std::vector<Strategy> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text->find(',', start);
    const std::string name = text->substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto s = parse_strategy(name);
    if (!s)
      throw InputError(
          n("strategies"),
          fmt::format("must be a comma-separated list of nojitter, full, equal, decorrelated, memoryless (got {})",
                      name));
    out.push_back(*s);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// --objective and --weight, checked in the user's words and unit.
void objective_of(const AdviseRequest& o, double d, advise::Request& r, const Names& n) {
  const auto obj = advise::parse_objective(o.objective);
  if (!obj)
    throw InputError(n("objective"), fmt::format("must be drain-time, attempts or weighted (got {})", o.objective));
  r.objective = *obj;
  if (r.objective == advise::Objective::attempts && !o.drain_within)
    throw InputError(n("drain_within"), fmt::format("is required with {}: the deadline within which the burst "
                                                    "must drain",
                                                    ref("objective", "attempts")));
  if (r.objective == advise::Objective::weighted) {
    const std::string u = o.unit == "attempt" ? "attempt-durations" : o.unit;
    if (!o.weight || !(*o.weight > 0.0))
      throw InputError(n("weight"),
                       o.weight
                           ? fmt::format("must be a number > 0, in {} of drain time per attempt (got {})", u, *o.weight)
                           : fmt::format("is required with {}: the {} of drain time one attempt "
                                         "per client is worth",
                                         ref("objective", "weighted"), u));
    r.weight = *o.weight / d;
  } else if (o.weight) {
    throw InputError(n("weight"), fmt::format("applies to {} only (got {})", ref("objective", "weighted"),
                                              ref("objective", o.objective)));
  }
}

advise::Request request_of(const AdviseRequest& o, double d, const Names& n) {
  if (!o.clients) throw InputError(n("clients"), "is required: the number of clients that pile up at once");
  if (!o.failed_attempts) throw InputError(n("failed_attempts"), "is required: free, use-capacity or collide");
  advise::Request r;
  r.model = model_of(*o.failed_attempts, n);
  const std::string& clients = *o.clients;
  const std::size_t colon = clients.find(':');
  const auto integer = [&](const std::string& text) {
    const auto v = decimal_integer(text);
    // a number's range is checked with the request (check_request): [2, 100000]
    if (!v || *v < 0)
      throw InputError(n("clients"),
                       fmt::format("must be an integer in [2, 100000] or a range LOW:HIGH (got \"{}\")", clients));
    return *v;
  };
  if (colon == std::string::npos) {
    r.clients = integer(clients);
  } else {
    r.clients_low = integer(clients.substr(0, colon));
    r.clients = integer(clients.substr(colon + 1));
  }
  for (const auto& [flag, v] :
       {std::pair{"rate", o.rate}, std::pair{"base", o.base}, std::pair{"drain_within", o.drain_within},
        std::pair{"probability", std::optional<double>(o.probability)}, std::pair{"weight", o.weight}})
    if (v && !std::isfinite(*v)) throw InputError(n(flag), fmt::format("must be a finite number (got {})", *v));
  r.rate = o.rate.value_or(0.0) * d;  // per unit -> per attempt-duration
  if (o.base) r.base = *o.base / d;
  if (o.drain_within) r.drain_within = *o.drain_within / d;
  r.probability = o.probability;
  r.strategies = strategies_of(o.strategies, n);
  r.seed = o.seed;
  r.threads = o.threads;
  if (o.base && !(*o.base > 0.0)) throw InputError(n("base"), fmt::format("must be a number > 0 (got {})", *o.base));
  if (r.rate < 0.0 || r.rate >= 1.0)
    throw InputError(
        n("rate"), fmt::format("must be >= 0 and below one attempt per attempt-duration ({} per {}) (got {})", 1.0 / d,
                               o.unit, o.rate.value_or(0.0)));
  if (o.drain_within && !(r.drain_within > advise::least_base(r) && r.drain_within <= 1e7))
    throw InputError(n("drain_within"),
                     fmt::format("must be above {} ({:g} {}) and at most 1e7 attempt-durations ({:g} {}) (got {})",
                                 ref("base"), advise::least_base(r) * d, o.unit, 1e7 * d, o.unit, *o.drain_within));
  objective_of(o, d, r, n);
  try {
    advise::check_request(r);
  } catch (const InputError& e) {
    rethrow_spelled(e, n.how);
  }
  return r;
}

std::string num(double x) { return table_number(x, Digits::dense); }

std::string interval(const MeanSummary& m, double d) {
  if (m.n == 0) return "-";
  return fmt::format("{} [{}, {}]", num(m.mean * d), num(m.ci95.lo * d), num(m.ci95.hi * d));
}

// The objective in words, with its unit.
std::string objective_words(const advise::Request& r, const std::string& u, double d) {
  switch (r.objective) {
    case advise::Objective::attempts: return "least mean attempts per client (attempts)";
    case advise::Objective::weighted:
      return fmt::format("least mean of drain time + {} {} x attempts per client (weighted)", num(r.weight * d), u);
    default: return "least mean drain time of the last client (drain-time)";
  }
}

void print_recommended(std::string& out, const advise::Advice& a, const std::string& u, double d) {
  const advise::Request& r = a.request;
  const advise::Candidate& c = a.candidates.front();
  const advise::Stats& h = c.confirm;
  out += fmt::format("\nrecommended: {} jitter, base {} {}, cap {} {}\n", to_string(c.strategy), num(c.policy.base * d),
                     u, num(c.policy.cap * d), u);
  if (std::isfinite(c.drain_bound))
    out += fmt::format(
        "  drained within {} {}: every run, certainly (free, no steady load: the last of N clients succeeds by "
        "1 + (N - 1)(cap + 2) attempt-durations, {} {}); {} of {} independent runs\n",
        num(r.drain_within * d), u, num(c.drain_bound * d), u, h.drained.count, h.drained.n);
  else
    out += fmt::format("  drained within {} {}: {} of {} independent runs ({}, 95% Wilson [{}, {}])\n",
                       num(r.drain_within * d), u, h.drained.count, h.drained.n, num(h.drained.fraction),
                       num(h.drained.ci95.lo), num(h.drained.ci95.hi));
  out += fmt::format("  drain time, last client ({}): {}  (mean [95% interval])\n", u, interval(h.drain_time, d));
  out += fmt::format("  drain time, 99% of clients ({}): {}\n", u, interval(h.drain_time_p99, d));
  out += fmt::format("  attempts per client: {}\n", interval(h.attempts_per_client, 1.0));
  out +=
      fmt::format("  margin: cap {} {} drained {} of {}, cap {} {} drained {} of {} (cap x {} and cap / {})\n",
                  num(c.lower.policy.cap * d), u, c.lower.drained.count, c.lower.drained.n, num(c.upper.policy.cap * d),
                  u, c.upper.drained.count, c.upper.drained.n, advise::margin_factor, advise::margin_factor);
  const std::string per = u == "attempt-durations" ? "attempt-duration" : u;
  const std::string rule =
      fmt::format("fewer than half of {} runs reach {} waiting clients within {} {}", advise::sustainable_runs,
                  advise::sustainable_collapse, num(advise::sustainable_horizon * d), u);
  if (c.sustainable_whole_range)
    out += fmt::format("  sustainable steady load: {} per {} and above (even there {}: paper 1's collapse rule)\n",
                       num(c.sustainable_rate / d), per, rule);
  else
    out += fmt::format("  sustainable steady load: {} per {}, {} collapsed ({}: paper 1's collapse rule)\n",
                       num(c.sustainable_rate / d), per, num(c.sustainable_collapsed_at / d), rule);
  if (c.low_end_run)
    out += fmt::format(
        "  at the low end, {} clients: drained {} of {} runs; drain time ({}) {}; 99% {}; attempts per client {}\n",
        r.clients_low, c.low_end.drained.count, c.low_end.drained.n, u, interval(c.low_end.drain_time, d),
        interval(c.low_end.drain_time_p99, d), interval(c.low_end.attempts_per_client, 1.0));
  out += fmt::format("  first guess: {} {} ({}); least cap that drained: {} {}\n",
                     c.guess.cap ? num(*c.guess.cap * d) : "-", u, c.guess.source, num(c.least_cap * d), u);
}

// The recommended strategy's curve, the chosen policy's own row in its place by cap.
void print_curve(std::string& out, const advise::Advice& a, const std::string& u, double d) {
  const advise::Candidate& c = a.candidates.front();
  const double k = advise::objective_scale(a.request, d);
  out += fmt::format(
      "\ncurve: {} jitter, {}; {} runs per cap ({} where they put it behind the best) on common random numbers "
      "(recommended: {} runs)\n",
      to_string(c.strategy),
      c.ratio == 1.0 ? std::string("base = cap")
      : c.ratio > 0  ? fmt::format("base = cap / {}", num(c.ratio))
                     : fmt::format("base {} {}", num(c.curve.empty() ? 0.0 : c.curve.front().policy.base * d), u),
      advise::coarse_runs, advise::sift_runs, advise::refine_runs);
  out += fmt::format("{:>10} {:>10} {:>8}  {:<32} {:<24} {:<32}\n", "cap (" + u + ")", "base", "drained",
                     "drain time (" + u + ")", "attempts per client", "objective");
  std::vector<std::pair<const advise::Stats*, std::string>> rows;
  for (const advise::Stats& s : c.curve)
    rows.emplace_back(&s, s.policy.cap == c.least_cap ? "least cap that drained" : "");
  if (c.found) rows.emplace_back(&c.search, "<- recommended");
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& x, const auto& y) { return x.first->policy.cap < y.first->policy.cap; });
  std::size_t skipped = 0;  // leading caps never run: one line for all of them
  while (skipped < rows.size() && rows[skipped].first->drained.n == 0) ++skipped;
  if (skipped > 0)
    out += fmt::format("{:>10} .. {}: not run ({})\n", num(rows.front().first->policy.cap * d),
                       num(rows[skipped - 1].first->policy.cap * d),
                       advise::can_drain(a.request) ? "below a cap where a run did not drain"
                                                    : "no policy can drain by the deadline: the warning below");
  for (std::size_t i = skipped; i < rows.size(); ++i) {
    const auto& [s, mark] = rows[i];
    if (s->drained.n == 0) {
      out += fmt::format("{:>10} {:>10} {:>8}  not run\n", num(s->policy.cap * d), num(s->policy.base * d), "-");
      continue;
    }
    out +=
        fmt::format("{:>10} {:>10} {:>8}  {:<32} {:<24} {:<32} {}\n", num(s->policy.cap * d), num(s->policy.base * d),
                    fmt::format("{}/{}", s->drained.count, s->drained.n), interval(s->drain_time, d),
                    interval(s->attempts_per_client, 1.0), s->feasible() ? interval(s->objective, k) : "-", mark);
  }
}

void print_runner_ups(std::string& out, const advise::Advice& a, const std::string& u, double d) {
  const advise::Candidate& c = a.candidates.front();
  const double k = advise::objective_scale(a.request, d);
  out += fmt::format(
      "\nrunner-ups near the optimum ({} runs each; difference in {} from the recommended, paired run by run):\n",
      advise::refine_runs, to_string(a.request.objective));
  out += fmt::format("{:>10} {:>10}  {:<32} {:<32} {}\n", "cap (" + u + ")", "base (" + u + ")", "objective",
                     "difference", "margin");
  for (const advise::RunnerUp& x : c.runner_ups)
    out += fmt::format("{:>10} {:>10}  {:<32} {:<32} {}\n", num(x.stats.policy.cap * d), num(x.stats.policy.base * d),
                       interval(x.stats.objective, k), interval(x.difference, k), to_string(x.margin));
}

void print_candidates(std::string& out, const advise::Advice& a, const std::string& u, double d) {
  out += fmt::format("\ncandidates (the recommended one: its confirming runs; the others: {} search runs):",
                     advise::refine_runs);
  out += fmt::format("\n{:<13} {:>10} {:>10} {:>9}  {:<32} {:<22} {:>8}\n", "strategy", "base (" + u + ")",
                     "cap (" + u + ")", "drained", "drain time (" + u + ")", "attempts per client", "runs");
  for (const auto& c : a.candidates) {
    if (c.behind) {  // its best curve policy, set aside (a note says behind what)
      out += fmt::format("{:<13} {:>10} {:>10} {:>9}  {:<32} {:<22} {:>8}\n", to_string(c.strategy),
                         num(c.curve_best.base * d), num(c.curve_best.cap * d), "behind", "-", "-", c.runs_simulated);
      continue;
    }
    if (c.near_bound) {  // not searched (a note says near what)
      out += fmt::format("{:<13} {:>10} {:>10} {:>9}  {:<32} {:<22} {:>8}\n", to_string(c.strategy), "-", "-",
                         "near best", "-", "-", c.runs_simulated);
      continue;
    }
    if (!c.found) {
      out += fmt::format("{:<13} {:>10} {:>10} {:>9}  {:<32} {:<22} {:>8}\n", to_string(c.strategy), "-", "-", "none",
                         "-", "-", c.runs_simulated);
      continue;
    }
    const advise::Stats& h = advise::headline(c);
    out +=
        fmt::format("{:<13} {:>10} {:>10} {:>9}  {:<32} {:<22} {:>8}\n", to_string(c.strategy), num(c.policy.base * d),
                    num(c.policy.cap * d), fmt::format("{}/{}", h.drained.count, h.drained.n),
                    interval(h.drain_time, d), interval(h.attempts_per_client, 1.0), c.runs_simulated);
  }
}

// Why there is none, in the order the search stops: nothing could drain, nothing drained in the
// search, or no policy found kept its margin in the confirming runs.
std::string no_recommendation(const advise::Advice& a, const std::string& u, double d) {
  const advise::Request& r = a.request;
  if (!advise::can_drain(r))
    return fmt::format("{} clients cannot drain within {} {} whatever the policy (the warning below); nothing was run",
                       r.clients, num(r.drain_within * d), u);
  if (std::none_of(a.candidates.begin(), a.candidates.end(), [](const auto& c) { return c.found; }))
    return fmt::format(
        "no strategy's policy, caps {} .. {} {}, drained the burst within the objective in every "
        "search run with its margin",
        num(advise::least_base(r) * d), num(advise::max_cap(r) * d), u);
  return "no strategy's policy drained the burst within the objective in every confirming run, with its margin";
}

std::string table(const advise::Advice& a, const std::string& unit, double d, Spelling how) {
  std::string out;
  const advise::Request& r = a.request;
  const std::string u = unit == "attempt" ? "attempt-durations" : unit;
  out += fmt::format(
      "retrylab advise: {} clients at once, {} ({}), steady load {} per {}, drain within {} {}, "
      "probability {}, seed {}\n",
      r.clients_low > 0 ? fmt::format("{} to {}", r.clients_low, r.clients) : std::to_string(r.clients),
      advise::plain_words(r.model), to_string(r.model), num(r.rate / d), unit == "attempt" ? "attempt-duration" : unit,
      num(r.drain_within * d), u, r.probability, r.seed);
  if (unit != "attempt") out += fmt::format("unit: {} (one attempt = {} {})\n", unit, d, unit);
  out += fmt::format("objective: {}, among policies whose burst drains in every run; caps {} .. {} {}, base {}\n",
                     objective_words(r, u, d), num(advise::least_base(r) * d), num(advise::max_cap(r) * d), u,
                     r.base > 0.0 ? fmt::format("{} {} (given)", num(r.base * d), u) : "searched");
  const bool any = !a.candidates.empty() && a.candidates.front().confirmed;
  if (any)
    print_recommended(out, a, u, d);
  else
    out += "\nno recommendation: " + no_recommendation(a, u, d) + "\n";
  if (!a.candidates.empty()) print_curve(out, a, u, d);
  if (any) print_runner_ups(out, a, u, d);
  print_candidates(out, a, u, d);
  for (const auto& n : advise::notes(a)) out += "\nnote: " + spell_text(n, how) + "\n";
  for (const auto& w : advise::warnings(a)) out += "\nwarning: " + spell_text(w, how) + "\n";
  return out;
}

}  // namespace

PreparedAdvice prepare_advise(const AdviseRequest& r, Spelling how) {
  const Names n{how};
  PreparedAdvice p;
  p.how = how;
  try {
    p.attempt_duration = attempt_length(r, n);
    p.unit = r.unit;
    p.request = request_of(r, p.attempt_duration, n);
  } catch (const InputError& e) {
    rethrow_spelled(e, how);
  }
  return p;
}

advise::Advice run_advise(const PreparedAdvice& p, advise::Watch watch) {
  advise::Request r = p.request;
  r.watch = std::move(watch);
  return advise::advise(r);
}

nlohmann::ordered_json advise_json(const advise::Advice& a, const PreparedAdvice& p) {
  nlohmann::ordered_json j = provenance(p.unit == "attempt" ? "attempt-duration" : p.unit);
  if (p.unit != "attempt") j["attempt_duration"] = p.attempt_duration;
  const nlohmann::ordered_json body = advise::advice_json(a, p.attempt_duration);
  for (auto& [k, v] : body.items()) j[k] = v;
  for (const char* key : {"warnings", "notes"})
    for (auto& text : j[key]) text = spell_text(text.get<std::string>(), p.how);
  return j;
}

std::string advise_table(const advise::Advice& a, const PreparedAdvice& p) {
  return table(a, p.unit, p.attempt_duration, p.how);
}

}  // namespace retrylab::api

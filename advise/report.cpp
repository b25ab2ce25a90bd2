#include "advise/report.hpp"

#include <fmt/format.h>
#include <cmath>

namespace retrylab::advise {

namespace {

nlohmann::ordered_json jnum(double x) {
  return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr);
}

// A summary in the user's unit (times D; d = 1 for counts): mean, 95% interval and n.
nlohmann::ordered_json mean_json(const MeanSummary& m, double d) {
  return {{"mean", jnum(m.mean * d)}, {"ci95", {jnum(m.ci95.lo * d), jnum(m.ci95.hi * d)}}, {"n", m.n}};
}

nlohmann::ordered_json candidate_json(const Request& r, const Candidate& c, double d) {
  nlohmann::ordered_json x = {
      {"strategy", std::string(to_string(c.strategy))},
      {"base", r.base * d},
      {"first_guess", {{"cap", c.guess.cap ? jnum(*c.guess.cap * d) : nullptr}, {"source", c.guess.source}}},
      {"found", c.found},
      {"confirmed", c.confirmed}};
  if (c.found) {
    x["search_cap"] = c.search_cap * d;
    x["cap"] = c.cap * d;
    x["drained"] = {{"count", c.drained.count},
                    {"n", c.drained.n},
                    {"fraction", jnum(c.drained.fraction)},
                    {"ci95", {jnum(c.drained.ci95.lo), jnum(c.drained.ci95.hi)}}};
    x["drain_time"] = mean_json(c.drain_time, d);
    x["drain_time_p99"] = mean_json(c.drain_time_p99, d);
    x["attempts_per_client"] = mean_json(c.attempts_per_client, 1.0);
    x["sustainable_rate"] = jnum(c.sustainable_rate / d);
    if (c.low_end_run)
      x["low_end"] = {{"clients", r.clients_low},
                      {"drained",
                       {{"count", c.low_drained.count},
                        {"n", c.low_drained.n},
                        {"fraction", jnum(c.low_drained.fraction)},
                        {"ci95", {jnum(c.low_drained.ci95.lo), jnum(c.low_drained.ci95.hi)}}}},
                      {"drain_time", mean_json(c.low_drain_time, d)},
                      {"drain_time_p99", mean_json(c.low_drain_time_p99, d)},
                      {"attempts_per_client", mean_json(c.low_attempts_per_client, 1.0)}};
    nlohmann::ordered_json profile = nlohmann::ordered_json::array();
    for (const CapPoint& p : c.profile)
      profile.push_back({{"cap", p.cap * d},
                         {"drained", p.drained.count},
                         {"n", p.drained.n},
                         {"drain_time", mean_json(p.drain_time, d)}});
    x["profile"] = profile;
  }
  x["runs_simulated"] = c.runs_simulated;
  return x;
}

}  // namespace

const char* plain_words(Model m) noexcept {
  switch (m) {
    case Model::free: return "failed attempts are free";
    case Model::shared: return "failed attempts use capacity";
    default: return "failed attempts collide";
  }
}

std::vector<std::string> warnings(const Advice& a) {
  std::vector<std::string> w;
  const Request& r = a.request;
  if (r.model == Model::shared)
    w.push_back(
        "failed attempts use the server's capacity: no client backoff raises the steady load this resource sustains "
        "(paper 1, papers/cap-is-doing-the-work: full jitter sustains about 0.15 per attempt-duration); "
        "server-side mechanisms do (papers/raising-the-ceiling): a FIFO queue or lock in front of the hot row "
        "(simulate --limit 1 --overflow queue, or --lock on), or a concurrency limit that rejects early "
        "(--limit 1 --overflow reject)");
  if (!a.candidates.empty() && !a.candidates.front().confirmed)
    w.push_back("no strategy's cap was confirmed by the independent runs: no recommendation");
  if (!a.candidates.empty() && a.candidates.front().confirmed && r.rate > 0.0 &&
      std::isfinite(a.candidates.front().sustainable_rate) && r.rate >= a.candidates.front().sustainable_rate)
    w.push_back(
        "the steady load is at or above the estimated sustainable load of the recommended policy: expect collapse");
  for (const auto& c : a.candidates)
    if (!c.found)
      w.push_back(
          fmt::format("{}: no cap up to the drain objective drained the burst{}", to_string(c.strategy),
                      c.strategy == Strategy::nojitter ? " (without jitter the clients retry in lock-step)" : ""));
  return w;
}

nlohmann::ordered_json advice_json(const Advice& a, double d) {
  const Request& r = a.request;
  nlohmann::ordered_json j;
  j["request"] = {{"clients", r.clients},
                  {"clients_low", r.clients_low > 0 ? nlohmann::ordered_json(r.clients_low) : nullptr},
                  {"failed_attempts", plain_words(r.model)},
                  {"model", std::string(to_string(r.model))},
                  {"rate", r.rate / d},
                  {"base", r.base * d},
                  {"drain_within", r.drain_within * d},
                  {"probability", r.probability},
                  {"seed", r.seed}};
  nlohmann::ordered_json cands = nlohmann::ordered_json::array();
  for (const auto& c : a.candidates) cands.push_back(candidate_json(r, c, d));
  const bool any = !a.candidates.empty() && a.candidates.front().confirmed;
  j["recommended"] = any ? cands.front() : nlohmann::ordered_json(nullptr);
  j["candidates"] = cands;
  j["warnings"] = warnings(a);
  return j;
}

}  // namespace retrylab::advise

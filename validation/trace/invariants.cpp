#include "validation/trace/invariants.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

namespace retrylab::validation::trace {

namespace {

std::string_view kind_name(unsigned k) { return montecarlo::failure_kind_names[std::min(k, 2U)]; }

std::string retry_on_text(const montecarlo::Scenario& s) {
  return fmt::format("retry_on={}", montecarlo::retry_on_names[s.client.retry_on]);
}

std::string duration_text(const montecarlo::Scenario& s, const ServerRules& sv) {
  if (!sv.any)
    return s.model == Model::collision || s.model == Model::free
               ? "end - start = 1 (one attempt-duration)"
               : "end - start >= 1 (one unit of service at rate <= 1)";
  if (sv.exact) {
    std::string failures;
    for (double v : sv.failure_values) failures += fmt::format("{}{}", failures.empty() ? "" : " or ", v);
    return fmt::format("success: end - start = {} (2*delay + 1); failure: {} (served{}{})", sv.success_value, failures,
                       sv.rejects ? ", rejected" : "", std::isfinite(sv.timeout) ? ", timed out" : "");
  }
  return fmt::format("end - start >= {} for a success, >= {} for a failure (2*delay + service{}{})", sv.success_min,
                     sv.failure_min, sv.rejects ? "; a rejection 2*delay + reject_cost" : "",
                     std::isfinite(sv.timeout) ? "; at most the timeout" : "");
}

}  // namespace

InvariantRules::InvariantRules(const montecarlo::Scenario& s, const ServerRules& sv, const SleepRules& sleeps)
    : s_(s),
      sv_(sv),
      sleeps_(sleeps),
      order_("time order", "invariant",
             sv_.instant_reject ? "arrival <= start <= end (a rejection with no cost and no delay takes no time); a "
                                  "first attempt starts at its arrival"
                                : "arrival <= start < end; a first attempt starts at its arrival"),
      duration_("attempt duration", "invariant", duration_text(s, sv)),
      timeout_("attempt timeout", "invariant",
               fmt::format("end - start <= timeout {} (the client stops waiting then)", s.client.timeout)),
      overlap_("overlapping success", "invariant", "collision: a success overlaps no other attempt"),
      lonely_("failure without overlap", "invariant",
              "collision: a failed attempt overlaps another attempt (judged once any attempt that could overlap it "
              "would have its row: the run finished, or failure end + 1 < stop)"),
      spacing_("success spacing", "invariant", "free/shared: successful commits at least 1 apart"),
      commit_("success despite a commit", "invariant",
              "free/shared: a successful attempt [s, e] saw no other commit in (s, e) (first commit wins)"),
      idle_("failure on idle resource", "invariant",
            "free/shared: a failed attempt [s, e] saw a successful commit in (s, e]; ps: no failures"),
      lock_("failure under the lock", "invariant",
            "with the lock every admitted attempt runs alone on its row: it never fails (only a rejection or a timeout "
            "can)"),
      sequence_("retry sequence", "invariant",
                s.client.retries
                    ? "per client: retry 0, 1, 2, ... each after the previous failure; start = previous end + sleep"
                    : "retries off: one attempt per client (retry 0)"),
      limit_("retry limit", "invariant",
             fmt::format("at most max_attempts = {} attempts per client (retry <= {})", s.client.max_attempts,
                         s.client.max_attempts - 1)),
      support_("sleep support", "invariant", sleeps.support_text()),
      vanish_("vanished clients", "invariant",
              s.client.max_attempts > 0
                  ? "a client whose last attempt failed retries before the run stops, unless it was its "
                    "max_attempts-th (see docs/traces.md)"
                  : "a client whose last attempt failed retries before the run stops (see docs/traces.md)"),
      kind_("failure kind", "invariant",
            fmt::format("a failure's kind is one the declared options produce: {}", sv.possible_text)),
      not_retried_(
          "kind not retried", "invariant",
          fmt::format("{}: a failure of a kind not listed ends its request (no retry follows it)", retry_on_text(s))) {
  if (s.client.retries && sv.retried_kinds != 7)
    vanish_.check().expected +=
        fmt::format("; a client whose last failure's kind {} does not list has ended (lost)", retry_on_text(s));
}

std::optional<SleepSample> InvariantRules::row(const Row& r, std::int64_t line, std::string_view text) {
  row_rules(r, line, text);
  return client(r, line, text);
}

void InvariantRules::row_rules(const Row& r, std::int64_t line, std::string_view text) {
  ++rows_;
  // time order
  ++order_n_;
  if (!(r.arrival <= r.start + tol(r.start)) || !(sv_.instant_reject ? r.start <= r.end : r.start < r.end) ||
      (r.retry == 0 && std::fabs(r.start - r.arrival) > tol(r.start)))
    order_.add(line, text);
  // duration
  const double d = r.end - r.start;
  if (sv_.duration_na.empty() && !duration_ok(r, d)) duration_.add(line, text, fmt::format("duration {}", d));
  if (std::isfinite(sv_.timeout) && d > sv_.timeout + tol(r.end))
    timeout_.add(line, text, fmt::format("duration {} > timeout {}", d, sv_.timeout));
  if (sv_.lock && sv_.lock_na.empty()) {
    ++lock_n_;
    if (!r.success) lock_.add(line, text, "a failure under the lock");
  }
  if (sv_.max_attempts > 0 && r.retry >= sv_.max_attempts)
    limit_.add(line, text, fmt::format("attempt {} of a client allowed {}", r.retry + 1, sv_.max_attempts));
  // model invariants
  if (s_.model == Model::collision && sv_.overlap_na.empty()) collision(r, line, text);
  if ((s_.model == Model::free || s_.model == Model::shared) &&
      (sv_.spacing_na.empty() || sv_.idle_na.empty() || sv_.commit_na.empty()))
    tie_group(r, line, text);
  if (s_.model == Model::ps && sv_.idle_na.empty()) {
    ++idle_n_;
    if (!r.success) idle_.add(line, text, "failure under ps");
  }
}

// collision: the failure still unconfirmed at the run's end overlapped nothing if every attempt
// that could overlap it has a row: the run finished (no attempt in flight), or any attempt starting
// before its end would have ended (1 later at most) before the stop.
void InvariantRules::lonely_at_end(const std::string& reason, double stop_time) {
  if (!lonely_pending_) return;
  const Lonely& l = *lonely_pending_;
  if (reason == "finished" || l.end + 1.0 < stop_time - tol(stop_time)) {
    ++lonely_n_;
    lonely_.add(l.line, l.text, "no attempt overlaps it");
  }
  lonely_pending_.reset();
}

void InvariantRules::end_run(const std::optional<RunEnd>& stop, double stop_time) {
  flush_group();
  const std::string reason = stop ? stop->stop : "";
  lonely_at_end(reason, stop_time);
  for (const auto& [id, c] : clients_) {
    // only clients whose last attempt failed are left here (a success erases its client)
    if (!s_.client.retries) continue;
    if (sv_.max_attempts > 0 && c.retry + 1 >= sv_.max_attempts) continue;  // it gave up: lost, not vanished
    if (c.ended) continue;  // its failure's kind is not retried: lost, not vanished
    ++vanish_n_;
    bool vanished = reason == "finished" || (reason == "drained" && c.burst);
    if (!vanished && sv_.exact) {
      const double hi = sleeps_.max_sleep_any(c.retry + 1, c.prev_sleep);
      vanished = std::isfinite(hi) && c.last_end + hi + sv_.max_duration < stop_time - tol(stop_time);
    }
    if (vanished)
      vanish_.add(c.last_line, c.last_text,
                  fmt::format("client {} of run {} failed and never retried (stop {} at {})", id, run_,
                              reason.empty() ? "?" : reason, stop_time));
  }
  clients_.clear();
  overlap_window_.clear();
  overlap_successes_ = 0;
  last_commit_ = -inf;
}

void InvariantRules::finish(std::vector<TraceCheck>& out) {
  out.push_back(order_.finish(order_n_, "rows"));
  out.push_back(applies(duration_, sv_.duration_na, rows_, "rows"));
  if (std::isfinite(sv_.timeout)) out.push_back(timeout_.finish(rows_, "rows"));
  if (s_.model == Model::collision) out.push_back(applies(overlap_, sv_.overlap_na, rows_, "rows"));
  if (s_.model == Model::collision) out.push_back(applies(lonely_, sv_.lonely_na, lonely_n_, "failures"));
  if (s_.model == Model::free || s_.model == Model::shared) {
    out.push_back(applies(spacing_, sv_.spacing_na, successes_seen_, "successes"));
    out.push_back(applies(commit_, sv_.commit_na, commit_n_, "successes"));
  }
  if (s_.model != Model::collision) out.push_back(applies(idle_, sv_.idle_na, idle_n_, "rows"));
  if (sv_.lock) out.push_back(applies(lock_, sv_.lock_na, lock_n_, "rows"));
  out.push_back(applies(sequence_, sv_.sequence_na, rows_, "rows"));
  if (sv_.max_attempts > 0) out.push_back(limit_.finish(rows_, "rows"));
  out.push_back(support_.finish(support_n_, "sleeps"));
  // A trace without kinds (versions 1, 2) declaring retry_on: a request may have ended on a kind not
  // retried, which its rows do not say.
  const std::string unknown = kinds_unknown_
                                  ? fmt::format(
                                        "{}: a failure of a kind not listed ends its request, and the rows do not "
                                        "record each failure's kind (version 3 does)",
                                        retry_on_text(s_))
                                  : std::string();
  out.push_back(applies(vanish_, sv_.vanish_na.empty() ? unknown : sv_.vanish_na, vanish_n_,
                        "clients left failed at a run's end"));
  if (kinds_seen_) out.push_back(kind_.finish(kind_n_, "failures"));
  if (s_.client.retries && sv_.retried_kinds != 7)
    out.push_back(applies(not_retried_, unknown, not_retried_n_, "failures of a kind not retried"));
}

bool InvariantRules::duration_ok(const Row& r, double d) const {
  const double t = tol(r.end);
  if (sv_.exact) {
    if (r.success) return std::fabs(d - sv_.success_value) <= t;
    return std::any_of(sv_.failure_values.begin(), sv_.failure_values.end(),
                       [&](double v) { return std::fabs(d - v) <= t; });
  }
  return d >= (r.success ? sv_.success_min : sv_.failure_min) - t;
}

// Each rule reads the timestamps' tolerance in its own favour: an overlap shorter than tol does
// not make a success overlap (overlapping success), and does excuse a failure (failure without
// overlap).
void InvariantRules::collision(const Row& r, std::int64_t line, std::string_view text) {
  const bool judge_lonely = sv_.lonely_na.empty();
  // another client's attempt ends within tol of r's start: it overlaps r as far as times can tell
  // (r's own client's previous attempt ends there when it slept 0: that is no overlap)
  bool touched = false;
  while (!overlap_window_.empty() && overlap_window_.front().end <= r.start + tol(r.start)) {
    // The front ends before r starts; every later row ends later still, and (attempts last 1)
    // starts no earlier than r: nothing else can overlap the front any more.
    const bool touches =
        overlap_window_.front().end > r.start - tol(r.start) && overlap_window_.front().client != r.client;
    touched = touched || touches;
    if (judge_lonely && lonely_pending_ && lonely_pending_->line == overlap_window_.front().line) {
      ++lonely_n_;
      if (!touches) lonely_.add(lonely_pending_->line, lonely_pending_->text, "no attempt overlaps it");
      lonely_pending_.reset();
    }
    overlap_successes_ -= overlap_window_.front().success;
    overlap_window_.pop_front();
  }
  const bool overlapped = !overlap_window_.empty();
  if (overlapped && (r.success || overlap_successes_ > 0)) {
    const Overlap& o = overlap_window_.back();
    overlap_.add(line, text, fmt::format("overlaps line {} and a success is among them", o.line));
  }
  if (judge_lonely && overlapped && lonely_pending_) {  // r overlaps the pending failure too
    ++lonely_n_;
    lonely_pending_.reset();
  }
  if (judge_lonely && !r.success) {
    if (overlapped || touched)
      ++lonely_n_;
    else
      lonely_pending_ = Lonely{r.end, line, std::string(text.substr(0, 300))};
  }
  if (overlap_window_.size() >= 1000000) {  // bounded memory: forget the oldest
    if (lonely_pending_ && lonely_pending_->line == overlap_window_.front().line) lonely_pending_.reset();
    overlap_successes_ -= overlap_window_.front().success;
    overlap_window_.pop_front();
  }
  overlap_window_.push_back({r.end, r.success, line, r.client});
  overlap_successes_ += r.success;
}

void InvariantRules::tie_group(const Row& r, std::int64_t line, std::string_view text) {
  if (!group_.empty() && r.end != group_end_) flush_group();
  group_end_ = r.end;
  group_.push_back({r.start, r.success, line, std::string(text.substr(0, 300))});
}

void InvariantRules::flush_group() {
  if (group_.empty()) return;
  const double e = group_end_;
  std::int64_t wins = 0;
  for (const auto& g : group_) wins += g.success;
  for (const auto& g : group_) {
    if (!g.success) continue;
    ++successes_seen_;
    if (wins > 1)
      spacing_.add(g.line, g.text, fmt::format("{} successes commit at {}", wins, e));
    else if (e - last_commit_ < 1.0 - tol(e))
      spacing_.add(g.line, g.text, fmt::format("previous commit at {}", last_commit_));
    ++commit_n_;
    if (last_commit_ > g.start + tol(g.start))
      commit_.add(g.line, g.text, fmt::format("a commit at {}, after its start {}", last_commit_, g.start));
  }
  const double commit = wins > 0 ? e : last_commit_;
  for (const auto& g : group_) {
    if (g.success) continue;
    ++idle_n_;
    if (!(commit > g.start - tol(g.start)))
      idle_.add(
          g.line, g.text,
          fmt::format("no successful commit in ({}, {}]{}", g.start, e,
                      group_.size() > 1 ? fmt::format("; {} attempts end together, none won", group_.size()) : ""));
  }
  if (wins > 0) last_commit_ = e;
  group_.clear();
}

std::optional<SleepSample> InvariantRules::client(const Row& r, std::int64_t line, std::string_view text) {
  const auto it = clients_.find(r.client);
  ClientState* c = it == clients_.end() ? nullptr : &it->second;
  bool bad = false;
  std::string why;
  if (!s_.client.retries) {
    if (r.retry != 0) bad = true, why = "retries off but retry > 0";
  } else if (r.retry == 0) {
    if (c) bad = true, why = "a second first attempt for a waiting client";
  } else if (!c) {
    bad = true, why = fmt::format("retry {} with no earlier failed attempt of this client in flight", r.retry);
  } else {
    if (r.retry != c->retry + 1)
      bad = true, why = fmt::format("retry {} after retry {}", r.retry, c->retry);
    else if (r.start < c->last_end - tol(c->last_end))
      bad = true, why = "starts before the previous attempt ended";
    else if (!r.has_sleep)
      bad = true, why = "no sleep recorded for a retry";
    else if (std::fabs(r.start - c->last_end - r.sleep) > tol(r.start))
      bad = true, why = fmt::format("start - previous end = {} but sleep = {}", r.start - c->last_end, r.sleep);
    else if (std::fabs(r.arrival - c->arrival) > tol(r.arrival))
      bad = true, why = "arrival time changed";
  }
  if (bad) sequence_.add(line, text, why);
  if (r.retry >= 1 && c && c->ended)
    not_retried_.add(line, text,
                     fmt::format("retry {} after a failure of a kind {} does not list (line {})", r.retry,
                                 retry_on_text(s_), c->last_line));
  // The failure's kind: one the declared options produce; a kind not retried ends the request.
  bool ends = false;
  kinds_seen_ = kinds_seen_ || r.kind_given;  // version 3 (a success row says it too)
  if (!r.success && r.kind_given) {
    ++kind_n_;
    if (((sv_.possible_kinds >> r.kind) & 1U) == 0)
      kind_.add(line, text, fmt::format("a {} failure, which no declared option produces", kind_name(r.kind)));
    if (s_.client.retries && ((sv_.retried_kinds >> r.kind) & 1U) == 0) {
      ++not_retried_n_;
      ends = true;
    }
  } else if (!r.success && sv_.retried_kinds != 7) {
    kinds_unknown_ = true;
  }

  double prev = std::nan("");  // none before the first retry: each strategy starts from its own base
  if (c) prev = c->prev_sleep;
  std::optional<SleepSample> sample;
  if (s_.client.retries && r.retry >= 1 && r.has_sleep && sleep_check(r, prev, line, text))
    sample = SleepSample{r.retry, r.sleep, prev, r.start, r.client};

  if (r.success || !s_.client.retries) {
    if (c) clients_.erase(it);
    return sample;
  }
  ClientState& st = c ? *c : clients_[r.client];
  if (!c) st.prev_sleep = std::nan("");
  st.arrival = r.arrival;
  st.last_end = r.end;
  st.retry = r.retry;
  st.burst = r.burst;
  if (r.retry >= 1 && r.has_sleep) st.prev_sleep = r.sleep;
  st.last_line = line;
  st.last_text = std::string(text.substr(0, 300));
  st.ended = ends;
  return sample;
}

// The support rule; true when the sleep lies inside it (then it is a sample for the statistics).
bool InvariantRules::sleep_check(const Row& r, double prev, std::int64_t line, std::string_view text) {
  ++support_n_;
  const double x = r.sleep;
  const Backoff& b = s_.backoff;
  const auto [lo, hi] = SleepRules::bounds(b, r.retry, prev);
  if (!sleeps_.allowed(b, r.retry, prev, x) &&
      !(sv_.strategies_mix && sleeps_.allowed(s_.client.mix_backoff, r.retry, prev, x))) {
    std::string also;
    if (sv_.strategies_mix) {
      const auto [mlo, mhi] = SleepRules::bounds(s_.client.mix_backoff, r.retry, prev);
      also += fmt::format(" and the mixed population's [{}, {}]", mlo, mhi);
    }
    if (sv_.retry_after_max > 0)
      also += fmt::format(", not a Retry-After of {}{}", sv_.retry_after_fixed ? "" : "at most ", sv_.retry_after_max);
    support_.add(line, text, fmt::format("retry {}: sleep {} outside [{}, {}]{}", r.retry, x, lo, hi, also));
    return false;
  }
  return true;
}

}  // namespace retrylab::validation::trace

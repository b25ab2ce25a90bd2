#pragma once
// ServerTrace: the montecarlo tests' server-view observer. It records every client-side event (arrival,
// send, receipt, timeout, sleep, give-up, answer, cancellation) and every server-side one (admission
// with its limit, rejection with its Retry-After, service start and end by row), and checks on the
// way what each hook must satisfy (serial ids, one end per attempt, no end before its send, a
// service that starts once): `bad` is set on the first breach. From them it keeps what the tests of
// cancellation read: the attempts cancelled before their service started (none of which may start
// later), the attempts still in flight when their request ends (answered or given up; none may be
// left), the worst answered latency.
// It declares the server-view hooks, so the engine never takes the one-event shortcut with it (the
// client-side trace.hpp's TraceObserver does): the tests' one observer type (engine_instances.hpp,
// TestObserver, whose event loops are compiled once) refuses the shortcut for a run recorded here.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

namespace retrylab::montecarlo::testing {

struct Served {
  std::int32_t row = 0;
  double start = 0.0, end = -1.0;
  bool ended = false, success = false;
};

struct ServerTrace {
  std::vector<double> arrival;
  struct Attempt {
    std::int64_t client;
    double sent, heard = -1.0;
    bool ended = false, success = false, timed_out = false, cancelled = false;
  };
  std::vector<Attempt> attempts;
  std::map<std::int64_t, Served> served;                      // by attempt id
  std::vector<std::pair<std::int64_t, std::int64_t>> admits;  // (admitted, limit)
  std::map<std::int64_t, double> pending_retry_after;         // attempt -> Retry-After of its rejection
  std::map<std::int64_t, double> earliest_return;             // client -> may not send before
  std::vector<double> sleeps;
  std::int64_t rejects = 0;
  bool early_return = false;
  bool bad = false;

  void on_arrival(std::int64_t c, double t, bool) {
    if (c != static_cast<std::int64_t>(arrival.size())) bad = true;
    arrival.push_back(t);
  }
  void on_start(std::int64_t id, std::int64_t c, double t) {
    if (id != static_cast<std::int64_t>(attempts.size())) bad = true;
    attempts.push_back({c, t});
    flying[c].insert(id);
    const auto it = earliest_return.find(c);
    if (it != earliest_return.end() && t < it->second) early_return = true;
  }
  void on_end(std::int64_t id, std::int64_t c, double sent, double t, bool success) {
    Attempt& a = attempts.at(static_cast<std::size_t>(id));
    if (a.client != c || a.sent != sent || a.ended || a.cancelled || t < sent) bad = true;
    a.heard = t;
    a.ended = true;
    a.success = success;
    flying[c].erase(id);
    // The client honours a Retry-After only if it heard the rejection (not when it timed out first).
    const auto it = pending_retry_after.find(id);
    if (it != pending_retry_after.end() && !a.timed_out) {
      earliest_return[c] = t + it->second;
    } else {
      earliest_return.erase(c);
    }
    if (it != pending_retry_after.end()) pending_retry_after.erase(it);
  }
  void on_timeout(std::int64_t id, std::int64_t c, double t) {
    Attempt& a = attempts.at(static_cast<std::size_t>(id));
    if (a.client != c || a.ended || t < a.sent) bad = true;
    a.timed_out = true;
    ++timeouts;
  }
  void on_give_up(std::int64_t c, double) {
    gave_up.push_back(c);
    left_flying += static_cast<std::int64_t>(flying[c].size());
  }
  std::int64_t timeouts = 0;
  std::vector<std::int64_t> gave_up;
  void on_sleep(std::int64_t, std::int32_t, double sleep) { sleeps.push_back(sleep); }
  void on_admit(double t, std::int64_t admitted, std::int64_t limit) {
    admits.emplace_back(admitted, limit);
    admit_log.emplace_back(t, admitted, limit);
  }
  std::vector<std::tuple<double, std::int64_t, std::int64_t>> admit_log;
  void on_reject(std::int64_t id, std::int64_t, double, double retry_after) {
    ++rejects;
    if (retry_after > 0.0) pending_retry_after[id] = retry_after;
  }
  void on_service_start(std::int64_t id, std::int32_t row, double t) {
    if (served.count(id)) bad = true;
    if (cancelled_unstarted.count(id) > 0) ++served_after_cancel;
    served[id] = {row, t};
  }
  void on_service(std::int64_t id, std::int32_t row, double start, double end, bool success) {
    Served& s = served[id];
    if (s.row != row || s.start != start || s.ended || end < start) bad = true;
    s.end = end;
    s.ended = true;
    s.success = success;
  }

  // Cancellation (hedging, a deadline that cancels): no on_end follows for the attempt.
  void on_cancel(std::int64_t id, std::int64_t c, double t) {
    Attempt& a = attempts.at(static_cast<std::size_t>(id));
    if (a.client != c || a.ended || a.cancelled || t < a.sent) bad = true;
    a.cancelled = true;
    ++cancels;
    flying[c].erase(id);
    if (served.count(id) == 0) cancelled_unstarted.insert(id);
  }
  void on_succeeded(std::int64_t c, double, double latency) {
    ++answers[c];
    worst_latency = std::max(worst_latency, latency);
    left_flying += static_cast<std::int64_t>(flying[c].size());
  }
  std::int64_t cancels = 0;
  std::set<std::int64_t> cancelled_unstarted;             // cancelled before any service start of theirs
  std::int64_t served_after_cancel = 0;                   // service starts of those (must stay 0)
  std::map<std::int64_t, int> answers;                    // by client serial
  std::map<std::int64_t, std::set<std::int64_t>> flying;  // by client: sent, not yet ended or cancelled
  std::int64_t left_flying = 0;                           // in flight when their request ended (must stay 0)
  double worst_latency = 0.0;

  // By client serial: its attempts' send times, in the order sent.
  std::map<std::int64_t, std::vector<double>> sends_by_client() const {
    std::map<std::int64_t, std::vector<double>> out;
    for (const Attempt& a : attempts) out[a.client].push_back(a.sent);
    return out;
  }
};

}  // namespace retrylab::montecarlo::testing

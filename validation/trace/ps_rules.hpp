#pragma once
// ServiceRules: processor sharing (docs/models.md §1: `shared`, `ps`) as the rows of a trace show it.
// n attempts in flight are each served at rate 1/n and an attempt ends when it has received one unit
// of service, so (1) attempts end in the order they started (proofs/Engine.v: ps_fifo_order), and
// (2) each attempt's service, the integral over [start, end) of 1/n(t) with n(t) the attempts in
// flight in the trace, is exactly 1.
// One sweep over the starts and ends in time order, in virtual time (dV/dt = 1/n): a start is swept
// once a later row starts no earlier (FIFO), so only the attempts in flight are held. At a run's
// stop attempts still in flight have no row; by (1) they all started after the last recorded start,
// so a row ending by then is judged exactly, and a later one from one side: the unrecorded attempts
// can only have shared the server, so a service below 1 is still a violation.
// Tolerance: each timestamp may be off by record.hpp's tol, so a service by (events in (s, e) + 2)
// times tol(e).
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "montecarlo/scenario.hpp"
#include "validation/trace/findings.hpp"
#include "validation/trace/record.hpp"
#include "validation/trace/server_rules.hpp"

namespace retrylab::validation::trace {

class ServiceRules {
 public:
  ServiceRules(const montecarlo::Scenario& s, const ServerRules& sv);

  void row(const Row& r, std::int64_t line);
  void end_run(const std::optional<RunEnd>& stop);
  void finish(std::vector<TraceCheck>& out);

 private:
  struct Entry {
    Row row;
    std::int64_t line;
    double v_start;
    std::int64_t events_at_start;
  };
  // Sweeps every known event at a time below `until` (or at most `until` when inclusive); an
  // attempt whose end is swept is judged (exactly, or from one side when `censored`).
  void sweep(double until, bool inclusive, bool censored);
  void judge(const Entry& e, bool censored);

  bool on_;
  std::string why_not_;
  Finding order_, service_;
  std::deque<Entry> q_;      // rows whose end is not swept yet, in the trace's order
  std::size_t started_ = 0;  // the first rows of q_ whose start is swept
  double t_ = 0, v_ = 0, last_start_ = -inf;
  std::int64_t n_ = 0, events_ = 0, order_n_ = 0, service_n_ = 0;
  bool overflow_ = false;  // more than max_in_flight attempts in flight: this run is not judged
};

}  // namespace retrylab::validation::trace

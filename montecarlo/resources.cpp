#include "montecarlo/resources.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <thread>

#include "analytic/error.hpp"
#include "montecarlo/result.hpp"

namespace retrylab::montecarlo {

ResourceEstimate estimate_resources(const Scenario& s, const RunPlan& plan) {
  const double arrivals = s.rate * effective_horizon(s);
  const double per_run_clients = static_cast<double>(s.clients) + arrivals;
  const double waiting = std::min(static_cast<double>(s.collapse), per_run_clients) + 64.0;
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const double threads = std::min<double>(plan.threads > 0 ? plan.threads : hw, static_cast<double>(plan.runs));
  ResourceEstimate e;
  e.bytes = static_cast<double>(plan.runs) * (static_cast<double>(sizeof(RunResult)) + per_run_summary_bytes) +
            std::max(1.0, threads) * waiting * bytes_per_waiting_client;
  e.clients = static_cast<double>(plan.runs) * per_run_clients;
  return e;
}

double default_max_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 4.0 * (1ull << 30);  // unknown: 4 GiB
  return 0.5 * static_cast<double>(pages) * static_cast<double>(page);
}

void check_resources(const Scenario& s, const RunPlan& plan, double max_memory) {
  const ResourceEstimate e = estimate_resources(s, plan);
  if (e.clients > max_clients_simulated) {
    const bool steady = s.rate * effective_horizon(s) > static_cast<double>(s.clients);
    throw InputError(steady ? "horizon" : "runs",
                     fmt::format("is too long to simulate: runs x (burst + rate x horizon) = {:.3g} clients, above the "
                                 "limit {:.3g} (got runs={}, clients={}, rate={}, horizon={})",
                                 e.clients, max_clients_simulated, plan.runs, s.clients, s.rate, effective_horizon(s)));
  }
  if (e.bytes > max_memory)
    throw InputError("max-memory",
                     fmt::format("is {:.3g} GiB, below the estimated {:.3g} GiB of this run (runs={}, "
                                 "collapse={}; lower --runs or --collapse, or raise --max-memory)",
                                 max_memory / (1ull << 30), e.bytes / (1ull << 30), plan.runs, s.collapse));
}

}  // namespace retrylab::montecarlo

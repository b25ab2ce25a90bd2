// The dispatcher of papers/report.hpp: one renderer per sweep kind (papers/report/sweeps.hpp), then
// figure 1, and the metrics each engine kind's tables read (papers/spec.hpp).
#include "papers/report.hpp"

#include "papers/report/common.hpp"
#include "papers/report/sweeps.hpp"

namespace retrylab::papers {

namespace fs = std::filesystem;

// The metrics each engine kind's tables read unconditionally (the others are shown when kept); the
// checks table compares goodput with its closed form, or under ps the time in system (sojourn).
std::vector<const char*> required_metrics(SweepKind kind, Model model) {
  switch (kind) {
    case SweepKind::checks: return {model == Model::ps ? "sojourn" : "goodput"};
    case SweepKind::classic: return {"attempts_per_client", "makespan"};
    case SweepKind::frontier: return {"latency", "makespan"};
    case SweepKind::steady: return {"collapsed", "latency"};
    case SweepKind::burst: return {"drained", "drain_time", "drain_time_p99"};
    case SweepKind::drain: return {"drained", "drain_time", "drain_time_p99", "unfinished"};
    default: return {};
  }
}

std::vector<fs::path> render_reports(const StudyData& data, const fs::path& out_dir) {
  using namespace report;
  Out out{out_dir, data.certificates, {}};
  for (std::size_t i = 0; i < data.spec.sweeps.size(); ++i) {
    if (!data.spec.sweeps[i].replica_of.empty()) continue;  // a second seed, for the verdicts only
    switch (data.spec.sweeps[i].kind) {
      case SweepKind::checks: render_checks(data, i, out); break;
      case SweepKind::sleep: render_sleep(data, i, out); break;
      case SweepKind::classic: render_classic(data, i, out); break;
      case SweepKind::frontier: render_frontier(data, i, out); break;
      case SweepKind::steady: render_steady(data, i, out); break;
      case SweepKind::burst: render_burst(data, i, out); break;
      case SweepKind::drain: render_drain(data, i, out); break;
      case SweepKind::grid: render_grid(data, i, out); break;
      case SweepKind::brooker: render_brooker(data, i, out); break;
      case SweepKind::amplification: render_amplification(data, i, out); break;
      case SweepKind::budget: render_budget(data, i, out); break;
      case SweepKind::idempotency: render_idempotency(data, i, out); break;
      case SweepKind::breaker: render_breaker(data, i, out); break;
      case SweepKind::series: render_series(data, i, out); break;
    }
  }
  render_figure1(data, out);
  return out.files;
}

}  // namespace retrylab::papers

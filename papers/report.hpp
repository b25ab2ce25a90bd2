#pragma once
// The tables and figures of a study, derived from its recorded points alone (a pure function of
// the results store, so resumed and uninterrupted runs give the same bytes). One renderer per sweep
// kind (spec.hpp), plus the three-panel figure "figure1" when the study has a sleep, a steady and a
// burst sweep. Definitions used in the tables:
//   collapse threshold for K': the largest load of the grid below the first load at which at least
//     half the runs reached K' waiting clients (from each run's recorded peak backlog max_waiting,
//     valid for every K' <= the simulated K since a run is identical up to the moment it first
//     reaches K');
//   cap threshold: the smallest cap of the grid at which every run drained;
//   frontier: the lowest mean latency over the points where every run finished (a run stopped by
//     the horizon would bias latency low), best exponential against best window.
// Paper 2's kinds (papers/kinds.hpp): brooker (work and time per strategy and network; against N
// when the sweep has several client counts, and then also NAME_models beside the study's first
// classic sweep at N = 100), amplification (simulated bottom calls per request beside the closed
// form of analytic/amplification.hpp and a^L), budget, idempotency and breaker (one row per point,
// presets named; counts per request are ratios of run means; budget also NAME_warning, the
// budget's early warning). Their points are engine scenarios in attempt-durations, shown in ms.
// A classic sweep with more than 4 client counts is drawn against N (one panel per model).
// A steady sweep whose points differ in server options has one line per (model, strategy,
// server configuration), a "server" column naming the configuration (montecarlo::Scenario server groups set
// away from their defaults; "–" for the defaults) and a NAME_cost table: sustainable load, and at
// loads 0.1, 0.3 and 0.5 collapsed fraction, goodput, rejected fraction, mean and p99 latency, queue
// wait. A steady sweep without server options renders exactly as before. Paper 3 adds,
// only for sweeps that need them: model and strategy columns in NAME_cost when they vary; p50
// latency when recorded; when lost_fraction is recorded (client retry limits), a lost-fraction column
// and "last load with lost fraction <= 1%"; NAME_by_server (thresholds per (model, strategy) x
// configuration) and one figure panel per (model, configuration) when strategies vary too; the
// figure NAME_ceiling (sustainable load per configuration) for one model and strategy. A burst
// sweep over server options gets a "server" column, a line and a panel per configuration, and the
// lost fraction when recorded.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "papers/spec.hpp"

namespace retrylab::papers {

struct StudyData {
  const StudySpec& spec;
  std::vector<std::vector<nlohmann::json>> records;  // per sweep, per point (index order)
  std::vector<std::string> certificates;             // ids named by the records
};

std::vector<std::filesystem::path> render_reports(const StudyData& data, const std::filesystem::path& out);

}  // namespace retrylab::papers

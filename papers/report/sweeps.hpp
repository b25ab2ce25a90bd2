#pragma once
// The renderers of papers/report/, one per sweep kind (spec.hpp), each writing its tables and figures
// through Out, and the pieces one family lends another (figure 1 draws from the sleep, steady and
// burst sweeps; the burst sweep names server configurations as the steady sweep does).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "montecarlo/scenario.hpp"
#include "papers/report.hpp"
#include "papers/report/common.hpp"

namespace retrylab::papers::report {

void render_checks(const StudyData& d, std::size_t si, Out& out);
void render_sleep(const StudyData& d, std::size_t si, Out& out);
void render_classic(const StudyData& d, std::size_t si, Out& out);
void render_frontier(const StudyData& d, std::size_t si, Out& out);
void render_steady(const StudyData& d, std::size_t si, Out& out);
void render_burst(const StudyData& d, std::size_t si, Out& out);
void render_drain(const StudyData& d, std::size_t si, Out& out);
void render_grid(const StudyData& d, std::size_t si, Out& out);
void render_brooker(const StudyData& d, std::size_t si, Out& out);
void render_amplification(const StudyData& d, std::size_t si, Out& out);
void render_budget(const StudyData& d, std::size_t si, Out& out);
void render_idempotency(const StudyData& d, std::size_t si, Out& out);
void render_breaker(const StudyData& d, std::size_t si, Out& out);
void render_series(const StudyData& d, std::size_t si, Out& out);
// Paper 1's three-panel figure, when the study has a sleep, a steady and a burst sweep.
void render_figure1(const StudyData& d, Out& out);

// ---- sleep (sleep.cpp)
struct SleepGroup {
  Backoff backoff;
  std::vector<std::vector<double>> rows;  // k, sim q10, q50, q90, exact q10, q50, q90, sim mean, exact mean
};
std::vector<SleepGroup> sleep_groups(const StudyData& d, std::size_t si);

// ---- steady (steady.cpp)
struct Steady {
  std::vector<std::int64_t> ks;  // thresholds, ascending
  struct Line {
    Model model;
    Strategy strategy;
    std::string server;                          // server_label(): empty for the default server options
    std::vector<std::size_t> idx;                // points, by ascending rate
    std::vector<std::vector<double>> collapsed;  // per K', per point: fraction of runs reaching K'
  };
  std::vector<Line> lines;
};
std::string server_label(const montecarlo::Scenario& o);
std::string server_key(const montecarlo::Scenario& o);
Steady steady_lines(const StudyData& d, std::size_t si);
std::ptrdiff_t last_surviving(const std::vector<double>& collapsed);
bool records(const std::vector<json>& recs, const std::string& m);

// ---- burst (burst.cpp)
double fluid_estimate(Model m, Strategy s, double base, std::int64_t clients, double rate);
struct BurstLine {
  Model model;
  Strategy strategy;
  double base, rate;
  std::int64_t clients;
  std::vector<std::size_t> idx;  // ascending cap
  std::string server;            // server_label(): empty for the default server options
  std::string server_key;        // server_key(): equal for equal options
};
std::vector<BurstLine> burst_lines(const SweepSpec& sw);

}  // namespace retrylab::papers::report

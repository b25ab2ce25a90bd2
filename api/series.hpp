#pragma once
// What happens over time (docs/cli.md "simulate --series", docs/models.md §5 "Over time"): the
// documents a time series goes out as, in the user's unit. Bins are [k·bin, (k+1)·bin) from 0 to the
// horizon; each quantity's value in a bin is the mean over the runs defined there with its 95%
// interval (montecarlo/series.hpp). The JSON and CSV always carry all the series' quantities (the
// core's and its build's components'), in rank order; the table and the figure show those the
// scenario can move, in column order.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/scenario.hpp"
#include "montecarlo/series.hpp"

namespace retrylab::api {

// A bin width in the scenario's unit, checked before any run (a finite number > 0, at most
// max_series_bins bins over the horizon; InputError naming "series" as `how` spells it, its values
// in the unit), as attempt-durations.
double series_bin(double width, const ResolvedScenario& s, Spelling how);
// A figure's path ends .svg or .png (InputError naming "plot" as `how` spells it).
void check_plot_path(const std::string& file, Spelling how);

// The slots of the series' quantities the scenario can move (each quantity's own shown rule, as its
// owner declared it: a rejection needs a limit, a refusal a component that refuses locally), in the
// table's and figure's order (their columns).
std::vector<std::size_t> shown_series(const montecarlo::Series& series, const montecarlo::Scenario& s);

// {"bin", "bins", "t" (bin starts), "quantities": {key: {"label", "unit", "mean", "lo", "hi", "n"}}}.
nlohmann::ordered_json series_json(const montecarlo::Series& series, const montecarlo::TimeUnit& u);
// One row per bin: t, then KEY, KEY_lo, KEY_hi for each quantity (an undefined value is empty).
std::string series_csv(const montecarlo::Series& series, const montecarlo::TimeUnit& u);
// One row per bin: t and the mean of each shown quantity; with `collapses` (the stop times of the
// runs the collapse rule stopped, in attempt-durations) also a column of how many had stopped by the
// bin's end, so the bins after a collapse are marked rather than silently thinner or blank.
std::string series_table(const montecarlo::Series& series, const ResolvedScenario& s,
                         const std::vector<double>& collapses = {});

// The series as a figure (gnuplot, the studies' style): one panel per shown quantity, the mean and
// its 95% band, the outage window shaded red and, with a load profile, the bins whose load is at or
// above the resource's capacity (a spike past what it serves) shaded orange. The stamp names this
// build's passing validation certificate, or says there is none. `file` ends .svg or .png (InputError("--plot")
// otherwise); its folder must exist. The script goes beside it as FILE.gp. Text from the scenario reaches gnuplot only
// through papers::gp_quote. This build's passing validation certificate (validation/certificate.hpp), or none: the
// stamp of a figure a front end draws.
std::vector<std::string> this_builds_certificate();

void plot_series(const montecarlo::Series& series, const ResolvedScenario& s, const std::filesystem::path& file);

}  // namespace retrylab::api

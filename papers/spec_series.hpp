#pragma once
// The study-spec keys of the series kind (docs/study-spec.md "series"), and load_profile, which
// every engine kind takes: parsed here so papers/spec.cpp only hands them over. A series sweep's
// points are its client policies, one [[sweep.NAME.policies]] table each (name: any text, shown
// escaped; then scenario fields over the sweep's), in file order. Invariants: every failure is a
// SpecError naming the key and its line; a load profile's CSV file is named relative to the spec's
// folder and stays inside it (no absolute path, no `..`); times are given in the sweep's unit and
// kept in attempt-durations.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "montecarlo/profile.hpp"
#include "montecarlo/scenario.hpp"
#include "papers/spec.hpp"

namespace retrylab::papers {

struct SeriesPolicyDraft {
  std::string name;
  std::string key;  // "sweep.NAME.policies[i]"
  std::int64_t line = 0;
  std::vector<std::pair<std::string, const toml::node*>> fields;  // nodes of the parsed spec
};

struct SeriesDraft {
  // series kind (in the sweep's unit until resolved)
  std::optional<double> bin, recover_within, recover_over;
  std::optional<std::pair<double, double>> event;
  std::int64_t bin_line = 0, event_line = 0;
  std::vector<SeriesPolicyDraft> policies;
  // every engine kind
  std::string load_profile;  // as written
  std::int64_t profile_line = 0;
  montecarlo::LoadProfile profile;  // resolved, in attempt-durations (resolve_load_profile)
};

// True when `name` is one of the keys handled here for a sweep of `kind` (load_profile for engine
// kinds; bin, event, recover_within, recover_over, policies for series), after applying it.
bool apply_series_key(const std::string& file, const std::string& key, std::string_view name, const toml::node& n,
                      SweepKind kind, bool is_scale, SeriesDraft& d);

// Reads the sweep's load_profile into d.profile (attempt-durations: d = the sweep's attempt_duration,
// 1 when plain); a SpecError naming sweep.NAME.load_profile when it is bad.
void resolve_load_profile(const std::string& file, const std::string& sweep, double attempt_duration, SeriesDraft& d);

// The profile on a point's scenario: a sine given without its mean takes the point's rate (then 0).
void set_load_profile(montecarlo::Scenario& s, const montecarlo::LoadProfile& p);

// The series settings of a series sweep from its keys and points (event: the outage window unless
// given); a SpecError naming the key when a rule fails (bin required, event inside (warmup,
// horizon], at most max_series_record_bins bins, policies given with distinct names).
SeriesSettings series_settings(const std::string& file, const std::string& sweep, std::int64_t sweep_line,
                               double attempt_duration, const SeriesDraft& d, const std::vector<SweepPoint>& points);

// A series sweep's policies: each is a curve of its figures, in one of the eight colours and dash
// types of papers/report/common.cpp.
inline constexpr std::int64_t max_series_policies = 8;

// A record keeps every bin of its series: a bound on its size.
inline constexpr std::int64_t max_series_record_bins = 10'000;

}  // namespace retrylab::papers

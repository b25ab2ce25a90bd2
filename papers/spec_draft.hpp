#pragma once
// The study-spec reader's draft of one sweep, shared by its two rooms: papers/spec.cpp (the parser:
// keys, values, the study) and papers/spec_grid.cpp (the expansion of every sweep kind's grid into
// points, and the checks on the points). Private to papers/ (papers/spec.hpp is the interface).
// Invariants: an Axis holds encoded values (model and strategy by enum index, on/off as 0/1, cap
// "none" as +inf) with the key and line they came from, so an error names them.
#include <toml++/toml.h>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "montecarlo/fields.hpp"
#include "papers/spec.hpp"
#include "papers/spec_series.hpp"
#include "policy/policy.hpp"

namespace retrylab::papers::spec_detail {

// The amplification kind's points are not engine Scenarios (papers/kinds.hpp runs them): it has
// fields of its own. Every other kind's fields are the engine's.
inline bool is_ext(SweepKind k) { return k == SweepKind::amplification; }

// Paper 2's kinds keep a summary of their own (papers/kinds.hpp), not the engine's metrics list.
inline bool own_summary(SweepKind k) { return static_cast<int>(k) >= static_cast<int>(SweepKind::brooker); }

// The amplification kind's fields, in expansion order (outermost first). A value is parsed into a
// double; ranges beyond type safety are check_layered's, whose InputError is turned into a
// SpecError naming the key the value came from.
enum class ExtType { number, integer };
struct ExtField {
  std::string_view name;
  ExtType type;
  std::int64_t lo = 0, hi = 0;  // integer fields
};
inline const std::vector<ExtField> layered_fields = {{"layers", ExtType::integer, 1, 1'000'000},
                                                     {"attempts", ExtType::integer, 1, 1'000'000},
                                                     {"failure", ExtType::number},
                                                     {"outage_fraction", ExtType::number},
                                                     {"requests", ExtType::integer, 1, 1'000'000'000'000}};

inline const std::vector<ExtField>& ext_fields(SweepKind) { return layered_fields; }

// Scenario fields (engine sweeps): the rows of montecarlo's field table, in its order, which is the
// expansion order (outermost first); a field not given keeps its default.
inline std::span<const montecarlo::Field> fields_table() { return montecarlo::scenario_fields(); }
inline std::size_t n_fields() { return fields_table().size(); }

struct Where {
  std::string file;
  std::int64_t line(const toml::node& n) const { return static_cast<std::int64_t>(n.source().begin.line); }
};

// One scenario field's values (one value unless it is a grid axis), encoded as doubles: model and
// strategy by enum index, retries as 0/1, cap "none" as +inf.
struct Axis {
  std::vector<double> values;
  std::int64_t line = 0;
  std::string key;
};

using Fields = std::map<std::string, Axis, std::less<>>;

struct GridBlock {
  Fields fields;
  std::string key;
  std::int64_t line = 0;
};

struct Draft {
  std::string name;
  std::int64_t line = 0;
  SweepKind kind = SweepKind::grid;
  std::string title;
  std::int64_t runs = 20;
  std::optional<std::uint64_t> seed;
  bool replicate = true;  // run again under the study's replica_seed (when it has one)
  std::int64_t draws = 200000;
  int retry_max = 30;
  std::vector<std::string> metrics, per_run;
  std::vector<std::int64_t> thresholds;
  Fields fields;
  std::vector<GridBlock> grids;
  // The unit the sweep's times and rates are written in: attempt-durations unless `unit` is ms or s
  // (then `attempt_duration` says how long one attempt takes in it).
  std::string unit;
  double attempt_duration = 0.0;
  std::int64_t unit_line = 0;
  // A client policy file (papers/spec_policy.hpp): its fields, unless the sweep gives them.
  std::string policy, policy_select;
  std::int64_t policy_line = 0;
  std::optional<policy::Policy> policy_read;
  SeriesDraft series;  // load_profile, and the series kind's keys (papers/spec_series.hpp)
};

// The points of an engine sweep's grid blocks (every field not given at its default; each point
// checked, an error naming the key its value came from), and of an amplification sweep's.
std::vector<SweepPoint> expand(const Where& w, const Draft& d);
std::vector<SweepPoint> expand_ext(const Where& w, const Draft& d);
// What the sweep's report reads, checked on its points before any run.
void check_report_needs(const Where& w, const Draft& d, const SweepSpec& s);

}  // namespace retrylab::papers::spec_detail

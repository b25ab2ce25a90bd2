#pragma once
// The results of one study (DIR/results.jsonl) indexed for the statements: each record's scenario
// fields, parsed from its canonical string (engine fields it leaves out are at their defaults), and
// selection of a sweep's points by field values and bounds. Read-only; the records stay owned here.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "papers/published/statements.hpp"
#include "papers/render.hpp"
#include "papers/spec.hpp"

namespace retrylab::papers::published {

struct Point {
  std::map<std::string, std::string> fields;  // from the canonical scenario string (in the record's unit)
  const nlohmann::json* rec = nullptr;
  bool engine = false;  // an engine scenario: a field it does not show is at its default
};

// A field's value as a number ("none" and "inf" are +inf; a missing field of an engine scenario its
// default; NaN otherwise); "F:G" is field F over field G (e.g. window:clients).
double field_num(const Point& p, const std::string& f);
// "field value, ...", numbers in four significant digits.
std::string describe(const Point& p, const std::vector<std::string>& fields);

// The summary entry of a metric (InputError naming the statement when the sweep does not keep it).
const nlohmann::json& entry(const std::string& id, const Point& p, const std::string& metric);
// A metric's value with its 95% interval (papers/intervals.hpp): a fraction of runs as its fraction.
Estimate value_of(const std::string& id, const Point& p, const std::string& metric);
// The runs behind a metric's value (its n).
std::int64_t runs_of(const std::string& id, const Point& p, const std::string& metric);
// The per-run values of a steady point's peak backlog (InputError when the sweep keeps none).
std::vector<double> max_waiting(const std::string& id, const Point& p);

class Results {
 public:
  Results(const StudySpec& spec, const std::filesystem::path& dir);
  const StudySpec& spec() const { return spec_; }
  const std::string& scale() const { return spec_.scale; }
  // The sweep called `name` (InputError naming the statement when there is none).
  const SweepSpec& sweep(const std::string& id, const std::string& name) const;
  bool has_sweep(const std::string& name) const;
  // False when the study runs at a reduced scale and the query's points are not on its coarser grid
  // (a statement at settings only the full scale runs is then not tested, not an error).
  bool covers(const std::string& id, const Query& q) const;
  // The points of q.sweep matching `where` and q's bounds (with `over_side`, the over-only bounds too).
  std::vector<Point> select(const std::string& id, const Query& q, const Fields& where, bool over_side = false) const;
  // Every record, for the certificates they name.
  const std::map<std::pair<std::string, std::int64_t>, nlohmann::json>& records() const { return all_; }

 private:
  const StudySpec& spec_;
  std::map<std::pair<std::string, std::int64_t>, nlohmann::json> all_;
  std::map<std::string, std::vector<Point>> by_sweep_;
};

}  // namespace retrylab::papers::published

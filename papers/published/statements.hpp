#pragma once
// A paper's statements file (papers/NAME/published.toml) as data: every published number with what
// it is computed from (a Query over one sweep's points), how it is compared, the number of runs the
// paper states for it, the other readings and the settings searched when it does not hold; and the
// list of every number of the paper's text, each mapped to its statements or given a reason to skip
// it (docs/published.md). Loading checks every key and value: an unknown key, a bad value or a number
// of the text with neither statement nor reason throws InputError naming the statement (or number)
// and the key, and SpecError adds the file and line.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace retrylab::papers::published {

inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();
inline constexpr double inf = std::numeric_limits<double>::infinity();

// Scenario fields to match: a field and the values it may take (any of them).
using Fields = std::map<std::string, std::vector<std::string>>;

// What to compute: a measure over the points of one sweep that match `where`, `upto` (field <=
// bound) and `from` (field >= bound).
struct Query {
  std::string sweep, measure = "value", metric, field = "q50";
  std::string by;   // at_best: the metric whose largest mean picks the point
  std::string per;  // the measure per value of this field, the largest taken (e.g. at every load)
  Fields where, over;
  std::map<std::string, double> upto, from;            // bounds on the points of both `where` and `over`
  std::map<std::string, double> over_upto, over_from;  // bounds on the `over` points only (searches)
  std::vector<std::string> of;                         // max_of, min_of, difference_of, ratio_of: other statements' ids
  std::int64_t k = 0;                                  // collapse threshold K (0: the sweep's own collapse)
  double threshold = nan;                              // first_retry: the sleep the quantile must reach
  double scale = 1.0;   // the reproduced value is multiplied by it (e.g. 1/B for cap / burst)
  double offset = 0.0;  // then this is added
};

// Another reading tried when the statement does not hold at its stated settings. A reading with a
// `setting` (e.g. "drain definition") is one value of a setting the paper leaves unstated: the
// summary looks for one value per setting for the whole paper (papers/published/readings.hpp).
struct Reading {
  std::string label, setting;
  Query query;
};

// A setting searched over every value the results can show: "k" (the collapse threshold, from each
// run's peak backlog), "upto.F" or "from.F" (the largest or smallest value of field F in the range
// the measure runs over, e.g. upto.cap), "over.upto.F" or "over.from.F" (the same on the `over`
// side of a ratio only, e.g. over.from.window).
struct Search {
  std::string name;  // as written: "k", "upto.cap", ...
  std::string setting() const;
};

enum class Compare { equal, below, above, at_least, at_most, range };

struct Statement {
  std::int64_t line = 0;  // in the statements file, for errors
  std::string id, statement, quote, published_text, untested;
  Compare compare = Compare::equal;
  double published = nan, half_width = nan, to = nan;  // to: the upper end of a range
  std::int64_t paper_runs = 0;                         // the runs the paper states (0: not stated)
  Query query;
  std::vector<Reading> readings;
  std::vector<Search> searches;
};

// One number of the paper's text: where it is, and the statements that test it or why none does.
struct Number {
  std::int64_t line = 0;
  std::string text, at, skip;
  std::vector<std::string> statements;
};

struct Statements {
  std::vector<Statement> list;
  std::vector<Number> numbers;
  std::map<std::string, std::int64_t> paper_runs;  // [paper] runs: the runs the paper states per sweep
};

// Reads and checks the whole file (InputError or SpecError as above).
Statements load(const std::filesystem::path& file);

// "7.4" -> 7.4 ± 0.05; "90,000" -> ± 5,000 and "10,400" -> ± 50 (an integer's trailing zeros are not
// significant);
// "15%" -> 0.15 ± 0.005. Throws InputError naming `id` when the text is not such a number.
void parse_published(const std::string& id, const std::string& text, double& value, double& half_width);

}  // namespace retrylab::papers::published

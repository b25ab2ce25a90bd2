// Every committed study table under papers/ (any CSV whose last column is `certificate`) shows
// intervals that respect their quantity: no bound of NAME lo / NAME hi below 0 (every quantity the
// studies tabulate is non-negative: times, counts, rates, fractions, ratios), no bound of a fraction
// above 1, and lo <= NAME <= hi. The published tables (published.csv) set statements of every kind
// side by side: each row is held to the rule of its statement's measure, read from the folder's
// published.toml (a fit's share or exponent, a difference, an offset ratio may be negative; a
// count, a time, a ratio, a fraction may not). A deterministic scan of committed files: it fails as
// soon as a renderer writes, e.g., a mean ± t·sd interval for a skewed latency again.
#include <gtest/gtest.h>

#include "papers/published/statements.hpp"
#include "tests/support/csv_fields.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path root = fs::path(RETRYLAB_SOURCE_DIR);

// Columns that may legitimately hold a negative bound (a signed quantity, e.g. a difference): the
// budget's early-warning lead (papers/backoff-alone budget_warning.csv), a difference of two times;
// the fits of growth with N (brooker_clients_fits.csv, _exponents.csv): a quadratic term's share is
// negative for growth slower than linear, and a local exponent between two close N can be.
const std::set<std::string> signed_columns = {"lead (ms)", "work: share of N² in a + bN + cN² at the largest N",
                                              "time: share of N² in a + bN + cN² at the largest N",
                                              "work: local exponent", "time: local exponent"};

// The statements of a published table whose quantity has a sign: the fits (a quadratic share is
// negative for growth slower than linear, an exponent or its trend can be), a difference of two
// values, and a ratio or growth shifted by a negative offset ("− 1"). Every other statement is a
// count, a time, a rate, a fraction or a ratio: non-negative.
std::set<std::string> signed_statements(const fs::path& csv) {
  std::set<std::string> out;
  const auto toml = csv.parent_path() / "published.toml";
  if (!fs::exists(toml)) return out;
  for (const auto& s : retrylab::papers::published::load(toml).list) {
    const std::string& m = s.query.measure;
    if (m == "quadratic_share" || m == "exponent" || m == "exponent_trend" || m == "difference_of" || m == "growth" ||
        s.query.offset < 0 || s.query.scale < 0)
      out.insert(s.statement);
  }
  return out;
}

std::vector<std::string> fields(const std::string& line) { return retrylab::test::csv_fields(line); }

bool ends_with(const std::string& s, const std::string& t) {
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

bool is_fraction(const std::string& name) {
  for (const char* w : {"fraction", "drained", "collapsed", "recovered"})
    if (name.find(w) != std::string::npos) return true;
  return false;
}

// NaN for an empty cell (no value).
double number(const std::string& s) {
  if (s.empty()) return std::nan("");
  char* end = nullptr;
  const double x = std::strtod(s.c_str(), &end);
  return *end ? std::nan("") : x;
}

// What is wrong with one CSV's intervals ("" if nothing); `tables` counts the interval columns seen.
std::string problems(const fs::path& p, int& intervals) {
  std::ifstream in(p);
  std::string line;
  if (!std::getline(in, line)) return "";
  const auto head = fields(line);
  if (head.empty() || head.back() != "certificate") return "";  // not a study table
  std::string out;
  const bool published = p.filename() == "published.csv";
  const auto signed_rows = published ? signed_statements(p) : std::set<std::string>{};
  for (int row = 2; std::getline(in, line); ++row) {
    const auto f = fields(line);
    const bool signed_row = published && !f.empty() && signed_rows.count(f[0]);
    for (std::size_t i = 1; i + 1 < head.size() && i + 1 < f.size(); ++i) {
      if (!ends_with(head[i], " lo")) continue;
      const std::string name = head[i].substr(0, head[i].size() - 3);
      if (row == 2) ++intervals;
      const double m = number(f[i - 1]), lo = number(f[i]), hi = number(f[i + 1]);
      const auto bad = [&](const std::string& why) {
        out += p.lexically_relative(root).string() + ":" + std::to_string(row) + ": " + name + " " + why + "\n";
      };
      if (std::isnan(lo) || std::isnan(hi)) continue;
      if (!signed_columns.count(name) && !signed_row && lo < 0)
        bad("lo = " + f[i] + " < 0 for a non-negative quantity");
      if (is_fraction(name) && hi > 1) bad("hi = " + f[i + 1] + " > 1 for a fraction");
      if (!std::isnan(m) && (lo > m || m > hi))
        bad("interval [" + f[i] + ", " + f[i + 1] + "] does not hold " + f[i - 1]);
    }
  }
  return out;
}

TEST(IntervalBounds, NoNegativeBoundForANonNegativeQuantityInAnyCommittedTable) {
  std::string all;
  int files = 0, intervals = 0;
  for (const auto& e : fs::recursive_directory_iterator(root / "papers"))
    if (e.path().extension() == ".csv") {
      ++files;
      all += problems(e.path(), intervals);
    }
  EXPECT_GE(files, 40) << "the committed study tables were not found under " << (root / "papers");
  EXPECT_GE(intervals, 40) << "no interval columns were read: the CSV convention changed?";
  EXPECT_EQ(all, "");
}

}  // namespace

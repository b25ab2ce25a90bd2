// Prose from tables (papers/prose.hpp): every number in the prose of a paper's README.template.md is
// one a table of the same folder holds, and a sentence that characterises a table's column ("from A
// to B", "within A to B") names that column's least and greatest value over the rows it speaks of. On planted folders
// (a number a table holds passes at the precision printed, one it does not hold is reported, code, headings, links and
// {{n:...}} literals are not prose), then on the committed papers themselves; and the committed statements files list
// every number of their paper's text with a statement or a reason.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "papers/prose.hpp"
#include "papers/published.hpp"
#include "papers/spec.hpp"
#include "tests/support/csv_fields.hpp"

namespace fs = std::filesystem;
using retrylab::papers::unbacked_numbers;

namespace {

struct Planted {
  fs::path dir = fs::temp_directory_path() / ("retrylab_prose_" + std::to_string(::getpid()));
  Planted() {
    fs::create_directories(dir);
    std::ofstream(dir / "t.csv") << "model,latency,latency lo,latency hi,certificate\ncollision,76080.4,72230,80130,c\n"
                                 << "free,0.725,0.57,0.84,c\n";
    std::ofstream(dir / "t.md") << "| a |\n|---|\n| 1.388 [1.363, 1.414] |\n\nBest at window 282.8.\n";
  }
  ~Planted() { fs::remove_all(dir); }
  std::vector<std::string> check(const std::string& prose) {
    std::ofstream(dir / "README.template.md") << prose;
    std::vector<std::string> out;
    for (const auto& n : unbacked_numbers(dir / "README.template.md", dir)) out.push_back(n.text);
    return out;
  }
};

TEST(Prose, ANumberATableHoldsPassesAtThePrecisionPrinted) {
  Planted p;
  EXPECT_TRUE(
      p.check("It drained in 76,080 [72,230, 80,130]; 72.5% of runs; the window 282.8 won by 1.39×.\n").empty());
  EXPECT_TRUE(p.check("In 0.725 of the runs, or 73% rounded, and 1.4× in one decimal.\n").empty());
}

TEST(Prose, ANumberNoTableHoldsIsReportedWithItsLine) {
  Planted p;
  const auto bad = p.check("Fine: 76,080.\nNot: 76,100 and 1.5× and 42%.\n");
  ASSERT_EQ(bad.size(), 3u);
  EXPECT_EQ(bad[0], "76,100");  // the table holds 76,080: prose must print the figure it means
  EXPECT_EQ(bad[1], "1.5");
  EXPECT_EQ(bad[2], "42%");
}

TEST(Prose, CodeHeadingsLinksAndLiteralsAreNotProse) {
  Planted p;
  EXPECT_TRUE(p.check("## 7. Heading 99\n```\nretrylab --runs 123\n```\nRun `--seed 555` and see [a](x123.md); "
                      "published {{n:2015-03-04}}.\n<!-- include: 77.md -->\n![f](fig9.png)\n")
                  .empty());
}

// The committed statements files: each lists every number of its paper's text with a statement or a
// reason (check_statements refuses one with neither), and names only sweeps its study has.
TEST(Prose, TheCommittedStatementsFilesListEveryNumberOfTheirPaper) {
  for (const char* paper : {"cap-is-doing-the-work", "backoff-alone"}) {
    const fs::path dir = fs::path(RETRYLAB_SOURCE_DIR) / "papers" / paper;
    const auto spec = retrylab::papers::parse_study_file(dir / "study.toml", "full");
    EXPECT_NO_THROW(retrylab::papers::check_statements(dir / "published.toml", spec)) << paper;
  }
}

// The committed papers: a number in a README's prose that no table of its folder holds fails here.
TEST(Prose, TheCommittedPapersProseComesFromTheirTables) {
  for (const char* paper : {"cap-is-doing-the-work", "backoff-alone", "incident"}) {
    const fs::path dir = fs::path(RETRYLAB_SOURCE_DIR) / "papers" / paper;
    std::string list;
    for (const auto& n : unbacked_numbers(dir / "README.template.md", dir))
      list += "\n  README.template.md:" + std::to_string(n.line) + ": " + n.text;
    EXPECT_TRUE(list.empty()) << paper << ": numbers in prose that no table of the folder holds:" << list;
  }
}

// --- Characterisations: "A to B" in prose against the least and greatest value of a table column ---

using retrylab::test::csv_fields;

// The least and greatest number in `column` of `csv` over the rows whose other columns take one of
// the listed values (a cell that is not a number, "none of the grid", is no value).
std::pair<double, double> column_range(const fs::path& csv, const std::string& column,
                                       const std::map<std::string, std::set<std::string>>& where) {
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  const auto head = csv_fields(line);
  const auto col = [&](const std::string& name) {
    const auto it = std::find(head.begin(), head.end(), name);
    if (it == head.end()) throw std::runtime_error(csv.string() + " has no column " + name);
    return static_cast<std::size_t>(it - head.begin());
  };
  const std::size_t c = col(column);
  double lo = INFINITY, hi = -INFINITY;
  while (std::getline(in, line)) {
    const auto f = csv_fields(line);
    bool match = true;
    for (const auto& [k, vs] : where) match = match && vs.count(f.at(col(k)));
    if (!match) continue;
    char* end = nullptr;
    const double x = std::strtod(f.at(c).c_str(), &end);
    if (f.at(c).empty() || *end) continue;
    lo = std::min(lo, x), hi = std::max(hi, x);
  }
  return {lo, hi};
}

// A number as printed ("26.67", "2,000") and whether x rounds to it at the precision printed.
bool rounds_to(const std::string& printed, double x) {
  std::string digits;
  for (char ch : printed)
    if (ch != ',') digits += ch;
  const auto dot = digits.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(digits.size() - dot - 1);
  return std::fabs(x - std::stod(digits)) <= 0.5 * std::pow(10.0, -decimals) + 1e-12;
}

struct Characterisation {
  const char* paper;
  const char* text;  // as written in README.template.md, holding "A to B"
  const char* csv;
  const char* column;
  std::map<std::string, std::set<std::string>> where;
};

// The sentences of the committed papers that characterise a table by a range. Each must be in its
// template as written, and its A and B must be the least and greatest value of the column over the
// rows it speaks of: a range attributed to equal jitter that is full jitter's, or a "within 10 to
// 33 ms" that leaves out the rows at 382 and 546, fails here.
const std::vector<Characterisation>& characterisations() {
  static const std::vector<Characterisation> list = {
      {"cap-is-doing-the-work",
       "(cap / B = 1.667 to 2.5)",
       "burst_caps.csv",
       "threshold / B",
       {{"model", {"collision"}}, {"strategy", {"full"}}}},
      {"cap-is-doing-the-work",
       "(cap / B = 1.25 to 2)",
       "burst_caps.csv",
       "threshold / B",
       {{"model", {"collision"}}, {"strategy", {"equal"}}}},
      {"cap-is-doing-the-work",
       "cap / B = 10 to 26.67;",
       "burst_caps.csv",
       "threshold / B",
       {{"model", {"shared"}}, {"strategy", {"full"}}}},
      {"cap-is-doing-the-work",
       "cap / B = 5 to 13.33)",
       "burst_caps.csv",
       "threshold / B",
       {{"model", {"shared"}}, {"strategy", {"equal"}}}},
      {"cap-is-doing-the-work",
       "from 1.667 to 2.5 × B for full",
       "burst_caps.csv",
       "threshold / B",
       {{"model", {"collision"}}, {"strategy", {"full"}}}},
      {"cap-is-doing-the-work",
       "1.25 to 2 × B for equal jitter on `collision`",
       "burst_caps.csv",
       "threshold / B",
       {{"model", {"collision"}}, {"strategy", {"equal"}}}},
      {"cap-is-doing-the-work",
       "10 to 26.67 × B for full",
       "burst_caps.csv",
       "threshold / B",
       {{"model", {"shared"}}, {"strategy", {"full"}}}},
      {"cap-is-doing-the-work",
       "5 to 13.33 × B for equal jitter on `shared`",
       "burst_caps.csv",
       "threshold / B",
       {{"model", {"shared"}}, {"strategy", {"equal"}}}},
      {"backoff-alone",
       "within 10 to 22.5 ms with 3 attempts",
       "budget_warning.csv",
       "clients' failures at their outage level (ms after the start)",
       {{"outage", {"total outage 20–30 s"}}, {"max attempts", {"3"}}}},
      {"backoff-alone",
       "within 10 to 33 ms with 10 under the AWS and gRPC buckets",
       "budget_warning.csv",
       "clients' failures at their outage level (ms after the start)",
       {{"outage", {"total outage 20–30 s"}}, {"max attempts", {"10"}}, {"budget", {"aws-standard", "grpc"}}}},
  };
  return list;
}

// The template's prose with its line breaks as spaces, so a sentence may wrap anywhere.
std::string prose_of(const fs::path& tmpl) {
  std::ifstream in(tmpl);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

TEST(Prose, ARangeInProseIsTheLeastAndGreatestValueOfItsColumn) {
  const std::regex range(R"(([0-9][0-9,]*(?:\.[0-9]+)?) to ([0-9][0-9,]*(?:\.[0-9]+)?))");
  for (const auto& c : characterisations()) {
    const fs::path dir = fs::path(RETRYLAB_SOURCE_DIR) / "papers" / c.paper;
    EXPECT_NE(prose_of(dir / "README.template.md").find(c.text), std::string::npos)
        << c.paper << ": the sentence \"" << c.text << "\" is no longer in README.template.md (update this list)";
    std::smatch m;
    const std::string text = c.text;
    ASSERT_TRUE(std::regex_search(text, m, range)) << c.text;
    const auto [lo, hi] = column_range(dir / c.csv, c.column, c.where);
    EXPECT_TRUE(rounds_to(m[1], lo) && rounds_to(m[2], hi))
        << c.paper << ": \"" << c.text << "\" but " << c.csv << "'s " << c.column << " runs from " << lo << " to " << hi
        << " over the rows it speaks of";
  }
}

// The check itself: a range that leaves out a row, or is another strategy's, is caught.
TEST(Prose, ARangeThatLeavesOutARowFails) {
  const fs::path dir = fs::path(RETRYLAB_SOURCE_DIR) / "papers" / "backoff-alone";
  const auto [lo, hi] =
      column_range(dir / "budget_warning.csv", "clients' failures at their outage level (ms after the start)",
                   {{"outage", {"total outage 20–30 s"}}, {"max attempts", {"10"}}});
  EXPECT_TRUE(rounds_to("10", lo));
  EXPECT_FALSE(rounds_to("33", hi));  // Finagle's and the SRE throttle's 382 and 546 ms are rows too
  const fs::path caps = fs::path(RETRYLAB_SOURCE_DIR) / "papers" / "cap-is-doing-the-work" / "burst_caps.csv";
  const auto equal = column_range(caps, "threshold / B", {{"model", {"collision"}}, {"strategy", {"equal"}}});
  EXPECT_FALSE(rounds_to("1.667", equal.first));  // full jitter's least threshold, not equal jitter's
}

}  // namespace

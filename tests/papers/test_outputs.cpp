// The CSV column rules of docs/outputs.md, checked on every committed study table (papers/*/), the
// study goldens (tests/papers/golden*/) and the command CSVs (simulate goldens, validation.csv):
// study tables name a column by its table heading, an interval as NAME, NAME lo, NAME hi, and end
// with certificate; command CSVs use snake_case JSON keys (dots for nesting).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/support/csv_fields.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path root = fs::path(RETRYLAB_SOURCE_DIR);

// The header row of a CSV file, with RFC 4180 quoting.
std::vector<std::string> header(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return retrylab::test::csv_fields(line);
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::vector<fs::path> csv_files(const fs::path& dir) {
  std::vector<fs::path> out;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".csv") out.push_back(e.path());
  return out;
}

// Returns what is wrong with a study table's header ("" if nothing).
std::string study_table_problem(const std::vector<std::string>& h) {
  if (h.empty() || h.back() != "certificate") return "the last column is not certificate";
  if (std::set<std::string>(h.begin(), h.end()).size() != h.size()) return "a column name repeats";
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (ends_with(h[i], " lo")) {
      const std::string name = h[i].substr(0, h[i].size() - 3);
      if (i == 0 || h[i - 1] != name || i + 1 >= h.size() || h[i + 1] != name + " hi")
        return "\"" + h[i] + "\" is not between \"" + name + "\" and \"" + name + " hi\"";
    } else if (ends_with(h[i], " hi") && (i == 0 || h[i - 1] != h[i].substr(0, h[i].size() - 3) + " lo")) {
      return "\"" + h[i] + "\" does not follow its lo column";
    }
  }
  return "";
}

TEST(OutputsCsvConvention, StudyTables) {
  std::vector<fs::path> files;
  for (const auto& dir : fs::directory_iterator(root / "papers"))
    if (dir.is_directory())
      for (const auto& f : csv_files(dir.path())) files.push_back(f);
  for (const char* golden : {"tests/papers/golden", "tests/papers/golden_paper2"})
    for (const auto& f : csv_files(root / golden)) files.push_back(f);
  ASSERT_GT(files.size(), 10u) << "no study tables found under " << root;
  for (const auto& f : files) EXPECT_EQ(study_table_problem(header(f)), "") << f;
}

TEST(OutputsCsvConvention, CommandCsvs) {
  std::vector<fs::path> files = csv_files(root / "tests/montecarlo/golden");
  for (const auto& dir : fs::directory_iterator(root / "papers"))
    for (const auto& f : csv_files(dir.path() / "validation")) files.push_back(f);
  ASSERT_GE(files.size(), 2u);
  const std::regex key("[a-z0-9_.]+");
  for (const auto& f : files)
    for (const auto& c : header(f)) EXPECT_TRUE(std::regex_match(c, key)) << f << ": column \"" << c << "\"";
}

TEST(OutputsCsvConvention, CatchesABrokenInterval) {
  EXPECT_EQ(study_table_problem({"load", "latency", "latency lo", "latency hi", "certificate"}), "");
  EXPECT_NE(study_table_problem({"load", "latency", "latency hi", "latency lo", "certificate"}), "");
  EXPECT_NE(study_table_problem({"load", "latency lo", "latency hi", "certificate"}), "");
  EXPECT_NE(study_table_problem({"load", "latency"}), "");
}

}  // namespace

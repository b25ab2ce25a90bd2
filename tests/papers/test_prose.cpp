// Prose from tables (papers/prose.hpp): every number in the prose of a paper's README.template.md is
// one a table of the same folder holds. On planted folders (a number a table holds passes at the
// precision printed, one it does not hold is reported, code, headings, links and {{n:...}} literals
// are not prose), then on the committed papers themselves; and the committed statements files list
// every number of their paper's text with a statement or a reason.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include "papers/prose.hpp"
#include "papers/published.hpp"
#include "papers/spec.hpp"

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

}  // namespace

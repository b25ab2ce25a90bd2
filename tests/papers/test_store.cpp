// Resume against a damaged results store (the hostile-input report, class 8): a torn last line is
// dropped, a damaged middle line or a foreign record is InputError naming file and line, repeated
// records are removed from the file, a new certificate of the same build resumes while another
// build's does not, results.jsonl being a folder is refused by name, and a disk that fills up is
// OutputError naming the file (the CLI's exit 1), not an unexpected error.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "analytic/error.hpp"
#include "papers/store.hpp"

#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"

namespace test_store {

namespace fs = std::filesystem;
using retrylab::InputError;
using retrylab::papers::ResultsStore;

namespace {

fs::path fresh(const std::string& name) { return retrylab::test::fresh_dir("store-" + name); }

using retrylab::test::slurp;

const nlohmann::json header = {{"study", "t"}, {"scale", "quick"}, {"certificate", "b1-quick-7"}};

// Writes a store of points 0, 1, 2 of sweep a; returns its lines.
std::vector<std::string> three_points(const fs::path& dir) {
  {
    ResultsStore s(dir, header, false);
    for (int i = 0; i < 3; ++i) s.append({{"sweep", "a"}, {"point", i}, {"x", i + 0.5}});
  }
  std::vector<std::string> lines;
  std::istringstream in(slurp(dir / "results.jsonl"));
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

void rewrite(const fs::path& dir, const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  std::ofstream(dir / "results.jsonl", std::ios::binary) << text;
}

// The InputError's message, or "" when none is thrown.
std::string resume_error(const fs::path& dir, const nlohmann::json& h = header) {
  try {
    ResultsStore s(dir, h, true);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(StoreHostile, DamagedMiddleLineAndForeignRecordsNameFileAndLine) {
  const fs::path dir = fresh("damaged");
  auto lines = three_points(dir);
  lines[2] = "{\"sweep\":\"a\",\"poi";  // torn in the middle, more lines after it
  rewrite(dir, lines);
  std::string e = resume_error(dir);
  EXPECT_NE(e.find((dir / "results.jsonl").string() + ": line 3 is not a JSON object"), std::string::npos) << e;
  lines = three_points(dir);
  lines[2] = R"({"point":1,"x":1.5})";  // no sweep
  rewrite(dir, lines);
  e = resume_error(dir);
  EXPECT_NE(e.find("line 3 is not a study record"), std::string::npos) << e;
  lines[2] = R"({"sweep":"a","point":1,"x":9})";
  lines.push_back(R"({"sweep":"a","point":1,"x":1.5})");  // the same point recorded twice, differently
  rewrite(dir, lines);
  e = resume_error(dir);
  EXPECT_NE(e.find("lines 3 and 5 record point 1 of sweep a differently"), std::string::npos) << e;
  fs::remove_all(dir);
}

TEST(StoreHostile, TornLastLineAndDuplicatesAreRemoved) {
  const fs::path dir = fresh("dup");
  auto lines = three_points(dir);
  std::string whole;
  for (const auto& l : lines) whole += l + "\n";
  auto doubled = lines;
  doubled.push_back(lines[2]);  // a repeated record
  rewrite(dir, doubled);
  std::ofstream(dir / "results.jsonl", std::ios::app) << R"({"sweep":"a","point":3,)";  // and a torn last line
  {
    ResultsStore s(dir, header, true);
    EXPECT_EQ(s.size(), 3);
  }
  EXPECT_EQ(slurp(dir / "results.jsonl"), whole);
  fs::remove_all(dir);
}

TEST(StoreHostile, ANewCertificateOfTheSameBuildResumes) {
  const fs::path dir = fresh("cert");
  three_points(dir);
  nlohmann::json same_build = header;
  same_build["certificate"] = "b1-full-9";
  EXPECT_EQ(resume_error(dir, same_build), "");
  nlohmann::json other_build = header;
  other_build["certificate"] = "b2-quick-7";
  EXPECT_NE(resume_error(dir, other_build).find("its certificate (another build) differs"), std::string::npos);
  nlohmann::json other_scale = header;
  other_scale["scale"] = "full";
  EXPECT_NE(resume_error(dir, other_scale).find("its scale differs"), std::string::npos);
  fs::remove_all(dir);
}

TEST(StoreHostile, AFolderNamedResultsIsRefused) {
  const fs::path dir = fresh("folder");
  fs::create_directories(dir / "results.jsonl");
  EXPECT_NE(resume_error(dir).find("results.jsonl, which is not a regular file"), std::string::npos);
  EXPECT_THROW(ResultsStore(dir, header, false), InputError);
  fs::remove_all(dir);
}

// A full disk, simulated by RLIMIT_FSIZE (a write past it fails with EFBIG): OutputError naming
// results.jsonl, which the CLI reports as exit 1 (docs/cli.md), not exit 3.
TEST(StoreHostile, AFullDiskIsAnOutputErrorNamingTheFile) {
  const fs::path dir = fresh("full");
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  std::signal(SIGXFSZ, SIG_IGN);
  std::string what;
  bool other = false;
  {
    ResultsStore s(dir, header, false);
    struct rlimit small = old;
    small.rlim_cur = 4096;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    try {
      s.append({{"sweep", "a"}, {"point", 0}, {"x", std::string(10000, 'x')}});
    } catch (const retrylab::OutputError& e) {
      what = e.what();
    } catch (const std::exception&) {
      other = true;
    }
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &old), 0);
  }
  EXPECT_FALSE(other);
  EXPECT_NE(what.find("cannot write " + (dir / "results.jsonl").string()), std::string::npos) << what;
  fs::remove_all(dir);
}

}  // namespace test_store

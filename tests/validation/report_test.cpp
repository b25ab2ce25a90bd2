// Output tests of validation/report and the certificate store: the renderings line by line with
// patterns, atomic writes, and the certificate round trip.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "validation/certificate.hpp"
#include "validation/escape.hpp"
#include "validation/report.hpp"
#include "validation/suite.hpp"

#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"

namespace report_test {

namespace rv = retrylab::validation;
namespace fs = std::filesystem;

namespace {

rv::SuiteResult sample_result() {
  rv::SuiteResult s;
  s.options.scale = rv::Scale::quick;
  s.options.seed = 7;
  s.statistical_cases = 2;
  s.alpha_per_case = 5e-4;
  rv::CaseResult a;
  a.name = "collision-goodput-0.5";
  a.parameters = "λ=0.5 T=5000 T0=10 runs=32";
  a.closed_form = "λe^−2λ = 0.1839";
  a.expected = 0.18394;
  a.observed = 0.1835;
  a.ci95 = 0.002;
  a.rel_error = -0.0024;
  a.tolerance = 0.005;
  a.check = "|Δ| 0.00044 ≤ 0.005";
  a.verdict = rv::Verdict::pass;
  a.alpha = 5e-4;
  a.n = 32;
  rv::CaseResult b = a;
  b.name = "free-goodput-1";
  b.closed_form = "λ/(1+λ) = 0.5, with a | and a \"quote\"";
  b.verdict = rv::Verdict::fail;
  rv::CaseResult c;
  c.name = "classic-free-none-N100";
  c.kind = rv::CaseKind::exact;
  c.verdict = rv::Verdict::pass;
  c.expected = c.observed = 100;
  s.cases = {a, b, c};
  s.alpha_run = 1e-3;
  s.passed = false;
  return s;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

using retrylab::test::slurp;

// Absent: the writers create it.
fs::path fresh_dir(const std::string& name) { return retrylab::test::fresh_path("validation-" + name); }

}  // namespace

TEST(Report, TextTableHasHeaderRowsAndTheFalseAlarmRate) {
  const auto l = lines(rv::format_text(sample_result()));
  ASSERT_GE(l.size(), 6u);
  EXPECT_TRUE(std::regex_search(
      l[0],
      std::regex(
          "^case +parameters +closed form +simulated \\(mean ± 95% CI\\) +rel\\. error +tolerance +verdict +α$")));
  EXPECT_TRUE(std::regex_search(
      l[2], std::regex("^collision-goodput-0\\.5 +λ=0\\.5 .* 0\\.1835 ± 0\\.002 +-0\\.24% .* pass +0\\.0005$")));
  EXPECT_TRUE(std::regex_search(l[3], std::regex("FAIL")));
  EXPECT_TRUE(std::regex_search(l[4], std::regex("0 \\(exact\\)$")));
  const std::string all = rv::format_text(sample_result());
  EXPECT_NE(all.find("suite false-alarm rate ≤ 0.001"), std::string::npos);
  EXPECT_NE(all.find("Verdict: FAIL"), std::string::npos);
}

TEST(Report, MarkdownEscapesPipes) {
  const auto l = lines(rv::format_markdown(sample_result()));
  EXPECT_EQ(l[0], "# retrylab validation (quick)");
  EXPECT_TRUE(std::regex_search(l[2], std::regex("^\\| case \\| parameters \\|")));
  EXPECT_EQ(l[3], "|---|---|---|---:|---:|---|---|---|");
  EXPECT_NE(l[5].find("with a \\| and"), std::string::npos);
  // Every row has the 8 columns' 9 unescaped pipes.
  for (std::size_t i = 4; i < 7; ++i) {
    int pipes = 0;
    for (std::size_t j = 0; j < l[i].size(); ++j) pipes += l[i][j] == '|' && (j == 0 || l[i][j - 1] != '\\');
    EXPECT_EQ(pipes, 9) << l[i];
  }
}

TEST(Report, LatexIsBooktabsAndEscaped) {
  const std::string t = rv::format_latex(sample_result());
  EXPECT_NE(t.find("\\begin{tabular}{lllrrlll}"), std::string::npos);
  EXPECT_NE(t.find("\\toprule"), std::string::npos);
  EXPECT_NE(t.find("\\midrule"), std::string::npos);
  EXPECT_NE(t.find("\\bottomrule"), std::string::npos);
  EXPECT_NE(t.find("$\\lambda$"), std::string::npos);
  EXPECT_EQ(t.find("λ"), std::string::npos);  // no raw Unicode Greek left for pdflatex
  EXPECT_NE(t.find("\\texttt{collision-goodput-0.5}"), std::string::npos);
}

TEST(Report, CsvHasOneRowPerCaseAndQuotes) {
  const auto l = lines(rv::format_csv(sample_result()));
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(
      l[0],
      "case,kind,parameters,closed_form,expected,observed,ci95,rel_error,tolerance,check,verdict,alpha,n,seconds");
  EXPECT_TRUE(
      std::regex_search(l[1], std::regex("^collision-goodput-0\\.5,statistical,λ=0\\.5 T=5000 T0=10 runs=32,")));
  EXPECT_NE(l[2].find("\"λ/(1+λ) = 0.5, with a | and a \"\"quote\"\"\""), std::string::npos);
  EXPECT_TRUE(std::regex_search(l[2], std::regex(",fail,")));
  EXPECT_TRUE(std::regex_search(l[3], std::regex("^classic-free-none-N100,exact,")));
}

// An estimate (info case) is listed apart, under "Estimates", never in the pass/fail table; the CSV
// keeps one row per case with its kind.
TEST(Report, EstimatesAreListedApart) {
  auto s = sample_result();
  rv::CaseResult e;
  e.name = "estimate-burst-drain-collision-full-B100-c250";
  e.kind = rv::CaseKind::info;
  e.verdict = rv::Verdict::info;
  e.closed_form = "ESTIMATE (stage model): drain time 1318";
  e.expected = 1318;
  e.observed = 1254;
  e.ci95 = 49;
  e.rel_error = 1318.0 / 1254.0 - 1.0;
  e.check = "inside the claimed ±20%";
  s.cases.push_back(e);
  const std::string text = rv::format_text(s);
  const auto estimates = text.find("Estimates: approximations");
  ASSERT_NE(estimates, std::string::npos);
  EXPECT_GT(text.find(e.name), estimates);  // only in the section below the checked cases
  EXPECT_NE(text.find("+5.1%"), std::string::npos);
  const std::string md = rv::format_markdown(s);
  const auto section = md.find("## Estimates");
  ASSERT_NE(section, std::string::npos);
  EXPECT_GT(md.find("`" + e.name + "`"), section);
  const std::string tex = rv::format_latex(s);
  EXPECT_NE(tex.find("\\begin{tabular}{lllrrl}"), std::string::npos);
  const auto csv = lines(rv::format_csv(s));
  ASSERT_EQ(csv.size(), 5u);
  EXPECT_TRUE(std::regex_search(csv[4], std::regex("^estimate-burst-drain-collision-full-B100-c250,info,")));
  // Without estimates there is no section.
  EXPECT_EQ(rv::format_markdown(sample_result()).find("## Estimates"), std::string::npos);
}

TEST(Report, WriteReportsIsAtomicAndComplete) {
  const fs::path d = fresh_dir("out");
  const auto files = rv::write_reports(sample_result(), d);
  ASSERT_EQ(files.size(), 3u);
  for (const auto& f : files) EXPECT_TRUE(fs::exists(f)) << f;
  for (const auto& e : fs::directory_iterator(d))
    EXPECT_NE(e.path().filename().string().front(), '.') << "temporary left behind";
  EXPECT_EQ(slurp(d / "validation.csv"), rv::format_csv(sample_result()));
  fs::remove_all(d);
}

TEST(Certificate, RoundTripPrefersFullAndIgnoresFailures) {
  const fs::path d = fresh_dir("cert");
  ::setenv("RETRYLAB_CERTIFICATE_DIR", d.c_str(), 1);
  EXPECT_EQ(rv::certificate_dir(), d);
  EXPECT_FALSE(rv::find_passing_certificate().has_value());
  const std::string build = rv::current_build_id();
  EXPECT_EQ(build.size(), 16u);
  EXPECT_EQ(build, rv::current_build_id());  // a pure function of the executable's bytes

  rv::Certificate failed{build + "-quick-1", "0.1.0", build, "quick", 1, false, {{"a", false}}};
  rv::write_certificate(failed);
  EXPECT_FALSE(rv::find_passing_certificate().has_value());

  rv::Certificate other_build{"0000000000000000-full-1", "0.1.0", "0000000000000000", "full", 1, true, {{"a", true}}};
  rv::write_certificate(other_build);
  EXPECT_FALSE(rv::find_passing_certificate().has_value());

  rv::Certificate quick{build + "-quick-2", "0.1.0", build, "quick", 2, true, {{"a", true}}};
  rv::write_certificate(quick);
  auto found = rv::find_passing_certificate();
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->id, quick.id);

  rv::Certificate full{build + "-full-3", "0.1.0", build, "full", 3, true, {{"a", true}, {"b", true}}};
  const auto path = rv::write_certificate(full);
  EXPECT_EQ(path, d / (full.id + ".json"));
  found = rv::find_passing_certificate();
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->id, full.id);
  EXPECT_EQ(found->seed, 3u);
  EXPECT_EQ(found->cases.size(), 2u);
  ::unsetenv("RETRYLAB_CERTIFICATE_DIR");
  fs::remove_all(d);
}

// The one escaper (validation/escape.hpp), for the validation and the study tables alike: every
// LaTeX special escaped (a study's "10^9" compiles as text), ≤ spelled \le.
TEST(Escape, LatexAndCsvQuoting) {
  const std::string text = "10^9 ≤ λ_1 & {x} – 5%";
  EXPECT_EQ(rv::latex_escape(text), "10\\textasciicircum{}9 $\\le$ $\\lambda$\\_1 \\& \\{x\\} -- 5\\%");
  EXPECT_EQ(rv::latex_escape("a<b>c\\"), "a$<$b$>$c\\textbackslash{}");
  EXPECT_EQ(rv::csv_field("plain"), "plain");
  EXPECT_EQ(rv::csv_field("a,\"b\""), "\"a,\"\"b\"\"\"");
}

}  // namespace report_test

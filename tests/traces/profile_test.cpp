// Load profiles in attempt traces (version 3, docs/traces.md): the header carries the profile's
// text (in the trace's unit), `check` reads it and holds the arrivals to the non-homogeneous
// Poisson law it declares (count against Λ(τ), gaps time-rescaled by Λ); a trace declaring another
// profile than the one simulated fails the gaps; a profile in a version-2 header or a bad one is
// malformed; a profile too long for a header line is refused before anything is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/profile.hpp"
#include "montecarlo/trace.hpp"
#include "validation/trace_check.hpp"

#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/trace_report.hpp"

namespace profile_test {

namespace {

using retrylab::InputError;
using retrylab::Model;
using retrylab::Strategy;
using retrylab::montecarlo::LoadProfile;
using retrylab::montecarlo::Scenario;
using retrylab::test::failed_checks;
using retrylab::test::find_check;
using retrylab::validation::CheckVerdict;
using retrylab::validation::TraceReport;

std::string path_of(const std::string& name) {
  static const std::filesystem::path dir = retrylab::test::fresh_dir("trace_profiles");
  return (dir / name).string();
}

std::string write(const Scenario& s, const std::string& name, const retrylab::montecarlo::TimeUnit& u = {}) {
  retrylab::montecarlo::write_trace(s, 11, 4, path_of(name), u);
  return retrylab::test::slurp(path_of(name));
}

TraceReport check_text(const std::string& text) {
  std::istringstream in(text);
  return retrylab::validation::check_trace(in);
}

// Free, full jitter, steady arrivals stepping from 0.02 to 0.5 at t = 1000 (Λ(2000) = 520 a run).
Scenario stepped() {
  Scenario s;
  s.model = Model::free;
  s.backoff = {Strategy::full, 1.0, 1000.0, 0.0};
  s.traffic.load_profile = LoadProfile::parse("step:0:0.02,1000:0.5");
  s.measurement.horizon = 2000;
  return s;
}

std::string replaced(std::string t, const std::string& from, const std::string& to) {
  const std::size_t at = t.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? t : t.replace(at, from.size(), to);
}

}  // namespace

TEST(TraceProfiles, EngineTracesCarryTheProfileAndPass) {
  for (const char* file : {"p.csv", "p.jsonl"}) {
    const std::string text = write(stepped(), file);
    const bool json = std::string(file).ends_with(".jsonl");
    EXPECT_NE(text.find(json ? "\"load_profile\":\"step:0:0.02,1000:0.5\"" : "\n# load_profile=step:0:0.02,1000:0.5\n"),
              std::string::npos)
        << file;
    EXPECT_NE(text.find(json ? "{\"retrylab_trace\":3," : "# retrylab-trace version=3\n"), std::string::npos);
    const TraceReport r = check_text(text);
    EXPECT_TRUE(r.passed()) << file << "\n" << failed_checks(r);
    for (const char* rule : {"arrivals", "arrival count", "arrival gaps"})
      EXPECT_EQ(find_check(r, rule).verdict, CheckVerdict::pass)
          << file << ": " << rule << ": " << find_check(r, rule).observed;
  }
  // In ms (one attempt-duration = 10 ms): times x 10, rates / 10 in the header; the same verdicts.
  const std::string ms = write(stepped(), "ms.csv", {"ms", 10.0});
  EXPECT_NE(ms.find("\n# load_profile=step:0:0.002,10000:0.05\n"), std::string::npos);
  const TraceReport r = check_text(ms);
  EXPECT_TRUE(r.passed()) << failed_checks(r);
  EXPECT_EQ(find_check(r, "arrival gaps").verdict, CheckVerdict::pass);
}

// The profile declared must be the one simulated: a constant rate of the same mass, or the steps
// reversed, give the same count of arrivals but gaps that are not exponential in Λ.
TEST(TraceProfiles, AnotherProfileThanTheOneSimulatedFailsTheGaps) {
  const std::string text = write(stepped(), "q.csv");
  for (const std::string& other : {std::string("0:0.26"), std::string("step:0:0.5,1000:0.02")}) {
    const TraceReport r =
        check_text(replaced(text, "# load_profile=step:0:0.02,1000:0.5\n", "# load_profile=" + other + "\n"));
    EXPECT_EQ(find_check(r, "arrival gaps").verdict, CheckVerdict::fail)
        << other << ": " << find_check(r, "arrival gaps").observed;
    EXPECT_EQ(find_check(r, "arrival count").verdict, CheckVerdict::pass) << other;
  }
}

TEST(TraceProfiles, MalformedProfilesNameTheirLine) {
  const std::string v2 =
      "# retrylab-trace version=2\n# model=free strategy=full horizon=100 retries=on\n"
      "# load_profile=0:1\nrun,client,arrival,start,end,outcome,retry,sleep,burst\n";
  const std::string v3 =
      "# retrylab-trace version=3\n# model=free strategy=full horizon=100 retries=on\n"
      "# load_profile=0:1,0:2\nrun,client,arrival,start,end,outcome,retry,sleep,burst,kind\n";
  const std::string sine =
      "# retrylab-trace version=3\n# model=free strategy=full horizon=100 retries=on\n"
      "# load_profile=sine:10:1\nrun,client,arrival,start,end,outcome,retry,sleep,burst,kind\n";
  const std::string both =
      "# retrylab-trace version=3\n# model=free strategy=full horizon=100 rate=1 retries=on\n"
      "# load_profile=0:1\nrun,client,arrival,start,end,outcome,retry,sleep,burst,kind\n";
  for (const auto& [text, field] :
       {std::pair{v2, std::string("line 3: load_profile")}, std::pair{v3, std::string("line 3: load_profile")},
        std::pair{sine, std::string("line 3: load_profile")}, std::pair{both, std::string("line 3: load_profile")}}) {
    try {
      check_text(text);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
    }
  }
}

TEST(TraceProfiles, AProfileTooLongForAHeaderLineIsRefused) {
  std::vector<retrylab::montecarlo::ProfilePoint> points;
  for (int i = 0; i < 10000; ++i) points.push_back({static_cast<double>(i) + 0.123456789, 0.5});
  Scenario s = stepped();
  s.traffic.load_profile = LoadProfile::linear(points);
  ASSERT_GT(retrylab::montecarlo::trace_profile_text(s).size(), retrylab::montecarlo::trace_max_profile_text);
  try {
    retrylab::montecarlo::write_trace(s, 1, 1, path_of("long.csv"));
    ADD_FAILURE() << "written";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "load_profile") << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path_of("long.csv")));
}

}  // namespace profile_test

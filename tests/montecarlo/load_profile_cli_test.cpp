// `retrylab simulate --load-profile` from the outside: a CSV trace in ms runs, and its time series
// follows the profile (z-tests on the mean arrivals per bin, fixed seed); bad files and bad
// combinations exit 2 with one line naming the flag (and, for a file, its path and line).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/cli.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using retrylab::test::Child;

Child simulate(std::vector<std::string> args) {
  args.insert(args.begin(), "simulate");
  return retrylab::test::run_child(args);
}

std::string write(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  const std::filesystem::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

}  // namespace

// λ rises linearly from 0 to 0.04 per ms over [0, 1000) ms: ∫ over [0, 500) = 5, over [500, 1000) =
// 15. With 400 runs the mean per bin has sd sqrt(Λ/400); each |z| < 4.5 fails by chance with
// probability 6.8e-6 (two bins: 1.4e-5).
TEST(LoadProfileCli, CsvProfileInMsDrivesTheArrivals) {
  const auto dir = retrylab::test::fresh_dir("load-profile-cli");
  const std::string csv = write(dir, "profile.csv", "time,rate\n# a ramp\n0,0\n\n1000, 0.04\n");
  const Child o =
      simulate({"--model", "none", "--retries", "off", "--load-profile", csv, "--unit", "ms", "--attempt-duration",
                "10", "--horizon", "1000", "--series", "500", "--runs", "400", "--quiet", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["scenario"]["load_profile"], "0:0,1000:0.04");
  EXPECT_EQ(j["scenario"]["rate"], 0);
  const auto& offered = j["series"]["quantities"]["offered"]["mean"];
  ASSERT_EQ(offered.size(), 2u);
  const double expected[2] = {5.0, 15.0};
  for (int k = 0; k < 2; ++k) {
    const double z = (offered[k].get<double>() - expected[k]) / std::sqrt(expected[k] / 400.0);
    EXPECT_LT(std::abs(z), 4.5) << "bin " << k << ": " << offered[k];
  }
}

TEST(LoadProfileCli, InlineFormsAndSineWithRateRun) {
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--load-profile", "0:1,50:3"},
                                                {"--load-profile", "step:10:2"},
                                                {"--load-profile", "sine:20:0.5", "--rate", "1"}}) {
    std::vector<std::string> args = {"--model", "free", "--strategy", "full",     "--horizon", "100",
                                     "--runs",  "3",    "--quiet",    "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Child o = simulate(args);
    ASSERT_EQ(o.status, 0) << o.err;
    const auto j = nlohmann::json::parse(o.out);
    EXPECT_TRUE(j["scenario"].contains("load_profile"));
    EXPECT_GT(j["metrics"]["arrival_rate"]["mean"].get<double>(), 0.0);
  }
}

TEST(LoadProfileCli, BadInputExitsTwoNamingTheFlag) {
  const auto dir = retrylab::test::fresh_dir("load-profile-cli-bad");
  const std::string bad_row = write(dir, "bad.csv", "time,rate\n0,1\nx,2\n");
  const std::string backwards = write(dir, "backwards.csv", "0,1\n5,2\n5,3\n");
  const std::string negative = write(dir, "negative.csv", "0,1\n5,-2\n");
  // 8,000 rows: its text (about 120,000 characters) does not fit a trace's header line
  std::string rows;
  for (int i = 0; i < 8000; ++i) rows += std::to_string(i) + ".0625,1.0625\n";
  const std::string many = write(dir, "many.csv", rows);
  const std::string base[] = {"--model", "free", "--strategy", "full", "--horizon", "100", "--runs", "1", "--quiet"};
  const auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args(std::begin(base), std::end(base));
    args.insert(args.end(), extra.begin(), extra.end());
    return simulate(args);
  };
  struct Case {
    std::vector<std::string> extra;
    std::vector<std::string> says;
  };
  const Case cases[] = {
      {{"--load-profile", bad_row}, {"--load-profile", bad_row, "line 3"}},
      {{"--load-profile", backwards}, {"--load-profile", backwards, "line 3", "increase"}},
      {{"--load-profile", negative}, {"--load-profile", "line 2", ">= 0"}},
      {{"--load-profile", (dir / "absent.csv").string()}, {"--load-profile", "absent.csv"}},
      {{"--load-profile", "0:1", "--rate", "2"}, {"--load-profile", "rate"}},
      {{"--load-profile", "sine:10:1"}, {"--load-profile", "--rate"}},
      {{"--load-profile", "0:1,0:2"}, {"--load-profile", "increase"}},
      {{"--load-profile", many, "--trace", (dir / "t.csv").string()}, {"--trace", "--load-profile", "characters"}},
  };
  for (const Case& c : cases) {
    const Child o = run(c.extra);
    EXPECT_EQ(o.status, 2) << c.extra[1] << ": " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    for (const std::string& s : c.says) EXPECT_NE(o.err.find(s), std::string::npos) << s << " not in " << o.err;
  }
  // A profile needs a horizon.
  const Child o = simulate({"--model", "free", "--strategy", "full", "--load-profile", "0:1", "--runs", "1"});
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("--horizon"), std::string::npos) << o.err;
}

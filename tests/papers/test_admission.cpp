// Steady sweeps over server options (paper 2's admission sweep): the renderer groups lines by
// the server configuration as well as (model, strategy), labels them, and adds the NAME_cost table;
// the server-side metrics named in `metrics` are recorded. Paper 1's steady outputs (no server options)
// are pinned byte for byte by the golden tests of test_study.cpp. About 1 s.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "papers/spec.hpp"
#include "papers/study.hpp"

#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"

namespace retrylab::papers::test_admission {
namespace {

namespace fs = std::filesystem;

const char* const spec_text = R"(
[study]
name = "adm"
seed = 11

[sweep.adm]
kind = "steady"
runs = 3
model = "shared"
strategy = "full"
rate = [0.1, 0.9]
horizon = 500
collapse = 100
metrics = ["latency", "collapsed", "goodput", "reject_fraction", "latency_p99", "queue_wait"]
  [[sweep.adm.grid]]
  limit = 0
  [[sweep.adm.grid]]
  limit = 1
  overflow = "reject"
  reject_cost = 0.05
  retry_after = 2
  [[sweep.adm.grid]]
  lock = true
)";

using retrylab::test::slurp;

TEST(Admission, SteadyLinesAreGroupedAndLabelledByServerConfiguration) {
  const fs::path out = retrylab::test::fresh_path("papers-admission");
  StudyOptions o;
  o.out = out;
  o.threads = 2;
  o.quiet = true;
  o.certificate_id = "test-certificate";
  run_study(parse_study_text(spec_text, "adm.toml", "quick"), o);

  const std::string th = slurp(out / "adm_thresholds.md");
  EXPECT_NE(th.find("| model | strategy | server | K = 100 |"), std::string::npos) << th;
  // One row per configuration: the default options show as "–".
  EXPECT_NE(th.find("| shared | full | – |"), std::string::npos) << th;
  EXPECT_NE(th.find("| shared | full | limit 1, reject (cost 0.05), Retry-After 2 honoured |"), std::string::npos)
      << th;
  EXPECT_NE(th.find("| shared | full | FIFO lock |"), std::string::npos) << th;
  ASSERT_TRUE(fs::exists(out / "adm_cost.md"));
  const std::string cost = slurp(out / "adm_cost.md");
  EXPECT_NE(cost.find("| server | sustainable load | load | collapsed | goodput | rejected fraction | mean latency | "
                      "p99 latency | queue wait |"),
            std::string::npos)
      << cost;
  EXPECT_NE(slurp(out / "adm_latency.gp").find("full, FIFO lock"), std::string::npos);

  // The recorded server-side metrics. Default options run on the original engine, which rejects nothing
  // (montecarlo/result.hpp: reject_fraction = 0 exactly); the lock has no limit, so it rejects nothing
  // either. Limit 1 at load 0.9 with unit service: an arrival during a service is rejected, and with
  // about 450 arrivals in 500 units a run without one is practically impossible (P < 1e-100).
  std::ifstream in(out / "results.jsonl");
  std::string line;
  int seen = 0;
  while (std::getline(in, line)) {
    const auto r = nlohmann::json::parse(line);
    if (!r.contains("summary")) continue;
    const auto& s = r.at("summary");
    ASSERT_TRUE(s.contains("reject_fraction") && s.contains("latency_p99") && s.contains("queue_wait")) << line;
    const std::string sc = r.at("canonical").get<std::string>();
    const double rf = s.at("reject_fraction").at("mean").get<double>();
    if (sc.find("limit") == std::string::npos) {
      EXPECT_EQ(rf, 0.0) << sc;
    } else if (sc.find("rate=0.9") != std::string::npos) {
      EXPECT_GT(rf, 0.0) << sc;
    }
    ++seen;
  }
  EXPECT_EQ(seen, 6);
  fs::remove_all(out);
}

TEST(Admission, UnknownMetricIsAnErrorNamingTheKey) {
  std::string t = spec_text;
  t.replace(t.find("\"queue_wait\""), 12, "\"queue_time\"");
  try {
    parse_study_text(t, "adm.toml", "quick");
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("metrics"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace retrylab::papers::test_admission

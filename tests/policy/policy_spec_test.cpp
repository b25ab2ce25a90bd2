// A study sweep's `policy = "FILE"` (papers/spec_policy.hpp, docs/study-spec.md): the file's fields
// under the sweep's own, in the sweep's unit, and the errors naming the policy key. Exact.
#include <gtest/gtest.h>
#include <string>

#include "papers/spec.hpp"

namespace papers = retrylab::papers;

namespace {

const std::string spec_path = std::string(RETRYLAB_POLICY_DIR) + "/spec.toml";  // policy paths are relative to it

std::string sweep(const std::string& extra) {
  return "[study]\nname = \"p\"\nseed = 1\n[sweep.a]\nkind = \"grid\"\nmodel = \"none\"\nclients = 10\n"
         "runs = 2\n" +
         extra;
}

}  // namespace

TEST(PolicySpec, FileFieldsUnderTheSweepsOwnInItsUnit) {
  const papers::StudySpec s = papers::parse_study_text(
      sweep("unit = \"ms\"\nattempt_duration = 10\npolicy = \"grpc/retrying_service_config.json\"\n"
            "max_attempts = 3\n"),
      spec_path, "quick");
  ASSERT_EQ(s.sweeps.size(), 1u);
  ASSERT_EQ(s.sweeps[0].points.size(), 1u);
  const auto& sc = s.sweeps[0].points[0].scenario;
  EXPECT_EQ(sc.client.max_attempts, 3);  // the sweep's own wins over the file's 5
  EXPECT_EQ(sc.backoff.strategy, retrylab::Strategy::full);
  EXPECT_EQ(sc.backoff.base, 50.0);   // 0.5 s in attempt-durations of 10 ms
  EXPECT_EQ(sc.backoff.cap, 3000.0);  // 30 s
  EXPECT_EQ(sc.backoff.multiplier, 2.0);
}

TEST(PolicySpec, SelectAndErrorsNameThePolicyKey) {
  const papers::StudySpec s = papers::parse_study_text(
      sweep("unit = \"ms\"\nattempt_duration = 10\npolicy = \"aws/config\"\npolicy_select = \"legacy\"\n"), spec_path,
      "quick");
  EXPECT_EQ(s.sweeps[0].points[0].scenario.client.max_attempts, 5);
  try {
    papers::parse_study_text(sweep("policy = \"grpc/retrying_service_config.json\"\n"), spec_path, "quick");
    ADD_FAILURE() << "a file in seconds accepted in attempt-durations";
  } catch (const papers::SpecError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(spec_path + ":9: sweep.a.policy ", 0), 0u) << e.what();
    EXPECT_EQ(e.line(), 9);
    EXPECT_NE(e.message().find("unit = \"ms\""), std::string::npos) << e.what();
  }
  try {
    papers::parse_study_text(sweep("policy = \"missing.json\"\n"), spec_path, "quick");
    ADD_FAILURE() << "a missing policy file accepted";
  } catch (const papers::SpecError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(spec_path + ":9: sweep.a.policy ", 0), 0u) << e.what();
  }
}

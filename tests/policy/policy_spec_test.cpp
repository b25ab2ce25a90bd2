// A study sweep's `policy = "FILE"` (papers/spec_policy.hpp, docs/study-spec.md): the file's fields
// under the sweep's own, in the sweep's unit, and the errors naming the policy key; a policy or
// load-profile file outside the spec's folder (a path or a link) or not a regular file, refused
// before it is read. Exact.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "analytic/error.hpp"
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

namespace {

// A spec's refusal text (the parse must throw).
std::string spec_refusal(const std::string& extra, const std::string& spec) {
  try {
    papers::parse_study_text(sweep(extra), spec, "quick");
  } catch (const retrylab::InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << extra;
  return {};
}

struct SpecDir {
  std::filesystem::path path;
  SpecDir() {
    char name[] = "/tmp/retrylab-spec-reach-XXXXXX";
    path = ::mkdtemp(name);
  }
  ~SpecDir() { std::filesystem::remove_all(path); }
  std::string spec() const { return (path / "spec.toml").string(); }
};

}  // namespace

TEST(PolicySpec, AFileOutsideTheSpecsFolderIsRefusedUnread) {
  SpecDir d;
  // /etc/passwd was read and its first line echoed in the error before.
  for (const std::string name : {"/etc/passwd", "../../x.json", "a/../../y.json"}) {
    const std::string e = spec_refusal("policy = \"" + name + "\"\n", d.spec());
    EXPECT_EQ(e, d.spec() + ":9: sweep.a.policy must name a file inside the spec's folder: relative, without '..'")
        << e;
  }
  // A link inside the folder that leads out of it is refused too, for a policy and a load profile.
  std::filesystem::create_symlink("/etc/passwd", d.path / "p.json");
  EXPECT_EQ(spec_refusal("policy = \"p.json\"\n", d.spec()),
            d.spec() + ":9: sweep.a.policy must name a file inside the spec's folder (its link leads out of it)");
  std::filesystem::create_symlink("/dev/zero", d.path / "zero.csv");  // read without bound before (2.1 GB)
  const std::string e = spec_refusal("horizon = 10\nload_profile = \"zero.csv\"\n", d.spec());
  EXPECT_NE(e.find("sweep.a.load_profile must name a file inside the spec's folder (its link leads out of it)"),
            std::string::npos)
      << e;
}

TEST(PolicySpec, AFifoOrDeviceInsideTheFolderIsRefusedUnread) {
  SpecDir d;
  ASSERT_EQ(::mkfifo((d.path / "p.json").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((d.path / "l.csv").c_str(), 0600), 0);
  // Both blocked for ever before (no writer).
  EXPECT_NE(spec_refusal("policy = \"p.json\"\n", d.spec()).find("file is a FIFO (a pipe), not a regular file"),
            std::string::npos);
  const std::string e = spec_refusal("horizon = 10\nload_profile = \"l.csv\"\n", d.spec());
  EXPECT_NE(e.find("l.csv is a FIFO (a pipe), not a regular file"), std::string::npos) << e;
}

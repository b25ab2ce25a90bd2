// `retrylab simulate` with the server-side flags from the outside: the hand-worked limit
// case of server_test.cpp (ServerExact.LimitRejectsThenBackoffRetries) through the CLI, the same
// bytes with 1 and 2 threads, the server block only when a server option is given, and bad input ->
// exit 2 with one line naming the flag as spelled on the command line.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct Output {
  int status;
  std::string out, err;
};

Output run_cli(const std::string& args) {
  // One stderr file per test process: ctest runs the tests of this file in parallel processes.
  const std::string err_file = ::testing::TempDir() + "retrylab_server_cli_stderr_" + std::to_string(getpid()) + ".txt";
  const std::string cmd = std::string(RETRYLAB_CLI) + " simulate " + args + " 2>" + err_file;
  FILE* p = popen(cmd.c_str(), "r");
  Output o{-1, {}, {}};
  if (!p) return o;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) o.out.append(buf, n);
  const int st = pclose(p);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream e(err_file);
  std::stringstream ss;
  ss << e.rdbuf();
  o.err = ss.str();
  return o;
}

TEST(ServerCli, LimitCaseThroughTheCommandLine) {
  // 3 clients, limit 1, nojitter: 6 attempts, 3 rejected, makespan 4 (worked out in server_test.cpp).
  const Output o = run_cli("--model collision --strategy nojitter --clients 3 --limit 1 --runs 1 --quiet --json");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["scenario"]["server"]["limit"], 1);
  EXPECT_EQ(j["metrics"]["rejected"]["mean"], 3.0);
  EXPECT_EQ(j["metrics"]["reject_fraction"]["mean"], 0.5);
  EXPECT_EQ(j["metrics"]["makespan"]["mean"], 4.0);
}

TEST(ServerCli, NoServerBlockWithoutServerOptions) {
  const Output o = run_cli("--model free --strategy full --clients 5 --runs 2 --quiet --json");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_FALSE(j["scenario"].contains("server"));
  EXPECT_FALSE(j["metrics"].contains("rejected"));
  const Output forced = run_cli("--model free --strategy full --clients 5 --runs 2 --quiet --json --server-engine");
  ASSERT_EQ(forced.status, 0) << forced.err;
  const auto f = nlohmann::json::parse(forced.out);
  EXPECT_EQ(f["metrics"]["attempts_per_client"], j["metrics"]["attempts_per_client"]);
  EXPECT_TRUE(f["metrics"].contains("latency_p99"));
}

TEST(ServerCli, SameBytesWithOneAndTwoThreads) {
  const std::string args =
      "--model shared --strategy full --rate 0.5 --horizon 300 --clients 20 --rows 3 --service lognormal "
      "--service-cv 1.5 --delay 0.1 --delay-dist exponential --aimd on --aimd-min 1 --aimd-initial 4 --reject-cost 0.1 "
      "--retry-after 2 --retry-after-rule uniform --ignore-retry-after 0.2 --mix 0.3 --mix-strategy none "
      "--runs 4 --quiet --format ";
  for (const char* format : {"json", "csv", "table"}) {
    const Output one = run_cli(args + format + " --threads 1");
    const Output two = run_cli(args + format + " --threads 2");
    ASSERT_EQ(one.status, 0) << one.err;
    EXPECT_EQ(one.out, two.out) << format;
  }
}

TEST(ServerCli, BadInputNamesTheFlag) {
  const std::pair<const char*, const char*> cases[] = {
      {"--rows 0", "retrylab: --rows must be in [1, 1000000] (got 0)\n"},
      {"--limit 1 --reject-cost 2", "retrylab: --reject-cost must be in [0, 1] (got 2)\n"},
      {"--service lognormal", "retrylab: --service-cv must be in (0, 100] for lognormal service (got 0)\n"},
      {"--service gamma", "retrylab: --service must be deterministic, exponential or lognormal (got gamma)\n"},
      {"--overflow queue", "retrylab: --overflow queue needs a concurrency limit (limit > 0 or aimd)\n"},
      {"--aimd on --aimd-timeout -1", "retrylab: --aimd-timeout must be a number > 0 or \"none\" (got -1)\n"},
      {"--mix 0.5 --mix-base 0", "retrylab: --mix-base must be a finite number > 0 (got 0)\n"},
      {"--mix 0.5 --mix-cap 0", "retrylab: --mix-cap must be a number > 0 or \"none\" (got 0)\n"},
  };
  for (const auto& [flags, message] : cases) {
    const Output o = run_cli(std::string("--model free --strategy full --clients 5 --runs 1 --quiet ") + flags);
    EXPECT_EQ(o.status, 2) << flags;
    EXPECT_EQ(o.err, message) << flags;
  }
  const Output b = run_cli("--model brooker --strategy full --rows 2 --runs 1 --quiet");
  EXPECT_EQ(b.status, 2);
  EXPECT_EQ(b.err.rfind("retrylab: --rows does not apply to --model brooker", 0), 0u) << b.err;
}

}  // namespace

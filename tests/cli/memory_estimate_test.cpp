// The memory estimate holds (montecarlo/resources.hpp): for a spread of scenarios, each growing a
// different part of the memory (clients waiting at once, run results kept, the full tier's latency
// list, a time series' bins and its JSON document), the peak resident memory of `retrylab
// simulate` (ru_maxrss of the child, from wait4) stays within the estimate that --max-memory is
// checked against plus memory_margin_bytes. The estimate is read from the refusal line of the same
// command with a tiny --max-memory, so it is the number users see. Each scenario takes 100-400 MiB
// and a few seconds. Meaningless under ASan (its shadow memory and quarantine), so skipped there
// and labelled `memory` (left out of the sanitize test run).
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "montecarlo/resources.hpp"
#include "tests/support/cli.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define RETRYLAB_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RETRYLAB_UNDER_ASAN 1
#endif
#endif

extern char** environ;

namespace {

using Args = std::vector<std::string>;

// Bytes: the estimate the refusal line states ("below the estimated X GiB"), 3 significant digits.
double stated_estimate(Args args) {
  args.insert(args.end(), {"--max-memory", "1e-12"});
  const retrylab::test::Child c = retrylab::test::run_child(args, 60.0);
  std::smatch m;
  const std::regex re("below the estimated ([0-9.e+-]+) GiB");
  if (c.status != 2 || !std::regex_search(c.err, m, re)) {
    ADD_FAILURE() << "no estimate in: " << c.err;
    return 0.0;
  }
  return std::stod(m[1].str()) * 1.005 * (1ull << 30);  // 1.005: the 3 digits' rounding
}

// Peak resident bytes of `retrylab ARGS` (stdout and stderr to /dev/null), and its exit status.
std::pair<double, int> peak_rss(const Args& args) {
  std::vector<std::string> full{RETRYLAB_EXE};
  full.insert(full.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : full) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, full[0].c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return {0.0, -1};
  int status = 0;
  struct rusage ru {};
  if (::wait4(pid, &status, 0, &ru) != pid) return {0.0, -1};
  return {static_cast<double>(ru.ru_maxrss) * 1024.0, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

}  // namespace

TEST(MemoryEstimate, PeakResidentMemoryStaysWithinTheEstimatePlusItsMargin) {
#ifdef RETRYLAB_UNDER_ASAN
  GTEST_SKIP() << "ASan's shadow memory makes resident memory meaningless";
#endif
  const std::vector<Args> scenarios = {
      // 300,000 clients waiting at once in each of two runs in flight.
      {"simulate", "--model", "free", "--strategy", "full", "--clients", "300000", "--collapse", "1000000000",
       "--horizon", "50", "--runs", "2", "--threads", "2"},
      // 300,000 run results kept for the summary.
      {"simulate", "--model", "collision", "--strategy", "full", "--clients", "5", "--runs", "300000", "--threads",
       "1"},
      // The full tier keeps every success's latency: 4.5 million requests in one run.
      {"simulate", "--model", "none", "--strategy", "full", "--rate", "0.9", "--horizon", "5000000", "--runs", "1",
       "--threads", "1", "--server-engine"},
      // A time series of 100,000 bins, two runs in flight, as JSON (the largest document).
      {"simulate", "--model", "none", "--strategy", "full", "--rate", "0.5", "--horizon", "200000", "--runs", "2",
       "--threads", "2", "--series", "2", "--json"},
      // The same as a table, and a load profile's arrivals on the full tier.
      {"simulate", "--model", "shared", "--strategy", "full", "--load-profile", "0:0.1,1000000:0.3", "--horizon",
       "1000000", "--collapse", "100000000", "--runs", "2", "--threads", "2", "--series", "10"},
  };
  for (const Args& a : scenarios) {
    std::string shown;
    for (const auto& x : a) shown += " " + x;
    const double estimate = stated_estimate(a);
    Args quiet = a;
    quiet.push_back("--quiet");
    const auto [peak, status] = peak_rss(quiet);
    EXPECT_EQ(status, 0) << shown;
    EXPECT_LE(peak, estimate + retrylab::montecarlo::memory_margin_bytes)
        << shown << "\npeak " << peak / (1 << 20) << " MiB, estimate " << estimate / (1 << 20) << " MiB + margin "
        << retrylab::montecarlo::memory_margin_bytes / (1 << 20) << " MiB";
    RecordProperty(shown, std::to_string(peak / (1 << 20)) + " MiB of " + std::to_string(estimate / (1 << 20)));
  }
}

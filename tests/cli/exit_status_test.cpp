// Exit statuses of docs/cli.md that need a process set up by hand: standard output a pipe whose
// reader has gone (`retrylab ... | head`) is exit 1 with one line, never SIGPIPE (status 141); a
// folder given to `check` is exit 2; --attempt-ms that disagrees with --unit is exit 2; a flag
// given twice is exit 2 in retrylab's words; a certificate folder that cannot be written is found
// before the validation catalogue runs.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/cli.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"

namespace exit_status_test {

namespace fs = std::filesystem;
using retrylab::test::Child;
using retrylab::test::run_child;

namespace {

using Args = std::vector<std::string>;
Args with(Args a, const std::string& last) {
  a.push_back(last);
  return a;
}

// retrylab ARGS with stdout a pipe that no process reads (its read end closed before the child
// starts, so every write fails with EPIPE: deterministic, not a race with a reader that exits).
Child run_into_closed_pipe(const Args& args, const fs::path& err_path) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  ::close(fds[0]);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[1]);
    std::FILE* err = std::freopen(err_path.c_str(), "w", stderr);
    if (err == nullptr) ::_exit(126);
    std::vector<std::string> full{RETRYLAB_EXE};
    full.insert(full.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : full) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  Child c;
  if (WIFEXITED(raw)) c.status = WEXITSTATUS(raw);
  if (WIFSIGNALED(raw)) c.signal = WTERMSIG(raw);
  c.err = retrylab::test::slurp(err_path);
  return c;
}

void expect_one_line(const Child& c, int status, const std::string& needle, const std::string& shown) {
  EXPECT_EQ(c.signal, 0) << shown << ": killed by signal " << c.signal;
  EXPECT_EQ(c.status, status) << shown << "\n" << c.err;
  EXPECT_EQ(c.err.rfind("retrylab: ", 0), 0u) << shown << "\n" << c.err;
  EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << shown << "\n" << c.err;
  EXPECT_NE(c.err.find(needle), std::string::npos) << shown << "\nwanted: " << needle << "\ngot: " << c.err;
}

}  // namespace

TEST(ExitStatus, AClosedPipeIsExit1WithOneLine) {
  const fs::path d = retrylab::test::fresh_dir("exit-pipe");
  const std::vector<Args> commands = {
      {"--help"},
      {"--version"},
      {"simulate", "--list-fields"},
      {"simulate", "--model", "free", "--strategy", "full", "--clients", "20", "--runs", "3", "--quiet"},
      {"simulate", "--model", "free", "--strategy", "full", "--clients", "20", "--runs", "3", "--json", "--quiet"},
      {"analytic", "aloha", "--rate", "0.3"},
      {"analytic", "sleep", "--strategy", "full", "--retry", "3", "--format", "csv"},
      {"validate", "--cases", "aloha", "--quiet"},
  };
  for (const auto& args : commands) {
    std::string shown;
    for (const auto& a : args) shown += " " + a;
    expect_one_line(run_into_closed_pipe(args, d / "err"), 1, "cannot write to standard output", shown);
  }
  fs::remove_all(d);
}

TEST(ExitStatus, RefusalsNameWhatTheUserTyped) {
  const fs::path d = retrylab::test::fresh_dir("exit-refusals");
  expect_one_line(run_child({"check", d.string()}), 2, "TRACE must be a file, not a folder", "check FOLDER");
  const Args sim = {"simulate", "--model", "free", "--strategy", "full", "--clients", "3", "--quiet"};
  Args both = sim;
  both.insert(both.end(), {"--unit", "s", "--attempt-duration", "0.02", "--runs", "1", "--attempt-ms"});
  expect_one_line(run_child(with(both, "30")), 2, "--attempt-ms must agree with --unit s --attempt-duration 0.02",
                  "--attempt-ms against --unit");
  EXPECT_EQ(run_child(with(both, "20")).status, 0) << "--attempt-ms that agrees with --unit";
  Args twice = sim;
  twice.insert(twice.end(), {"--runs", "2", "--runs", "3"});
  expect_one_line(run_child(twice), 2, "--runs is given 2 times; give it once", "--runs twice");
  // --attempt-ms alone, without --unit, stays what it is for.
  Args alone = sim;
  alone.insert(alone.end(), {"--attempt-ms", "20", "--runs", "1"});
  EXPECT_EQ(run_child(alone).status, 0);
  fs::remove_all(d);
}

TEST(ExitStatus, AnUnwritableCertificateFolderIsFoundBeforeTheCatalogueRuns) {
  const fs::path d = retrylab::test::fresh_dir("exit-cert");
  std::ofstream(d / "file") << "x";
  const std::string bad = (d / "file" / "certs").string();  // below a regular file: never creatable
  ::setenv("RETRYLAB_CERTIFICATE_DIR", bad.c_str(), 1);
  // The quick catalogue takes up to a minute; refused up front, a fraction of a second.
  const Child c = run_child({"validate", "--quick", "--quiet"}, 20.0);
  ::unsetenv("RETRYLAB_CERTIFICATE_DIR");
  EXPECT_FALSE(c.timed_out) << "the catalogue ran before the certificate folder was checked";
  expect_one_line(c, 1, "cannot write the validation certificate in " + bad, "validate --quick");
  fs::remove_all(d);
}

}  // namespace exit_status_test

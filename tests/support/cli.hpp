#pragma once
// The one way tests run the retrylab executable (RETRYLAB_EXE, defined by tests/support): as a child
// process, stdout to a file (or a given path such as /dev/full), stderr captured, killed after a
// timeout. run_child takes an exact argument vector (no shell: hostile input, random arguments);
// run_cli a command line of fixed test strings, through /bin/sh (redirections allowed).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/golden.hpp"

namespace retrylab::test {

struct Child {
  int status = -1;  // exit status; -1 if killed by a signal or by the timeout
  int signal = 0;   // the signal that ended it (SIGKILL after a timeout), 0 if it exited
  bool timed_out = false;
  std::string out, err;  // stdout (unless redirected elsewhere) and stderr
};

// Runs full[0] (a path) with arguments full[1..]. stdout_path empty: captured into Child::out.
// cwd: the child's working folder ("" = ours).
inline Child spawn_child(std::vector<std::string> full, double timeout_s, const std::string& stdout_path,
                         const std::string& cwd) {
  static int serial = 0;
  const std::string base = "/tmp/retrylab_child_" + std::to_string(::getpid()) + "_" + std::to_string(serial++);
  const std::string out_path = stdout_path.empty() ? base + ".out" : stdout_path;
  const std::string err_path = base + ".err";
  std::vector<char*> argv;
  for (auto& a : full) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::string old_cwd;
  if (!cwd.empty()) {
    char buf[4096];
    old_cwd = ::getcwd(buf, sizeof buf) ? buf : ".";
    if (::chdir(cwd.c_str()) != 0) return {};
  }
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, full[0].c_str(), &fa, nullptr, argv.data(), environ);
  if (!old_cwd.empty() && ::chdir(old_cwd.c_str()) != 0) return {};
  posix_spawn_file_actions_destroy(&fa);
  Child c;
  if (rc != 0) return c;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int raw = 0;
  for (;;) {
    const pid_t w = ::waitpid(pid, &raw, WNOHANG);
    if (w == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &raw, 0);
      c.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (WIFEXITED(raw)) c.status = WEXITSTATUS(raw);
  if (WIFSIGNALED(raw)) c.signal = WTERMSIG(raw);
  if (stdout_path.empty()) {
    c.out = slurp(out_path);
    std::remove(out_path.c_str());
  }
  c.err = slurp(err_path);
  std::remove(err_path.c_str());
  return c;
}

// retrylab ARGS..., exactly these arguments.
inline Child run_child(const std::vector<std::string>& args, double timeout_s = 60.0,
                       const std::string& stdout_path = "", const std::string& cwd = "") {
  std::vector<std::string> full{RETRYLAB_EXE};
  full.insert(full.end(), args.begin(), args.end());
  return spawn_child(std::move(full), timeout_s, stdout_path, cwd);
}

// `retrylab COMMAND_LINE` through /bin/sh: COMMAND_LINE is fixed test text (no quoting is added).
inline Child run_cli(const std::string& command_line, double timeout_s = 600.0) {
  return spawn_child({"/bin/sh", "-c", std::string(RETRYLAB_EXE) + " " + command_line}, timeout_s, "", "");
}

}  // namespace retrylab::test

#pragma once
// Runs the retrylab executable as a child process with an exact argument vector (no shell), its
// stdout to a file (or a given path such as /dev/full), its stderr captured, killed after a timeout.
// For the hostile-input tests and the random-argument property.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace retrylab::test {

struct Child {
  int status = -1;       // exit status; -1 if killed by a signal or by the timeout
  int signal = 0;        // the signal that ended it (SIGKILL after a timeout), 0 if it exited
  bool timed_out = false;
  std::string out, err;  // stdout (unless redirected elsewhere) and stderr
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// stdout_path empty: captured into Child::out. cwd: the child's working folder ("" = ours).
inline Child run_child(const std::vector<std::string>& args, double timeout_s = 60.0, const std::string& stdout_path = "",
                       const std::string& cwd = "") {
  static int serial = 0;
  const std::string base = "/tmp/retrylab_child_" + std::to_string(::getpid()) + "_" + std::to_string(serial++);
  const std::string out_path = stdout_path.empty() ? base + ".out" : stdout_path;
  const std::string err_path = base + ".err";
  std::vector<std::string> full{RETRYLAB_EXE};
  full.insert(full.end(), args.begin(), args.end());
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

}  // namespace retrylab::test

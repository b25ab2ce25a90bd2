#pragma once
// Temporary folders for tests: one per name and test process (ctest runs test processes in
// parallel, so the process id is part of the name), emptied before use. Never removed afterwards,
// so a failing test leaves its files to look at.
#include <unistd.h>
#include <filesystem>
#include <string>

namespace retrylab::test {

// TMPDIR/retrylab-test-NAME-PID, absent (removed if a previous run left it).
inline std::filesystem::path fresh_path(const std::string& name) {
  const std::filesystem::path d =
      std::filesystem::temp_directory_path() / ("retrylab-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  return d;
}

// The same folder, created empty.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path d = fresh_path(name);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace retrylab::test

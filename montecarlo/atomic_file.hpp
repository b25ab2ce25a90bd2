#pragma once
// AtomicFile: an output file that appears whole or not at all. Bytes go to a temporary file in the
// target's own folder (".NAME.PID.tmp"); commit() fsyncs it, renames it over the target (atomic
// within one file system) and fsyncs the folder. Without commit() (an exception, a failed write)
// the temporary is removed and the target keeps its old bytes. Invariants: the target is absent or
// a regular file (a symlink, FIFO, device or folder is refused, never replaced); every write,
// fsync, close and rename is checked, and any failure throws OutputError naming the target.
// Every writer of the project (traces, certificates, reports, study outputs) goes through it.
#include <filesystem>
#include <string>
#include <string_view>

namespace retrylab {

class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);  // buffered; a full buffer is written at once
  void commit();                       // flush, fsync, rename, fsync the folder
  const std::filesystem::path& target() const noexcept { return target_; }

 private:
  void flush();
  std::filesystem::path target_, temporary_;
  std::string buffer_;
  int fd_ = -1;
};

// The whole of `bytes` through an AtomicFile.
void write_file_atomic(const std::filesystem::path& target, std::string_view bytes);

// Throws OutputError unless target is absent or a regular file (symlinks are not followed).
void require_replaceable(const std::filesystem::path& target);

// Creates dir (and its parents) and makes and removes a file in it: "" when both work, else why not
// (the system's message). For checks made before work starts, so a run cannot fail at its end.
std::string folder_write_problem(const std::filesystem::path& dir);

// For a file another program writes (gnuplot): the temporary name to give it, then commit_file(),
// which checks the target, fsyncs the temporary, renames it and fsyncs the folder (else removes it).
std::filesystem::path temporary_path_for(const std::filesystem::path& target);
void commit_file(const std::filesystem::path& temporary, const std::filesystem::path& target);

}  // namespace retrylab

#include "montecarlo/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

#include "analytic/error.hpp"

namespace retrylab {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t buffer_limit = 1u << 16;

[[noreturn]] void fail(const std::string& what, const fs::path& p, int err) {
  throw OutputError(fmt::format("cannot write {}: {} ({})", p.string(), what, std::strerror(err)));
}

void write_all(int fd, std::string_view bytes, const fs::path& target) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed", target, errno);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void fsync_folder(const fs::path& dir, const fs::path& target) {
  const int d = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (d < 0) fail("cannot open its folder", target, errno);
  const bool ok = ::fsync(d) == 0 || errno == EINVAL;  // some file systems cannot fsync a folder
  const int err = errno;
  ::close(d);
  if (!ok) fail("fsync of its folder failed", target, err);
}

void rename_over(const fs::path& temporary, const fs::path& target) {
  require_replaceable(target);
  if (std::rename(temporary.c_str(), target.c_str()) != 0) fail("rename failed", target, errno);
  fsync_folder(target.parent_path(), target);
}

}  // namespace

void require_replaceable(const fs::path& target) {
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    fail("cannot inspect it", target, errno);
  }
  if (!S_ISREG(st.st_mode))
    throw OutputError(
        fmt::format("cannot write {}: it exists and is not a regular file (a symlink, FIFO, device or "
                    "folder is never replaced); remove it or choose another name",
                    target.string()));
}

fs::path temporary_path_for(const fs::path& target) {
  return target.parent_path() / fmt::format(".{}.{}.tmp", target.filename().string(), ::getpid());
}

AtomicFile::AtomicFile(fs::path target) : target_(std::move(target)), temporary_(temporary_path_for(target_)) {
  if (target_.filename().empty())
    throw OutputError(fmt::format("cannot write \"{}\": not a file name", target_.string()));
  require_replaceable(target_);
  fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) fail("cannot create a file in its folder", target_, errno);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temporary_.c_str());
  }
}

void AtomicFile::write(std::string_view bytes) {
  buffer_.append(bytes);
  if (buffer_.size() >= buffer_limit) flush();
}

void AtomicFile::flush() {
  write_all(fd_, buffer_, target_);
  buffer_.clear();
}

void AtomicFile::commit() {
  flush();
  if (::fsync(fd_) != 0) fail("fsync failed", target_, errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(temporary_.c_str());
    fail("close failed", target_, err);
  }
  try {
    rename_over(temporary_, target_);
  } catch (...) {
    ::unlink(temporary_.c_str());
    throw;
  }
}

void write_file_atomic(const fs::path& target, std::string_view bytes) {
  AtomicFile f(target);
  f.write(bytes);
  f.commit();
}

void commit_file(const fs::path& temporary, const fs::path& target) {
  try {
    const int fd = ::open(temporary.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) fail("cannot reopen the finished file", target, errno);
    const bool ok = ::fsync(fd) == 0;
    const int err = errno;
    ::close(fd);
    if (!ok) fail("fsync failed", target, err);
    rename_over(temporary, target);
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
}

std::string folder_write_problem(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return ec.message();
  std::string probe = (dir / ".retrylab-probe.XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

}  // namespace retrylab

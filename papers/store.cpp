#include "papers/store.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

#include "analytic/error.hpp"

namespace retrylab::papers {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void sys_fail(const std::string& what, const fs::path& p) {
  throw std::runtime_error(fmt::format("{} {}: {}", what, p.string(), std::strerror(errno)));
}

void write_all(int fd, const std::string& bytes, const fs::path& p) {
  const char* data = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      sys_fail("cannot write", p);
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
}

void fsync_dir(const fs::path& dir) {
  const int d = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (d >= 0) {
    ::fsync(d);
    ::close(d);
  }
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// Splits into complete lines; returns the byte length of the prefix made of complete, parseable
// lines (a partial or unparseable last line is left out). A bad line in the middle is an error.
std::size_t complete_prefix(const std::string& text, std::vector<nlohmann::json>& lines, const fs::path& p) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;  // partial last line: cut off
    nlohmann::json j = nlohmann::json::parse(text.begin() + static_cast<std::ptrdiff_t>(pos),
                                             text.begin() + static_cast<std::ptrdiff_t>(nl), nullptr, false);
    if (j.is_discarded()) {
      if (nl + 1 == text.size()) break;  // a garbled last line is a partial one too
      throw std::runtime_error(fmt::format("{}: line {} is not JSON; the results file is damaged", p.string(),
                                           lines.size() + 1));
    }
    lines.push_back(std::move(j));
    pos = nl + 1;
  }
  return pos;
}

}  // namespace

ResultsStore::ResultsStore(const fs::path& dir, const nlohmann::json& header, bool resume)
    : path_(dir / "results.jsonl") {
  fs::create_directories(dir);
  bool fresh = true;
  if (resume && fs::exists(path_)) {
    const std::string text = read_all(path_);
    std::vector<nlohmann::json> lines;
    const std::size_t keep = complete_prefix(text, lines, path_);
    if (!lines.empty()) {
      if (lines.front() != header)
        throw InputError("--resume", fmt::format("needs the same spec, scale and seed as the recorded run ({} has {}, this run is {})",
                                                 path_.string(), lines.front().dump(), header.dump()));
      fresh = false;
      for (std::size_t i = 1; i < lines.size(); ++i) {
        auto key = std::make_pair(lines[i].at("sweep").get<std::string>(), lines[i].at("point").get<std::int64_t>());
        records_[key] = std::move(lines[i]);
      }
      if (keep < text.size()) fs::resize_file(path_, keep);
    }
  }
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | (fresh ? O_TRUNC : 0), 0644);
  if (fd_ < 0) sys_fail("cannot open", path_);
  if (fresh) {
    write_all(fd_, header.dump() + "\n", path_);
    if (::fsync(fd_) != 0) sys_fail("cannot fsync", path_);
    fsync_dir(dir);
  }
}

ResultsStore::~ResultsStore() {
  if (fd_ >= 0) ::close(fd_);
}

bool ResultsStore::has(const std::string& sweep, std::int64_t point) const {
  return records_.count({sweep, point}) > 0;
}

const nlohmann::json* ResultsStore::find(const std::string& sweep, std::int64_t point) const {
  auto it = records_.find({sweep, point});
  return it == records_.end() ? nullptr : &it->second;
}

void ResultsStore::append(const nlohmann::json& record) {
  auto key = std::make_pair(record.at("sweep").get<std::string>(), record.at("point").get<std::int64_t>());
  // One write() per line: a kill leaves either the whole line or a prefix of it.
  write_all(fd_, record.dump() + "\n", path_);
  if (::fsync(fd_) != 0) sys_fail("cannot fsync", path_);
  records_[key] = record;
}

std::map<std::pair<std::string, std::int64_t>, nlohmann::json> read_results(const fs::path& file) {
  std::vector<nlohmann::json> lines;
  complete_prefix(read_all(file), lines, file);
  std::map<std::pair<std::string, std::int64_t>, nlohmann::json> out;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto key = std::make_pair(lines[i].at("sweep").get<std::string>(), lines[i].at("point").get<std::int64_t>());
    out[key] = std::move(lines[i]);
  }
  return out;
}

void remove_stale_temporaries(const fs::path& dir) {
  if (!fs::exists(dir)) return;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.size() > 5 && n.front() == '.' && n.substr(n.size() - 4) == ".tmp") fs::remove(e.path());
  }
}

}  // namespace retrylab::papers

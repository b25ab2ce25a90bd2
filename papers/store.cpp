#include "papers/store.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "analytic/error.hpp"

namespace retrylab::papers {

namespace fs = std::filesystem;

namespace {

// A file the study writes cannot be written (a full disk, a folder made read-only): exit 1, naming it.
[[noreturn]] void sys_fail(const std::string& what, const fs::path& p) {
  throw OutputError(fmt::format("{} {}: {}", what, p.string(), std::strerror(errno)));
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

// One line of results.jsonl, with its line number (1 = the header).
struct Line {
  nlohmann::json value;
  std::int64_t number = 0;
};

// Splits into complete lines; returns the byte length of the prefix made of complete, parseable
// lines (a partial or unparseable last line, a torn write, is left out). A bad line before the last
// one is damage, reported with file and line (exit 2): resuming past it would lose what follows.
std::size_t complete_prefix(const std::string& text, std::vector<Line>& lines, const fs::path& p) {
  std::size_t pos = 0;
  std::int64_t number = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;  // partial last line: cut off
    ++number;
    nlohmann::json j = nlohmann::json::parse(text.begin() + static_cast<std::ptrdiff_t>(pos),
                                             text.begin() + static_cast<std::ptrdiff_t>(nl), nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      if (nl + 1 == text.size()) break;  // a garbled last line is a partial one too
      throw InputError("--resume", fmt::format("cannot use {}: line {} is not a JSON object (the file is damaged; "
                                               "remove it to start afresh)",
                                               p.string(), number));
    }
    lines.push_back({std::move(j), number});
    pos = nl + 1;
  }
  return pos;
}

// (sweep, point) of a record line, or InputError naming the file and line (a foreign record).
std::pair<std::string, std::int64_t> record_key(const Line& l, const fs::path& p) {
  const auto s = l.value.find("sweep"), i = l.value.find("point");
  if (s == l.value.end() || !s->is_string() || i == l.value.end() || !i->is_number_integer())
    throw InputError("--resume", fmt::format("cannot use {}: line {} is not a study record (it needs a string "
                                             "\"sweep\" and an integer \"point\")",
                                             p.string(), l.number));
  return {s->get<std::string>(), i->get<std::int64_t>()};
}

// The records of lines[1..], keyed by (sweep, point). An identical repeat is dropped (`dropped`
// counts it; `unique_text` is the file without repeats); two different records for one point are
// reported with both lines.
std::map<std::pair<std::string, std::int64_t>, nlohmann::json> unique_records(const std::vector<Line>& lines,
                                                                              const fs::path& p, std::size_t& dropped,
                                                                              std::string* unique_text = nullptr) {
  std::map<std::pair<std::string, std::int64_t>, nlohmann::json> out;
  std::map<std::pair<std::string, std::int64_t>, std::int64_t> where;
  dropped = 0;
  if (unique_text && !lines.empty()) *unique_text = lines.front().value.dump() + "\n";
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto key = record_key(lines[i], p);
    const auto it = out.find(key);
    if (it == out.end()) {
      where[key] = lines[i].number;
      if (unique_text) *unique_text += lines[i].value.dump() + "\n";
      out.emplace(std::move(key), lines[i].value);
    } else if (it->second == lines[i].value) {
      ++dropped;
    } else {
      throw InputError("--resume", fmt::format("cannot use {}: lines {} and {} record point {} of sweep {} "
                                               "differently",
                                               p.string(), where[key], lines[i].number, key.second, key.first));
    }
  }
  return out;
}

// The certificate id is "<build>-<scale>-<seed>" (validation/certificate.hpp): a new certificate of
// the same build does not change what the engine computes, so it does not block a resume.
std::string build_of(const nlohmann::json& header) {
  const auto c = header.find("certificate");
  if (c == header.end() || !c->is_string()) return {};
  const std::string id = c->get<std::string>();
  return id.substr(0, id.find('-'));
}

// Empty when `recorded` and `header` describe the same run, else the first key that differs.
std::string header_difference(const nlohmann::json& recorded, const nlohmann::json& header) {
  if (!recorded.is_object()) return "header";
  for (const auto& [key, value] : header.items()) {
    if (key == "certificate") {
      if (build_of(recorded) != build_of(header)) return "certificate (another build)";
    } else if (!recorded.contains(key) || recorded.at(key) != value) {
      return key;
    }
  }
  return recorded.size() == header.size() ? std::string() : std::string("header keys");
}

void require_regular(const fs::path& p) {
  std::error_code ec;
  const auto st = fs::symlink_status(p, ec);
  if (!ec && fs::exists(st) && !fs::is_regular_file(st))
    throw InputError("--out", fmt::format("holds {}, which is not a regular file (a folder, link or device); remove it",
                                          p.string()));
}

}  // namespace

ResultsStore::ResultsStore(const fs::path& dir, const nlohmann::json& header, bool resume)
    : path_(dir / "results.jsonl") {
  fs::create_directories(dir);
  require_regular(path_);
  bool fresh = true;
  if (resume && fs::exists(path_)) {
    const std::string text = read_all(path_);
    std::vector<Line> lines;
    const std::size_t keep = complete_prefix(text, lines, path_);
    if (!lines.empty()) {
      const std::string differs = header_difference(lines.front().value, header);
      if (!differs.empty())
        throw InputError("--resume", fmt::format("needs the run recorded in {} (same study, spec, scale, seeds and "
                                                 "build), but its {} differs (recorded {}, this run {})",
                                                 path_.string(), differs, lines.front().value.dump(), header.dump()));
      fresh = false;
      std::size_t dropped = 0;
      std::string compact;
      records_ = unique_records(lines, path_, dropped, &compact);
      // A torn last line is cut off; repeated records are dropped by rewriting the file whole.
      if (dropped > 0) {
        write_file_atomic(path_, compact);
      } else if (keep < text.size()) {
        fs::resize_file(path_, keep);
      }
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
  require_regular(file);
  std::vector<Line> lines;
  complete_prefix(read_all(file), lines, file);
  std::size_t dropped = 0;
  return unique_records(lines, file, dropped);
}

void remove_stale_temporaries(const fs::path& dir) {
  if (!fs::exists(dir)) return;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.size() > 5 && n.front() == '.' && n.substr(n.size() - 4) == ".tmp") fs::remove(e.path());
  }
}

}  // namespace retrylab::papers

#pragma once
// ResultsStore: the append-only record of a study run, DIR/results.jsonl. Line 1 is a header naming
// the study, scale, seed and spec hash; every further line is one finished sweep point
// {"sweep", "point", "scenario", ...}. Each line is written with one write() and fsync'd before
// append() returns, so after a kill at any moment the file holds whole lines plus at most one
// partial last line, which opening with resume detects and cuts off. Invariant: at most one record
// per (sweep, point).
// Final outputs are written with write_file_atomic (temporary name, fsync, rename), so a reader
// never sees half a table.
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "montecarlo/atomic_file.hpp"

namespace retrylab::papers {

class ResultsStore {
 public:
  // resume = false: starts a fresh file (any old one is replaced). resume = true: keeps the recorded
  // points if the file's header equals `header` (else InputError naming --resume), after cutting off
  // a partial last line; a missing file starts fresh.
  ResultsStore(const std::filesystem::path& dir, const nlohmann::json& header, bool resume);
  ~ResultsStore();
  ResultsStore(const ResultsStore&) = delete;
  ResultsStore& operator=(const ResultsStore&) = delete;

  bool has(const std::string& sweep, std::int64_t point) const;
  const nlohmann::json* find(const std::string& sweep, std::int64_t point) const;
  // Appends one record (must hold "sweep" and "point"), flushed and fsync'd.
  void append(const nlohmann::json& record);
  std::int64_t size() const noexcept { return static_cast<std::int64_t>(records_.size()); }
  // Every record kept, keyed by (sweep, point).
  const std::map<std::pair<std::string, std::int64_t>, nlohmann::json>& records() const noexcept { return records_; }
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::map<std::pair<std::string, std::int64_t>, nlohmann::json> records_;
};

// Reads every complete record of DIR/results.jsonl (the header excluded), keyed by (sweep, point).
std::map<std::pair<std::string, std::int64_t>, nlohmann::json> read_results(const std::filesystem::path& file);

// Final outputs: retrylab::write_file_atomic (montecarlo/atomic_file.hpp), named here for papers/.
using retrylab::write_file_atomic;

// Removes temporary files a killed run may have left (".*.tmp" in dir).
void remove_stale_temporaries(const std::filesystem::path& dir);

}  // namespace retrylab::papers

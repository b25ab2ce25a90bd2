#include "api/profile_csv.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "analytic/error.hpp"

namespace retrylab::api {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool read_number(std::string_view text, double& v) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

bool names_profile_file(std::string_view text) {
  return text.find(':') == std::string_view::npos || (text.size() >= 4 && text.substr(text.size() - 4) == ".csv");
}

montecarlo::LoadProfile read_profile_csv(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError("load_profile", fmt::format("must name a CSV file, not a folder (got {})", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("load_profile", fmt::format("cannot read the file {} ({})", path, std::strerror(errno)));
  // At most max_profile_bytes read, never the whole of an endless file (/dev/zero, a pipe): 10^6
  // rows of two numbers fit in it many times over.
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= max_profile_bytes && (in.read(chunk, sizeof chunk) || in.gcount() > 0))
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_profile_bytes)
    throw InputError("load_profile", fmt::format("file {} is over {} MiB: not a profile of at most {} rows", path,
                                                 max_profile_bytes >> 20, montecarlo::max_profile_points));
  std::istringstream rows(std::move(text));
  return read_profile_csv(rows, path);
}

montecarlo::LoadProfile read_profile_csv(std::istream& in, const std::string& path) {
  std::vector<montecarlo::ProfilePoint> points;
  std::string raw;
  bool first = true;
  for (long line = 1; std::getline(in, raw); ++line) {
    const auto bad = [&](const std::string& what) {
      throw InputError("load_profile", fmt::format("file {} line {}: {}", path, line, what));
    };
    const std::string_view row = trim(raw);
    if (row.empty() || row.front() == '#') continue;
    const std::size_t comma = row.find(',');
    if (comma == std::string_view::npos || row.find(',', comma + 1) != std::string_view::npos)
      bad("must be a row time,rate (two cells)");
    const std::string_view t_text = trim(row.substr(0, comma)), r_text = trim(row.substr(comma + 1));
    double t = 0.0, r = 0.0;
    if (!read_number(t_text, t)) {
      if (first) {  // a header
        first = false;
        continue;
      }
      bad(fmt::format("time must be a number (got {})", t_text));
    }
    first = false;
    if (!read_number(r_text, r)) bad(fmt::format("rate must be a number (got {})", r_text));
    if (!std::isfinite(t) || t < 0.0) bad(fmt::format("time must be finite and >= 0 (got {})", t_text));
    if (!std::isfinite(r) || r < 0.0) bad(fmt::format("rate must be finite and >= 0 (got {})", r_text));
    if (!points.empty() && !(t > points.back().t))
      bad(fmt::format("times must increase strictly (got {} after {})", t, points.back().t));
    if (points.size() == montecarlo::max_profile_points)
      bad(fmt::format("has more than {} rows", montecarlo::max_profile_points));
    points.push_back({t, r});
  }
  if (in.bad()) throw InputError("load_profile", fmt::format("cannot read the file {}", path));
  if (points.empty()) throw InputError("load_profile", fmt::format("file {} has no time,rate row", path));
  return montecarlo::LoadProfile::linear(std::move(points));
}

montecarlo::LoadProfile load_profile_of(const std::string& text) {
  return names_profile_file(text) ? read_profile_csv(text) : montecarlo::LoadProfile::parse(text);
}

}  // namespace retrylab::api

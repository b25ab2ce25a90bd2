#include "montecarlo/profile_csv.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

#include "analytic/error.hpp"

namespace retrylab::montecarlo {

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

LoadProfile parse_profile_csv(std::string_view text, const std::string& source) {
  std::vector<ProfilePoint> points;
  bool first = true;
  long line = 0;
  while (!text.empty()) {
    ++line;
    const std::size_t nl = text.find('\n');
    const std::string_view raw = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    const auto bad = [&](const std::string& what) {
      throw InputError("load_profile", fmt::format("file {} line {}: {}", source, line, what));
    };
    const std::string_view row = trim(raw);
    if (row.empty() || row.front() == '#') continue;
    const std::size_t comma = row.find(',');
    if (comma == std::string_view::npos || row.find(',', comma + 1) != std::string_view::npos)
      bad("must be a row time,rate (two cells)");
    const std::string_view t_text = trim(row.substr(0, comma)), r_text = trim(row.substr(comma + 1));
    double t = 0.0, r = 0.0;
    if (!read_number(t_text, t)) {
      // A header: the first row, whose cells are names (the first starts with a letter, a quote or
      // '_', and neither is a number). A mistyped number ("1O", "-", ".5s") is an error, not a header.
      const auto name_like = [](std::string_view c) {
        return !c.empty() && (std::isalpha(static_cast<unsigned char>(c.front())) || c.front() == '"' ||
                              c.front() == '\'' || c.front() == '_');
      };
      if (first && name_like(t_text) && !read_number(r_text, r)) {
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
    if (points.size() == max_profile_points) bad(fmt::format("has more than {} rows", max_profile_points));
    points.push_back({t, r});
  }
  if (points.empty()) throw InputError("load_profile", fmt::format("file {} has no time,rate row", source));
  return LoadProfile::linear(std::move(points));
}

}  // namespace retrylab::montecarlo

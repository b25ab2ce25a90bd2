#include "policy/policy.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

#include "analytic/error.hpp"
#include "analytic/input_file.hpp"
#include "policy/detail.hpp"

namespace retrylab::policy {

std::string_view to_string(Format f) noexcept {
  switch (f) {
    case Format::toml: return "retrylab TOML";
    case Format::grpc: return "gRPC service config";
    case Format::envoy: return "Envoy route/cluster";
    case Format::aws: return "AWS SDK settings";
    case Format::resilience4j: return "resilience4j";
  }
  return "?";
}

const Entry* Policy::find(std::string_view field) const noexcept {
  for (const Entry& e : entries)
    if (e.field == field) return &e;
  return nullptr;
}

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  return std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(),
                    [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
}

// A YAML file whose top level names resilience4j ("resilience4j.retry:", "resilience4j:").
bool names_resilience4j(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("resilience4j", 0) == 0) return true;
  return false;
}

}  // namespace

Format detect(const std::string& path, const std::string& text) {
  if (ends_with(path, ".toml")) return Format::toml;
  if (ends_with(path, ".json")) return Format::grpc;
  if (ends_with(path, ".yaml") || ends_with(path, ".yml"))
    return names_resilience4j(text) ? Format::resilience4j : Format::envoy;
  return Format::aws;
}

Policy parse(Format format, const std::string& text, const std::string& path, std::string_view select) {
  if (format != Format::grpc && format != Format::resilience4j && format != Format::aws && !select.empty())
    detail::fail(path, 0, "select",
                 fmt::format("applies to gRPC service configs, resilience4j and AWS profiles only (got \"{}\" for a "
                             "{} file)",
                             select, to_string(format)));
  if (const std::size_t bad = first_non_utf8(text); bad != std::string_view::npos)
    detail::fail(path, detail::line_of_offset(text, bad), "(encoding)",
                 fmt::format("is not UTF-8 (byte 0x{:02X} at offset {}; a policy file is UTF-8 text)",
                             static_cast<unsigned char>(text[bad]), bad));
  if (text.size() > max_policy_bytes)
    detail::fail(path, 0, "file", fmt::format("is over {} MiB: not a policy file", max_policy_bytes >> 20));
  switch (format) {
    case Format::toml: return detail::parse_toml(text, path);
    case Format::grpc: return detail::parse_grpc(text, path, select);
    case Format::envoy: return detail::parse_envoy(text, path);
    case Format::aws: return detail::parse_aws(text, path, select);
    case Format::resilience4j: return detail::parse_resilience4j(text, path, select);
  }
  return {};
}

Policy load(const std::string& path, std::string_view select) {
  // A regular file of at most max_policy_bytes: never a FIFO, device or an endless file.
  InputFile f = read_input_file(path, max_policy_bytes);
  if (!f.refusal.empty())
    detail::fail(path, 0, "file",
                 fmt::format("{} (a policy file of at most {} MiB: .toml, .json, .yaml/.yml or an AWS config)",
                             f.refusal, max_policy_bytes >> 20));
  return parse(detect(path, f.text), f.text, path, select);
}

std::string note_line(const Policy& p, const Note& n) {
  return fmt::format("{}{}: {} {}: {}", p.path, n.line > 0 ? fmt::format(":{}", n.line) : std::string(), n.key,
                     n.effect ? "not modelled" : "has no effect here", n.text);
}

namespace detail {

void fail(const std::string& path, int line, std::string_view key, const std::string& message) {
  throw InputError("policy",
                   fmt::format("{}{}: {} {}", path, line > 0 ? fmt::format(":{}", line) : std::string(), key, message));
}

std::string num(double v) { return fmt::format("{}", v); }

namespace {

std::optional<double> number_prefix(std::string_view& t) {
  std::size_t n = 0;
  while (n < t.size() && (std::isdigit(static_cast<unsigned char>(t[n])) || t[n] == '.')) ++n;
  if (n == 0) return std::nullopt;
  std::string digits(t.substr(0, n));
  if (digits.front() == '.') digits.insert(digits.begin(), '0');
  double v = 0.0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || !std::isfinite(v)) return std::nullopt;
  t.remove_prefix(n);
  return v;
}

}  // namespace

std::optional<double> proto_duration(std::string_view t) {
  auto v = number_prefix(t);
  if (!v || t != "s") return std::nullopt;
  return v;
}

std::optional<double> spring_duration(std::string_view t) {
  if (t.size() > 2 && (t.substr(0, 2) == "PT" || t.substr(0, 2) == "pt")) {
    t.remove_prefix(2);
    double ms = 0.0;
    while (!t.empty()) {
      auto v = number_prefix(t);
      if (!v || t.empty()) return std::nullopt;
      const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(t.front())));
      t.remove_prefix(1);
      if (u == 'H')
        ms += *v * 3.6e6;
      else if (u == 'M')
        ms += *v * 6e4;
      else if (u == 'S')
        ms += *v * 1e3;
      else
        return std::nullopt;
    }
    return ms;
  }
  auto v = number_prefix(t);
  if (!v) return std::nullopt;
  static constexpr std::pair<std::string_view, double> units[] = {
      {"", 1.0}, {"ns", 1e-6}, {"us", 1e-3}, {"ms", 1.0}, {"s", 1e3}, {"m", 6e4}, {"h", 3.6e6}, {"d", 8.64e7}};
  for (const auto& [name, scale] : units)
    if (t == name) return *v * scale;
  return std::nullopt;
}

int line_of_offset(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

}  // namespace detail

}  // namespace retrylab::policy

// The AWS SDK settings importer: retry_mode (legacy, standard, adaptive) and max_attempts, from a
// shared config file's profile ([default], [profile NAME]) or from environment lines
// (AWS_RETRY_MODE=..., AWS_MAX_ATTEMPTS=...). The numbers follow botocore (the AWS SDK for Python),
// whose standard mode is the one the AWS SDKs and Tools Reference Guide ("Retry behavior")
// documents for every SDK; docs/policies.md states the versions.
#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <sstream>
#include <vector>

#include "policy/detail.hpp"

namespace retrylab::policy::detail {

namespace {

constexpr std::string_view standard_py = "botocore/retries/standard.py (the retry modes of boto/botocore#1972, 2020)";
constexpr std::string_view guide = "AWS SDKs and Tools Reference Guide, \"Retry behavior\"";

struct Setting {
  std::string key;  // lower case, without an AWS_ prefix
  std::string value;
  int line;
};

struct Section {
  std::string name;  // "default", the profile's name, or "environment"
  int line;
  std::vector<Setting> settings;
};

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::vector<Section> ini_sections(const std::string& text, const std::string& path) {
  std::vector<Section> out;
  std::istringstream in(text);
  int n = 0;
  std::string parent;                                       // the last unindented setting's key
  std::map<std::string, int> section_lines, setting_lines;  // first line of each name (in this section)
  for (std::string raw; std::getline(in, raw);) {
    ++n;
    const bool indented = !raw.empty() && std::isspace(static_cast<unsigned char>(raw.front()));
    std::string line = trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']') fail(path, n, line, "is not a section header such as [default] or [profile NAME]");
      std::string name = trim(line.substr(1, line.size() - 2));
      if (name.rfind("profile ", 0) == 0) name = trim(name.substr(8));
      if (const auto [it, fresh] = section_lines.emplace(name, n); !fresh)
        fail(path, n, line,
             fmt::format("names profile \"{}\" again (first on line {}): botocore refuses a profile given twice", name,
                         it->second));
      out.push_back({name, n, {}});
      setting_lines.clear();
      parent.clear();
      continue;
    }
    if (line.rfind("export ", 0) == 0) line = trim(line.substr(7));
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0) fail(path, n, line, "is not a setting KEY = VALUE");
    if (out.empty()) out.push_back({"environment", n, {}});
    std::string key = lower(trim(line.substr(0, eq)));
    if (key.rfind("aws_", 0) == 0) key = key.substr(4);
    // An indented line is a sub-setting of the last unindented one (one level, as in "s3 =\n  max_...").
    if (indented && !out.back().settings.empty())
      key = fmt::format("{}.{}", parent, key);
    else
      parent = key;
    std::string value = trim(line.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    if (const auto [it, fresh] = setting_lines.emplace(key, n); !fresh)
      fail(path, n, key,
           fmt::format("is given twice in [{}] (first on line {}): botocore refuses a setting given twice",
                       out.back().name, it->second));
    out.back().settings.push_back({key, value, n});
  }
  return out;
}

const Section& pick_section(Policy& p, const std::vector<Section>& all, std::string_view select,
                            const std::string& path) {
  const Section* chosen = nullptr;
  for (const Section& s : all)
    if (!chosen && (select.empty() ? s.name == "default" : s.name == select)) chosen = &s;
  if (!chosen && !select.empty()) fail(path, 0, "profile", fmt::format("\"{}\" is not in the file", select));
  if (!chosen) chosen = &all.front();
  for (const Section& s : all)
    if (&s != chosen && s.name != "sso-session" && s.name.rfind("sso-session", 0) != 0)
      p.notes.push_back({fmt::format("[{}]", s.name), s.line,
                         "another profile, not simulated: one runs at a time (select it by name)", false});
  p.selected = chosen->name;
  return *chosen;
}

void mode_entries(Policy& p, const std::string& mode, const Setting* m, const Setting* attempts) {
  const int at = m ? m->line : 0;
  const bool legacy = mode == "legacy";
  if (attempts) {
    p.entries.push_back(
        {"max_attempts", attempts->value, "", "max_attempts (the first attempt included)", attempts->line});
  } else {
    p.entries.push_back({"max_attempts", legacy ? "5" : "3", "",
                         legacy ? "legacy mode's default in botocore: 5 attempts (botocore/data/_retry.json, "
                                  "__default__ max_attempts)"
                                : fmt::format("{}: standard mode's default of 3 attempts ({})", guide, standard_py),
                         0});
  }
  p.entries.push_back(
      {"strategy", "full", "",
       legacy ? "botocore legacy: rand() * 2^(attempts - 1) s (botocore/retryhandler.py, "
                "delay_exponential with base \"rand\", growth_factor 2)"
              : fmt::format("{}: ExponentialBackoff, min(rand() * 2^(attempt - 1), 20) s, as full jitter on "
                            "min(2^(attempt - 1), 20) s up to retry 5 (from retry 6 an atom at 20 s)",
                            standard_py),
       at});
  p.entries.push_back({"base", "1", "s",
                       legacy ? "botocore legacy: base \"rand\" times 2^0" : std::string(standard_py) + ": 2^0 s", at});
  p.entries.push_back(
      {"cap", legacy ? "none" : "20", legacy ? "" : "s",
       legacy ? "botocore legacy: no cap on the delay" : std::string(standard_py) + ": _MAX_BACKOFF = 20 s", at});
  p.entries.push_back({"multiplier", "2", "",
                       legacy ? "botocore legacy: growth_factor 2" : std::string(standard_py) + ": _BASE = 2", at});
  if (legacy) {
    p.entries.push_back({"budget", "none", "", "botocore legacy mode keeps no retry quota", at});
    return;
  }
  p.entries.push_back({"budget", "aws-standard", "",
                       fmt::format("{}: RetryQuotaChecker, 500 tokens, a retry 5 (10 after a timeout), a success "
                                   "gives back what its retry took, or 1 ({}, retry quota)",
                                   standard_py, guide),
                       at});
  p.entries.push_back({"budget_scope", "shared", "",
                       "botocore: one retry quota per client object, shared by every call made with it", 0});
}

}  // namespace

Policy parse_aws(const std::string& text, const std::string& path, std::string_view select) {
  Policy p;
  p.path = path;
  p.format = Format::aws;
  const std::vector<Section> all = ini_sections(text, path);
  if (all.empty()) fail(path, 0, "retry_mode", "is not in the file (AWS settings: retry_mode, max_attempts)");
  const Section& s = pick_section(p, all, select, path);
  const Setting *mode = nullptr, *attempts = nullptr;
  for (const Setting& x : s.settings) {
    if (x.key == "retry_mode") {
      mode = &x;
      if (x.value != "legacy" && x.value != "standard" && x.value != "adaptive")
        fail(path, x.line, "retry_mode", fmt::format("must be legacy, standard or adaptive (got \"{}\")", x.value));
    } else if (x.key == "max_attempts") {
      attempts = &x;
      long long v = 0;
      const auto [ptr, ec] = std::from_chars(x.value.data(), x.value.data() + x.value.size(), v);
      if (ec != std::errc() || ptr != x.value.data() + x.value.size() || v < 1 || v > 1'000'000'000)
        fail(path, x.line, "max_attempts", fmt::format("must be an integer >= 1 (got \"{}\")", x.value));
    } else {
      p.notes.push_back({x.key, x.line, "not a retry setting", false});
    }
  }
  const std::string m = mode ? mode->value : "legacy";
  if (m == "legacy")
    p.notes.push_back({"retry_mode", mode ? mode->line : 0,
                       fmt::format("{}legacy mode is specific to each SDK ({}): botocore's legacy mode is simulated",
                                   mode ? "" : "is not set, so legacy, the default: ", guide),
                       true});
  mode_entries(p, m, mode, attempts);
  p.entries.push_back(
      {"retry_on", "retryable+throttled", "",
       fmt::format("{}: the SDKs retry transient errors (connection errors, HTTP 500/502/503/504: "
                   "retrylab's retryable) and throttling errors (Throttling, ThrottlingException, "
                   "TooManyRequestsException, HTTP 429: retrylab's throttled), no other error "
                   "(retrylab's fatal) ({}, \"Retry behavior\")",
                   m == "legacy" ? std::string_view("botocore/data/_retry.json (legacy mode)") : standard_py, guide),
       mode ? mode->line : 0});
  if (m == "adaptive")
    p.entries.push_back({"adaptive_rate", "on", "",
                         "botocore/retries/adaptive.py (ClientRateLimiter, RateClocker), bucket.py (TokenBucket), "
                         "throttling.py (CubicCalculator): adaptive mode's client-side rate limiter, on every "
                         "attempt; the rest is standard mode",
                         mode->line});
  return p;
}

}  // namespace retrylab::policy::detail

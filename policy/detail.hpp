#pragma once
// What the importers share (policy/*.cpp only): the error every malformed file throws, number and
// duration texts, and the line of a key in a JSON text.
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "policy/policy.hpp"

namespace retrylab::policy::detail {

// Throws InputError("policy", "PATH:LINE: KEY MESSAGE") (no line part when line is 0).
[[noreturn]] void fail(const std::string& path, int line, std::string_view key, const std::string& message);

// Shortest decimal that reads back as v ("0.5", "20", "1e-05").
std::string num(double v);

// A protobuf JSON duration ("0.5s", "30s", ".01s", "1.5s"): seconds, or nullopt if malformed.
std::optional<double> proto_duration(std::string_view text);
// A Spring Boot duration as resilience4j reads it: a bare number is milliseconds; "100ms", "10s",
// "2m", "1h", "1d", "500us", "10ns"; ISO-8601 "PT10S", "PT0.5S", "PT1M30S". Milliseconds, or nullopt.
std::optional<double> spring_duration(std::string_view text);

// For a JSON text: the line (1-based) of every key, by its path ("methodConfig[0].retryPolicy.maxAttempts").
// Refuses (fail, naming `file` and the line) a key given twice in one object, nesting deeper than
// max_json_depth and key paths totalling over max_json_path_bytes, so a parse is bounded.
inline constexpr std::size_t max_json_depth = 64;
inline constexpr std::size_t max_json_path_bytes = std::size_t{64} << 20;
std::map<std::string, int> json_key_lines(const std::string& text, const std::string& file);
// The line of byte `offset` in text (1-based).
int line_of_offset(const std::string& text, std::size_t offset);

// The importers, each for text already read.
Policy parse_toml(const std::string& text, const std::string& path);
Policy parse_grpc(const std::string& text, const std::string& path, std::string_view select);
Policy parse_envoy(const std::string& text, const std::string& path);
Policy parse_aws(const std::string& text, const std::string& path, std::string_view select);
Policy parse_resilience4j(const std::string& text, const std::string& path, std::string_view select);

// The failure kinds a client retries, as the scenario field retry_on spells them: bit 0 retryable,
// bit 1 throttled (montecarlo/scenario.hpp: retry_on_names; a policy never retries fatal failures).
inline constexpr unsigned kind_retryable = 1U, kind_throttled = 2U;
inline std::string_view retry_on_name(unsigned kinds) {
  constexpr std::string_view names[] = {"none", "retryable", "throttled", "retryable+throttled"};
  return names[kinds & 3U];
}

}  // namespace retrylab::policy::detail

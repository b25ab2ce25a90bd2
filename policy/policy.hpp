#pragma once
// A client policy read from a file: retrylab's own TOML, a gRPC service config (JSON), an Envoy route
// or cluster (YAML), AWS SDK settings (the shared config file's INI) or resilience4j (YAML), turned
// into retrylab's terms: a list of scenario field settings, each with its value as text, the unit
// of a time, and where it came from; and a list of what the file says that retrylab does not model.
// docs/policies.md states every mapping, its numbers and their sources.
// Invariants: the library only reads and translates; it never checks a value against the field
// table (api/policy.cpp merges the entries into a scenario request, whose checks then apply, and
// refuses a field outside the client policy). Every key of the file is either mapped, named in a
// note, or refused: nothing is ignored silently. A malformed file (bad syntax, a wrong type, a value
// outside the format's own range) throws InputError("policy", "FILE:LINE: KEY ...").
// Layer: policy -> (nothing of retrylab's but analytic/error.hpp); used by api/ and papers/.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace retrylab::policy {

// The largest policy file read (the published examples are a few KiB); with the nesting and alias
// bounds of each reader it bounds the memory and time of a parse.
inline constexpr std::size_t max_policy_bytes = std::size_t{1} << 20;

enum class Format { toml, grpc, envoy, aws, resilience4j };
std::string_view to_string(Format f) noexcept;  // "retrylab TOML", "gRPC service config", ...

// One field setting: `field` is a scenario field's name (montecarlo/fields.hpp), `value` its text
// as the CLI takes it ("full", "0.5", "none"), `unit` the unit of a time ("s", "ms", "attempt") or
// empty for a unitless value, `source` the key path and line it came from, or the rule it follows
// (a default of the format, with the page or source file that states it).
struct Entry {
  std::string field;
  std::string value;
  std::string unit;
  std::string source;
  int line = 0;  // 0: a default or a rule, not a line of the file
};

// What the file says that retrylab does not model. `effect`: true when it changes what a real
// client does (an error under --strict), false when it has no effect on retries (a metric, a
// health indicator, a name).
struct Note {
  std::string key;
  int line = 0;
  std::string text;
  bool effect = true;
};

struct Policy {
  std::string path;
  Format format = Format::toml;
  std::string selected;  // the method, instance or profile the entries come from ("" if one only)
  std::vector<Entry> entries;
  std::vector<Note> notes;
  const Entry* find(std::string_view field) const noexcept;
};

// Reads and translates `path`. The format comes from the name and the content: .toml is retrylab's
// TOML; .json a gRPC service config; .yaml/.yml resilience4j when a resilience4j key is at its
// top level, else Envoy; anything else (an AWS config file, .ini, .cfg, no suffix) AWS settings.
// `select` picks one of several: a gRPC method ("service" or "service/method"), a resilience4j
// instance, an AWS profile; empty: the first (or the AWS "default"), the others named in a note.
// The file must be a regular file (a FIFO, device or folder is refused unread) of at most
// max_policy_bytes of UTF-8 text.
Policy load(const std::string& path, std::string_view select = {});
// The same from text already read (tests, fuzzing); `path` names it in errors.
Policy parse(Format format, const std::string& text, const std::string& path, std::string_view select = {});
Format detect(const std::string& path, const std::string& text);

// One line per note, as --policy prints them: "FILE:LINE: KEY not modelled: TEXT".
std::string note_line(const Policy& p, const Note& n);

}  // namespace retrylab::policy

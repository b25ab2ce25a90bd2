#pragma once
// A structure-aware reading of a fuzzer's bytes: each byte an operation on a document (open a list
// or a map, close one, a key, a scalar, an anchor, an alias of an earlier anchor, a key repeated,
// a raw byte), written out as YAML (flow style), JSON, TOML or an INI file. Small inputs then reach
// deep nesting, alias expansion, duplicate keys and stray encodings, which byte mutations of the
// example files seldom do. Deterministic: the same bytes, the same text. Used by fuzz_policy.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace retrylab::fuzz {

enum class Syntax { yaml, json, toml, ini };

// An INI file (AWS settings): sections, settings, indented sub-settings, repeats, raw bytes.
inline std::string structured_ini(std::string_view ops) {
  std::string out;
  for (const char c : ops) {
    const auto b = static_cast<std::uint8_t>(c);
    switch (b % 6) {
      case 0: out += "[profile p" + std::to_string(b / 6 % 4) + "]\n"; break;
      case 1: out += "retry_mode = standard\n"; break;
      case 2: out += "max_attempts = " + std::to_string(b) + "\n"; break;
      case 3: out += "  k" + std::to_string(b / 6) + " = 1\n"; break;
      case 4: out += "s" + std::to_string(b / 6 % 3) + " =\n"; break;
      default: out += static_cast<char>(b ^ 0x80); break;
    }
  }
  return out + "\n";
}

inline std::string structured_text(std::string_view ops, Syntax syntax) {
  if (syntax == Syntax::ini) return structured_ini(ops);
  std::string out = syntax == Syntax::toml ? "a = " : syntax == Syntax::yaml ? "a: " : "";
  std::vector<bool> open;  // true: a map
  std::vector<bool> needs_comma;
  int anchors = 0;
  std::string last_key = "k";
  const auto sep = [&]() {
    if (!needs_comma.empty() && needs_comma.back()) out += ", ";
    if (!needs_comma.empty()) needs_comma.back() = true;
  };
  const auto key = [&](const std::string& k) {
    if (syntax == Syntax::json)
      out += "\"" + k + "\": ";
    else if (syntax == Syntax::toml)
      out += k + " = ";
    else
      out += k + ": ";
    last_key = k;
  };
  const auto start_value = [&]() {
    sep();
    if (!open.empty() && open.back()) key("k" + std::to_string(out.size() % 7));
  };
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto b = static_cast<std::uint8_t>(ops[i]);
    switch (b % 8) {
      case 0:
      case 1:
        start_value();
        if (syntax == Syntax::yaml && b & 0x40) out += "&a" + std::to_string(anchors++) + " ";
        out += b % 8 == 0 ? "[" : "{";
        open.push_back(b % 8 == 1);
        needs_comma.push_back(false);
        break;
      case 2:
        if (open.empty()) break;
        out += open.back() ? "}" : "]";
        open.pop_back();
        needs_comma.pop_back();
        break;
      case 3:
      case 4:
        start_value();
        if (syntax == Syntax::json || syntax == Syntax::toml)
          out += b % 8 == 3 ? "\"s\"" : std::to_string(b);
        else
          out += b % 8 == 3 ? "s" : std::to_string(b);
        break;
      case 5:  // an alias (YAML), else a scalar
        start_value();
        if (syntax == Syntax::yaml && anchors > 0)
          out += "*a" + std::to_string(b / 8 % anchors);
        else
          out += "1";
        break;
      case 6:  // the last key again
        if (open.empty() || !open.back()) break;
        sep();
        key(last_key);
        out += "2";
        break;
      default:  // a raw byte (an encoding error, a quote, a newline)
        if (i + 1 < ops.size()) out += ops[++i];
        break;
    }
  }
  while (!open.empty()) {
    out += open.back() ? "}" : "]";
    open.pop_back();
  }
  out += "\n";
  return out;
}

}  // namespace retrylab::fuzz

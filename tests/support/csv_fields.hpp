// One line of a CSV file split into its fields, with RFC 4180 quoting ("" inside quotes is one ").
// For tests that read committed or written CSV files; a quoted field does not span lines here.
#pragma once

#include <string>
#include <vector>

namespace retrylab::test {

inline std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"')
      out.back() += line[++i];
    else if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

}  // namespace retrylab::test

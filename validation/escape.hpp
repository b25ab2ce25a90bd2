#pragma once
// Escaping of table text for the formats the tables are written in: LaTeX and CSV. The one copy
// of each, for the validation tables (validation/report.hpp) and the study tables (papers/render.hpp).
// latex_escape: the Unicode symbols the tables use (λ ρ τ α Δ σ Φ − – — ± ≤ ≥ √ · × ∞ ≫) become
// LaTeX, < and > go into math, and every character LaTeX treats specially in text (& % _ # $ { } ~ ^
// \) is escaped, so any cell compiles as text (the study tables' "10^9" included).
// csv_field: RFC 4180 quoting, only when the field holds a comma, a quote or a newline.
// And the rows both families of tables are made of (cells already escaped): markdown_row,
// markdown_rule (the alignment row), latex_row, csv_row.
#include <string>
#include <string_view>
#include <vector>

namespace retrylab::validation {

std::string latex_escape(std::string_view text);

std::string csv_field(std::string_view text);

// "| a | b |\n".
std::string markdown_row(const std::vector<std::string>& cells);
// "|---|--:|\n": one marker a column ("---" left, "--:" or "---:" right).
std::string markdown_rule(const std::vector<std::string_view>& markers);
// "a & b \\" and a newline: a tabular row.
std::string latex_row(const std::vector<std::string>& cells);
// "a,b\n".
std::string csv_row(const std::vector<std::string>& fields);

}  // namespace retrylab::validation

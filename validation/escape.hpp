#pragma once
// Escaping of table text for the formats the tables are written in: LaTeX, CSV and Markdown. The
// one copy of each, for the validation tables (validation/report.hpp) and the study tables
// (papers/render.hpp), whose text may come from a study spec and so may be anything
// (docs/study-spec.md, "Names and text").
// latex_escape: the Unicode symbols the tables use (λ ρ τ α Δ σ Φ − – — ± ≤ ≥ √ · × ∞ ≫) become
// LaTeX, < and > go into math, every character LaTeX treats specially in text (& % _ # $ { } ~ ^
// \) is escaped and every control character (bytes below 0x20, 0x7f) becomes a space, so any cell
// compiles as text (the study tables' "10^9" included) and no newline makes a blank line.
// csv_field: RFC 4180 quoting, when the field holds a comma, a quote, a CR or a newline; a text
// that a spreadsheet would take for a formula (it starts with = + - @, a tab or a CR, and is not a
// number as a whole) gets a leading ' first. "-0.5" stays a number; "-1+2" becomes "'-1+2". Every
// other control character (ESC, BEL, ...) but a tab, CR or newline becomes a space.
// markdown_text: text for a Markdown table cell or a line of its own: \ | ` and the < that would
// open an HTML tag are backslash-escaped, every control character becomes a space (so no text
// starts a new row, heading or paragraph).
// one_line: every control character a space (for a comment line of a script, say).
// And the rows both families of tables are made of (cells already escaped): markdown_row,
// markdown_rule (the alignment row), latex_row, csv_row.
#include <string>
#include <string_view>
#include <vector>

namespace retrylab::validation {

std::string latex_escape(std::string_view text);

std::string csv_field(std::string_view text);

std::string markdown_text(std::string_view text);

std::string one_line(std::string_view text);

// "| a | b |\n".
std::string markdown_row(const std::vector<std::string>& cells);
// "|---|--:|\n": one marker a column ("---" left, "--:" or "---:" right).
std::string markdown_rule(const std::vector<std::string_view>& markers);
// "a & b \\" and a newline: a tabular row.
std::string latex_row(const std::vector<std::string>& cells);
// "a,b\n".
std::string csv_row(const std::vector<std::string>& fields);

}  // namespace retrylab::validation

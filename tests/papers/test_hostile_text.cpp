// Hostile text in a study's tables: a | or a newline in a Markdown title or cell, a spreadsheet
// formula or a CR in a CSV cell, a blank line in a LaTeX caption. Each table keeps its shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "papers/render.hpp"
#include "validation/escape.hpp"

#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"

namespace retrylab::papers {
namespace {

namespace fs = std::filesystem;
using retrylab::test::slurp;

// Markdown cells of a table row: split at every | not escaped by a backslash.
std::vector<std::string> md_cells(const std::string& row) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size()) {
      cell += row.substr(i, 2);
      ++i;
    } else if (row[i] == '|') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  return cells;
}

// RFC 4180 records of a CSV text.
std::vector<std::vector<std::string>> csv_records(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (c == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
    } else {
      field += c;
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

// Markdown: a | or a newline in a title, a column or a cell neither splits a cell nor starts a row
// or heading; a backslash or a backtick is shown as written.
TEST(HostileText, MarkdownTablesKeepTheirShape) {
  const fs::path dir = retrylab::test::fresh_dir("hostile-md");
  Table t{"t", "a | b\n# heading\n| x | y |", {"col|1", "col\n2"}, {}, {}};
  t.rows.push_back({std::string("x|y"), 1.5});
  t.rows.push_back({std::string("\n| injected | row |\r\n## h"), Estimate{1, 0.5, 2}});
  t.rows.push_back({std::string("back\\|slash `code` <script>"), -0.25});
  write_table(t, dir, {"cert|1"});
  const std::string md = slurp(dir / "t.md");
  std::vector<std::string> lines;
  for (std::size_t p = 0, e; (e = md.find('\n', p)) != std::string::npos; p = e + 1)
    lines.push_back(md.substr(p, e - p));
  ASSERT_GE(lines.size(), 7u);
  EXPECT_EQ(lines[0], "**a \\| b # heading \\| x \\| y \\|**");
  EXPECT_EQ(lines[1], "");
  for (std::size_t i = 2; i < 7; ++i) EXPECT_EQ(md_cells(lines[i]).size(), 2u) << lines[i];
  EXPECT_EQ(lines[7], "");
  for (std::size_t i = 8; i < lines.size(); ++i) EXPECT_NE(lines[i].rfind("|", 0), 0u) << lines[i];
  for (const auto& l : lines) EXPECT_NE(l.rfind("#", 0), 0u) << l;
  EXPECT_NE(md.find("back\\\\\\|slash \\`code\\` \\<script>"), std::string::npos) << md;
  EXPECT_EQ(validation::markdown_text("< 0.05"), "< 0.05");  // not a tag: left as it is
}

// CSV: RFC 4180 quoting (a CR too), and a text cell a spreadsheet would run as a formula starts
// with ' while a number stays a number.
TEST(HostileText, CsvQuotesAndDisarmsFormulas) {
  using validation::csv_field;
  for (const char* formula :
       {"=1+2", "=HYPERLINK(\"http://x\")", "+cmd|' /C calc'!A0", "-1+2", "-", "@SUM(A1)", "\tx", "\r=1"}) {
    const std::string f = csv_field(formula);
    const auto rec = csv_records(f + "\n");
    ASSERT_EQ(rec.size(), 1u) << f;
    ASSERT_EQ(rec[0].size(), 1u) << f;
    EXPECT_EQ(rec[0][0], std::string("'") + formula) << f;
  }
  for (const char* number : {"-0.5", "+3", "1e-3", "-2.5e+10", "-inf", "0"}) EXPECT_EQ(csv_field(number), number);
  for (const char* text : {"a,b", "say \"hi\"", "two\nlines", "cr\rhere", "plain"}) {
    const auto rec = csv_records(csv_field(text) + "\n");
    ASSERT_EQ(rec.size(), 1u) << text;
    ASSERT_EQ(rec[0].size(), 1u) << text;
    EXPECT_EQ(rec[0][0], text);
  }
  // In a table: a text cell disarmed, a number cell of the same look left a number.
  const fs::path dir = retrylab::test::fresh_dir("hostile-csv");
  Table t{"t", "t", {"=name", "value"}, {{std::string("=cmd()"), -0.5}, {std::string("-0.5"), -1.0}}, {}};
  write_table(t, dir, {"c"});
  const auto rec = csv_records(slurp(dir / "t.csv"));
  ASSERT_EQ(rec.size(), 3u);
  EXPECT_EQ(rec[0][0], "'=name");
  EXPECT_EQ(rec[1][0], "'=cmd()");
  EXPECT_EQ(rec[1][1], "-0.5");
  EXPECT_EQ(rec[2][0], "-0.5");
  EXPECT_EQ(rec[2][1], "-1");
}

// LaTeX: no control character and no blank line (which would end the \caption's paragraph).
TEST(HostileText, LatexHasNoControlCharactersOrBlankLines) {
  const std::string e = validation::latex_escape("a\n\nb\r\nc\x01\x1b\x7f d \\ & %");
  EXPECT_EQ(std::count_if(e.begin(), e.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }),
            0)
      << e;
  EXPECT_EQ(e, "a  b  c    d \\textbackslash{} \\& \\%");
  const fs::path dir = retrylab::test::fresh_dir("hostile-tex");
  write_table(Table{"t", "x\n\ny", {"a\n\nb"}, {{std::string("c\n\nd")}}, {}}, dir, {"c"});
  EXPECT_EQ(slurp(dir / "t.tex").find("\n\n"), std::string::npos);
}

}  // namespace
}  // namespace retrylab::papers

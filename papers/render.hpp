#pragma once
// Writers for a study's outputs. A Table becomes NAME.md (Markdown), NAME.tex (LaTeX booktabs) and
// NAME.csv (one column per number: an estimate gives NAME, NAME_lo, NAME_hi); a Figure is a gnuplot
// script with its data inline (NAME.gp) rendered to NAME.svg and NAME.png (pngcairo). Every file
// names the validation certificate(s) the numbers rest on. All writes go through a temporary name
// and a rename. Cells print NaN as "–" (Markdown/LaTeX) and an empty field (CSV).
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

namespace retrylab::papers {

struct Estimate {
  double mean;
  double lo;
  double hi;
};

using Cell = std::variant<std::string, double, Estimate>;

struct Table {
  std::string name;  // file stem
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
  std::vector<std::string> notes;  // printed under the table
};

// Four significant digits, "–" for NaN, "∞" for +inf.
std::string format_number(double x);

std::vector<std::filesystem::path> write_table(const Table& t, const std::filesystem::path& dir,
                                               const std::vector<std::string>& certificates);

// NAME.csv alone (a long table, such as a series per bin, that is data rather than reading).
std::vector<std::filesystem::path> write_table_csv(const Table& t, const std::filesystem::path& dir,
                                                   const std::vector<std::string>& certs);

struct Figure {
  std::string name;    // file stem
  std::string script;  // gnuplot commands (datablocks, settings, plot); no terminal/output
  int width = 900;     // pixels
  int height = 600;
  std::vector<std::string> formats{"svg", "png"};  // the images rendered (svg, png)
  std::string stamp{};                             // the text up the right edge; empty: the validation certificate(s)
};

// Writes NAME.gp and runs gnuplot once per format (svg, pngcairo). Throws std::runtime_error if gnuplot is
// missing or exits non-zero (its stderr is shown). The script starts with `set termoption
// noenhanced`: every title, label, tic and key entry is plain text.
std::vector<std::filesystem::path> render_figure(const Figure& f, const std::filesystem::path& dir,
                                                 const std::vector<std::string>& certificates);

// A gnuplot datablock "$NAME << EOD ... EOD" from rows of numbers (NaN written as "NaN").
std::string datablock(const std::string& name, const std::vector<std::vector<double>>& rows);

// Any text, from a spec or anywhere else, as a gnuplot string literal that shows it as written: a
// single-quoted string (no backslash escapes, no `command` substitution, no @macro expansion; a '
// is written ''), every control character (bytes below 0x20, 0x7f) a space. Every figure writer
// quotes text through this; render_figure turns enhanced text off, so ^ _ { } @ & ~ are not markup.
std::string gp_quote(const std::string& s);

}  // namespace retrylab::papers

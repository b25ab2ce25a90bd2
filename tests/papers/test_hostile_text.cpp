// Hostile text in a study spec: titles and labels carrying gnuplot command substitution, a newline
// followed by system(), a closing quote followed by commands, backslashes, @macros, CR and other
// control characters, quotes and enhanced-text markup. Rendered by the real writers with the real
// gnuplot: no planted command runs (each would create a marker file), gnuplot succeeds, and the
// SVG shows the text as written (control characters as spaces). The same text in the Markdown,
// CSV and LaTeX tables keeps each table's shape. And the file names the parser reserves cover every
// file a study writes.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "analytic/error.hpp"
#include "papers/readme.hpp"
#include "papers/render.hpp"
#include "papers/spec.hpp"
#include "papers/study.hpp"
#include "validation/escape.hpp"

#include "tests/support/golden.hpp"
#include "tests/support/temp_dir.hpp"

#ifndef RETRYLAB_TEST_DIR
#error "RETRYLAB_TEST_DIR must name tests/papers"
#endif

namespace retrylab::papers::test_hostile_text {
namespace {

namespace fs = std::filesystem;
using retrylab::test::slurp;

struct Payload {
  std::string what;
  std::string text;
};

// Each payload, were it run, creates marker/NAME: the markers folder must stay empty.
std::vector<Payload> payloads(const fs::path& marker) {
  const auto m = [&](const char* name) { return (marker / name).string(); };
  return {
      {"backtick", "a `touch " + m("backtick") + "` b"},
      {"newline then system()", "x\"\nsystem('touch " + m("newline") + "')\n#"},
      {"newline then single-quoted system()", "x'\nsystem('touch " + m("newline1") + "')\n#"},
      {"closing double quote then commands", "a\"; system(\"touch " + m("dquote") + "\"); print \""},
      {"closing single quote then commands", "a'; system('touch " + m("squote") + "'); print '"},
      {"carriage return then system()", "y\rsystem('touch " + m("cr") + "')\r#"},
      {"backslashes", "back\\slash \\\" \\n \\' ends with \\"},
      {"macro", "@GPVAL_TERM and @x"},
      {"other control characters", "bell\x07 esc\x1b[31m del\x7f nul-less\x01 tab\tend"},
      {"quote", "it's 'quoted'"},
      {"enhanced markup", "p_1^2 {x} & ~y @z"},
      {"markup-looking XML", "<b>&amp;</b> < >"},
  };
}

// What a figure must show: the text with each control character a space.
std::string shown(const std::string& s) {
  std::string o = s;
  for (char& c : o)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return o;
}

// The text content of an SVG: the entities &amp; &lt; &gt; &quot; &apos; and &#N; decoded.
std::string svg_text(const std::string& svg) {
  std::string o;
  for (std::size_t i = 0; i < svg.size(); ++i) {
    if (svg[i] != '&') {
      o += svg[i];
      continue;
    }
    const std::size_t semi = svg.find(';', i);
    const std::string ent = svg.substr(i + 1, semi - i - 1);
    if (ent == "amp")
      o += '&';
    else if (ent == "lt")
      o += '<';
    else if (ent == "gt")
      o += '>';
    else if (ent == "quot")
      o += '"';
    else if (ent == "apos")
      o += '\'';
    else if (!ent.empty() && ent[0] == '#')
      o += static_cast<char>(std::stoi(ent.substr(1)));
    else
      o += "&" + ent + ";";
    i = semi;
  }
  return o;
}

std::size_t count_of(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  return out;
}

// Every place a figure shows text from outside: multiplot title, panel title, axis labels, a tic
// label, a key entry, a free label; render_figure as every report calls it.
TEST(HostileText, GnuplotShowsEveryPayloadLiterallyAndRunsNothing) {
  const fs::path dir = retrylab::test::fresh_dir("hostile-gp"), marker = dir / "markers";
  fs::create_directories(marker);
  for (const auto& p : payloads(marker)) {
    const std::string q = gp_quote(p.text);
    const std::string script = fmt::format(
        "$d << EOD\n0 1\n1 2\nEOD\n"
        "set multiplot layout 1,1 title {}\nset title {}\nset xlabel {}\nset ylabel {}\n"
        "set xtics ({} 0, 'one' 1)\nset label 1 {} at graph 0.5, graph 0.5 center\n"
        "plot $d using 1:2 with lines title {}\nunset multiplot\n",
        q, q, q, q, q, q, q);
    fs::remove(dir / "f.svg");
    try {
      render_figure(Figure{"f", script, 600, 400}, dir, {"cert-1"});
    } catch (const std::exception& e) {
      ADD_FAILURE() << p.what << ": gnuplot failed: " << e.what();
    }
    EXPECT_TRUE(files_in(marker).empty()) << p.what << ": a planted command ran";
    fs::remove_all(marker);  // each payload judged on its own
    fs::create_directories(marker);
    const std::string gp = slurp(dir / "f.gp");
    EXPECT_EQ(gp.find("\nsystem("), std::string::npos) << p.what << ": a newline got through";
    if (!fs::exists(dir / "f.svg")) continue;
    const std::string svg = svg_text(slurp(dir / "f.svg"));
    // Seven elements carry it (the key entry twice: its <title> and its text).
    EXPECT_GE(count_of(svg, shown(p.text)), 7u) << p.what << ": not shown as written\n" << shown(p.text);
  }
  // A figure name and a certificate (from results.jsonl) reach the script's comment lines: a
  // newline in either would start a line of commands there. (The parser refuses such a sweep name;
  // gnuplot is then not run, since no output file can be named for it.)
  const std::string name = "g\nsystem('touch pwned-by-name')";  // gnuplot runs in this process's folder
  fs::remove("pwned-by-name");
  EXPECT_THROW(render_figure(Figure{name, "plot x\n", 600, 400}, dir, {"c\nsystem('touch x')"}), std::exception);
  const std::string gp = slurp(dir / (name + ".gp"));
  EXPECT_EQ(gp.find("\nsystem("), std::string::npos) << gp;
  EXPECT_EQ(gp.substr(0, gp.find('\n')), "# g system('touch pwned-by-name'): generated by retrylab; data inline");
  EXPECT_NE(gp.find("\n# validation certificate: c system('touch x')\n"), std::string::npos) << gp;
  EXPECT_FALSE(fs::exists("pwned-by-name")) << "the command planted in the figure name ran";
}

// TOML basic string for any bytes: \" \\ and \uXXXX for the control characters.
std::string toml_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      (o += '\\') += c;
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      o += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
    else
      o += c;
  }
  return o + "\"";
}

StudyOptions quiet_options(const fs::path& out) {
  StudyOptions o;
  o.out = out;
  o.threads = 1;
  o.quiet = true;
  o.certificate_id = "test-certificate";
  return o;
}

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

// The study pipeline on a spec whose sweep titles are the payloads: `run` renders every figure with
// gnuplot and every table, and nothing planted runs.
TEST(HostileText, AStudyWithHostileTitlesRendersThemLiterally) {
  const fs::path dir = retrylab::test::fresh_dir("hostile-study"), marker = dir / "markers", out = dir / "out";
  fs::create_directories(marker);
  const auto ps = payloads(marker);
  std::string spec = "[study]\nname = \"hostile\"\ntitle = " + toml_string(ps[1].text) + "\n";
  for (std::size_t i = 0; i < ps.size(); ++i)
    spec += fmt::format(
        "[sweep.c{}]\nkind = \"classic\"\ntitle = {}\nruns = 2\nmodel = \"free\"\nstrategy = [\"full\", "
        "\"nojitter\"]\nclients = [2, 3]\nhorizon = 1000\nmetrics = [\"attempts_per_client\", \"makespan\"]\n",
        i, toml_string(ps[i].text));
  const StudySpec s = parse_study_text(spec, "hostile.toml", "quick");
  ASSERT_EQ(s.sweeps.size(), ps.size());
  ASSERT_NO_THROW(run_study(s, quiet_options(out)));
  EXPECT_TRUE(files_in(marker).empty()) << "a planted command ran";
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const std::string n = fmt::format("c{}", i), title = shown(ps[i].text);
    SCOPED_TRACE(ps[i].what);
    if (!fs::exists(out / (n + ".svg"))) break;  // run_study stopped at gnuplot's failure (reported above)
    // Figure: the multiplot title, as written.
    EXPECT_NE(svg_text(slurp(out / (n + ".svg"))).find(title + ": mean over runs with 95% CI"), std::string::npos);
    // Markdown: the title on its own line, every row with the table's columns.
    const std::string md = slurp(out / (n + ".md"));
    const std::string first = md.substr(0, md.find('\n'));
    EXPECT_EQ(first.rfind("**", 0), 0u) << first;
    EXPECT_EQ(md.find("\n\n|"), first.size()) << md;  // the title is one line, the table right after
    std::size_t rows = 0;
    for (std::size_t p = 0, e; (e = md.find('\n', p)) != std::string::npos; p = e + 1) {
      const std::string line = md.substr(p, e - p);
      if (line.rfind("|", 0) != 0) continue;
      ++rows;
      EXPECT_EQ(md_cells(line).size(), 8u) << line;
    }
    EXPECT_EQ(rows, 2u + 4u);  // header, rule, 2 strategies x 2 N
    // CSV: one header and four records of as many fields (the certificate last).
    const auto csv = csv_records(slurp(out / (n + ".csv")));
    ASSERT_EQ(csv.size(), 5u);
    for (const auto& r : csv) EXPECT_EQ(r.size(), csv[0].size());
    // LaTeX: the caption on one line.
    const std::string tex = slurp(out / (n + ".tex"));
    const auto cap = tex.find("\\caption{");
    ASSERT_NE(cap, std::string::npos);
    EXPECT_EQ(tex.find('\n', cap), tex.find("}\n\\begin{tabular}", cap) + 1);
  }
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
  // An escape sequence (ESC, BEL) in a name does not reach the file: it would drive a terminal
  // that shows it (raw before).
  EXPECT_EQ(csv_field("a\x1b[2Jb\x07"), "a [2Jb ");
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

// The names the parser keeps apart (output_stems, reserved_output_names) are every file the
// study writes: the tiny studies of every sweep kind, file by file.
TEST(HostileText, ReservedAndDerivedNamesCoverEveryFileAStudyWrites) {
  const fs::path test_dir = RETRYLAB_TEST_DIR;
  for (const char* file : {"tiny_study.toml", "tiny_paper2.toml"}) {
    const StudySpec s = parse_study_file(test_dir / file, "quick");
    const fs::path out = retrylab::test::fresh_dir(std::string("hostile-stems-") + file);
    run_study(s, quiet_options(out));
    std::set<std::string> stems;
    for (const auto& sw : s.sweeps)
      for (const auto& st : output_stems(sw)) stems.insert(st);
    for (const char* r : reserved_output_names()) stems.insert(r);
    for (const auto& f : files_in(out)) {
      const std::string stem = f.substr(0, f.find('.'));
      EXPECT_TRUE(stems.count(stem)) << file << ": " << f << " is not a name the parser keeps apart";
    }
  }
}

// A README template's include names a file of the output folder: one outside it (absolute, or
// reached with "..") is refused instead of being copied into README.md.
TEST(HostileText, ReadmeIncludesStayInsideTheOutputFolder) {
  const fs::path dir = retrylab::test::fresh_dir("hostile-readme"), out = dir / "out";
  fs::create_directories(out / "sub");
  retrylab::test::spit(dir / "secret.md", "secret\n");
  retrylab::test::spit(out / "sub" / "t.md", "table\n");
  const StudySpec s = parse_study_file(fs::path(RETRYLAB_TEST_DIR) / "tiny_study.toml", "quick");
  for (const std::string& bad :
       std::vector<std::string>{"../secret.md", "sub/../../secret.md", (dir / "secret.md").string()}) {
    retrylab::test::spit(dir / "README.template.md", "# R\n<!-- include: " + bad + " -->\n");
    EXPECT_THROW(render_readme(dir / "README.template.md", out, s, "c"), InputError) << bad;
    EXPECT_FALSE(fs::exists(out / "README.md")) << bad;
  }
  retrylab::test::spit(dir / "README.template.md", "# R\n<!-- include: sub/t.md -->\n");
  render_readme(dir / "README.template.md", out, s, "c");
  EXPECT_NE(slurp(out / "README.md").find("table\n"), std::string::npos);
}

}  // namespace
}  // namespace retrylab::papers::test_hostile_text

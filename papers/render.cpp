#include "papers/render.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "analytic/error.hpp"
#include "montecarlo/atomic_file.hpp"
#include "papers/store.hpp"
#include "validation/escape.hpp"

extern char** environ;

namespace retrylab::papers {

namespace fs = std::filesystem;

namespace {

std::string join_certs(const std::vector<std::string>& certs) {
  std::string s;
  for (const auto& c : certs) s += (s.empty() ? "" : ", ") + c;
  return s.empty() ? "(none)" : s;
}

std::string tex_escape(const std::string& s) { return validation::latex_escape(s); }

using validation::csv_field;

std::string csv_number(double x) {
  if (std::isnan(x)) return "";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{}", x);
}

std::string text(const Cell& c) {
  if (auto s = std::get_if<std::string>(&c)) return *s;
  if (auto d = std::get_if<double>(&c)) return format_number(*d);
  const auto& e = std::get<Estimate>(c);
  if (std::isnan(e.lo)) return format_number(e.mean);
  return fmt::format("{} [{}, {}]", format_number(e.mean), format_number(e.lo), format_number(e.hi));
}

int run_gnuplot(const fs::path& dir, const std::string& setup, const fs::path& script, std::string& err_text) {
  const fs::path err = dir / (".gnuplot.err." + std::to_string(::getpid()) + ".tmp");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  std::string s_setup = setup, s_script = script.string();
  char* argv[] = {const_cast<char*>("gnuplot"), const_cast<char*>("-e"), s_setup.data(), s_script.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "gnuplot", &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot start gnuplot (is it installed? Debian package gnuplot-nox)");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  std::ifstream in(err);
  std::ostringstream os;
  os << in.rdbuf();
  err_text = os.str();
  fs::remove(err);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// gnuplot may exit 0 after a failed write (a full disk): an image counts only if it ends as its
// format ends, a PNG with its IEND chunk, an SVG with its closing tag.
bool complete_image(const fs::path& file, std::string_view ext) {
  std::ifstream in(file, std::ios::binary);
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (!in || size < 12) return false;
  const std::streamoff tail = std::min<std::streamoff>(size, 64);
  std::string end(static_cast<std::size_t>(tail), '\0');
  in.seekg(size - tail);
  in.read(end.data(), tail);
  if (!in) return false;
  if (ext == "png") return end.compare(end.size() - 12, 12, std::string("\0\0\0\0IEND\xAE\x42\x60\x82", 12)) == 0;
  return end.find("</svg>") != std::string::npos;
}

}  // namespace

std::string format_number(double x) {
  if (std::isnan(x)) return "–";
  if (std::isinf(x)) return x > 0 ? "∞" : "-∞";
  if (x == std::floor(x) && std::fabs(x) < 1e6) return fmt::format("{}", static_cast<long long>(x));
  return fmt::format("{:.4g}", x);
}

namespace {

// Every text from outside (the spec's titles and names, a record's labels) goes through
// markdown_text: a | cannot split a cell, a newline cannot start a row or a heading. Notes are the
// renderers' own Markdown (they keep their `code` and *emphasis*), kept to one line each.
std::string markdown_table(const Table& t, const std::string& cert) {
  using validation::markdown_text;
  std::string md = fmt::format("**{}**\n\n", markdown_text(t.title));
  std::vector<std::string> head;
  for (const auto& c : t.columns) head.push_back(markdown_text(c));
  md += validation::markdown_row(head);
  std::vector<std::string_view> align(t.columns.size(), "--:");
  if (!align.empty()) align[0] = "---";
  md += validation::markdown_rule(align);
  for (const auto& row : t.rows) {
    std::vector<std::string> cells;
    for (const auto& c : row) cells.push_back(markdown_text(text(c)));
    md += validation::markdown_row(cells);
  }
  md += "\n";
  for (const auto& n : t.notes) md += validation::one_line(n) + "\n";
  md += fmt::format("{}Validation certificate: {}. Intervals are 95%.\n", t.notes.empty() ? "" : "\n",
                    markdown_text(cert));
  return md;
}

// LaTeX booktabs.
std::string latex_table(const Table& t, const std::string& cert) {
  std::string tex = fmt::format(
      "% {}\n% validation certificate: {}\n\\begin{{table}}\n\\centering\n\\caption{{{}}}\n\\begin{{tabular}}{{l",
      validation::one_line(t.name), validation::one_line(cert), tex_escape(t.title));
  for (std::size_t i = 1; i < t.columns.size(); ++i) tex += "r";
  tex += "}\n\\toprule\n";
  std::vector<std::string> head;
  for (const auto& c : t.columns) head.push_back(tex_escape(c));
  tex += validation::latex_row(head) + "\\midrule\n";
  for (const auto& row : t.rows) {
    std::vector<std::string> cells;
    for (const auto& c : row) cells.push_back(tex_escape(text(c)));
    tex += validation::latex_row(cells);
  }
  tex += "\\bottomrule\n\\end{tabular}\n";
  for (const auto& n : t.notes) tex += "% " + validation::one_line(n) + "\n";
  tex += "\\end{table}\n";
  return tex;
}

// CSV: numbers in full precision, an estimate as three columns. A column is an estimate column
// when any row holds one there; another cell in it gets empty lo and hi, so rows stay aligned.
std::string csv_table(const Table& t, const std::string& cert) {
  std::vector<bool> est_col(t.columns.size(), false);
  for (const auto& row : t.rows)
    for (std::size_t i = 0; i < row.size() && i < est_col.size(); ++i)
      if (std::holds_alternative<Estimate>(row[i])) est_col[i] = true;
  std::vector<std::string> head;
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    const bool est = est_col[i];
    head.push_back(csv_field(t.columns[i]));
    if (est) {
      head.push_back(csv_field(t.columns[i] + " lo"));
      head.push_back(csv_field(t.columns[i] + " hi"));
    }
  }
  head.push_back("certificate");
  std::string csv = validation::csv_row(head);
  for (const auto& row : t.rows) {
    std::vector<std::string> fields;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const Cell& c = row[i];
      if (auto s = std::get_if<std::string>(&c))
        fields.push_back(csv_field(*s));
      else if (auto d = std::get_if<double>(&c))
        fields.push_back(csv_number(*d));
      else {
        const auto& e = std::get<Estimate>(c);
        for (double x : {e.mean, e.lo, e.hi}) fields.push_back(csv_number(x));
      }
      if (i < est_col.size() && est_col[i] && !std::holds_alternative<Estimate>(c)) {
        fields.emplace_back();  // empty lo and hi
        fields.emplace_back();
      }
    }
    fields.push_back(csv_field(cert));
    csv += validation::csv_row(fields);
  }
  return csv;
}

}  // namespace

std::vector<fs::path> write_table(const Table& t, const fs::path& dir, const std::vector<std::string>& certs) {
  const std::string cert = join_certs(certs);
  const std::string md = markdown_table(t, cert), tex = latex_table(t, cert), csv = csv_table(t, cert);
  std::vector<fs::path> out = {dir / (t.name + ".md"), dir / (t.name + ".tex"), dir / (t.name + ".csv")};
  write_file_atomic(out[0], md);
  write_file_atomic(out[1], tex);
  write_file_atomic(out[2], csv);
  return out;
}

std::vector<fs::path> write_table_csv(const Table& t, const fs::path& dir, const std::vector<std::string>& certs) {
  const fs::path out = dir / (t.name + ".csv");
  write_file_atomic(out, csv_table(t, join_certs(certs)));
  return {out};
}

std::string datablock(const std::string& name, const std::vector<std::vector<double>>& rows) {
  std::string s = "$" + name + " << EOD\n";
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (i) s += " ";
      s += std::isfinite(r[i]) ? fmt::format("{}", r[i]) : std::string("NaN");
    }
    s += "\n";
  }
  return s + "EOD\n";
}

std::string gp_quote(const std::string& s) {
  // A single-quoted gnuplot string has no escapes and no `command` substitution (both belong to
  // double quotes), and gnuplot expands @macros only outside quotes: the one special character is
  // the quote itself, written twice. A newline would end the command, so it and every other control
  // character becomes a space.
  std::string o = "'";
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7f')
      o += ' ';
    else if (c == '\'')
      o += "''";
    else
      o += c;
  }
  return o + "'";
}

std::vector<fs::path> render_figure(const Figure& f, const fs::path& dir, const std::vector<std::string>& certs) {
  // The certificate stamp runs up the right edge, small and grey, in a right margin of its own
  // (rmargin 5 characters on every panel: the last x tick label, centred on the axis's end, and the
  // legends below the panels end before it): clear of the titles at the top, of every tick label
  // and of the legends. No enhanced text: every title, label, tic and key entry shows
  // its text as written (a sweep title "p_1^2 {x} @a & b" is not markup; escaping the markup
  // instead leaves a bare & in gnuplot 5.4's SVG, which is then not XML). The comment lines hold no
  // newline, so no text leaves them.
  const std::string script = fmt::format(
      "# {}: generated by retrylab; data inline\n# validation certificate: {}\nset termoption noenhanced\n"
      "set rmargin 5\nset label 999 {} at screen 1, screen 0 left rotate by 90 offset -0.9,0.5 font \",7\" textcolor "
      "rgb \"#777777\"\n{}",
      validation::one_line(f.name), validation::one_line(join_certs(certs)),
      gp_quote(f.stamp.empty() ? "validation certificate " + join_certs(certs) : f.stamp), f.script);
  const fs::path gp = dir / (f.name + ".gp");
  write_file_atomic(gp, script);
  std::vector<fs::path> out = {gp};
  for (const std::string& ext : f.formats) {
    if (ext != "svg" && ext != "png") throw std::logic_error("render_figure: a format is svg or png");
    const fs::path target = dir / (f.name + "." + ext);
    const fs::path tmp = temporary_path_for(target);
    const std::string path = tmp.string();
    if (std::any_of(path.begin(), path.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
      throw OutputError(fmt::format("cannot write {}: gnuplot cannot name a file whose path holds a control character",
                                    target.string()));
    const std::string term =
        ext == "svg"
            ? fmt::format("set terminal svg size {},{} font \"sans,12\" background rgb \"white\"", f.width, f.height)
            : fmt::format("set terminal pngcairo size {},{} font \"sans,10\" background rgb \"white\"", f.width,
                          f.height);
    std::string err;
    const int rc = run_gnuplot(dir, term + "; set output " + gp_quote(tmp.string()), gp, err);
    if (rc != 0 || !fs::exists(tmp)) {
      fs::remove(tmp);
      throw std::runtime_error(fmt::format("gnuplot failed on {} (exit {}): {}", gp.string(), rc, err));
    }
    if (!complete_image(tmp, ext)) {
      fs::remove(tmp);
      throw OutputError(fmt::format("cannot write {}: gnuplot left it incomplete (disk full?)", target.string()));
    }
    commit_file(tmp, target);
    out.push_back(target);
  }
  return out;
}

}  // namespace retrylab::papers

#include "validation/report.hpp"

#include "montecarlo/atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "analytic/units.hpp"
#include "validation/escape.hpp"

namespace retrylab::validation {

namespace {

struct Row {
  std::string name, parameters, closed_form, simulated, rel_error, tolerance, verdict, alpha;
};

std::string num(double x) { return std::isfinite(x) ? fmt::format("{:.5g}", x) : "—"; }

std::string simulated_text(const CaseResult& r) {
  if (!std::isfinite(r.observed)) return "—";
  if (std::isfinite(r.ci95) && r.ci95 > 0) return fmt::format("{:.5g} ± {:.2g}", r.observed, r.ci95);
  return num(r.observed);
}

std::string rel_text(double x) { return std::isfinite(x) ? fmt::format("{:+.2g}%", 100.0 * x) : "—"; }

std::string alpha_text(const CaseResult& r) {
  switch (r.kind) {
    case CaseKind::statistical: return fmt::format("{:.2g}", r.alpha);
    case CaseKind::exact: return "0 (exact)";
    case CaseKind::info: return "—";
  }
  return "";
}

// The checked cases (pass/fail) and, apart, the estimates (info cases: reported, never pass or fail).
std::vector<Row> rows(const SuiteResult& s) {
  std::vector<Row> out;
  for (const auto& r : s.cases)
    if (r.kind != CaseKind::info)
      out.push_back({r.name, r.parameters, r.closed_form, simulated_text(r), rel_text(r.rel_error), r.check,
                     std::string(to_string(r.verdict)), alpha_text(r)});
  return out;
}

std::vector<std::vector<std::string>> estimate_rows(const SuiteResult& s) {
  std::vector<std::vector<std::string>> out;
  for (const auto& r : s.cases)
    if (r.kind == CaseKind::info)
      out.push_back({r.name, r.parameters, r.closed_form, simulated_text(r), rel_text(r.rel_error), r.check});
  return out;
}

const std::vector<std::string> headers = {"case",       "parameters", "closed form", "simulated (mean ± 95% CI)",
                                          "rel. error", "tolerance",  "verdict",     "α"};
const std::vector<std::string> estimate_headers = {"estimate",
                                                   "parameters",
                                                   "estimate (model)",
                                                   "engine (mean ± 95% CI)",
                                                   "error",
                                                   "measured against the claimed band"};
const char* estimate_title =
    "Estimates: approximations reported beside the engine, never pass or fail (error = estimate/engine − 1; "
    "bands as claimed in analytic/README.md)";

// Display width of UTF-8 text: one column per code point (the table's symbols are all narrow).
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string pad(const std::string& s, std::size_t w) { return s + std::string(w - std::min(w, width(s)), ' '); }

std::string summary_line(const SuiteResult& s) {
  std::int64_t pass = 0, fail = 0, info = 0;
  for (const auto& r : s.cases) (r.verdict == Verdict::pass ? pass : r.verdict == Verdict::fail ? fail : info) += 1;
  return fmt::format(
      "{} cases: {} pass, {} fail, {} info (estimates). False alarms: α = {:.2g} per statistical case (Bonferroni: "
      "{:.2g} split over {} cases); suite false-alarm rate ≤ {:.2g}{}. Exact cases: α = 0. Seed {}, scale {}, {:.1f} "
      "s.",
      s.cases.size(), pass, fail, info, s.alpha_per_case, s.options.alpha_total, s.statistical_cases, s.alpha_run,
      s.filtered ? " (filtered run)" : "", s.options.seed, to_string(s.options.scale), s.seconds);
}

const char* rule_line =
    "Tolerance: |mean − exact| ≤ t(1−α/2, n−1)·sd/√n + floor (sd over n independent runs; floor stated per case); "
    "KS: D ≤ critical value at α (+ numerical accuracy for decorrelated jitter).";

std::string md_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|')
      o += "\\|";
    else
      o += c;
  }
  return o;
}

std::string csv_num(double x) { return std::isfinite(x) ? fmt::format("{:.17g}", x) : ""; }

nlohmann::json json_num(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

// An aligned plain-text table: header, a rule, one line per row.
std::string text_table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& body) {
  std::vector<std::size_t> w(head.size());
  for (std::size_t j = 0; j < head.size(); ++j) w[j] = width(head[j]);
  for (const auto& c : body)
    for (std::size_t j = 0; j < c.size(); ++j) w[j] = std::max(w[j], width(c[j]));
  std::string out;
  auto line = [&](const std::vector<std::string>& c) {
    std::string l;
    for (std::size_t j = 0; j < c.size(); ++j) l += (j ? "  " : "") + (j + 1 < c.size() ? pad(c[j], w[j]) : c[j]);
    out += l + "\n";
  };
  line(head);
  std::size_t total = 0;
  for (auto x : w) total += x + 2;
  out += std::string(total - 2, '-') + "\n";
  for (const auto& c : body) line(c);
  return out;
}

}  // namespace

std::string format_text(const SuiteResult& s) {
  std::vector<std::vector<std::string>> body;
  for (const auto& r : rows(s))
    body.push_back({r.name, r.parameters, r.closed_form, r.simulated, r.rel_error, r.tolerance, r.verdict, r.alpha});
  std::string out = text_table(headers, body);
  if (const auto est = estimate_rows(s); !est.empty())
    out += fmt::format("\n{}\n", estimate_title) + text_table(estimate_headers, est);
  out += fmt::format("\n{}\n{}\n", rule_line, summary_line(s));
  out += s.passed ? "Verdict: PASS\n" : "Verdict: FAIL\n";
  return out;
}

std::string format_markdown(const SuiteResult& s) {
  std::string out = fmt::format("# retrylab validation ({})\n\n", to_string(s.options.scale));
  std::vector<std::string> head;
  for (const auto& h : headers) head.push_back(md_escape(h));
  out += markdown_row(head);
  std::vector<std::string_view> align(headers.size(), "---");
  align[3] = align[4] = "---:";  // the two number columns
  out += markdown_rule(align);
  for (const auto& r : rows(s))
    out += markdown_row({"`" + r.name + "`", md_escape(r.parameters), md_escape(r.closed_form), md_escape(r.simulated),
                         md_escape(r.rel_error), md_escape(r.tolerance), r.verdict, r.alpha});
  if (const auto est = estimate_rows(s); !est.empty()) {
    out += fmt::format("\n## {}\n\n", md_escape(estimate_title));
    std::vector<std::string> est_head;
    for (const auto& h : estimate_headers) est_head.push_back(md_escape(h));
    out += markdown_row(est_head);
    std::vector<std::string_view> est_align(estimate_headers.size(), "---");
    est_align[3] = est_align[4] = "---:";
    out += markdown_rule(est_align);
    for (auto c : est) {
      for (auto& x : c) x = md_escape(x);
      c[0] = "`" + c[0] + "`";
      out += markdown_row(c);
    }
  }
  out += fmt::format("\n{}\n\n{}\n", rule_line, summary_line(s));
  return out;
}

std::string format_latex(const SuiteResult& s) {
  std::string out = "% retrylab validation table; needs \\usepackage{booktabs}\n";
  out += "\\begin{tabular}{lllrrlll}\n\\toprule\n";
  std::vector<std::string> head;
  for (const auto& h : headers) head.push_back(latex_escape(h));
  out += latex_row(head) + "\\midrule\n";
  for (const auto& r : rows(s)) {
    std::vector<std::string> c{r.name,      r.parameters, r.closed_form, r.simulated,
                               r.rel_error, r.tolerance,  r.verdict,     r.alpha};
    for (auto& x : c) x = latex_escape(x);
    c[0] = "\\texttt{" + c[0] + "}";
    out += latex_row(c);
  }
  out += "\\bottomrule\n\\end{tabular}\n";
  if (const auto est = estimate_rows(s); !est.empty()) {
    out += fmt::format("\n% {}\n\\begin{{tabular}}{{lllrrl}}\n\\toprule\n", latex_escape(estimate_title));
    std::vector<std::string> est_head;
    for (const auto& h : estimate_headers) est_head.push_back(latex_escape(h));
    out += latex_row(est_head) + "\\midrule\n";
    for (auto c : est) {
      for (auto& x : c) x = latex_escape(x);
      c[0] = "\\texttt{" + c[0] + "}";
      out += latex_row(c);
    }
    out += "\\bottomrule\n\\end{tabular}\n";
  }
  out += fmt::format("% {}\n", latex_escape(summary_line(s)));
  return out;
}

std::string format_csv(const SuiteResult& s) {
  std::string out =
      "case,kind,parameters,closed_form,expected,observed,ci95,rel_error,tolerance,check,verdict,alpha,n,seconds\n";
  for (const auto& r : s.cases)
    out +=
        fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3f}\n", csv_field(r.name), to_string(r.kind),
                    csv_field(r.parameters), csv_field(r.closed_form), csv_num(r.expected), csv_num(r.observed),
                    csv_num(r.ci95), csv_num(r.rel_error), csv_num(r.tolerance), csv_field(r.check),
                    to_string(r.verdict) == "FAIL" ? "fail" : to_string(r.verdict), csv_num(r.alpha), r.n, r.seconds);
  return out;
}

std::string format_json(const SuiteResult& s, const std::string& version) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& r : s.cases)
    cases.push_back({{"case", r.name},
                     {"kind", to_string(r.kind)},
                     {"parameters", r.parameters},
                     {"closed_form", r.closed_form},
                     {"expected", json_num(r.expected)},
                     {"observed", json_num(r.observed)},
                     {"ci95", json_num(r.ci95)},
                     {"rel_error", json_num(r.rel_error)},
                     {"tolerance", json_num(r.tolerance)},
                     {"check", r.check},
                     {"verdict", r.verdict == Verdict::fail ? "fail" : to_string(r.verdict)},
                     {"alpha", r.alpha},
                     {"n", r.n},
                     {"seconds", r.seconds}});
  // The unit of every time in the cases; a case in another unit names it in its parameters (ms).
  const nlohmann::json j = {{"retrylab", version},
                            {"unit", units::attempt_duration},
                            {"scale", to_string(s.options.scale)},
                            {"seed", s.options.seed},
                            {"alpha_total", s.options.alpha_total},
                            {"alpha_per_case", s.alpha_per_case},
                            {"statistical_cases", s.statistical_cases},
                            {"alpha_run", s.alpha_run},
                            {"filtered", s.filtered},
                            {"passed", s.passed},
                            {"seconds", s.seconds},
                            {"cases", cases}};
  return j.dump(2) + "\n";
}

std::vector<std::filesystem::path> write_reports(const SuiteResult& r, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const std::vector<std::pair<std::string, std::string>> files = {
      {"validation.md", format_markdown(r)}, {"validation.tex", format_latex(r)}, {"validation.csv", format_csv(r)}};
  std::vector<std::filesystem::path> out;
  for (const auto& [name, text] : files) {
    write_file_atomic(dir / name, text);
    out.push_back(dir / name);
  }
  return out;
}

}  // namespace retrylab::validation

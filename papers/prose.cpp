#include "papers/prose.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

namespace retrylab::papers {

namespace fs = std::filesystem;

namespace {

// A number as printed: its value and the half-unit of its last digit (an integer's trailing zeros
// count: prose writes the figure it means).
struct Printed {
  double value = 0, half = 0;
  bool percent = false;
};

Printed parse(std::string t) {
  Printed p;
  std::string s;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.compare(i, 3, "−") == 0) {  // U+2212 minus
      s += '-';
      i += 2;
    } else if (t[i] != ',') {
      s += t[i];
    }
  }
  if (!s.empty() && s.back() == '%') p.percent = true, s.pop_back();
  p.value = std::strtod(s.c_str(), nullptr);
  const auto dot = s.find('.');
  p.half = dot == std::string::npos ? 0.5 : 0.5 * std::pow(10.0, -static_cast<double>(s.size() - dot - 1));
  return p;
}

std::string slurp(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

const std::regex& number_pattern() {
  // A number not glued to a letter, digit or identifier: 1,234.5 / 0.25 / 15% / 1.39× / −0.2.
  static const std::regex re("(^|[^A-Za-z0-9_.^])((?:−|-)?[0-9]+(?:,[0-9]{3})*(?:\\.[0-9]+)?%?)(?![A-Za-z0-9_^])");
  return re;
}

// Every number of the folder's tables (CSV and Markdown, the validation table too), sorted.
std::vector<double> table_numbers(const fs::path& folder) {
  std::vector<double> out;
  for (const auto& e : fs::recursive_directory_iterator(folder)) {
    const auto ext = e.path().extension().string();
    const auto stem = e.path().stem().string();
    if (!e.is_regular_file() || (ext != ".csv" && ext != ".md") || stem == "README" || stem == "README.template")
      continue;
    const std::string text = slurp(e.path());
    static const std::regex num("(?:−|-)?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?");
    std::string plain;  // thousands separators out (4,592 is one number), U+2212 as '-'
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == ',' && i > 0 && i + 3 < text.size() && std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
          std::isdigit(static_cast<unsigned char>(text[i + 1])) &&
          std::isdigit(static_cast<unsigned char>(text[i + 3])) &&
          !std::isdigit(static_cast<unsigned char>(i + 4 < text.size() ? text[i + 4] : ' ')))
        continue;
      plain += text[i];
    }
    for (auto it = std::sregex_iterator(plain.begin(), plain.end(), num); it != std::sregex_iterator(); ++it) {
      std::string t = it->str();
      if (t.rfind("−", 0) == 0) t.replace(0, 3, "-");  // U+2212
      out.push_back(std::strtod(t.c_str(), nullptr));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool held(const std::vector<double>& sorted, double lo, double hi) {
  const auto it = std::lower_bound(sorted.begin(), sorted.end(), lo);
  return it != sorted.end() && *it <= hi;
}

bool matches(const std::vector<double>& sorted, const Printed& p) {
  const double eps = 1e-9 * std::max(1.0, std::fabs(p.value));
  if (held(sorted, p.value - p.half - eps, p.value + p.half + eps)) return true;
  if (!p.percent) return false;
  const double f = p.value / 100, h = p.half / 100;  // a percent as the fraction a table prints
  return held(sorted, f - h - 1e-12, f + h + 1e-12);
}

// A prose line with what is not prose taken out: inline code, link targets, {{...}} fields, HTML
// comments.
std::string prose_of(std::string line) {
  static const std::regex code("`[^`]*`"), link("\\]\\([^)]*\\)"), field("\\{\\{[^}]*\\}\\}"), comment("<!--.*?-->");
  line = std::regex_replace(line, code, " ");
  line = std::regex_replace(line, link, "] ");
  line = std::regex_replace(line, field, " ");
  return std::regex_replace(line, comment, " ");
}

}  // namespace

std::vector<ProseNumber> unbacked_numbers(const fs::path& tmpl, const fs::path& folder) {
  const auto numbers = table_numbers(folder);
  std::istringstream in(slurp(tmpl));
  std::vector<ProseNumber> out;
  bool fenced = false, in_comment = false;
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.rfind("```", 0) == 0) fenced = !fenced;
    if (fenced || line.rfind("```", 0) == 0 || line.rfind("#", 0) == 0 || line.rfind("![", 0) == 0) continue;
    if (in_comment) {
      const auto close = line.find("-->");
      if (close == std::string::npos) continue;
      line.erase(0, close + 3);
      in_comment = false;
    }
    if (const auto open = line.find("<!--"); open != std::string::npos && line.find("-->", open) == std::string::npos) {
      line.erase(open);
      in_comment = true;
    }
    const std::string text = prose_of(line);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), number_pattern()); it != std::sregex_iterator();
         ++it) {
      const std::string t = (*it)[2].str();
      if (!matches(numbers, parse(t))) out.push_back({n, t});
    }
  }
  return out;
}

}  // namespace retrylab::papers

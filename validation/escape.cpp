#include "validation/escape.hpp"

namespace retrylab::validation {

namespace {

struct Symbol {
  std::string_view utf8, latex;
};

constexpr Symbol symbols[] = {
    {"λ", "$\\lambda$"}, {"ρ", "$\\rho$"}, {"τ", "$\\tau$"},   {"α", "$\\alpha$"}, {"Δ", "$\\Delta$"},
    {"−", "$-$"},        {"±", "$\\pm$"},  {"≤", "$\\le$"},    {"√", "$\\surd$"},  {"·", "$\\cdot$"},
    {"—", "---"},        {"–", "--"},      {"∞", "$\\infty$"}, {"≫", "$\\gg$"},    {"σ", "$\\sigma$"},
    {"Φ", "$\\Phi$"},    {"≥", "$\\ge$"},  {"×", "$\\times$"},
};

// The LaTeX of one ASCII character, or empty when it stands as it is.
std::string_view ascii(char c) {
  switch (c) {
    case '&': return "\\&";
    case '%': return "\\%";
    case '_': return "\\_";
    case '#': return "\\#";
    case '$': return "\\$";
    case '<': return "$<$";
    case '>': return "$>$";
    case '{': return "\\{";
    case '}': return "\\}";
    case '~': return "\\textasciitilde{}";
    case '^': return "\\textasciicircum{}";
    case '\\': return "\\textbackslash{}";
    default: return {};
  }
}

}  // namespace

std::string latex_escape(std::string_view s) {
  std::string o;
  for (std::size_t i = 0; i < s.size();) {
    bool done = false;
    for (const Symbol& sym : symbols) {
      if (s.substr(i, sym.utf8.size()) == sym.utf8) {
        o += sym.latex;
        i += sym.utf8.size();
        done = true;
        break;
      }
    }
    if (done) continue;
    const char c = s[i++];
    const std::string_view e = ascii(c);
    if (e.empty())
      o += c;
    else
      o += e;
  }
  return o;
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
  std::string o = "\"";
  for (char c : s) o += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

std::string markdown_row(const std::vector<std::string>& cells) {
  std::string o = "|";
  for (const auto& c : cells) o += " " + c + " |";
  return o + "\n";
}

std::string markdown_rule(const std::vector<std::string_view>& markers) {
  std::string o = "|";
  for (const auto m : markers) (o += m) += "|";
  return o + "\n";
}

std::string latex_row(const std::vector<std::string>& cells) {
  std::string o;
  for (std::size_t i = 0; i < cells.size(); ++i) o += (i ? " & " : "") + cells[i];
  return o + " \\\\\n";
}

std::string csv_row(const std::vector<std::string>& fields) {
  std::string o;
  for (std::size_t i = 0; i < fields.size(); ++i) o += (i ? "," : "") + fields[i];
  return o + "\n";
}

}  // namespace retrylab::validation

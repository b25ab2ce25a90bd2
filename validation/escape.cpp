#include "validation/escape.hpp"

#include <charconv>

namespace retrylab::validation {

namespace {

bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == '\x7f'; }

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
    if (is_control(c))
      o += ' ';  // a blank line would end the paragraph a \\caption or a cell is in
    else if (e.empty())
      o += c;
    else
      o += e;
  }
  return o;
}

std::string one_line(std::string_view s) {
  std::string o(s);
  for (char& c : o)
    if (is_control(c)) c = ' ';
  return o;
}

namespace {

// The whole text reads as a number (what a number cell holds): "-0.5", "+3", "1e-3", "-inf".
bool is_csv_number(std::string_view s) {
  if (s == "inf" || s == "-inf") return true;
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (s.empty() || s[0] == '+') return false;
  double x = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

std::string csv_field(std::string_view s) {
  std::string text;
  // A text cell a spreadsheet would read as a formula (= + - @, or a leading tab or CR) gets a
  // leading apostrophe; a number ("-0.5", "+3", "1e-3") stays as written.
  if (!s.empty() && std::string_view("=+-@\t\r").find(s[0]) != std::string_view::npos && !is_csv_number(s)) text = "'";
  text += s;
  // No control byte but a tab, CR or newline (quoted below) reaches the file: an escape sequence in
  // a name read back with cat would drive the terminal.
  for (char& c : text)
    if (is_control(c) && c != '\n' && c != '\r' && c != '\t') c = ' ';
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string o = "\"";
  for (char c : text) o += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

std::string markdown_text(std::string_view s) {
  std::string o;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const char next = i + 1 < s.size() ? s[i + 1] : '\0';
    const bool tag = c == '<' && ((next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') || next == '/' ||
                                  next == '!' || next == '?');
    if (is_control(c))
      o += ' ';
    else if (c == '\\' || c == '|' || c == '`' || tag)
      (o += '\\') += c;
    else
      o += c;
  }
  return o;
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

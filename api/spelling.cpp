#include "api/spelling.hpp"

#include <algorithm>
#include <cctype>

namespace retrylab::api {

namespace {

// The spelling table: the names that the rule (flag: "--" and '_' as '-'; keyword: the id) does
// not give. A CLI-only option is spelled for Python as what takes its place there.
struct Exception {
  std::string_view id, flag, keyword;
};
constexpr Exception exceptions[] = {
    {"list_fields", "--list-fields", "retrylab.fields()"},
    {"max_memory", "--max-memory", "memory"},  // Python cannot raise it: python/module.cpp says so
};

bool is_id(std::string_view s, bool dashes = false) {
  if (s.empty() || !(s.front() >= 'a' && s.front() <= 'z')) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || (dashes && c == '-');
  });
}

// A field's id from an id, a flag ("--reject-cost") or a dashed id ("max-memory"); any other name
// (a positional argument in capitals: SPEC, TRACE) as it is.
std::string id_of(std::string_view field) {
  std::string name(field.rfind("--", 0) == 0 ? field.substr(2) : field);
  if (is_id(name, true)) std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// A value Python takes as it is written: a number, or a placeholder in capitals (FILE, BIN, LOW:HIGH).
bool bare(std::string_view v) {
  const bool placeholder = std::any_of(v.begin(), v.end(), [](char c) { return c >= 'A' && c <= 'Z'; }) &&
                           std::none_of(v.begin(), v.end(), [](char c) { return c >= 'a' && c <= 'z'; });
  const bool number = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == 'e';
  }) && std::isdigit(static_cast<unsigned char>(v.back()));
  return placeholder || number;
}

}  // namespace

std::string spelled(std::string_view field, Spelling how) {
  std::string name = id_of(field);
  if (!is_id(name)) return name;
  for (const Exception& e : exceptions)
    if (e.id == name) return std::string(how == Spelling::flag ? e.flag : e.keyword);
  if (how == Spelling::keyword) return name;
  std::replace(name.begin(), name.end(), '_', '-');
  return "--" + name;
}

std::string ref(std::string_view id) {
  std::string out = "`";
  out.append(id).append("`");
  return out;
}

std::string ref(std::string_view id, std::string_view value) {
  std::string out = "`";
  out.append(id).append("=").append(value).append("`");
  return out;
}

std::string spell_text(std::string_view text, Spelling how) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t open = text.find('`', i);
    const std::size_t close = open == std::string_view::npos ? open : text.find('`', open + 1);
    if (close == std::string_view::npos) break;
    const std::string_view inner = text.substr(open + 1, close - open - 1);
    const std::size_t eq = inner.find('=');
    const std::string_view id = inner.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view() : inner.substr(eq + 1);
    const bool valued = eq != std::string_view::npos;
    if (!is_id(id) || (valued && (value.empty() || value.find(' ') != std::string_view::npos))) {
      out.append(text.substr(i, open + 1 - i));  // not a reference: keep the backquote, look on after it
      i = open + 1;
      continue;
    }
    out.append(text.substr(i, open - i));
    out += spelled(id, how);
    if (valued) {
      if (how == Spelling::flag)
        out.append(" ").append(value);
      else
        out.append(bare(value) ? "=" + std::string(value) : "=\"" + std::string(value) + "\"");
    }
    i = close + 1;
  }
  out.append(text.substr(std::min(i, text.size())));
  return out;
}

std::string spelled_rule(const InputError& e, Spelling how) {
  const std::string_view what = e.what();
  return spell_text(what.substr(std::min(what.size(), e.field().size() + 1)), how);
}

std::string spelled_message(const InputError& e, Spelling how) {
  return spelled(e.field(), how) + " " + spelled_rule(e, how);
}

void rethrow_spelled(const InputError& e, Spelling how) {
  throw InputError(spelled(e.field(), how), spelled_rule(e, how));
}

}  // namespace retrylab::api

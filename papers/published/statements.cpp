#include "papers/published/statements.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>
#include <algorithm>
#include <cmath>
#include <set>

#include "analytic/error.hpp"
#include "papers/spec.hpp"

namespace retrylab::papers::published {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void bad(const std::string& id, const std::string& key, const std::string& rule) {
  throw InputError(fmt::format("statement {}: {}", id, key), rule);
}

// Runs f(); an InputError it throws is reported against the statements file and line.
template <class F>
auto at_line(const fs::path& file, std::int64_t line, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const SpecError&) {
    throw;
  } catch (const InputError& e) {
    const std::string what = e.what();
    throw SpecError(e.field(), what.size() > e.field().size() ? what.substr(e.field().size() + 1) : what, file.string(),
                    line);
  }
}

std::string node_text(const toml::node& n) {
  if (auto s = n.as_string()) return s->get();
  if (auto i = n.as_integer()) return std::to_string(i->get());
  if (auto d = n.as_floating_point()) return fmt::format("{}", d->get());
  if (auto b = n.as_boolean()) return b->get() ? "true" : "false";
  return "";
}

std::vector<std::string> texts(const toml::node& n) {
  std::vector<std::string> out;
  if (const toml::array* a = n.as_array())
    for (const auto& x : *a) out.push_back(node_text(x));
  else
    out.push_back(node_text(n));
  return out;
}

Fields parse_fields(const std::string& id, const std::string& key, const toml::node& n) {
  const toml::table* t = n.as_table();
  if (!t) bad(id, key, "must be a table of scenario fields");
  Fields out;
  for (const auto& [k, v] : *t) out[std::string(k.str())] = texts(v);
  return out;
}

std::map<std::string, double> parse_bounds(const std::string& id, const std::string& key, const toml::node& n) {
  std::map<std::string, double> out;
  for (const auto& [f, b] : parse_fields(id, key, n)) {
    char* end = nullptr;
    const double x = std::strtod(b.at(0).c_str(), &end);
    if (b.size() != 1 || end == b[0].c_str() || *end != '\0' || std::isnan(x))
      bad(id, key + "." + f, "must be one number (got " + b.at(0) + ")");
    out[f] = x;
  }
  return out;
}

const std::vector<std::string>& measures() {
  static const std::vector<std::string> m = {
      "value",       "reached",    "collapse_load",  "last_surviving",  "cap_threshold",
      "best",        "best_ratio", "ratio",          "ratio_to_best",   "sleep",
      "max",         "min",        "exponent",       "quadratic_share", "check_error",
      "first_retry", "at_best",    "max_of",         "min_of",          "difference_of",
      "ratio_of",    "growth",     "exponent_trend", "affine_r2",       "argmin"};
  return m;
}

double number(const std::string& id, const std::string& key, const toml::node& v) {
  const auto x = v.value<double>();
  if (!x || std::isnan(*x)) bad(id, key, "must be a number (got " + node_text(v) + ")");
  return *x;
}

// A query key of a statement or reading; false when `k` is not one.
bool parse_query_key(const std::string& id, const std::string& k, const toml::node& v, Query& q) {
  if (k == "sweep")
    q.sweep = node_text(v);
  else if (k == "measure") {
    q.measure = node_text(v);
    if (std::find(measures().begin(), measures().end(), q.measure) == measures().end())
      bad(id, k, fmt::format("must be one of {} (got {})", fmt::join(measures(), ", "), q.measure));
  } else if (k == "metric")
    q.metric = node_text(v);
  else if (k == "field")
    q.field = node_text(v);
  else if (k == "by")
    q.by = node_text(v);
  else if (k == "per")
    q.per = node_text(v);
  else if (k == "where")
    q.where = parse_fields(id, k, v);
  else if (k == "over")
    q.over = parse_fields(id, k, v);
  else if (k == "upto")
    q.upto = parse_bounds(id, k, v);
  else if (k == "from")
    q.from = parse_bounds(id, k, v);
  else if (k == "of")
    q.of = texts(v);
  else if (k == "k") {
    const auto x = v.value<std::int64_t>();
    if (!x || *x < 1) bad(id, k, "must be an integer >= 1 (got " + node_text(v) + ")");
    q.k = *x;
  } else if (k == "threshold")
    q.threshold = number(id, k, v);
  else if (k == "scale")
    q.scale = number(id, k, v);
  else if (k == "offset")
    q.offset = number(id, k, v);
  else
    return false;
  return true;
}

const char* const statement_keys =
    "id, statement, quote, published, compare, within, to, paper_runs, untested, search, reading, sweep, measure, "
    "metric, field, by, per, where, over, upto, from, of, k, threshold, scale, offset";

Compare parse_compare(const std::string& id, const std::string& c) {
  if (c == "equal") return Compare::equal;
  if (c == "below") return Compare::below;
  if (c == "above") return Compare::above;
  if (c == "at_least") return Compare::at_least;
  if (c == "at_most") return Compare::at_most;
  if (c == "range") return Compare::range;
  bad(id, "compare", "must be equal, below, above, at_least, at_most or range (got " + c + ")");
}

Search parse_search(const std::string& id, const std::string& s) {
  const std::string b = s.rfind("over.", 0) == 0 ? s.substr(5) : s;
  if (s == "k" || ((b.rfind("upto.", 0) == 0 || b.rfind("from.", 0) == 0) && b.size() > 5)) return {s};
  bad(id, "search", "must list k, upto.FIELD, from.FIELD, over.upto.FIELD or over.from.FIELD (got " + s + ")");
}

Statement parse_statement(const toml::table& t, std::size_t index) {
  Statement s;
  s.id = t["id"].value<std::string>().value_or("");
  if (s.id.empty()) throw InputError(fmt::format("statement {}", index + 1), "has no id");
  std::string within, to;
  for (const auto& [key, v] : t) {
    const std::string k(key.str());
    if (k == "id") continue;
    if (k == "statement")
      s.statement = node_text(v);
    else if (k == "quote")
      s.quote = node_text(v);
    else if (k == "published")
      s.published_text = node_text(v);
    else if (k == "compare")
      s.compare = parse_compare(s.id, node_text(v));
    else if (k == "within")
      within = node_text(v);
    else if (k == "to")
      to = node_text(v);
    else if (k == "paper_runs") {
      const auto x = v.value<std::int64_t>();
      if (!x || *x < 1) bad(s.id, k, "must be an integer >= 1: the runs the paper states (got " + node_text(v) + ")");
      s.paper_runs = *x;
    } else if (k == "untested")
      s.untested = node_text(v);
    else if (k == "search")
      for (const auto& x : texts(v)) s.searches.push_back(parse_search(s.id, x));
    else if (k != "reading" && !parse_query_key(s.id, k, v, s.query))
      bad(s.id, k, fmt::format("is not a statement key ({})", statement_keys));
  }
  if (!s.published_text.empty() || s.untested.empty())  // an untested claim may have no number
    parse_published(s.id, s.published_text, s.published, s.half_width);
  if (!within.empty()) s.half_width = std::stod(within);
  if (s.compare == Compare::range) {
    double h = 0;
    if (to.empty()) bad(s.id, "to", "is required with compare = range: the upper end, as printed");
    parse_published(s.id, to, s.to, h);
  }
  if (s.untested.empty() && s.query.sweep.empty() && s.query.of.empty())
    bad(s.id, "sweep", "must name a sweep of study.toml (or of = other statements, or untested = reason)");
  if (const toml::array* rs = t["reading"].as_array())
    for (const auto& rn : *rs) {
      const toml::table* rt = rn.as_table();
      if (!rt) bad(s.id, "reading", "must be a table");
      Reading r{"", "", s.query};
      for (const auto& [key, v] : *rt) {
        const std::string k(key.str());
        if (k == "label")
          r.label = node_text(v);
        else if (k == "setting")
          r.setting = node_text(v);
        else if (!parse_query_key(s.id, k, v, r.query))
          bad(s.id, "reading." + k, "is not a reading key (label, setting, or a query key of a statement)");
      }
      if (r.label.empty()) bad(s.id, "reading.label", "is required: what the reading is, in a few words");
      s.readings.push_back(std::move(r));
    }
  return s;
}

Number parse_number(const toml::table& t, std::size_t index) {
  Number n;
  const std::string where = fmt::format("number {}", index + 1);
  for (const auto& [key, v] : t) {
    const std::string k(key.str());
    if (k == "text")
      n.text = node_text(v);
    else if (k == "at")
      n.at = node_text(v);
    else if (k == "skip")
      n.skip = node_text(v);
    else if (k == "statement")
      n.statements = texts(v);
    else
      throw InputError(where + ": " + k, "is not a key of a number (text, at, statement, skip)");
  }
  if (n.text.empty()) throw InputError(where + ": text", "is required: the number as the paper prints it");
  if (n.statements.empty() && n.skip.empty())
    throw InputError(fmt::format("number {} ({}, \"{}\")", index + 1, n.text, n.at),
                     "has neither a statement nor a reason to skip it (statement = ID or skip = \"why\")");
  return n;
}

}  // namespace

std::string Search::setting() const {
  if (name == "k") return "the collapse threshold K";
  const bool over = name.rfind("over.", 0) == 0;
  const std::string b = over ? name.substr(5) : name;
  std::string field = b.substr(5);
  if (const auto colon = field.find(':'); colon != std::string::npos)
    field = field.substr(0, colon) + " (as a multiple of " + field.substr(colon + 1) + ")";
  return fmt::format("the {} {} of the {}", b.rfind("upto.", 0) == 0 ? "largest" : "smallest", field,
                     over ? "search compared against" : "range");
}

void parse_published(const std::string& id, const std::string& text, double& value, double& half_width) {
  std::string t;
  for (char c : text)
    if (c != ',' && c != ' ') t += c;
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  std::size_t used = 0;
  try {
    value = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != t.size())
    bad(id, "published", "must be a number as printed, e.g. \"7.4\", \"90,000\" or \"15%\" (got " + text + ")");
  double unit = 1.0;
  if (const auto dot = t.find('.'); dot != std::string::npos)
    unit = std::pow(10.0, -static_cast<double>(t.size() - dot - 1));
  else
    for (std::size_t i = t.size(); i > 1 && t[i - 1] == '0'; --i) unit *= 10.0;
  half_width = unit / 2.0;
  if (percent) {
    value /= 100.0;
    half_width /= 100.0;
  }
}

Statements load(const fs::path& file) {
  toml::table root;
  try {
    root = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    throw SpecError("toml", std::string(e.description()), file.string(),
                    static_cast<std::int64_t>(e.source().begin.line));
  }
  Statements out;
  for (const auto& [k, v] : root)
    if (k.str() != "statement" && k.str() != "number" && k.str() != "paper")
      throw SpecError(std::string(k.str()), "is not a key of a statements file (statement, number, paper)",
                      file.string(), static_cast<std::int64_t>(v.source().begin.line));
  if (const toml::table* paper = root["paper"].as_table())
    at_line(file, static_cast<std::int64_t>(paper->source().begin.line), [&] {
      for (const auto& [k, v] : *paper) {
        if (k.str() != "runs" || !v.is_table())
          throw InputError("paper." + std::string(k.str()), "is not a key of [paper] (runs = { SWEEP = N, ... })");
        for (const auto& [sweep, n] : *v.as_table()) {
          const auto x = n.value<std::int64_t>();
          if (!x || *x < 1) throw InputError("paper.runs." + std::string(sweep.str()), "must be an integer >= 1");
          out.paper_runs[std::string(sweep.str())] = *x;
        }
      }
    });
  const toml::array* arr = root["statement"].as_array();
  if (!arr) throw InputError(file.string(), "must hold [[statement]] tables");
  std::set<std::string> ids;
  for (const auto& n : *arr) {
    const auto line = static_cast<std::int64_t>(n.source().begin.line);
    at_line(file, line, [&] {
      if (!n.is_table()) throw InputError("statement", "must be a table");
      out.list.push_back(parse_statement(*n.as_table(), out.list.size()));
      out.list.back().line = line;
      if (!ids.insert(out.list.back().id).second) bad(out.list.back().id, "id", "is given twice");
    });
  }
  if (const toml::array* nums = root["number"].as_array())
    for (const auto& n : *nums) {
      const auto line = static_cast<std::int64_t>(n.source().begin.line);
      at_line(file, line, [&] {
        if (!n.is_table()) throw InputError("number", "must be a table");
        out.numbers.push_back(parse_number(*n.as_table(), out.numbers.size()));
        out.numbers.back().line = line;
        for (const auto& id : out.numbers.back().statements)
          if (!ids.count(id))
            throw InputError(fmt::format("number {} ({})", out.numbers.size(), out.numbers.back().text),
                             "names no statement of the file (got " + id + ")");
      });
    }
  for (const auto& s : out.list)
    at_line(file, s.line, [&] {
      for (const auto& o : s.query.of)
        if (!ids.count(o) || o == s.id) bad(s.id, "of", "must name other statements of the file (got " + o + ")");
    });
  return out;
}

}  // namespace retrylab::papers::published

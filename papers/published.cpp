#include "papers/published.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>
#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "analytic/error.hpp"
#include "montecarlo/fields.hpp"
#include "papers/intervals.hpp"
#include "papers/report/sweeps.hpp"
#include "papers/store.hpp"

namespace retrylab::papers {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

// What to compute: a measure over the points of one sweep that match `where` (a value per scenario
// field, an array meaning any of them) and `upto` (field <= bound).
struct Query {
  std::string sweep, measure = "value", metric, field = "q50";
  std::map<std::string, std::vector<std::string>> where, over;
  std::map<std::string, double> upto;
  std::int64_t k = 0;   // collapse threshold K (0: the sweep's own collapse)
  double scale = 1.0;   // the reproduced value is multiplied by it (e.g. 1/B for cap / burst)
  double offset = 0.0;  // then this is added (e.g. 1 turns the exponent of work per client into total work's)
};

struct Reading {
  std::string label;
  Query query;
};

struct Statement {
  std::int64_t line = 0;  // in the statements file, for errors
  std::string id, statement, quote, published_text, compare = "equal", untested;
  double published = nan, half_width = nan;
  Query query;
  std::vector<Reading> readings;
};

struct Value {
  Estimate e{nan, nan, nan};
  std::string note;  // e.g. the best point, or "at the grid's edge"
  bool edge = false;
};

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

std::map<std::string, std::vector<std::string>> parse_where(const std::string& id, const std::string& key,
                                                            const toml::node& n) {
  const toml::table* t = n.as_table();
  if (!t) bad(id, key, "must be a table of scenario fields");
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [k, v] : *t) {
    auto& vals = out[std::string(k.str())];
    if (const toml::array* a = v.as_array())
      for (const auto& x : *a) vals.push_back(node_text(x));
    else
      vals.push_back(node_text(v));
  }
  return out;
}

void parse_query(const std::string& id, const toml::table& t, Query& q) {
  static const std::vector<std::string> measures = {"value",         "reached", "collapse_load", "last_surviving",
                                                    "cap_threshold", "best",    "best_ratio",    "ratio",
                                                    "ratio_to_best", "sleep",   "max",           "min",
                                                    "exponent"};
  for (const auto& [key, v] : t) {
    const std::string k(key.str());
    if (k == "sweep")
      q.sweep = node_text(v);
    else if (k == "measure") {
      q.measure = node_text(v);
      if (std::find(measures.begin(), measures.end(), q.measure) == measures.end())
        bad(id, k,
            "must be one of value, reached, collapse_load, last_surviving, cap_threshold, best, best_ratio, ratio, "
            "ratio_to_best, sleep, max, min, exponent (got " +
                q.measure + ")");
    } else if (k == "metric")
      q.metric = node_text(v);
    else if (k == "field")
      q.field = node_text(v);
    else if (k == "where")
      q.where = parse_where(id, k, v);
    else if (k == "over")
      q.over = parse_where(id, k, v);
    else if (k == "upto") {
      for (const auto& [f, b] : parse_where(id, k, v)) q.upto[f] = std::stod(b.at(0));
    } else if (k == "k")
      q.k = v.value<std::int64_t>().value_or(0);
    else if (k == "scale")
      q.scale = v.value<double>().value_or(nan);
    else if (k == "offset")
      q.offset = v.value<double>().value_or(nan);
    else if (k != "label" && k != "id" && k != "statement" && k != "quote" && k != "published" && k != "compare" &&
             k != "within" && k != "untested" && k != "reading")
      bad(id, k,
          "is not a statement key (id, statement, quote, published, compare, within, untested, sweep, measure, "
          "metric, field, where, over, upto, k, scale, offset, reading)");
  }
}

// "7.4" -> 7.4 ± 0.05; "90,000" -> ± 500 (an integer's trailing zeros are not significant);
// "15%" -> 0.15 ± 0.005.
void parse_published(Statement& s, const std::string& text) {
  std::string t;
  for (char c : text)
    if (c != ',' && c != ' ') t += c;
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  std::size_t used = 0;
  try {
    s.published = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != t.size())
    bad(s.id, "published", "must be a number as printed, e.g. \"7.4\", \"90,000\" or \"15%\" (got " + text + ")");
  double unit = 1.0;
  if (const auto dot = t.find('.'); dot != std::string::npos)
    unit = std::pow(10.0, -static_cast<double>(t.size() - dot - 1));
  else
    for (std::size_t i = t.size(); i > 1 && t[i - 1] == '0'; --i) unit *= 10.0;
  s.half_width = unit / 2.0;
  if (percent) {
    s.published /= 100.0;
    s.half_width /= 100.0;
  }
}

Statement parse_statement(const toml::table& t, std::size_t index);

std::vector<Statement> load(const fs::path& file) {
  toml::table root;
  try {
    root = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    throw InputError(file.string(), std::string(e.description()));
  }
  std::vector<Statement> out;
  const toml::array* arr = root["statement"].as_array();
  if (!arr) throw InputError(file.string(), "must hold [[statement]] tables");
  for (const auto& n : *arr) {
    const toml::table& t = *n.as_table();
    const auto line = static_cast<std::int64_t>(n.source().begin.line);
    out.push_back(at_line(file, line, [&] { return parse_statement(t, out.size()); }));
    out.back().line = line;
  }
  return out;
}

Statement parse_statement(const toml::table& t, std::size_t index) {
  Statement s;
  s.id = t["id"].value<std::string>().value_or("");
  if (s.id.empty()) throw InputError(fmt::format("statement {}", index + 1), "has no id");
  s.statement = t["statement"].value<std::string>().value_or("");
  s.quote = t["quote"].value<std::string>().value_or("");
  s.compare = t["compare"].value<std::string>().value_or("equal");
  if (s.compare != "equal" && s.compare != "below" && s.compare != "above")
    bad(s.id, "compare", "must be equal, below or above (got " + s.compare + ")");
  s.untested = t["untested"].value<std::string>().value_or("");
  if (const toml::node* p = t.get("published")) s.published_text = node_text(*p);
  parse_published(s, s.published_text);
  if (auto w = t["within"].value<double>()) s.half_width = *w;
  parse_query(s.id, t, s.query);
  if (s.untested.empty() && s.query.sweep.empty())
    bad(s.id, "sweep", "must name a sweep of study.toml (or give untested = reason)");
  if (const toml::array* rs = t["reading"].as_array())
    for (const auto& rn : *rs) {
      Reading r{rn.as_table()->at("label").value<std::string>().value_or(""), s.query};
      parse_query(s.id, *rn.as_table(), r.query);
      s.readings.push_back(std::move(r));
    }
  return s;
}

// ---- The results of one study, indexed by sweep ----

struct Point {
  std::map<std::string, std::string> fields;  // from the canonical scenario string (in the record's unit)
  const json* rec;
  bool engine = false;  // an engine scenario: a field it does not show is at its default
};

std::map<std::string, std::string> parse_canonical(const std::string& text) {
  std::map<std::string, std::string> f;
  std::istringstream is(text);
  for (std::string kv; is >> kv;)
    if (const auto eq = kv.find('='); eq != std::string::npos) f[kv.substr(0, eq)] = kv.substr(eq + 1);
  // A dependency scenario's one outage "outages=[start,end,failure]" is selectable by its failure.
  if (const auto o = f.find("outages"); o != f.end() && o->second.size() > 2) {
    const std::string inner = o->second.substr(1, o->second.size() - 2);
    if (const auto comma = inner.rfind(','); comma != std::string::npos) f["outage_failure"] = inner.substr(comma + 1);
  }
  return f;
}

bool same_value(const std::string& a, const std::string& b) {
  if (a == b) return true;
  char* ea = nullptr;
  char* eb = nullptr;
  const double x = std::strtod(a.c_str(), &ea), y = std::strtod(b.c_str(), &eb);
  if (*ea || *eb || ea == a.c_str() || eb == b.c_str())
    return (a == "none" && b == "inf") || (a == "inf" && b == "none");
  return x == y;
}

// True for the engine's models (not "layered", nor the records of removed simulators).
bool is_engine_model(const std::string& model) {
  try {
    montecarlo::parse_field(*montecarlo::find_field("model"), model);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// A field of an engine scenario that its canonical string leaves out is at its default (fields.hpp).
std::optional<std::string> default_of(const Point& p, const std::string& f) {
  const montecarlo::Field* field = p.engine ? montecarlo::find_field(f) : nullptr;
  if (field == nullptr) return std::nullopt;
  return montecarlo::format_field(*field, field->get(montecarlo::Scenario{}));
}

double field_num(const Point& p, const std::string& f) {
  const auto it = p.fields.find(f);
  if (it == p.fields.end()) {
    const auto d = default_of(p, f);
    if (!d) return nan;
    return *d == "none" ? inf : std::strtod(d->c_str(), nullptr);
  }
  if (it->second == "none" || it->second == "inf") return inf;
  return std::strtod(it->second.c_str(), nullptr);
}

class Results {
 public:
  Results(const StudySpec& spec, const fs::path& dir) : spec_(spec), all_(read_results(dir / "results.jsonl")) {
    for (const auto& [key, rec] : all_) {
      std::string text;
      if (rec.contains("canonical"))
        text = rec.at("canonical").get<std::string>();
      else if (rec.at("scenario").is_string())
        text = rec.at("scenario").get<std::string>();
      Point p{parse_canonical(text), &rec};
      const auto model = p.fields.find("model");
      p.engine = model != p.fields.end() && is_engine_model(model->second);
      // A sweep written in ms or s: its record's scenario object holds the values in that unit.
      if (rec.contains("attempt_duration") && rec.at("scenario").is_object())
        for (const auto& [k, v] : rec.at("scenario").items())
          p.fields[k] = v.is_string() ? v.get<std::string>() : fmt::format("{}", v.get<double>());
      by_sweep_[key.first].push_back(std::move(p));
    }
  }
  const std::string& scale() const { return spec_.scale; }
  const SweepSpec& sweep(const std::string& id, const std::string& name) const {
    for (const auto& s : spec_.sweeps)
      if (s.name == name) return s;
    bad(id, "sweep", "names no sweep of the study (got " + name + ")");
  }
  // False when the study runs at a reduced scale and the query's points are not on its coarser grid
  // (a statement at settings only the full scale runs is then not tested, not an error).
  bool covers(const std::string& id, const Query& q) const {
    if (spec_.scale != "quick") return true;
    return !select(id, q, q.where).empty() && (q.over.empty() || !select(id, q, q.over).empty());
  }
  std::vector<Point> select(const std::string& id, const Query& q,
                            const std::map<std::string, std::vector<std::string>>& where) const {
    sweep(id, q.sweep);
    std::vector<Point> out;
    const auto it = by_sweep_.find(q.sweep);
    if (it == by_sweep_.end()) return out;
    for (const auto& p : it->second) {
      bool ok = true;
      for (const auto& [f, vals] : where) {
        const auto fv = p.fields.find(f);
        const std::optional<std::string> value = fv != p.fields.end() ? fv->second : default_of(p, f);
        ok = ok && value &&
             std::any_of(vals.begin(), vals.end(), [&](const std::string& v) { return same_value(*value, v); });
      }
      for (const auto& [f, b] : q.upto) ok = ok && field_num(p, f) <= b + 1e-12;
      if (ok) out.push_back(p);
    }
    return out;
  }

 private:
  const StudySpec& spec_;
  std::map<std::pair<std::string, std::int64_t>, json> all_;
  std::map<std::string, std::vector<Point>> by_sweep_;
};

const json& entry(const std::string& id, const Point& p, const std::string& metric) {
  const json& s = p.rec->at("summary");
  if (!s.contains(metric)) bad(id, "metric", "is not recorded by the sweep (got " + metric + ")");
  return s.at(metric);
}

Estimate value_of(const std::string& id, const Point& p, const std::string& metric) {
  const json& e = entry(id, p, metric);
  Estimate est = intervals::for_metric(metric, e);
  if (e.contains("fraction")) est.mean = e.at("fraction").get<double>();
  return est;
}

// The fraction of runs of a steady point whose peak backlog reached K (Wilson interval).
Estimate reached(const std::string& id, const Point& p, std::int64_t k) {
  if (!p.rec->contains("per_run") || !p.rec->at("per_run").contains("max_waiting"))
    bad(id, "measure", "reached needs the per-run max_waiting of a steady sweep");
  const auto& mw = p.rec->at("per_run").at("max_waiting");
  std::int64_t hits = 0;
  for (const auto& x : mw) hits += x.get<double>() >= static_cast<double>(k) ? 1 : 0;
  return intervals::wilson(hits, static_cast<std::int64_t>(mw.size()));
}

Estimate ratio(const Estimate& a, double sda, double na, const Estimate& b, double sdb, double nb) {
  const double r = a.mean / b.mean;
  const double ra = sda / a.mean, rb = sdb / b.mean;
  const double se = std::sqrt(ra * ra / na + rb * rb / nb);
  if (!(se > 0.0)) return {r, r, r};
  return {r, r * std::exp(-1.96 * se), r * std::exp(1.96 * se)};
}

// "field value, ...", a number in four significant digits (a window of 100·√2 reads 141.4).
std::string describe(const Point& p, const std::vector<std::string>& fields) {
  std::string s;
  for (const auto& f : fields)
    if (p.fields.count(f)) {
      const std::string& v = p.fields.at(f);
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      s += (s.empty() ? "" : ", ") + f + " " + (end != v.c_str() && *end == '\0' ? format_number(x) : v);
    }
  return s;
}

// The searched fields of a best point that sit at the edge of their values among the candidates. No
// backoff (strategy none: no sleep at all) is the physical limit of every search, not an edge.
std::vector<std::string> edges(const Point& best, const std::vector<Point>& cands) {
  std::vector<std::string> out;
  if (best.fields.count("strategy") && best.fields.at("strategy") == "none") return out;
  for (const char* f : {"base", "cap", "window"}) {
    std::vector<double> vals;
    for (const auto& c : cands) vals.push_back(field_num(c, f));
    const auto [lo, hi] = std::minmax_element(vals.begin(), vals.end());
    if (vals.empty() || *lo == *hi) continue;
    const double v = field_num(best, f);  // "none" (no cap) is an end with nothing beyond it
    if (v == *lo || (v == *hi && std::isfinite(v))) out.push_back(fmt::format("{} {}", f, best.fields.at(f)));
  }
  return out;
}

struct Best {
  std::optional<Point> point;
  std::vector<Point> candidates;
};

Best best_of(const std::string& id, const Results& r, const Query& q,
             const std::map<std::string, std::vector<std::string>>& where) {
  Best b;
  b.candidates = r.select(id, q, where);
  double lowest = inf;
  for (const auto& p : b.candidates) {
    const json& mk = entry(id, p, "makespan");
    if (mk.at("n").get<std::int64_t>() != p.rec->at("runs").get<std::int64_t>()) continue;  // a run did not finish
    const double m = entry(id, p, q.metric).at("mean").get<double>();
    if (m < lowest) lowest = m, b.point = p;
  }
  return b;
}

// How a best point is named: no backoff as the zero-sleep limit of the search.
std::string best_name(const Point& p, const std::vector<std::string>& fields) {
  if (p.fields.count("strategy") && p.fields.at("strategy") == "none")
    return "no backoff (no sleep at all: the physical limit of the search)";
  return describe(p, fields);
}

Value best_value(const std::string& id, const Results& r, const Query& q,
                 const std::map<std::string, std::vector<std::string>>& where) {
  const Best b = best_of(id, r, q, where);
  if (!b.point) return {{nan, nan, nan}, "no point where every run finished"};
  Value v{value_of(id, *b.point, q.metric), "best at " + best_name(*b.point, {"strategy", "base", "cap", "window"})};
  const auto e = edges(*b.point, b.candidates);
  if (!e.empty()) {
    v.edge = true;
    v.note += " (at the grid's edge: " + fmt::format("{}", fmt::join(e, ", ")) + ")";
  }
  return v;
}

std::vector<Point> sorted_by(std::vector<Point> ps, const std::string& f) {
  std::sort(ps.begin(), ps.end(), [&](const Point& a, const Point& b) { return field_num(a, f) < field_num(b, f); });
  return ps;
}

std::int64_t collapse_k(const Query& q, const Point& p) {
  if (q.k > 0) return q.k;
  const auto f = p.fields.find("collapse");
  return f == p.fields.end() ? 3000 : std::stoll(f->second);
}

Value compute(const std::string& id, const Results& r, const Query& q) {
  const auto pts = r.select(id, q, q.where);
  const auto one = [&]() -> const Point& {
    if (pts.size() != 1)
      bad(id, "where", fmt::format("must select one point of sweep {} (selects {})", q.sweep, pts.size()));
    return pts.front();
  };
  Value v;
  if (q.measure == "value") {
    v.e = value_of(id, one(), q.metric);
    const json& sum = one().rec->at("summary");
    if (q.metric.rfind("drain_time", 0) == 0 && sum.contains("drained") &&
        sum.at("drained").at("fraction").get<double>() < 1.0)
      v.note =
          fmt::format("only {} of {} runs drained within the horizon {} (the time is theirs)",
                      sum.at("drained").at("count").get<std::int64_t>(), sum.at("drained").at("n").get<std::int64_t>(),
                      one().fields.count("horizon") ? one().fields.at("horizon") : "?");
  } else if (q.measure == "reached")
    v.e = reached(id, one(), collapse_k(q, one()));
  else if (q.measure == "sleep") {
    const double x = one().rec->at("sleep").at(q.field).get<double>();
    v.e = {x, nan, nan};
  } else if (q.measure == "collapse_load" || q.measure == "last_surviving") {
    const auto ps = sorted_by(pts, "rate");
    if (ps.empty()) bad(id, "where", "selects no point of sweep " + q.sweep);
    // The one definition of the sustainable load (docs/study-spec.md), the steady tables' own rule.
    std::vector<double> collapsed;
    for (const auto& p : ps) collapsed.push_back(reached(id, p, collapse_k(q, p)).mean);
    const std::ptrdiff_t j = report::last_surviving(collapsed), n = static_cast<std::ptrdiff_t>(ps.size());
    const double first = j + 1 < n ? field_num(ps[static_cast<std::size_t>(j + 1)], "rate") : nan;
    const double before = j >= 0 ? field_num(ps[static_cast<std::size_t>(std::min(j, n - 1))], "rate") : nan;
    v.e = {q.measure == "collapse_load" ? first : before, nan, nan};
    if (std::isnan(first))
      v.note = "no load of the grid collapses", v.edge = true;
    else if (std::isnan(before))
      v.note = "the grid's first load collapses", v.edge = true;
  } else if (q.measure == "cap_threshold") {
    const auto ps = sorted_by(pts, "cap");
    if (ps.empty()) bad(id, "where", "selects no point of sweep " + q.sweep);
    double cap = inf;
    for (const auto& p : ps)
      if (entry(id, p, "drained").at("fraction").get<double>() == 1.0) {
        cap = field_num(p, "cap");
        break;
      }
    v.e = {cap, nan, nan};
    if (std::isinf(cap))
      v.note = fmt::format("no cap up to {} drains every run", ps.back().fields.at("cap")), v.edge = true;
    else if (cap == field_num(ps.back(), "cap"))
      v.note = "at the grid's largest cap", v.edge = true;
  } else if (q.measure == "best")
    v = best_value(id, r, q, q.where);
  else if (q.measure == "best_ratio") {
    const Best a = best_of(id, r, q, q.where), b = best_of(id, r, q, q.over);
    if (!a.point || !b.point) return {{nan, nan, nan}, "no point where every run finished"};
    const json& ea = entry(id, *a.point, q.metric);
    const json& eb = entry(id, *b.point, q.metric);
    v.e = ratio(value_of(id, *a.point, q.metric), ea.at("sd").get<double>(), ea.at("n").get<double>(),
                value_of(id, *b.point, q.metric), eb.at("sd").get<double>(), eb.at("n").get<double>());
    v.note = "best " + best_name(*a.point, {"strategy", "base", "cap"}) + " against " + best_name(*b.point, {"window"});
    auto e = edges(*a.point, a.candidates);
    for (const auto& x : edges(*b.point, b.candidates)) e.push_back(x);
    if (!e.empty()) v.edge = true, v.note += " (at the grid's edge: " + fmt::format("{}", fmt::join(e, ", ")) + ")";
  } else if (q.measure == "ratio") {
    const Point& a = one();
    const auto bs = r.select(id, q, q.over);
    if (bs.size() != 1) bad(id, "over", fmt::format("must select one point (selects {})", bs.size()));
    const json& ea = entry(id, a, q.metric);
    const json& eb = entry(id, bs.front(), q.metric);
    v.e = ratio(value_of(id, a, q.metric), ea.value("sd", 0.0), ea.at("n").get<double>(),
                value_of(id, bs.front(), q.metric), eb.value("sd", 0.0), eb.at("n").get<double>());
  } else if (q.measure == "ratio_to_best") {
    // One point's mean over the lowest mean among the `over` points (any strategy or cap).
    const Point& a = one();
    const auto bs = r.select(id, q, q.over);
    const auto mean = [&](const Point& p) {
      const json& e = entry(id, p, q.metric);
      return e.contains("mean") && e.at("mean").is_number() ? e.at("mean").get<double>() : nan;
    };
    const Point* b = nullptr;
    for (const auto& p : bs)
      if (!std::isnan(mean(p)) && (!b || mean(p) < mean(*b))) b = &p;
    if (!b) bad(id, "over", "selects no point with a value of " + q.metric);
    const json& ea = entry(id, a, q.metric);
    const json& eb = entry(id, *b, q.metric);
    v.e = ratio(value_of(id, a, q.metric), ea.value("sd", 0.0), ea.at("n").get<double>(), value_of(id, *b, q.metric),
                eb.value("sd", 0.0), eb.at("n").get<double>());
    v.note = "the fastest other: " + describe(*b, {"strategy", "cap"});
  } else if (q.measure == "max" || q.measure == "min") {
    if (pts.empty()) bad(id, "where", "selects no point of sweep " + q.sweep);
    std::optional<Estimate> pick;
    for (const auto& p : pts) {
      const Estimate e = value_of(id, p, q.metric);
      const double m = std::isnan(e.mean) ? inf : e.mean;  // no finished run: unbounded
      const double cur = pick ? (std::isnan(pick->mean) ? inf : pick->mean) : nan;
      if (!pick || (q.measure == "max" ? m > cur : m < cur)) pick = e;
    }
    v.e = *pick;
  } else if (q.measure == "exponent") {
    // Least-squares slope of log(mean metric) against log(clients), with its t interval.
    std::vector<double> x, y;
    for (const auto& p : pts)
      x.push_back(std::log(field_num(p, "clients"))), y.push_back(std::log(value_of(id, p, q.metric).mean));
    const double n = static_cast<double>(x.size());
    if (n < 3) bad(id, "where", "exponent needs at least 3 client counts");
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n;
    double sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) sxx += (x[i] - mx) * (x[i] - mx), sxy += (x[i] - mx) * (y[i] - my);
    const double b = sxy / sxx;
    double rss = 0;
    for (std::size_t i = 0; i < x.size(); ++i) rss += std::pow(y[i] - my - b * (x[i] - mx), 2);
    const double se = std::sqrt(rss / (n - 2) / sxx);
    const double t = boost::math::quantile(boost::math::students_t(n - 2), 0.975);
    v.e = {b, b - t * se, b + t * se};
  }
  v.e = {v.e.mean * q.scale + q.offset, v.e.lo * q.scale + q.offset, v.e.hi * q.scale + q.offset};
  return v;
}

std::string verdict(const Statement& s, const Estimate& e) {
  const double lo = s.published - s.half_width, hi = s.published + s.half_width;
  const bool has_ci = !std::isnan(e.lo);
  if (std::isnan(e.mean)) return "differs";
  // A bound holds when the whole interval is on its side, is within noise when the interval straddles it.
  if (s.compare == "below")
    return (has_ci ? e.hi : e.mean) < s.published ? "holds"
                                                  : (has_ci && e.lo < s.published ? "within noise" : "differs");
  if (s.compare == "above")
    return (has_ci ? e.lo : e.mean) > s.published ? "holds"
                                                  : (has_ci && e.hi > s.published ? "within noise" : "differs");
  if (e.mean >= lo && e.mean <= hi) return "holds";
  if (has_ci && e.lo <= hi && e.hi >= lo) return "within noise";
  return "differs";
}

std::string shown(const Estimate& e) { return format_number(e.mean); }

PublishedRow evaluate(const Statement& s, const Results& r) {
  PublishedRow row{s.id, s.statement, s.quote, s.published_text, {nan, nan, nan}, "not tested", s.untested};
  if (!s.untested.empty()) return row;
  if (!r.covers(s.id, s.query)) {
    row.reason = "the " + r.scale() + " scale's grid has no point at these settings (the full scale has)";
    return row;
  }
  const Value v = compute(s.id, r, s.query);
  row.reproduced = v.e;
  row.verdict = verdict(s, v.e);
  std::vector<std::string> why;
  if (!v.note.empty()) why.push_back(v.note);
  if (row.verdict == "within noise") why.push_back("sampling noise: the published value is inside the 95% interval");
  if (row.verdict == "differs") {
    std::vector<std::string> tried;
    bool found = false;
    for (const auto& rd : s.readings) {
      if (!r.covers(s.id, rd.query)) continue;
      const Value alt = compute(s.id, r, rd.query);
      const std::string vd = verdict(s, alt.e);
      if (vd != "differs") {
        why.push_back(fmt::format("reproduced by another reading: {} gives {} ({})", rd.label, shown(alt.e), vd));
        found = true;
        break;
      }
      tried.push_back(fmt::format("{} gives {}", rd.label, shown(alt.e)));
    }
    if (!found)
      why.push_back(tried.empty() ? "no other reading is defined for it"
                                  : fmt::format("no reading reproduces it ({})", fmt::join(tried, "; ")));
  }
  row.reason = fmt::format("{}", fmt::join(why, "; "));
  return row;
}

}  // namespace

void check_statements(const fs::path& statements, const StudySpec& spec) {
  const auto known = [&](const std::string& name) {
    return std::any_of(spec.sweeps.begin(), spec.sweeps.end(), [&](const SweepSpec& s) { return s.name == name; });
  };
  for (const auto& s : load(statements))
    at_line(statements, s.line, [&] {
      if (!s.untested.empty()) return;
      if (!known(s.query.sweep)) bad(s.id, "sweep", "names no sweep of the study (got " + s.query.sweep + ")");
      for (const auto& r : s.readings)
        if (!known(r.query.sweep))
          bad(s.id, "reading sweep", "names no sweep of the study (got " + r.query.sweep + ")");
    });
}

std::vector<PublishedRow> compute_published(const fs::path& statements, const StudySpec& spec, const fs::path& dir) {
  const auto list = load(statements);
  const Results results(spec, dir);
  std::vector<PublishedRow> rows;
  for (const auto& s : list) rows.push_back(at_line(statements, s.line, [&] { return evaluate(s, results); }));
  return rows;
}

std::vector<fs::path> render_published(const fs::path& statements, const StudySpec& spec, const fs::path& dir) {
  const auto rows = compute_published(statements, spec, dir);
  Table t{"published",
          "Published against reproduced",
          {"statement", "quote", "published", "reproduced", "verdict", "reason"},
          {},
          {}};
  std::map<std::string, int> counts;
  std::vector<std::string> certs;
  for (const auto& [key, rec] : read_results(dir / "results.jsonl")) {
    const std::string c = rec.value("certificate", "");
    if (std::find(certs.begin(), certs.end(), c) == certs.end()) certs.push_back(c);
  }
  std::string differs;
  for (const auto& r : rows) {
    t.rows.push_back(
        {r.statement, "\"" + r.quote + "\"", r.published, r.reproduced, r.verdict, r.reason.empty() ? "–" : r.reason});
    ++counts[r.verdict];
    if (r.verdict == "differs" || r.verdict == "not tested")
      differs += fmt::format("- **{}** ({}: published {}, reproduced {}): {}\n", r.statement, r.verdict, r.published,
                             format_number(r.reproduced.mean), r.reason);
  }
  t.notes.push_back(
      "Reproduced at the paper's stated settings from this folder's results.jsonl (papers/published.hpp). Verdicts: "
      "holds = "
      "the reproduced value rounds to the published one (for a bound: its whole 95% interval is on the stated side); "
      "within noise = its interval reaches the published value (straddles the bound); differs = neither. Grid values "
      "(thresholds, best points, sleep quantiles of 200,000 draws) have no interval.");
  auto files = write_table(t, dir, certs);
  std::string summary =
      fmt::format("Of the {} statements, at this scale: {} hold, {} within noise, {} differ, {} not tested.\n",
                  rows.size(), counts["holds"], counts["within noise"], counts["differs"], counts["not tested"]);
  if (!differs.empty())
    summary += "\nThe statements that differ or are not tested, and the reason the study found:\n\n" + differs;
  write_file_atomic(dir / "published_summary.md", summary);
  files.push_back(dir / "published_summary.md");
  return files;
}

}  // namespace retrylab::papers

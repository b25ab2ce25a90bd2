#include "papers/published/results.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "analytic/error.hpp"
#include "montecarlo/fields.hpp"
#include "papers/intervals.hpp"
#include "papers/store.hpp"

namespace retrylab::papers::published {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

[[noreturn]] void bad_result(const std::string& id, const std::string& key, const std::string& rule) {
  throw InputError(fmt::format("statement {}: {}", id, key), rule);
}

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

}  // namespace

double field_num(const Point& p, const std::string& f) {
  if (const auto colon = f.find(':'); colon != std::string::npos)
    return field_num(p, f.substr(0, colon)) / field_num(p, f.substr(colon + 1));
  const auto it = p.fields.find(f);
  if (it == p.fields.end()) {
    const auto d = default_of(p, f);
    if (!d) return nan;
    return *d == "none" ? inf : std::strtod(d->c_str(), nullptr);
  }
  if (it->second == "none" || it->second == "inf") return inf;
  return std::strtod(it->second.c_str(), nullptr);
}

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

const json& entry(const std::string& id, const Point& p, const std::string& metric) {
  const json& s = p.rec->at("summary");
  if (!s.contains(metric)) bad_result(id, "metric", "is not recorded by the sweep (got " + metric + ")");
  return s.at(metric);
}

Estimate value_of(const std::string& id, const Point& p, const std::string& metric) {
  const json& e = entry(id, p, metric);
  Estimate est = intervals::for_metric(metric, e);
  if (e.contains("fraction")) est.mean = e.at("fraction").get<double>();
  return est;
}

std::int64_t runs_of(const std::string& id, const Point& p, const std::string& metric) {
  const json& e = entry(id, p, metric);
  return e.contains("n") && e.at("n").is_number() ? e.at("n").get<std::int64_t>() : 0;
}

std::vector<double> max_waiting(const std::string& id, const Point& p) {
  if (!p.rec->contains("per_run") || !p.rec->at("per_run").contains("max_waiting"))
    bad_result(id, "measure", "needs the per-run max_waiting of a steady sweep (per_run = [\"max_waiting\"])");
  std::vector<double> out;
  for (const auto& x : p.rec->at("per_run").at("max_waiting")) out.push_back(x.get<double>());
  return out;
}

Results::Results(const StudySpec& spec, const fs::path& dir) : spec_(spec), all_(read_results(dir / "results.jsonl")) {
  std::map<std::string, bool> engine_models;
  for (const auto& [key, rec] : all_) {
    std::string text;
    if (rec.contains("canonical"))
      text = rec.at("canonical").get<std::string>();
    else if (rec.at("scenario").is_string())
      text = rec.at("scenario").get<std::string>();
    Point p{parse_canonical(text), &rec};
    const auto model = p.fields.find("model");
    if (model != p.fields.end() && !engine_models.count(model->second))
      engine_models[model->second] = is_engine_model(model->second);
    p.engine = model != p.fields.end() && engine_models.at(model->second);
    // A sweep written in ms or s: its record's scenario object holds the values in that unit.
    if (rec.contains("attempt_duration") && rec.at("scenario").is_object())
      for (const auto& [k, v] : rec.at("scenario").items())
        p.fields[k] = v.is_string() ? v.get<std::string>() : fmt::format("{}", v.get<double>());
    by_sweep_[key.first].push_back(std::move(p));
  }
}

const SweepSpec& Results::sweep(const std::string& id, const std::string& name) const {
  for (const auto& s : spec_.sweeps)
    if (s.name == name) return s;
  bad_result(id, "sweep", "names no sweep of the study (got " + name + ")");
}

bool Results::has_sweep(const std::string& name) const {
  return std::any_of(spec_.sweeps.begin(), spec_.sweeps.end(), [&](const SweepSpec& s) { return s.name == name; });
}

bool Results::covers(const std::string& id, const Query& q) const {
  if (spec_.scale != "quick" || q.sweep.empty()) return true;
  return !select(id, q, q.where).empty() && (q.over.empty() || !select(id, q, q.over, true).empty());
}

std::vector<Point> Results::select(const std::string& id, const Query& q, const Fields& where, bool over_side) const {
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
    for (const auto& [f, b] : q.upto) ok = ok && field_num(p, f) <= b * (1 + 1e-12);
    for (const auto& [f, b] : q.from) ok = ok && field_num(p, f) >= b * (1 - 1e-12);
    if (over_side) {
      for (const auto& [f, b] : q.over_upto) ok = ok && field_num(p, f) <= b * (1 + 1e-12);
      for (const auto& [f, b] : q.over_from) ok = ok && field_num(p, f) >= b * (1 - 1e-12);
    }
    if (ok) out.push_back(p);
  }
  return out;
}

}  // namespace retrylab::papers::published

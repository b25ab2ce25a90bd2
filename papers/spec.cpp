#include "papers/spec.hpp"
#include "analytic/input_file.hpp"
#include "papers/spec_draft.hpp"
#include "papers/spec_policy.hpp"
#include "papers/spec_series.hpp"

#include "montecarlo/resources.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "montecarlo/fields.hpp"
#include "montecarlo/hash.hpp"

namespace retrylab::papers {

SpecError::SpecError(std::string key, const std::string& message, std::string file, std::int64_t line)
    : InputError(fmt::format("{}:{}: {}", file, line, key), message),
      file_(std::move(file)),
      line_(line),
      message_(message) {}

namespace {

using namespace spec_detail;

constexpr std::string_view kind_names[] = {"grid",   "checks",      "sleep",   "classic", "frontier",
                                           "steady", "burst",       "drain",   "brooker", "amplification",
                                           "budget", "idempotency", "breaker", "series"};
constexpr std::string_view kind_list =
    "grid, checks, sleep, classic, frontier, steady, burst, drain, brooker, amplification, budget, idempotency, "
    "breaker, series";

constexpr std::string_view sleep_fields[] = {"strategy", "base", "cap", "window", "multiplier"};

// A name as an error message shows it: on one line, a control character as \xNN, at most 80 bytes.
std::string visible(std::string_view name) {
  std::string o;
  for (char c : name.substr(0, 80)) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7f')
      o += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    else
      o += c;
  }
  return name.size() > 80 ? o + "..." : o;
}

std::string show(const toml::node& n) {
  std::ostringstream os;
  if (auto s = n.as_string()) return fmt::format("\"{}\"", visible(s->get()));
  if (n.is_table()) return "a table";
  if (n.is_array()) return "an array";
  n.visit([&os](const auto& v) { os << v; });
  return os.str();
}

[[noreturn]] void fail(const Where& w, const std::string& key, const toml::node& n, const std::string& rule) {
  throw SpecError(key, fmt::format("{} (got {})", rule, show(n)), w.file, w.line(n));
}

std::optional<double> as_number(const toml::node& n) {
  if (auto i = n.as_integer()) return static_cast<double>(i->get());
  if (auto f = n.as_floating_point()) return f->get();
  return std::nullopt;
}

double parse_field_value(const Where& w, const std::string& key, std::string_view field, const toml::node& n) {
  using montecarlo::FieldKind;
  const montecarlo::Field& f = *montecarlo::find_field(field);
  if (f.kind == FieldKind::text)  // one per sweep: the sweep's own key (papers/spec_series.hpp)
    fail(w, key, n, fmt::format("must be given once per sweep, as its {} key (not in a grid or a policy)", f.name));
  const bool numeric =
      f.kind == FieldKind::number || f.kind == FieldKind::integer || f.kind == FieldKind::number_or_none;
  try {
    if (auto str = n.as_string(); str && (!numeric || f.kind == FieldKind::number_or_none))
      return montecarlo::parse_field(f, str->get());
    if (auto b = n.as_boolean(); b && f.kind == FieldKind::on_off) return b->get() ? 1.0 : 0.0;
    const bool integral = n.is_integer();
    if (auto x = as_number(n); x && numeric && (integral || f.kind != FieldKind::integer)) {
      montecarlo::check_field(f, *x);
      return *x;
    }
  } catch (const InputError&) {
  }
  fail(w, key, n, montecarlo::field_rule(f));
}

const ExtField* find_ext_field(SweepKind kind, std::string_view name) {
  for (const auto& f : ext_fields(kind))
    if (f.name == name) return &f;
  return nullptr;
}

double parse_ext_value(const Where& w, const std::string& key, const ExtField& f, const toml::node& n) {
  switch (f.type) {
    case ExtType::integer:
      if (auto i = n.as_integer(); i && i->get() >= f.lo && i->get() <= f.hi) return static_cast<double>(i->get());
      fail(w, key, n, fmt::format("must be an integer in [{}, {}]", f.lo, f.hi));
    case ExtType::number:
      if (auto x = as_number(n); x && std::isfinite(*x)) return *x;
      fail(w, key, n, "must be a finite number");
  }
  fail(w, key, n, "has an unknown field type");
}

Axis parse_axis(const Where& w, const std::string& key, std::string_view field, const toml::node& n, SweepKind kind) {
  Axis a;
  a.key = key;
  a.line = w.line(n);
  const ExtField* ext = is_ext(kind) ? find_ext_field(kind, field) : nullptr;
  auto one = [&](const std::string& k, const toml::node& v) {
    return ext ? parse_ext_value(w, k, *ext, v) : parse_field_value(w, k, field, v);
  };
  if (auto arr = n.as_array()) {
    if (arr->empty()) fail(w, key, n, "must be a non-empty array or a single value");
    for (std::size_t i = 0; i < arr->size(); ++i) a.values.push_back(one(fmt::format("{}[{}]", key, i), *arr->get(i)));
  } else {
    a.values.push_back(one(key, n));
  }
  return a;
}

bool is_field(std::string_view k, SweepKind kind) {
  if (is_ext(kind)) return find_ext_field(kind, k) != nullptr;
  if (kind == SweepKind::sleep)
    return std::find(std::begin(sleep_fields), std::end(sleep_fields), k) != std::end(sleep_fields);
  return montecarlo::find_field(k) != nullptr;
}

std::int64_t get_int(const Where& w, const std::string& key, const toml::node& n, std::int64_t lo, std::int64_t hi) {
  if (auto i = n.as_integer(); i && i->get() >= lo && i->get() <= hi) return i->get();
  fail(w, key, n, fmt::format("must be an integer in [{}, {}]", lo, hi));
}

std::vector<std::string> get_names(const Where& w, const std::string& key, const toml::node& n,
                                   const std::vector<std::string>& allowed) {
  auto arr = n.as_array();
  if (!arr) fail(w, key, n, "must be an array of names");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    auto s = arr->get(i)->as_string();
    const std::string k = fmt::format("{}[{}]", key, i);
    if (!s || std::find(allowed.begin(), allowed.end(), s->get()) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      fail(w, k, *arr->get(i), "must be one of " + list);
    }
    out.push_back(s->get());
  }
  return out;
}

// Applies the keys of `t` (a sweep table or one of its scale tables) to the draft.
void apply(const Where& w, const std::string& prefix, const toml::table& t, Draft& d, bool is_scale) {
  for (const auto& [k, node] : t) {
    const std::string key = prefix + "." + std::string(k.str());
    const std::string_view name = k.str();
    if (name == "quick" || name == "full") {
      if (is_scale) fail(w, key, node, "is not allowed inside a scale table");
      if (!node.is_table()) fail(w, key, node, "must be a table of overrides");
      continue;  // applied by the caller
    }
    if (own_summary(d.kind) &&
        (name == "draws" || name == "retry_max" || name == "metrics" || name == "per_run" || name == "thresholds")) {
      std::string fields;
      if (is_ext(d.kind))
        for (const auto& f : ext_fields(d.kind)) fields += ", " + std::string(f.name);
      fail(w, key, node,
           fmt::format("is not a key of a {} sweep (kind, title, runs, seed, unit, attempt_duration, grid, quick, "
                       "full, {})",
                       to_string(d.kind), is_ext(d.kind) ? fields.substr(2) : std::string("or a scenario field")));
    }
    if (apply_series_key(w.file, key, name, node, d.kind, is_scale, d.series)) continue;
    if (name == "kind") {
      if (is_scale) fail(w, key, node, "cannot change with the scale");
      auto s = node.as_string();
      auto it = s ? std::find(std::begin(kind_names), std::end(kind_names), s->get()) : std::end(kind_names);
      if (it == std::end(kind_names)) fail(w, key, node, fmt::format("must be one of {}", kind_list));
      d.kind = static_cast<SweepKind>(it - std::begin(kind_names));
    } else if (name == "title") {
      auto s = node.as_string();
      if (!s) fail(w, key, node, "must be a string");
      d.title = s->get();
    } else if (name == "unit") {
      if (is_scale) fail(w, key, node, "cannot change with the scale");
      auto u = node.as_string();
      if (!u || (u->get() != "attempt" && u->get() != "ms" && u->get() != "s"))
        fail(w, key, node, "must be \"attempt\", \"ms\" or \"s\"");
      d.unit = u->get();
      d.unit_line = w.line(node);
    } else if (name == "attempt_duration") {
      if (is_scale) fail(w, key, node, "cannot change with the scale");
      auto x = as_number(node);
      if (!x || !(*x > 0.0) || !std::isfinite(*x))
        fail(w, key, node, "must be a finite number > 0 (in the sweep's unit)");
      d.attempt_duration = *x;
      d.unit_line = w.line(node);
    } else if (name == "policy" || name == "policy_select") {
      if (is_scale) fail(w, key, node, "cannot change with the scale");
      if (is_ext(d.kind) || d.kind == SweepKind::sleep)
        fail(w, key, node, "applies to sweeps of engine scenarios only");
      auto str = node.as_string();
      if (!str || str->get().empty()) fail(w, key, node, "must be a non-empty string");
      (name == "policy" ? d.policy : d.policy_select) = str->get();
      d.policy_line = w.line(node);
    } else if (name == "runs") {
      d.runs = get_int(w, key, node, 1, 10'000'000);
    } else if (name == "seed") {
      d.seed = static_cast<std::uint64_t>(get_int(w, key, node, 0, std::numeric_limits<std::int64_t>::max()));
    } else if (name == "replicate") {
      auto b = node.as_boolean();
      if (!b) fail(w, key, node, "must be true or false (run the sweep again under the study's replica_seed)");
      d.replicate = b->get();
    } else if (name == "draws") {
      d.draws = get_int(w, key, node, 10, 100'000'000);
    } else if (name == "retry_max") {
      d.retry_max = static_cast<int>(get_int(w, key, node, 1, 200));
    } else if (name == "metrics") {
      d.metrics = get_names(w, key, node, metric_names());
    } else if (name == "per_run") {
      d.per_run = get_names(w, key, node, metric_names());
    } else if (name == "thresholds") {
      auto arr = node.as_array();
      if (!arr || arr->empty()) fail(w, key, node, "must be a non-empty array of integers >= 1");
      d.thresholds.clear();
      for (std::size_t i = 0; i < arr->size(); ++i)
        d.thresholds.push_back(get_int(w, fmt::format("{}[{}]", key, i), *arr->get(i), 1, 100'000'000));
    } else if (name == "grid") {
      d.grids.clear();
      auto one = [&](const toml::node& gn, const std::string& gkey) {
        auto gt = gn.as_table();
        if (!gt) fail(w, gkey, gn, "must be a table of scenario fields");
        GridBlock b;
        b.key = gkey;
        b.line = w.line(gn);
        for (const auto& [gk, gv] : *gt) {
          const std::string fkey = gkey + "." + std::string(gk.str());
          if (!is_field(gk.str(), d.kind)) fail(w, fkey, gv, "is not a scenario field of this sweep kind");
          b.fields[std::string(gk.str())] = parse_axis(w, fkey, gk.str(), gv, d.kind);
        }
        d.grids.push_back(std::move(b));
      };
      if (auto arr = node.as_array()) {
        for (std::size_t i = 0; i < arr->size(); ++i) one(*arr->get(i), fmt::format("{}[{}]", key, i));
      } else {
        one(node, key);
      }
    } else if (is_field(name, d.kind)) {
      d.fields[std::string(name)] = parse_axis(w, key, name, node, d.kind);
    } else if (is_ext(d.kind)) {
      std::string fields;
      for (const auto& f : ext_fields(d.kind)) fields += ", " + std::string(f.name);
      fail(w, key, node,
           fmt::format("is not a known key of a {} sweep (kind, title, runs, seed, unit, grid, quick, full{})",
                       to_string(d.kind), fields));
    } else {
      fail(w, key, node,
           "is not a known key (kind, title, runs, seed, replicate, unit, attempt_duration, draws, retry_max, metrics, "
           "per_run, thresholds, grid, quick, full, or a scenario field)");
    }
  }
}

// A series sweep: one point per policy, its fields over the sweep's (one value each).
std::vector<SweepPoint> expand_series(const Where& w, const Draft& d) {
  std::vector<SweepPoint> out;
  for (const auto& p : d.series.policies) {
    Draft one = d;
    for (const auto& [field, node] : p.fields)
      one.fields[field] = parse_axis(w, p.key + "." + field, field, *node, d.kind);
    std::vector<SweepPoint> pts = expand(w, one);
    if (pts.size() != 1 || !d.grids.empty())
      throw SpecError(p.key, "must be one scenario: a series sweep takes one value per field, and no grid", w.file,
                      p.line);
    out.push_back(std::move(pts.front()));
    out.back().label = p.name;
  }
  return out;
}

// The unit keys against the kind: engine kinds take attempt (default) or ms / s with an
// attempt_duration; Brooker's test and the failing-dependency kinds are in ms (their tables say
// so); the layered test has no time.
void check_unit(const Where& w, const Draft& d) {
  const std::string key = "sweep." + d.name + ".unit";
  auto fail_unit = [&](const std::string& rule) {
    throw SpecError(key, rule, w.file, d.unit_line ? d.unit_line : d.line);
  };
  if (own_summary(d.kind) && d.kind != SweepKind::amplification && d.unit != "ms" &&
      !(d.kind == SweepKind::series && d.unit == "s"))
    fail_unit(
        fmt::format("must be \"ms\" for a {} sweep, with attempt_duration (its tables are in ms)", to_string(d.kind)));
  if (d.unit.empty() && d.attempt_duration == 0.0) return;
  if (d.kind == SweepKind::amplification) fail_unit("is not a key of an amplification sweep (it has no time)");
  const bool plain = d.unit.empty() || d.unit == "attempt";
  if (plain && d.attempt_duration != 0.0 && d.attempt_duration != 1.0)
    fail_unit("must be \"ms\" or \"s\" when attempt_duration is given (times are otherwise in attempt-durations)");
  if (!plain && d.attempt_duration == 0.0)
    throw SpecError("sweep." + d.name + ".attempt_duration",
                    fmt::format("is required with unit = \"{}\": how long one attempt takes, in {}", d.unit, d.unit),
                    w.file, d.unit_line);
}

// The sweep's policy file, read once (its notes printed once, as warnings: docs/policies.md).
void read_policy(const Where& w, Draft& d) {
  if (d.policy.empty()) {
    if (!d.policy_select.empty())
      throw SpecError("sweep." + d.name + ".policy_select", "needs policy = \"FILE\"", w.file, d.policy_line);
    return;
  }
  d.policy_read = sweep_policy_file(w.file, "sweep." + d.name + ".policy", d.policy_line, d.policy, d.policy_select);
  for (const policy::Note& n : d.policy_read->notes)
    fmt::print(stderr, "retrylab: warning: sweep.{}.policy: {}\n", printable(d.name),
               printable(policy::note_line(*d.policy_read, n)));
}

SweepSpec finish(const Where& w, const Draft& given, std::uint64_t study_seed) {
  check_unit(w, given);
  Draft d = given;
  if (d.policy_read) {
    const std::string key = "sweep." + d.name + ".policy";
    for (const PolicyValue& v : sweep_policy(*d.policy_read, w.file, key, d.policy_line, d.unit, d.attempt_duration))
      if (d.fields.find(v.field) == d.fields.end()) d.fields[v.field] = Axis{{v.value}, d.policy_line, key};
  }
  SweepSpec s;
  s.name = d.name;
  s.kind = d.kind;
  s.title = d.title.empty() ? d.name : d.title;
  s.runs = d.runs;
  s.seed = d.seed.value_or(study_seed);
  s.draws = d.draws;
  s.metrics = d.metrics;
  s.per_run = d.per_run;
  s.thresholds = d.thresholds;
  resolve_load_profile(w.file, d.name, d.attempt_duration, d.series);
  s.points = is_ext(d.kind) ? expand_ext(w, d) : d.kind == SweepKind::series ? expand_series(w, d) : expand(w, d);
  if (d.kind == SweepKind::series)
    s.series = series_settings(w.file, d.name, d.line, d.attempt_duration, d.series, s.points);
  if (d.unit == "ms" || d.unit == "s") {
    s.unit = d.unit;
    s.attempt_duration = d.attempt_duration;
  }
  if (s.kind == SweepKind::steady)
    for (const auto& p : s.points)
      for (auto k : s.thresholds)
        if (k > p.scenario.measurement.collapse)
          throw SpecError("sweep." + d.name + ".thresholds",
                          fmt::format("must be <= collapse, since a run stops at collapse (got {} > {})", k,
                                      p.scenario.measurement.collapse),
                          w.file, d.line);
  check_report_needs(w, d, s);
  return s;
}

// What a whole study will do at one scale, summed over its sweeps as they are read: the points, and
// the attempts of the engine kinds' points and their load profiles' thinned draws
// (montecarlo/resources.hpp), each bounded like a sweep's.
struct StudyTotal {
  double points = 0;
  double attempts = 0;
};

void add_to_study_total(const Where& w, const Draft& d, const SweepSpec& s, const char* scale, StudyTotal& total) {
  total.points += static_cast<double>(s.points.size());
  if (!is_ext(d.kind) && d.kind != SweepKind::sleep)
    for (const auto& p : s.points) {  // a load profile's thinned draws are work too, as for one run
      const auto e = montecarlo::estimate_resources(p.scenario, montecarlo::RunPlan{s.runs, s.seed, 0});
      total.attempts += e.attempts + e.thinned;
    }
  const std::string key = "sweep." + d.name;
  if (total.points > static_cast<double>(max_study_points))
    throw SpecError(key,
                    fmt::format("brings the study's {} scale to {:.3g} points, above the limit {} for a whole study "
                                "(fewer or shorter sweeps)",
                                scale, total.points, max_study_points),
                    w.file, d.line);
  if (total.attempts > montecarlo::max_attempts_simulated)
    throw SpecError(key,
                    fmt::format("brings the study's {} scale to about {:.3g} attempts, above the limit {:.3g} for a "
                                "whole study (fewer runs, points or a shorter horizon)",
                                scale, total.attempts, montecarlo::max_attempts_simulated),
                    w.file, d.line);
}

}  // namespace

namespace {

// The study's name (the default output folder out/NAME/SCALE) and a sweep's name (file names in
// --out: NAME.md, NAME_caps.csv, ...) are plain names, so nothing is written outside the output
// folder and nothing hidden: 1 to 64 letters, digits, '_' or '-', not starting with '-' (which
// leaves out '/', '\\', '..', a leading '.', NUL and every other control character).
bool plain_name(const std::string& name) {
  return !name.empty() && name.size() <= 64 && name[0] != '-' && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}
constexpr std::string_view plain_rule = "1 to 64 letters, digits, '_' or '-', not starting with '-'";

void check_sweep_name(const Where& w, const std::string& name, std::int64_t line) {
  if (!plain_name(name))
    throw SpecError("sweep", fmt::format("names must be plain file names: {} (got \"{}\")", plain_rule, visible(name)),
                    w.file, line);
}

std::string folded(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

// Two sweeps may not write the same file, nor a sweep one of the study's own files: compared
// ignoring case, since the folder may be on a case-insensitive file system (macOS, Windows).
void check_outputs_distinct(const Where& w, const std::vector<SweepSpec>& sweeps,
                            const std::vector<std::int64_t>& lines) {
  std::map<std::string, std::string> owner;  // folded stem -> who writes it
  for (const char* r : reserved_output_names()) owner[folded(r)] = "the study itself";
  for (std::size_t i = 0; i < sweeps.size(); ++i) {
    for (const auto& stem : output_stems(sweeps[i])) {
      const auto [it, fresh] = owner.emplace(folded(stem), "sweep " + sweeps[i].name);
      if (!fresh)
        throw SpecError("sweep." + sweeps[i].name,
                        fmt::format("must not write {}.*, which {} writes (output file names must differ, "
                                    "ignoring case; rename the sweep)",
                                    stem, it->second),
                        w.file, lines[i]);
    }
  }
}

}  // namespace

std::string_view to_string(SweepKind k) noexcept { return kind_names[static_cast<int>(k)]; }

namespace {

// The [study] table: name (a plain file name: it names the default output folder), title, seed.
void parse_study_table(const Where& w, const toml::node& node, StudySpec& study) {
  auto t = node.as_table();
  if (!t) fail(w, "study", node, "must be a table");
  for (const auto& [sk, sv] : *t) {
    const std::string key = "study." + std::string(sk.str());
    if (sk.str() == "name" || sk.str() == "title") {
      auto s = sv.as_string();
      if (!s) fail(w, key, sv, "must be a string");
      if (sk.str() == "name" && !plain_name(s->get()))
        throw SpecError(key,
                        fmt::format("must be a plain file name (it names the output folder out/NAME/SCALE): {} "
                                    "(got \"{}\")",
                                    plain_rule, visible(s->get())),
                        w.file, w.line(sv));
      (sk.str() == "name" ? study.name : study.title) = s->get();
    } else if (sk.str() == "seed") {
      study.seed = static_cast<std::uint64_t>(get_int(w, key, sv, 0, std::numeric_limits<std::int64_t>::max()));
    } else if (sk.str() == "replica_seed") {
      study.replica_seed =
          static_cast<std::uint64_t>(get_int(w, key, sv, 0, std::numeric_limits<std::int64_t>::max() - 1));
    } else {
      fail(w, key, sv, "is not a known key (name, title, seed, replica_seed)");
    }
  }
}

// The replicas NAME@2, after every primary: the tables come from the primary runs first.
void add_replicas(StudySpec& study, std::vector<SweepSpec> replicas) {
  for (auto& r : replicas) {
    r.replica_of = r.name;
    r.name += "@2";
    r.seed = *study.replica_seed;
    study.sweeps.push_back(std::move(r));
  }
}

}  // namespace

StudySpec parse_study_text(std::string_view text, const std::string& source_name, const std::string& scale) {
  if (scale != "quick" && scale != "full")
    throw InputError("scale", fmt::format("must be quick or full (got {})", scale));
  const Where w{source_name};
  toml::table root;
  try {
    root = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    throw SpecError("toml", std::string(e.description()), source_name,
                    static_cast<std::int64_t>(e.source().begin.line));
  }
  StudySpec study;
  study.scale = scale;
  study.source_hash = montecarlo::fnv1a64(text);
  StudyTotal quick_total, full_total;
  const toml::node* sweeps_node = nullptr;
  for (const auto& [k, node] : root) {
    if (k.str() == "study") {
      parse_study_table(w, node, study);
    } else if (k.str() == "sweep") {
      sweeps_node = &node;
    } else {
      fail(w, std::string(k.str()), node, "is not a known key (study, sweep)");
    }
  }
  if (study.name.empty()) throw SpecError("study.name", "is required (a string)", source_name, 1);
  if (!sweeps_node || !sweeps_node->is_table() || sweeps_node->as_table()->empty())
    throw SpecError("sweep", "must hold at least one [sweep.NAME] table", source_name,
                    sweeps_node ? w.line(*sweeps_node) : 1);
  // toml++ tables are sorted by key: restore file order from the source lines.
  std::vector<std::pair<std::int64_t, std::string>> order;
  for (const auto& [k, node] : *sweeps_node->as_table()) {
    if (!node.is_table()) fail(w, "sweep." + std::string(k.str()), node, "must be a table");
    order.emplace_back(w.line(node), std::string(k.str()));
  }
  std::sort(order.begin(), order.end());
  std::vector<std::int64_t> lines;
  std::vector<SweepSpec> replicas;
  for (const auto& [line, name] : order) {
    const toml::table& t = *sweeps_node->as_table()->get(name)->as_table();
    const std::string prefix = "sweep." + name;
    check_sweep_name(w, name, line);
    Draft base;
    base.name = name;
    base.line = line;
    // kind first: it decides which scenario fields are allowed.
    if (auto kn = t.get("kind")) {
      auto s = kn->as_string();
      auto it = s ? std::find(std::begin(kind_names), std::end(kind_names), s->get()) : std::end(kind_names);
      if (it == std::end(kind_names)) fail(w, prefix + ".kind", *kn, fmt::format("must be one of {}", kind_list));
      base.kind = static_cast<SweepKind>(it - std::begin(kind_names));
    }
    apply(w, prefix, t, base, false);
    read_policy(w, base);
    std::optional<SweepSpec> chosen;
    bool replicate = false;
    for (const char* sc : {"quick", "full"}) {
      Draft d = base;
      if (auto st = t.get(sc)) apply(w, prefix + "." + sc, *st->as_table(), d, true);
      SweepSpec s = finish(w, d, study.seed);
      const bool twice = study.replica_seed && d.replicate;
      if (twice && *study.replica_seed == s.seed)
        throw SpecError("study.replica_seed",
                        fmt::format("must differ from sweep {}'s seed {} (two seeds, not one)", name, s.seed),
                        source_name, line);
      for (int copy = 0; copy < (twice ? 2 : 1); ++copy)
        add_to_study_total(w, d, s, sc, sc[0] == 'q' ? quick_total : full_total);
      if (scale == sc) chosen = std::move(s), replicate = twice;
    }
    if (replicate) replicas.push_back(*chosen);
    study.sweeps.push_back(std::move(*chosen));
    lines.push_back(line);
  }
  check_outputs_distinct(w, study.sweeps, lines);
  add_replicas(study, std::move(replicas));
  return study;
}

StudySpec parse_study_file(const std::filesystem::path& file, const std::string& scale) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw InputError("SPEC", fmt::format("must be a regular TOML file (got {})", file.string()));
  const auto size = std::filesystem::file_size(file, ec);
  if (ec || size > max_spec_bytes)
    throw InputError("SPEC", fmt::format("must be at most {} bytes (got {}{})", max_spec_bytes, file.string(),
                                         ec ? "" : fmt::format(", {} bytes", size)));
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError("SPEC", fmt::format("must be a readable TOML file (got {})", file.string()));
  std::ostringstream os;
  os << in.rdbuf();
  return parse_study_text(os.str(), file.string(), scale);
}

}  // namespace retrylab::papers

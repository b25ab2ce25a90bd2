#include "papers/spec.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <toml++/toml.h>

namespace retrylab::papers {

SpecError::SpecError(std::string key, const std::string& message, std::string file, std::int64_t line)
    : InputError(fmt::format("{}:{}: {}", file, line, key), message),
      file_(std::move(file)),
      line_(line),
      message_(message) {}

namespace {

constexpr std::string_view kind_names[] = {"grid", "checks", "sleep", "classic", "frontier", "steady", "burst", "drain"};

// Scenario fields in expansion order (outermost first).
constexpr std::string_view field_names[] = {"model", "strategy", "base", "cap", "window", "clients",
                                            "rate", "horizon", "warmup", "collapse", "retries"};
constexpr int n_fields = 11;
constexpr std::string_view sleep_fields[] = {"strategy", "base", "cap", "window"};

const std::vector<std::string> per_run_names = {"attempts_per_client", "makespan", "latency", "goodput",
                                                "drain_time", "drain_time_p99", "max_waiting", "unfinished",
                                                "collapsed", "drained"};

struct Where {
  std::string file;
  std::int64_t line(const toml::node& n) const { return static_cast<std::int64_t>(n.source().begin.line); }
};

std::string show(const toml::node& n) {
  std::ostringstream os;
  if (auto s = n.as_string()) return fmt::format("\"{}\"", s->get());
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

// One scenario field's values (one value unless it is a grid axis), encoded as doubles: model and
// strategy by enum index, retries as 0/1, cap "none" as +inf.
struct Axis {
  std::vector<double> values;
  std::int64_t line = 0;
  std::string key;
};

double parse_field_value(const Where& w, const std::string& key, std::string_view field, const toml::node& n) {
  const auto number = as_number(n);
  if (field == "model") {
    if (auto s = n.as_string())
      if (auto m = parse_model(s->get())) return static_cast<double>(static_cast<int>(*m));
    fail(w, key, n, "must be one of collision, free, shared, ps");
  }
  if (field == "strategy") {
    if (auto s = n.as_string())
      if (auto st = parse_strategy(s->get())) return static_cast<double>(static_cast<int>(*st));
    fail(w, key, n, "must be one of none, nojitter, full, equal, decorrelated, window");
  }
  if (field == "retries") {
    if (auto b = n.as_boolean()) return b->get() ? 1.0 : 0.0;
    if (auto s = n.as_string()) {
      if (s->get() == "on") return 1.0;
      if (s->get() == "off") return 0.0;
    }
    fail(w, key, n, "must be \"on\" or \"off\"");
  }
  if (field == "cap") {
    if (auto s = n.as_string(); s && s->get() == "none") return unbounded_cap;
    if (number && std::isfinite(*number) && *number > 0) return *number;
    fail(w, key, n, "must be a number > 0 or \"none\"");
  }
  if (field == "clients" || field == "collapse") {
    const std::int64_t lo = field == "clients" ? 0 : 1;
    if (auto i = n.as_integer(); i && i->get() >= lo && i->get() <= 100'000'000) return static_cast<double>(i->get());
    fail(w, key, n, fmt::format("must be an integer in [{}, 1e8]", lo));
  }
  if (!number || !std::isfinite(*number)) fail(w, key, n, "must be a finite number");
  if (field == "base" || field == "window" || field == "horizon") {
    if (*number > 0) return *number;
    fail(w, key, n, "must be a finite number > 0");
  }
  if (*number >= 0) return *number;  // rate, warmup
  fail(w, key, n, "must be a finite number >= 0");
}

Axis parse_axis(const Where& w, const std::string& key, std::string_view field, const toml::node& n) {
  Axis a;
  a.key = key;
  a.line = w.line(n);
  if (auto arr = n.as_array()) {
    if (arr->empty()) fail(w, key, n, "must be a non-empty array or a single value");
    for (std::size_t i = 0; i < arr->size(); ++i)
      a.values.push_back(parse_field_value(w, fmt::format("{}[{}]", key, i), field, *arr->get(i)));
  } else {
    a.values.push_back(parse_field_value(w, key, field, n));
  }
  return a;
}

using Fields = std::map<std::string, Axis, std::less<>>;

struct GridBlock {
  Fields fields;
  std::string key;
  std::int64_t line = 0;
};

struct Draft {
  std::string name;
  std::int64_t line = 0;
  SweepKind kind = SweepKind::grid;
  std::string title;
  std::int64_t runs = 20;
  std::optional<std::uint64_t> seed;
  std::int64_t draws = 200000;
  int retry_max = 30;
  std::vector<std::string> metrics, per_run;
  std::vector<std::int64_t> thresholds;
  Fields fields;
  std::vector<GridBlock> grids;
};

bool is_field(std::string_view k, SweepKind kind) {
  if (kind == SweepKind::sleep) return std::find(std::begin(sleep_fields), std::end(sleep_fields), k) != std::end(sleep_fields);
  return std::find(std::begin(field_names), std::end(field_names), k) != std::end(field_names);
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
    if (name == "kind") {
      if (is_scale) fail(w, key, node, "cannot change with the scale");
      auto s = node.as_string();
      auto it = s ? std::find(std::begin(kind_names), std::end(kind_names), s->get()) : std::end(kind_names);
      if (it == std::end(kind_names))
        fail(w, key, node, "must be one of grid, checks, sleep, classic, frontier, steady, burst, drain");
      d.kind = static_cast<SweepKind>(it - std::begin(kind_names));
    } else if (name == "title") {
      auto s = node.as_string();
      if (!s) fail(w, key, node, "must be a string");
      d.title = s->get();
    } else if (name == "runs") {
      d.runs = get_int(w, key, node, 1, 10'000'000);
    } else if (name == "seed") {
      d.seed = static_cast<std::uint64_t>(get_int(w, key, node, 0, std::numeric_limits<std::int64_t>::max()));
    } else if (name == "draws") {
      d.draws = get_int(w, key, node, 10, 100'000'000);
    } else if (name == "retry_max") {
      d.retry_max = static_cast<int>(get_int(w, key, node, 1, 200));
    } else if (name == "metrics") {
      d.metrics = get_names(w, key, node, metric_names());
    } else if (name == "per_run") {
      d.per_run = get_names(w, key, node, per_run_names);
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
          b.fields[std::string(gk.str())] = parse_axis(w, fkey, gk.str(), gv);
        }
        d.grids.push_back(std::move(b));
      };
      if (auto arr = node.as_array()) {
        for (std::size_t i = 0; i < arr->size(); ++i) one(*arr->get(i), fmt::format("{}[{}]", key, i));
      } else {
        one(node, key);
      }
    } else if (is_field(name, d.kind)) {
      d.fields[std::string(name)] = parse_axis(w, key, name, node);
    } else {
      fail(w, key, node, "is not a known key (kind, title, runs, seed, draws, retry_max, metrics, per_run, thresholds, grid, quick, full, or a scenario field)");
    }
  }
}

montecarlo::Scenario make_scenario(const std::array<double, n_fields>& v) {
  montecarlo::Scenario s;
  s.model = static_cast<Model>(static_cast<int>(v[0]));
  s.backoff.strategy = static_cast<Strategy>(static_cast<int>(v[1]));
  s.backoff.base = v[2];
  s.backoff.cap = v[3];
  s.backoff.window = v[4];
  s.clients = static_cast<std::int64_t>(v[5]);
  s.rate = v[6];
  s.horizon = v[7];
  s.warmup = v[8];
  s.collapse = static_cast<std::int64_t>(v[9]);
  s.retries = v[10] != 0.0;
  return s;
}

std::vector<SweepPoint> expand(const Where& w, const Draft& d) {
  const montecarlo::Scenario defaults;
  const std::array<double, n_fields> default_values = {
      static_cast<double>(static_cast<int>(defaults.model)), static_cast<double>(static_cast<int>(defaults.backoff.strategy)),
      defaults.backoff.base, defaults.backoff.cap, defaults.backoff.window, static_cast<double>(defaults.clients),
      defaults.rate, defaults.horizon, defaults.warmup, static_cast<double>(defaults.collapse), defaults.retries ? 1.0 : 0.0};
  std::vector<GridBlock> blocks = d.grids;
  if (blocks.empty()) blocks.push_back(GridBlock{{}, "sweep." + d.name, d.line});
  std::vector<SweepPoint> points;
  for (const auto& b : blocks) {
    std::array<const Axis*, n_fields> axes{};
    std::array<Axis, n_fields> fallback;
    for (int f = 0; f < n_fields; ++f) {
      const std::string fname(field_names[f]);
      if (auto it = b.fields.find(fname); it != b.fields.end()) axes[f] = &it->second;
      else if (auto jt = d.fields.find(fname); jt != d.fields.end()) axes[f] = &jt->second;
      else {
        fallback[f] = Axis{{default_values[f]}, b.line, b.key + "." + fname};
        axes[f] = &fallback[f];
      }
    }
    std::array<std::size_t, n_fields> idx{};
    while (true) {
      std::array<double, n_fields> v{};
      for (int f = 0; f < n_fields; ++f) v[f] = axes[f]->values[idx[f]];
      const montecarlo::Scenario s = make_scenario(v);
      try {
        if (d.kind == SweepKind::sleep) {
          check_backoff(s.backoff);
        } else {
          montecarlo::check_scenario(s);
        }
      } catch (const SpecError&) {
        throw;
      } catch (const InputError& e) {
        // Name the key the bad value came from, when it is one field, else the grid block.
        const std::string field = e.field();
        std::string key = b.key;
        std::int64_t line = b.line;
        for (int f = 0; f < n_fields; ++f)
          if (field_names[f] == field) {
            key = axes[f]->key.empty() ? b.key + "." + field : axes[f]->key;
            line = axes[f]->line;
          }
        throw SpecError(key, std::string(e.what()).substr(field.size() + 1), w.file, line);
      }
      if (d.kind == SweepKind::sleep) {
        for (int k = 1; k <= d.retry_max; ++k) points.push_back(SweepPoint{s, k});
      } else {
        points.push_back(SweepPoint{s, 0});
      }
      int f = n_fields - 1;
      while (f >= 0 && ++idx[f] == axes[f]->values.size()) idx[f--] = 0;
      if (f < 0) break;
    }
  }
  return points;
}

SweepSpec finish(const Where& w, const Draft& d, std::uint64_t study_seed) {
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
  s.points = expand(w, d);
  if (s.kind == SweepKind::steady)
    for (const auto& p : s.points)
      for (auto k : s.thresholds)
        if (k > p.scenario.collapse)
          throw SpecError("sweep." + d.name + ".thresholds",
                          fmt::format("must be <= collapse, since a run stops at collapse (got {} > {})", k,
                                      p.scenario.collapse),
                          w.file, d.line);
  return s;
}

}  // namespace

std::string_view to_string(SweepKind k) noexcept { return kind_names[static_cast<int>(k)]; }

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names = {
      "attempts_per_client", "makespan", "latency", "goodput", "attempt_rate", "sojourn", "drain_time",
      "drain_time_p99", "unfinished", "max_waiting", "collapsed", "drained"};
  return names;
}

std::uint64_t fnv1a(std::string_view text) noexcept {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string canonical(const SweepPoint& p, SweepKind kind) {
  if (kind == SweepKind::sleep)
    return fmt::format("strategy={} base={} cap={} window={} retry={}", to_string(p.scenario.backoff.strategy),
                       p.scenario.backoff.base, format_cap(p.scenario.backoff.cap), p.scenario.backoff.window, p.retry);
  return montecarlo::canonical(p.scenario);
}

std::int64_t StudySpec::total_points() const {
  std::int64_t n = 0;
  for (const auto& s : sweeps) n += static_cast<std::int64_t>(s.points.size());
  return n;
}

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
  study.source_hash = fnv1a(text);
  const toml::node* sweeps_node = nullptr;
  for (const auto& [k, node] : root) {
    if (k.str() == "study") {
      auto t = node.as_table();
      if (!t) fail(w, "study", node, "must be a table");
      for (const auto& [sk, sv] : *t) {
        const std::string key = "study." + std::string(sk.str());
        if (sk.str() == "name" || sk.str() == "title") {
          auto s = sv.as_string();
          if (!s) fail(w, key, sv, "must be a string");
          (sk.str() == "name" ? study.name : study.title) = s->get();
        } else if (sk.str() == "seed") {
          study.seed = static_cast<std::uint64_t>(get_int(w, key, sv, 0, std::numeric_limits<std::int64_t>::max()));
        } else {
          fail(w, key, sv, "is not a known key (name, title, seed)");
        }
      }
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
  for (const auto& [line, name] : order) {
    const toml::table& t = *sweeps_node->as_table()->get(name)->as_table();
    const std::string prefix = "sweep." + name;
    Draft base;
    base.name = name;
    base.line = line;
    // kind first: it decides which scenario fields are allowed.
    if (auto kn = t.get("kind")) {
      auto s = kn->as_string();
      auto it = s ? std::find(std::begin(kind_names), std::end(kind_names), s->get()) : std::end(kind_names);
      if (it == std::end(kind_names))
        fail(w, prefix + ".kind", *kn, "must be one of grid, checks, sleep, classic, frontier, steady, burst, drain");
      base.kind = static_cast<SweepKind>(it - std::begin(kind_names));
    }
    apply(w, prefix, t, base, false);
    std::optional<SweepSpec> chosen;
    for (const char* sc : {"quick", "full"}) {
      Draft d = base;
      if (auto st = t.get(sc)) apply(w, prefix + "." + sc, *st->as_table(), d, true);
      SweepSpec s = finish(w, d, study.seed);
      if (scale == sc) chosen = std::move(s);
    }
    study.sweeps.push_back(std::move(*chosen));
  }
  return study;
}

StudySpec parse_study_file(const std::filesystem::path& file, const std::string& scale) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError("spec", fmt::format("must be a readable TOML file (got {})", file.string()));
  std::ostringstream os;
  os << in.rdbuf();
  return parse_study_text(os.str(), file.string(), scale);
}

}  // namespace retrylab::papers

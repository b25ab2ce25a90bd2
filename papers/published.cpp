#include "papers/published.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "analytic/error.hpp"
#include "montecarlo/atomic_file.hpp"
#include "papers/published/measures.hpp"
#include "papers/published/readings.hpp"
#include "papers/published/results.hpp"
#include "papers/published/statements.hpp"
#include "papers/published/verdict.hpp"

namespace retrylab::papers {

namespace {

namespace fs = std::filesystem;
using namespace published;

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

struct SeedVerdicts {
  Verdict first = Verdict::differs, second = Verdict::differs;
  bool two = false;
};

// Every statement's samples and verdicts, on one or both seeds, under any query.
class Evaluator {
 public:
  Evaluator(const fs::path& file, const Statements& st, const Results& r) : file_(file), st_(st), r_(r) {
    for (const auto& s : st.list) by_id_[s.id] = &s;
  }

  Claim claim(const Statement& s) const {
    Claim c{s.compare, s.published, s.half_width, s.to, s.paper_runs};
    if (c.paper_runs == 0 && st_.paper_runs.count(s.query.sweep)) c.paper_runs = st_.paper_runs.at(s.query.sweep);
    if (c.compare != Compare::equal && c.compare != Compare::range) c.half_width = 0.0;
    return c;
  }

  bool has_seed(const Query& q, int seed) const {
    if (seed == 0) return true;
    if (q.of.empty()) return r_.has_sweep(q.sweep + "@2");
    return std::all_of(q.of.begin(), q.of.end(),
                       [&](const std::string& id) { return has_seed(by_id_.at(id)->query, 1); });
  }

  Sample sample(const Statement& s, const Query& q, int seed) {
    return at_line(file_, s.line, [&] {
      return measure(
          s.id, r_, q, [this](const std::string& id, int sd, std::int64_t k) { return stated(id, sd, k); }, seed);
    });
  }

  // A statement's sample at its stated query, or at collapse threshold k when k > 0 (cached: max_of
  // and the like read it again).
  Sample stated(const std::string& id, int seed, std::int64_t k = 0) {
    const auto key = std::make_tuple(id, seed, k);
    if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
    if (!busy_.insert(key).second) throw InputError("statement " + id + ": of", "refers back to itself");
    const Statement& s = *by_id_.at(id);
    Query q = s.query;
    if (k > 0) q.k = k;
    Sample out = sample(s, q, seed);
    busy_.erase(key);
    return cache_[key] = out;
  }

  SeedVerdicts verdicts(const Statement& s, const Query& q, Sample* first = nullptr, Sample* second = nullptr) {
    SeedVerdicts v;
    const Claim c = claim(s);
    const Sample a = sample(s, q, 0);
    v.first = v.second = judge(c, a);
    if (first) *first = a;
    v.two = has_seed(q, 1);
    if (v.two) {
      const Sample b = sample(s, q, 1);
      v.second = judge(c, b);
      if (second) *second = b;
    }
    return v;
  }

  Judged judged(const Statement& s, const Query& q) {
    const SeedVerdicts v = verdicts(s, q);
    Sample a = sample(s, q, 0);
    return {v.two ? combine(v.first, v.second) : v.first, a.value};
  }

  const Results& results() const { return r_; }

 private:
  fs::path file_;
  const Statements& st_;
  const Results& r_;
  std::map<std::string, const Statement*> by_id_;
  std::map<std::tuple<std::string, int, std::int64_t>, Sample> cache_;
  std::set<std::tuple<std::string, int, std::int64_t>> busy_;
};

Estimate estimate_of(const Sample& s) { return {s.value, s.lo, s.hi}; }

std::string runs_text(const Sample& s, const Claim& c) {
  if (s.kind == Sample::Kind::exact || (s.kind == Sample::Kind::mean && s.runs == 0)) return "–";
  return c.paper_runs > 0 ? fmt::format("{}", c.paper_runs) : "not stated";
}

std::string seeds_text(const SeedVerdicts& v, const Claim& c) {
  if (!v.two) return fmt::format("one seed only: {}", to_string(v.first));
  if (v.first == v.second && v.first == Verdict::within_noise)
    return c.paper_runs > 0
               ? fmt::format("within the sampling error of both seeds and of the paper's {} runs", c.paper_runs)
               : "within the sampling error of both seeds (the paper's runs taken as this study's)";
  if (v.first == v.second) return fmt::format("both seeds: {}", to_string(v.first));
  return fmt::format("the seeds disagree: {} on the first, {} on the second", to_string(v.first), to_string(v.second));
}

struct Context {
  std::map<std::string, std::vector<SettingScan>> scans;
  std::vector<PaperReading> paper;
};

// "holds under a reading" when the paper-wide value of one of its settings, or one of its own
// readings without a setting, reproduces it; "differs" otherwise, naming what would.
void explain_difference(const Statement& s, Evaluator& ev, const Context& ctx, PublishedRow& row,
                        std::vector<std::string>& why) {
  const auto scans = ctx.scans.find(s.id);
  std::vector<std::string> only;
  if (scans != ctx.scans.end())
    for (const auto& sc : scans->second)
      for (const auto& pr : ctx.paper)
        if (pr.setting == sc.setting) {
          if (!pr.stated && pr.reproduces(sc)) {
            row.verdict = "holds under a reading";
            why.push_back(fmt::format("reproduced at the paper's one reading of {}: {}", sc.setting, pr.describe()));
            return;
          }
          const std::string vals = reproducing_values(sc);
          if (!vals.empty()) only.push_back(fmt::format("{} would need {}", sc.setting, vals));
        }
  std::vector<std::string> tried;
  for (const auto& rd : s.readings) {
    if (!rd.setting.empty() || !ev.results().covers(s.id, rd.query)) continue;
    const Judged j = ev.judged(s, rd.query);
    if (j.verdict != Verdict::differs) {
      row.verdict = "holds under a reading";
      why.push_back(fmt::format("reproduced by another reading: {} gives {} ({})", rd.label, format_number(j.value),
                                to_string(j.verdict)));
      return;
    }
    tried.push_back(fmt::format("{} gives {}", rd.label, format_number(j.value)));
  }
  for (const auto& x : only) why.push_back(x + ", not the paper's one reading");
  if (!tried.empty()) why.push_back(fmt::format("no reading reproduces it ({})", fmt::join(tried, "; ")));
  if (only.empty() && tried.empty()) why.push_back("no other reading is defined for it");
}

PublishedRow evaluate(const Statement& s, Evaluator& ev, const Context& ctx) {
  PublishedRow row{s.id, s.statement,     s.quote,         s.published_text.empty() ? "–" : s.published_text,
                   "–",  {nan, nan, nan}, {nan, nan, nan}, "not tested",
                   "",   s.untested};
  if (!s.untested.empty()) return row;
  if (!ev.results().covers(s.id, s.query)) {
    row.reason = "the " + ev.results().scale() + " scale's grid has no point at these settings (the full scale has)";
    return row;
  }
  Sample a, b;
  const SeedVerdicts v = ev.verdicts(s, s.query, &a, &b);
  const Claim c = ev.claim(s);
  row.reproduced = estimate_of(a);
  if (v.two) row.replica = estimate_of(b);
  row.runs = runs_text(a, c);
  const Verdict both = v.two ? combine(v.first, v.second) : v.first;
  row.verdict = std::string(to_string(both));
  std::vector<std::string> why;
  if (!a.note.empty()) why.push_back(a.note);
  why.push_back(seeds_text(v, c));
  if (const auto it = ctx.scans.find(s.id); it != ctx.scans.end())
    for (const auto& sc : it->second) {
      const std::string vals = reproducing_values(sc);
      row.settings += (row.settings.empty() ? "" : "; ") + (vals.empty() ? "none of " + sc.setting : vals);
    }
  if (both == Verdict::differs) explain_difference(s, ev, ctx, row, why);
  row.reason = fmt::format("{}", fmt::join(why, "; "));
  return row;
}

}  // namespace

void check_statements(const fs::path& statements, const StudySpec& spec) {
  const auto known = [&](const std::string& name) {
    return std::any_of(spec.sweeps.begin(), spec.sweeps.end(), [&](const SweepSpec& s) { return s.name == name; });
  };
  for (const auto& s : load(statements).list)
    at_line(statements, s.line, [&] {
      if (!s.untested.empty() || !s.query.of.empty()) return;
      if (!known(s.query.sweep))
        throw InputError("statement " + s.id + ": sweep", "names no sweep of the study (got " + s.query.sweep + ")");
      for (const auto& r : s.readings)
        if (!known(r.query.sweep))
          throw InputError("statement " + s.id + ": reading sweep",
                           "names no sweep of the study (got " + r.query.sweep + ")");
    });
}

PublishedReport compute_report(const fs::path& statements, const StudySpec& spec, const fs::path& dir) {
  const Statements st = load(statements);
  const Results results(spec, dir);
  Evaluator ev(statements, st, results);
  Context ctx;
  const JudgeFn judge = [&](const Statement& s, const Query& q) { return ev.judged(s, q); };
  const FindFn find = [&](const std::string& id) -> const Statement* {
    for (const auto& s : st.list)
      if (s.id == id) return &s;
    return nullptr;
  };
  for (const auto& s : st.list) {
    if (!s.untested.empty() || !results.covers(s.id, s.query)) continue;
    auto sc = at_line(statements, s.line, [&] { return scan(s, results, judge, find); });
    if (!sc.empty()) ctx.scans[s.id] = std::move(sc);
  }
  ctx.paper = paper_readings(ctx.scans);
  PublishedReport rep;
  for (const auto& s : st.list) rep.rows.push_back(evaluate(s, ev, ctx));
  for (const auto& pr : ctx.paper) {
    std::string line;
    if (pr.reproduced == 0)
      line = fmt::format("{}: no value reproduces the {} statement{} that depend{} on it ({})", pr.setting, pr.of,
                         pr.of == 1 ? "" : "s", pr.of == 1 ? "s" : "", fmt::join(pr.fails, ", "));
    else {
      const std::string how_many =
          pr.reproduced == pr.of
              ? (pr.of == 1 ? std::string("the 1 statement") : fmt::format("all {} statements", pr.of))
              : fmt::format("{} of the {} statement{}", pr.reproduced, pr.of, pr.of == 1 ? "" : "s");
      line = fmt::format("{}: {} reproduces {} that depend{} on it{}", pr.setting, pr.describe(), how_many,
                         pr.of == 1 ? "s" : "", pr.stated ? " (so does the stated value)" : "");
      if (!pr.fails.empty()) line += fmt::format("; it fails {}", fmt::join(pr.fails, ", "));
      for (const auto& t : pr.ties) line += "; " + t;
    }
    rep.readings.push_back(line);
  }
  rep.numbers = st.numbers.size();
  for (const auto& n : st.numbers) rep.numbers_tested += n.statements.empty() ? 0 : 1;
  return rep;
}

std::vector<PublishedRow> compute_published(const fs::path& statements, const StudySpec& spec, const fs::path& dir) {
  return compute_report(statements, spec, dir).rows;
}

}  // namespace retrylab::papers

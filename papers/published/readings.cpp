#include "papers/published/readings.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <set>

#include "analytic/error.hpp"
#include "papers/render.hpp"

namespace retrylab::papers::published {

namespace {

// Every peak backlog of the runs the query reads, on both seeds (up to the simulated threshold),
// and that threshold: the steps of the verdict as a function of K.
void gather_peaks(const Statement& s, const Results& r, const FindFn& find, std::set<double>& ks, double& simulated) {
  for (const auto& o : s.query.of)
    if (const Statement* other = find(o)) gather_peaks(*other, r, find, ks, simulated);
  for (int seed = 0; seed < 2 && s.query.of.empty(); ++seed) {
    Query q = s.query;
    if (seed == 1) q.sweep += "@2";
    if (!r.has_sweep(q.sweep)) continue;
    for (const auto& p : r.select(s.id, q, q.where)) {
      simulated = std::min(simulated, field_num(p, "collapse"));
      for (double x : max_waiting(s.id, p)) ks.insert(std::max(1.0, std::round(x)));
    }
  }
}

std::vector<double> k_candidates(const Statement& s, const Results& r, const FindFn& find, double& simulated) {
  std::set<double> ks;
  simulated = inf;
  gather_peaks(s, r, find, ks, simulated);
  if (!std::isfinite(simulated)) simulated = 3000;
  std::vector<double> out;
  for (double k : ks)
    if (k <= simulated) out.push_back(k);
  if (out.empty() || out.back() != simulated) out.push_back(simulated);
  return out;
}

// The values of field F among the points the query reads (the `over` points for over.*).
std::vector<double> field_candidates(const Statement& s, const Results& r, const std::string& f, bool over) {
  std::set<double> vs;
  Query q = s.query;
  q.upto.erase(f), q.from.erase(f);
  for (const auto& p : r.select(s.id, q, over ? q.over : q.where, over)) vs.insert(field_num(p, f));
  return {vs.begin(), vs.end()};
}

// A value of a search at which the measure cannot be taken (e.g. a range of one retry for a growth
// rate) reproduces nothing; the stated settings are judged elsewhere, where such an error is the
// statements file's and is reported.
Judged judge_or_none(const JudgeFn& judge, const Statement& s, const Query& q) {
  try {
    return judge(s, q);
  } catch (const InputError&) {
    return {};
  }
}

SettingScan numeric_scan(const Statement& s, const Search& search, const Results& r, const JudgeFn& judge,
                         const FindFn& find) {
  SettingScan sc;
  sc.setting = search.setting();
  sc.search = search.name;
  if (search.name == "k") {
    double simulated = 3000;
    sc.values = k_candidates(s, r, find, simulated);
    sc.stated = s.query.k > 0 ? static_cast<double>(s.query.k) : simulated;
    for (double k : sc.values) {
      Query q = s.query;
      q.k = static_cast<std::int64_t>(k);
      sc.judged.push_back(judge_or_none(judge, s, q));
    }
    return sc;
  }
  const bool over = search.name.rfind("over.", 0) == 0;
  const std::string b = over ? search.name.substr(5) : search.name;
  const bool upto = b.rfind("upto.", 0) == 0;
  const std::string f = b.substr(5);
  sc.ceiling = !upto;
  sc.values = field_candidates(s, r, f, over);
  const auto& bounds = over ? (upto ? s.query.over_upto : s.query.over_from) : (upto ? s.query.upto : s.query.from);
  sc.stated = bounds.count(f) ? bounds.at(f) : (upto ? inf : -inf);
  for (double v : sc.values) {
    Query q = s.query;
    auto& bs = over ? (upto ? q.over_upto : q.over_from) : (upto ? q.upto : q.from);
    bs[f] = v;
    sc.judged.push_back(judge_or_none(judge, s, q));
  }
  return sc;
}

std::string number_text(double x) { return std::isinf(x) ? (x > 0 ? "∞" : "−∞") : format_number(x); }

// A numeric setting's value interval as words: K is an integer, so (a, b] is "from a + 1 to b".
std::string interval_text(const std::string& search, double lo, double hi) {
  if (search == "k") {
    const double a = std::isfinite(lo) ? lo + 1 : 1;
    return a == hi ? "K = " + number_text(hi) : fmt::format("K from {} to {}", number_text(a), number_text(hi));
  }
  if (lo == hi) return number_text(lo);
  return fmt::format("from {} to {}", number_text(lo), number_text(hi));
}

// Runs of consecutive values where ok, as intervals: (previous value, value] for K's steps,
// [first value, last value] on a grid.
std::vector<std::pair<double, double>> runs_of(const std::vector<double>& values, const std::vector<bool>& ok,
                                               bool ceiling) {
  std::vector<std::pair<double, double>> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!ok[i]) continue;
    const double lo = ceiling ? (i == 0 ? -inf : values[i - 1]) : values[i];  // K: (previous, this]
    if (!out.empty() && i > 0 && ok[i - 1])
      out.back().second = values[i];
    else
      out.emplace_back(lo, values[i]);
  }
  return out;
}

}  // namespace

const Judged& SettingScan::at(double x) const {
  if (ceiling) {
    for (std::size_t i = 0; i < values.size(); ++i)
      if (values[i] >= x) return judged[i];
    return judged.back();
  }
  for (std::size_t i = values.size(); i-- > 0;)
    if (values[i] <= x) return judged[i];
  return judged.front();
}

std::vector<SettingScan> scan(const Statement& s, const Results& r, const JudgeFn& judge, const FindFn& find) {
  std::vector<SettingScan> out;
  for (const auto& search : s.searches) out.push_back(numeric_scan(s, search, r, judge, find));
  std::vector<std::string> settings;
  for (const auto& rd : s.readings)
    if (!rd.setting.empty() && std::find(settings.begin(), settings.end(), rd.setting) == settings.end())
      settings.push_back(rd.setting);
  for (const auto& setting : settings) {
    SettingScan sc;
    sc.setting = sc.search = setting;
    sc.numeric = false;
    sc.labels.push_back("as stated");
    sc.judged.push_back(judge(s, s.query));
    for (const auto& rd : s.readings)
      if (rd.setting == setting) {
        sc.labels.push_back(rd.label);
        sc.judged.push_back(judge(s, rd.query));
      }
    out.push_back(std::move(sc));
  }
  return out;
}

bool PaperReading::reproduces(const SettingScan& sc) const {
  if (!numeric) {
    for (std::size_t i = 0; i < sc.labels.size(); ++i)
      if (sc.labels[i] == label) return sc.judged[i].verdict != Verdict::differs;
    return false;
  }
  return sc.at(interval.second).verdict != Verdict::differs;  // every value of the interval gives the same verdicts
}

std::string PaperReading::describe() const {
  return numeric ? interval_text(search, interval.first, interval.second) : label;
}

namespace {

using Members = std::vector<std::pair<std::string, const SettingScan*>>;

// The numeric setting's candidate intervals: runs of consecutive values that reproduce the same
// statements, each with the ids it reproduces.
struct Candidate {
  std::pair<double, double> interval;
  std::vector<std::string> ids;
};

std::vector<Candidate> candidates(const Members& members) {
  std::set<double> all;
  for (const auto& m : members) all.insert(m.second->values.begin(), m.second->values.end());
  const std::vector<double> values(all.begin(), all.end());
  const bool k = members.front().second->search == "k";
  std::vector<Candidate> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::vector<std::string> ids;
    for (const auto& m : members)
      if (m.second->at(values[i]).verdict != Verdict::differs) ids.push_back(m.first);
    if (!out.empty() && out.back().ids == ids) {
      out.back().interval.second = values[i];
      continue;
    }
    // K: the step (previous peak, this peak]; a field: the grid values themselves, [first, last].
    const double lo = k ? (i == 0 ? -inf : values[i - 1]) : values[i];
    out.push_back({{lo, values[i]}, std::move(ids)});
  }
  return out;
}

// How far x lies from an interval ((lo, hi] for K, [lo, hi] on a grid): 0 inside it.
double distance(const std::pair<double, double>& iv, double x, bool k) {
  if ((k ? x > iv.first : x >= iv.first) && x <= iv.second) return 0.0;
  return std::max(std::min(std::fabs(x - iv.first), std::fabs(x - iv.second)), 1e-300);
}

void choose_numeric(PaperReading& pr, const Members& members) {
  const auto cs = candidates(members);
  if (cs.empty()) return;
  std::size_t best = 0;
  for (const auto& c : cs) best = std::max(best, c.ids.size());
  // An unbounded stated value (no bound: every value in the range) is the range's end.
  double stated = members.front().second->stated;
  if (stated == -inf) stated = cs.front().interval.second;
  if (stated == inf) stated = cs.back().interval.second;
  const bool k = pr.search == "k";
  const Candidate* pick = nullptr;
  for (const auto& c : cs)
    if (c.ids.size() == best && (!pick || distance(c.interval, stated, k) < distance(pick->interval, stated, k)))
      pick = &c;
  if (!pick) return;
  pr.interval = pick->interval;
  pr.reproduced = best;
  pr.stated = distance(pick->interval, stated, k) == 0.0;
  for (const auto& c : cs)
    if (&c != pick && c.ids.size() == best && best > 0)
      pr.ties.push_back(c.ids == pick->ids
                            ? fmt::format("so does {}", interval_text(pr.search, c.interval.first, c.interval.second))
                            : fmt::format("{} reproduces as many ({})",
                                          interval_text(pr.search, c.interval.first, c.interval.second),
                                          fmt::join(c.ids, ", ")));
}

}  // namespace

std::vector<PaperReading> paper_readings(const std::map<std::string, std::vector<SettingScan>>& scans) {
  std::map<std::string, Members> by_setting;
  for (const auto& [id, list] : scans)
    for (const auto& sc : list) by_setting[sc.setting].push_back({id, &sc});
  std::vector<PaperReading> out;
  for (const auto& [setting, members] : by_setting) {
    PaperReading pr;
    pr.setting = setting;
    pr.search = members.front().second->search;
    pr.numeric = members.front().second->numeric;
    pr.of = members.size();
    if (pr.numeric) {
      choose_numeric(pr, members);
    } else {
      std::vector<std::string> labels;
      for (const auto& m : members)
        for (const auto& l : m.second->labels)
          if (std::find(labels.begin(), labels.end(), l) == labels.end()) labels.push_back(l);
      pr.label = "as stated";
      bool first = true;
      for (const auto& l : labels) {
        PaperReading probe = pr;
        probe.label = l;
        std::size_t c = 0;
        for (const auto& m : members) c += probe.reproduces(*m.second) ? 1 : 0;
        if (first || c > pr.reproduced) pr.label = l, pr.reproduced = c;
        first = false;
      }
      pr.stated = pr.label == "as stated";
    }
    for (const auto& m : members)
      if (!pr.reproduces(*m.second)) pr.fails.push_back(m.first);
    out.push_back(std::move(pr));
  }
  return out;
}

std::string reproducing_values(const SettingScan& sc) {
  if (!sc.numeric) {
    std::vector<std::string> ls;
    for (std::size_t i = 0; i < sc.labels.size(); ++i)
      if (sc.judged[i].verdict != Verdict::differs) ls.push_back(sc.labels[i]);
    return fmt::format("{}", fmt::join(ls, "; "));
  }
  std::vector<bool> ok;
  for (const auto& j : sc.judged) ok.push_back(j.verdict != Verdict::differs);
  std::vector<std::string> parts;
  for (const auto& [lo, hi] : runs_of(sc.values, ok, sc.search == "k"))
    parts.push_back(interval_text(sc.search, lo, hi));
  return fmt::format("{}", fmt::join(parts, " or "));
}

}  // namespace retrylab::papers::published

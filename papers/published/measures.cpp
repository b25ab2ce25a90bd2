#include "papers/published/measures.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "analytic/aloha.hpp"
#include "analytic/error.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "papers/intervals.hpp"
#include "papers/published/fits.hpp"

namespace retrylab::papers::published {

namespace {

using nlohmann::json;
constexpr double z95_two_sided = 1.959963984540054;

[[noreturn]] void bad_measure(const std::string& id, const std::string& key, const std::string& rule) {
  throw InputError(fmt::format("statement {}: {}", id, key), rule);
}

// A number of a summary entry, or `fallback` when it is missing or null (e.g. sd of one run).
double num_or(const json& e, const char* key, double fallback) {
  return e.contains(key) && e.at(key).is_number() ? e.at(key).get<double>() : fallback;
}

Sample mean_sample(const Estimate& e, std::int64_t runs, std::string note = {}) {
  Sample s;
  s.kind = Sample::Kind::mean;
  s.value = e.mean, s.lo = e.lo, s.hi = e.hi, s.runs = runs, s.note = std::move(note);
  return s;
}

Sample exact_sample(double x, std::string note = {}) {
  Sample s;
  s.kind = std::isnan(x) ? Sample::Kind::none : Sample::Kind::exact;
  s.value = x, s.note = std::move(note);
  return s;
}

// A metric of one point: a fraction of runs as k of n, anything else as a mean with its interval.
Sample point_sample(const std::string& id, const Point& p, const std::string& metric) {
  const json& e = entry(id, p, metric);
  if (intervals::quantity_of(metric) == intervals::Quantity::fraction_of_runs && e.contains("count")) {
    Sample s;
    s.kind = Sample::Kind::fraction;
    s.count = e.at("count").get<std::int64_t>();
    s.runs = e.at("n").get<std::int64_t>();
    const Estimate w = intervals::wilson(s.count, s.runs);
    s.value = w.mean, s.lo = w.lo, s.hi = w.hi;
    return s;
  }
  Sample s = mean_sample(value_of(id, p, metric), runs_of(id, p, metric));
  const json& sum = p.rec->at("summary");
  if (metric.rfind("drain_time", 0) == 0 && sum.contains("drained") && sum.at("drained").at("fraction") < 1.0)
    s.note =
        fmt::format("only {} of {} runs drained within the horizon {} (the time is theirs)",
                    sum.at("drained").at("count").get<std::int64_t>(), sum.at("drained").at("n").get<std::int64_t>(),
                    p.fields.count("horizon") ? p.fields.at("horizon") : "?");
  return s;
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

std::int64_t runs_reaching(const std::string& id, const Point& p, std::int64_t k) {
  std::int64_t hits = 0;
  for (double x : max_waiting(id, p)) hits += x >= static_cast<double>(k) ? 1 : 0;
  return hits;
}

Sample threshold_sample(std::vector<Level> levels, Rule rule, const std::string& what) {
  Sample s;
  s.kind = Sample::Kind::threshold;
  s.rule = rule;
  s.levels = std::move(levels);
  s.value = threshold_of(s.levels, rule);
  if (std::isnan(s.value)) s.note = "no " + what + " of the grid meets it";
  return s;
}

Sample collapse(const std::string& id, const std::vector<Point>& pts, const Query& q) {
  std::vector<Level> levels;
  for (const auto& p : sorted_by(pts, "rate")) {
    const auto mw = max_waiting(id, p);
    levels.push_back(
        {field_num(p, "rate"), runs_reaching(id, p, collapse_k(q, p)), static_cast<std::int64_t>(mw.size())});
  }
  if (levels.empty()) bad_measure(id, "where", "selects no point of sweep " + q.sweep);
  return threshold_sample(std::move(levels), q.measure == "collapse_load" ? Rule::first_half : Rule::last_before_half,
                          "load");
}

Sample cap_threshold(const std::string& id, const std::vector<Point>& pts, const Query& q) {
  std::vector<Level> levels;
  for (const auto& p : sorted_by(pts, "cap")) {
    const json& d = entry(id, p, "drained");
    levels.push_back({field_num(p, "cap"), d.at("count").get<std::int64_t>(), d.at("n").get<std::int64_t>()});
  }
  if (levels.empty()) bad_measure(id, "where", "selects no point of sweep " + q.sweep);
  return threshold_sample(std::move(levels), Rule::first_all, "cap");
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

// The lowest mean among the points where every run finished.
std::optional<Point> best_of(const std::string& id, const std::vector<Point>& cands, const std::string& metric) {
  std::optional<Point> best;
  double lowest = inf;
  for (const auto& p : cands) {
    const json& mk = entry(id, p, "makespan");
    if (mk.at("n").get<std::int64_t>() != p.rec->at("runs").get<std::int64_t>()) continue;  // a run did not finish
    const double m = entry(id, p, metric).at("mean").get<double>();
    if (m < lowest) lowest = m, best = p;
  }
  return best;
}

std::string best_name(const Point& p, const std::vector<std::string>& fields) {
  if (p.fields.count("strategy") && p.fields.at("strategy") == "none")
    return "no backoff (no sleep at all: the physical limit of the search)";
  return describe(p, fields);
}

std::string edge_note(std::vector<std::string> e) {
  return e.empty() ? std::string() : fmt::format(" (at the grid's edge: {})", fmt::join(e, ", "));
}

Estimate ratio(const Estimate& a, double sda, double na, const Estimate& b, double sdb, double nb) {
  const double r = a.mean / b.mean;
  const double ra = sda / a.mean, rb = sdb / b.mean;
  const double se = std::sqrt(ra * ra / na + rb * rb / nb);
  if (!(se > 0.0)) return {r, r, r};
  return {r, r * std::exp(-z95_two_sided * se), r * std::exp(z95_two_sided * se)};
}

Sample ratio_sample(const std::string& id, const Point& a, const Point& b, const std::string& metric) {
  const json& ea = entry(id, a, metric);
  const json& eb = entry(id, b, metric);
  const double na = ea.at("n").get<double>(), nb = eb.at("n").get<double>();
  return mean_sample(
      ratio(value_of(id, a, metric), num_or(ea, "sd", 0.0), na, value_of(id, b, metric), num_or(eb, "sd", 0.0), nb),
      static_cast<std::int64_t>(std::min(na, nb)));
}

Sample best(const std::string& id, const Results& r, const Query& q) {
  const auto cands = r.select(id, q, q.where);
  const auto b = best_of(id, cands, q.metric);
  if (!b) return exact_sample(nan, "no point where every run finished");
  return mean_sample(value_of(id, *b, q.metric), runs_of(id, *b, q.metric),
                     "best at " + best_name(*b, {"strategy", "base", "cap", "window"}) + edge_note(edges(*b, cands)));
}

Sample best_ratio(const std::string& id, const Results& r, const Query& q) {
  const auto ca = r.select(id, q, q.where), cb = r.select(id, q, q.over, true);
  const auto a = best_of(id, ca, q.metric), b = best_of(id, cb, q.metric);
  if (!a || !b) return exact_sample(nan, "no point where every run finished");
  Sample s = ratio_sample(id, *a, *b, q.metric);
  auto e = edges(*a, ca);
  for (const auto& x : edges(*b, cb)) e.push_back(x);
  s.note =
      "best " + best_name(*a, {"strategy", "base", "cap"}) + " against " + best_name(*b, {"window"}) + edge_note(e);
  return s;
}

Sample ratio_to_best(const std::string& id, const Results& r, const Query& q, const Point& a) {
  const auto bs = r.select(id, q, q.over, true);
  const auto mean = [&](const Point& p) {
    const json& e = entry(id, p, q.metric);
    return e.contains("mean") && e.at("mean").is_number() ? e.at("mean").get<double>() : nan;
  };
  const Point* b = nullptr;
  for (const auto& p : bs)
    if (!std::isnan(mean(p)) && (!b || mean(p) < mean(*b))) b = &p;
  if (!b) bad_measure(id, "over", "selects no point with a value of " + q.metric);
  Sample s = ratio_sample(id, a, *b, q.metric);
  s.note = "the fastest other: " + describe(*b, {"strategy", "cap"});
  return s;
}

Sample extreme(const std::string& id, const std::vector<Point>& pts, const Query& q) {
  if (pts.empty()) bad_measure(id, "where", "selects no point of sweep " + q.sweep);
  std::optional<Sample> pick;
  for (const auto& p : pts) {
    const Sample s = point_sample(id, p, q.metric);
    const double m = std::isnan(s.value) ? inf : s.value;  // no finished run: unbounded
    const double cur = pick ? (std::isnan(pick->value) ? inf : pick->value) : nan;
    if (!pick || (q.measure == "max" ? m > cur : m < cur)) pick = s;
  }
  return *pick;
}

std::vector<FitPoint> fit_points(const std::string& id, const std::vector<Point>& pts, const std::string& metric) {
  std::vector<FitPoint> out;
  for (const auto& p : pts) {
    const json& e = entry(id, p, metric);
    const double n = num_or(e, "n", 0.0), sd = num_or(e, "sd", 0.0);
    out.push_back({field_num(p, "clients"), num_or(e, "mean", nan), n > 0 ? sd / std::sqrt(n) : 0.0});
  }
  if (out.size() < 2) bad_measure(id, "where", "a fit needs at least 2 client counts");
  return out;
}

// |simulated / closed form − 1| of one checks point, its interval mapped through |.|.
Estimate check_error(const std::string& id, const Point& p) {
  const std::string model = p.fields.count("model") ? p.fields.at("model") : "";
  const double rate = field_num(p, "rate");
  double exact = nan;
  std::string metric = "goodput";
  if (model == "collision") exact = goodput(PureAloha{rate});
  if (model == "free") exact = goodput(OccFree{rate});
  if (model == "ps" && rate < 1) exact = mean_time(ProcessorSharing{rate, 1.0}), metric = "sojourn";
  if (std::isnan(exact)) bad_measure(id, "where", "check_error needs collision, free or ps points (a closed form)");
  const Estimate e = value_of(id, p, metric);
  const double v = e.mean / exact - 1, lo = e.lo / exact - 1, hi = e.hi / exact - 1;
  if (lo >= 0) return {v, lo, hi};
  if (hi <= 0) return {-v, -hi, -lo};
  return {std::fabs(v), 0.0, std::max(-lo, hi)};
}

Sample worst_check(const std::string& id, const std::vector<Point>& pts) {
  std::optional<Sample> pick;
  for (const auto& p : pts) {
    const Sample s =
        mean_sample(check_error(id, p), runs_of(id, p, p.fields.at("model") == "ps" ? "sojourn" : "goodput"),
                    "largest at rate " + describe(p, {"rate"}).substr(5));
    if (!pick || s.lo > pick->lo) pick = s;
  }
  if (!pick) bad_measure(id, "where", "selects no point of sweep checks");
  return *pick;
}

Sample first_retry(const std::string& id, const std::vector<Point>& pts, const Query& q) {
  if (std::isnan(q.threshold)) bad_measure(id, "threshold", "is required by first_retry");
  for (const auto& p : sorted_by(pts, "retry"))
    if (p.rec->at("sleep").at(q.field).get<double>() >= q.threshold) return exact_sample(field_num(p, "retry"));
  return exact_sample(nan, "no retry of the sweep reaches it");
}

// exp(the least-squares slope of ln(sleep quantile) against the retry) − 1: the growth per retry.
Sample growth(const std::string& id, const std::vector<Point>& pts, const Query& q) {
  if (pts.size() < 2) bad_measure(id, "where", "growth needs at least 2 retries");
  std::vector<FitPoint> fp;
  for (const auto& p : pts)
    fp.push_back({std::exp(field_num(p, "retry")), p.rec->at("sleep").at(q.field).get<double>(), 0.0});
  const Estimate b = power_exponent(fp);  // ln y against ln(e^k) = k
  return exact_sample(std::exp(b.mean) - 1,
                      fmt::format("over retries {} to {}", describe(pts.front(), {"retry"}).substr(6),
                                  describe(pts.back(), {"retry"}).substr(6)));
}

// The value of `field` (e.g. cap) at the lowest mean of `metric` among the points where every run has
// a value (a drain time only counts where every run drained): an exact grid value.
Sample argmin(const std::string& id, const std::vector<Point>& pts, const Query& q) {
  const Point* b = nullptr;
  double lowest = inf;
  for (const auto& p : pts) {
    const json& e = entry(id, p, q.metric);
    if (!e.contains("mean") || !e.at("mean").is_number()) continue;
    if (num_or(e, "n", 0.0) != p.rec->at("runs").get<double>()) continue;
    const double m = e.at("mean").get<double>();
    if (m < lowest) lowest = m, b = &p;
  }
  if (!b) return exact_sample(nan, "no point where every run has a value of " + q.metric);
  return exact_sample(field_num(*b, q.field), fmt::format("the lowest {} ({}) is at {}", q.metric,
                                                          format_number(lowest), describe(*b, {q.field})));
}

Sample at_best(const std::string& id, const std::vector<Point>& pts, const Query& q) {
  const Point* b = nullptr;
  for (const auto& p : pts)
    if (!b || entry(id, p, q.by).at("mean").get<double>() > entry(id, *b, q.by).at("mean").get<double>()) b = &p;
  if (!b) bad_measure(id, "where", "selects no point of sweep " + q.sweep);
  Sample s = point_sample(id, *b, q.metric);
  s.note = "the largest " + q.by + " at " + describe(*b, {"model", "rate"});
  return s;
}

// max_of, min_of, difference_of, ratio_of over other statements' samples.
Sample of_others(const std::string& id, const Query& q, const SampleOf& other, int seed) {
  std::vector<Sample> ss;
  for (const auto& o : q.of) ss.push_back(other(o, seed, q.k));
  if (q.measure == "max_of" || q.measure == "min_of") {
    std::size_t k = 0;
    for (std::size_t i = 1; i < ss.size(); ++i)
      if (q.measure == "max_of" ? ss[i].value > ss[k].value : ss[i].value < ss[k].value) k = i;
    Sample s = ss.at(k);
    s.note = "from " + q.of[k];
    return s;
  }
  if (ss.size() != 2) bad_measure(id, "of", q.measure + " needs two statements");
  const Sample &a = ss[0], &b = ss[1];
  const bool diff = q.measure == "difference_of";
  const double v = diff ? a.value - b.value : a.value / b.value;
  if (a.kind != Sample::Kind::mean || b.kind != Sample::Kind::mean || std::isnan(a.lo) || std::isnan(b.lo))
    return exact_sample(v, fmt::format("{} {} {}", q.of[0], diff ? "minus" : "over", q.of[1]));
  const double sa = (a.hi - a.lo) / (2 * z95_two_sided), sb = (b.hi - b.lo) / (2 * z95_two_sided);
  const double se = diff ? std::hypot(sa, sb) : std::fabs(v) * std::hypot(sa / a.value, sb / b.value);
  return mean_sample({v, v - z95_two_sided * se, v + z95_two_sided * se}, std::min(a.runs, b.runs));
}

Sample one_measure(const std::string& id, const Results& r, const Query& q, const SampleOf& other, int seed) {
  if (!q.of.empty()) return of_others(id, q, other, seed);
  const auto pts = r.select(id, q, q.where);
  const auto one = [&]() -> const Point& {
    if (pts.size() != 1)
      bad_measure(id, "where", fmt::format("must select one point of sweep {} (selects {})", q.sweep, pts.size()));
    return pts.front();
  };
  const std::string& m = q.measure;
  if (m == "value") return point_sample(id, one(), q.metric);
  if (m == "reached") {
    Sample s;
    s.kind = Sample::Kind::fraction;
    s.runs = static_cast<std::int64_t>(max_waiting(id, one()).size());
    s.count = runs_reaching(id, one(), collapse_k(q, one()));
    s.value = static_cast<double>(s.count) / static_cast<double>(s.runs);
    return s;
  }
  if (m == "sleep") return exact_sample(one().rec->at("sleep").at(q.field).get<double>());
  if (m == "collapse_load" || m == "last_surviving") return collapse(id, pts, q);
  if (m == "cap_threshold") return cap_threshold(id, pts, q);
  if (m == "best") return best(id, r, q);
  if (m == "best_ratio") return best_ratio(id, r, q);
  if (m == "ratio") {
    const auto bs = r.select(id, q, q.over, true);
    if (bs.size() != 1) bad_measure(id, "over", fmt::format("must select one point (selects {})", bs.size()));
    return ratio_sample(id, one(), bs.front(), q.metric);
  }
  if (m == "ratio_to_best") return ratio_to_best(id, r, q, one());
  if (m == "max" || m == "min") return extreme(id, pts, q);
  if (m == "exponent") return mean_sample(power_exponent(fit_points(id, pts, q.metric)), 0);
  if (m == "quadratic_share") return mean_sample(quadratic_share(fit_points(id, pts, q.metric)), 0);
  if (m == "exponent_trend") return mean_sample(exponent_trend(fit_points(id, pts, q.metric)), 0);
  if (m == "affine_r2") return exact_sample(affine_r2(fit_points(id, pts, q.metric)), "y = a + bN, weighted");
  if (m == "check_error") return worst_check(id, pts);
  if (m == "first_retry") return first_retry(id, pts, q);
  if (m == "growth") return growth(id, sorted_by(pts, "retry"), q);
  if (m == "at_best") return at_best(id, pts, q);
  if (m == "argmin") return argmin(id, pts, q);
  bad_measure(id, "measure", "is not one of the measures (got " + m + ")");
}

// The measure for each value of q.per among the selected points; the largest is kept.
Sample per_value(const std::string& id, const Results& r, const Query& q, const SampleOf& other, int seed) {
  std::set<std::string> values;
  for (const auto& p : r.select(id, q, q.where))
    if (p.fields.count(q.per)) values.insert(p.fields.at(q.per));
  std::optional<Sample> pick;
  for (const auto& v : values) {
    Query one = q;
    one.per.clear();
    one.where[q.per] = {v};
    if (!one.over.empty()) one.over[q.per] = {v};
    Sample s = one_measure(id, r, one, other, seed);
    s.note = fmt::format("the largest over {} is at {} {}{}", q.per, q.per, v, s.note.empty() ? "" : "; " + s.note);
    if (!pick || s.value > pick->value) pick = std::move(s);
  }
  if (!pick) bad_measure(id, "per", "selects no point with field " + q.per);
  return *pick;
}

}  // namespace

Query on_seed(Query q, int seed) {
  if (seed == 1 && !q.sweep.empty()) q.sweep += "@2";
  return q;
}

Sample measure(const std::string& id, const Results& r, const Query& query, const SampleOf& other, int seed) {
  const Query q = on_seed(query, seed);
  Sample s = q.per.empty() ? one_measure(id, r, q, other, seed) : per_value(id, r, q, other, seed);
  const auto f = [&](double x) { return x * q.scale + q.offset; };
  s.value = f(s.value), s.lo = f(s.lo), s.hi = f(s.hi);
  if (q.scale < 0) std::swap(s.lo, s.hi);
  for (auto& l : s.levels) l.x = f(l.x);
  return s;
}

}  // namespace retrylab::papers::published

// retrylab._core: the pybind11 extension under `import retrylab` (python/retrylab/__init__.py wraps
// it). The Python API mirrors the CLI: scenario fields by their names in the field table
// (montecarlo/fields.hpp), values parsed by that table's parser, times in the unit given
// (--unit/--attempt-duration of `retrylab simulate`), the summary built from the same summarize() in
// the same run order, so a seed gives the CLI's numbers bit for bit (python/tests compares them).
// Results cross into Python as JSON text (doubles printed to round-trip) plus numpy arrays for the
// per-run metrics. Every InputError becomes ValueError with the CLI's one-line message (the field
// spelled as its flag). The GIL is released while the engine runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "advise/advise.hpp"
#include "advise/report.hpp"
#include "analytic/aloha.hpp"
#include "analytic/amplification.hpp"
#include "analytic/budget.hpp"
#include "analytic/burst.hpp"
#include "analytic/classic.hpp"
#include "analytic/decorrelated.hpp"
#include "analytic/error.hpp"
#include "analytic/fluid_cap.hpp"
#include "analytic/markov.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "analytic/sleep.hpp"
#include "analytic/steady.hpp"
#include "analytic/version.hpp"
#include "api/policy.hpp"
#include "api/scenario.hpp"
#include "api/series.hpp"
#include "api/simulate.hpp"
#include "montecarlo/fields.hpp"
#include "montecarlo/metrics.hpp"
#include "montecarlo/result.hpp"
#include "montecarlo/scenario.hpp"
#include "montecarlo/simulate.hpp"
#include "validation/report.hpp"
#include "validation/suite.hpp"
#include "validation/trace_check.hpp"
#include "validation/trace_json.hpp"

namespace py = pybind11;
using Json = nlohmann::ordered_json;

namespace retrylab::python {

namespace {

// An InputError as Python's ValueError, naming the argument as Python spells it (reject_cost).
[[noreturn]] void raise(const InputError& e) {
  throw py::value_error(api::spelled(e.field(), api::Spelling::keyword) +
                        std::string(e.what()).substr(e.field().size()));
}

using api::number;
using api::to_json;
using montecarlo::Dim;

// The user's unit: attempt-durations, or any unit of D attempt-durations (in_unit and out scale by D).
montecarlo::TimeUnit unit_of(double D) {
  montecarlo::TimeUnit u;
  if (D != 1.0) u = {"ms", D};
  return u;
}

// A value in attempt-durations into the user's unit: times x D, rates / D (as the CLI does).
double out(Dim d, double v, double D) { return unit_of(D).out(d, v); }

// D from unit/attempt_duration, with the CLI's rules and messages (attempt_duration <= 0: not given).
double attempt_length(const std::string& unit, double attempt_duration) {
  return montecarlo::time_unit(unit, attempt_duration, attempt_duration != 0.0).attempt_duration;
}

py::array_t<double> column(const std::vector<montecarlo::RunResult>& runs, auto value) {
  py::array_t<double> a(static_cast<py::ssize_t>(runs.size()));
  auto w = a.mutable_unchecked<1>();
  for (std::size_t i = 0; i < runs.size(); ++i) w(static_cast<py::ssize_t>(i)) = value(runs[i]);
  return a;
}

// Returns (summary JSON text, per-run arrays): the CLI's document (api/simulate.hpp) plus the
// canonical string, and one array per shown metric and per core count.
py::tuple simulate(const std::map<std::string, std::string>& values, const std::string& unit, double attempt_duration,
                   std::int64_t runs, std::uint64_t seed, int threads, bool server_engine, std::optional<double> series,
                   std::optional<std::string> policy_file, const std::string& select, bool strict) {
  for (const auto& [name, text] : values)
    if (!montecarlo::find_field(name))
      throw py::type_error(
          fmt::format("simulate() got an unexpected keyword argument '{}' (retrylab.fields() lists "
                      "the scenario fields)",
                      name));
  api::ScenarioRequest request;
  request.fields.insert(values.begin(), values.end());
  request.unit = unit;
  if (attempt_duration != 0.0) request.attempt_duration = attempt_duration;
  api::ResolvedScenario sc;
  montecarlo::RunPlan plan;
  std::optional<double> bin;
  try {
    if (!policy_file && (!select.empty() || strict))
      throw InputError(select.empty() ? "strict" : "policy_select", "needs policy=FILE");
    if (policy_file) {
      // The file's fields under the keywords given; each setting not modelled is a UserWarning.
      const policy::Policy p = api::load_policy(*policy_file, select, api::Spelling::keyword);
      for (const std::string& w : api::apply_policy(request, p, api::Spelling::keyword, strict))
        if (PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 1) != 0) throw py::error_already_set();
    }
    sc = api::resolve(request, api::Spelling::keyword);
    plan.runs = runs;
    plan.seed = seed;
    plan.threads = threads;
    plan.server_engine = server_engine;
    montecarlo::check_run_plan(plan);
    if (series) bin = api::series_bin(*series, sc, api::Spelling::keyword);
  } catch (const InputError& e) {
    raise(e);
  }
  api::Simulation sim;
  {
    py::gil_scoped_release release;
    sim = api::simulate(sc, plan, {}, bin);
  }
  Json j = api::simulate_json(sim);
  j["canonical"] = montecarlo::canonical(sc.scenario);
  const double D = sc.unit.attempt_duration;
  const auto& results = sim.runs;
  py::dict per_run;
  for (const montecarlo::Metric* m : montecarlo::shown_metrics(sc.scenario, server_engine))
    per_run[std::string(m->key).c_str()] =
        column(results, [&](const montecarlo::RunResult& r) { return out(m->dim, m->value(r), D); });
  using R = montecarlo::RunResult;
  per_run["stop_time"] = column(results, [&](const R& r) { return r.stop_time * D; });
  per_run["attempts"] = column(results, [](const R& r) { return static_cast<double>(r.attempts); });
  per_run["successes"] = column(results, [](const R& r) { return static_cast<double>(r.successes); });
  per_run["unfinished"] = column(results, [](const R& r) { return static_cast<double>(r.unfinished); });
  per_run["max_waiting"] = column(results, [](const R& r) { return static_cast<double>(r.max_waiting); });
  per_run["drained"] = column(results, [](const R& r) { return r.drained ? 1.0 : 0.0; });
  per_run["collapsed"] = column(results, [](const R& r) { return r.collapsed ? 1.0 : 0.0; });
  return py::make_tuple(j.dump(), per_run);
}

py::list fields() {
  py::list out;
  for (const montecarlo::Field& f : montecarlo::scenario_fields()) {
    py::dict d;
    d["name"] = std::string(f.name);
    d["flag"] = montecarlo::flag_of(f);
    d["unit"] = std::string(montecarlo::unit_text(f));
    d["default"] = montecarlo::default_text(f);
    d["allowed"] = montecarlo::range_text(f);
    d["meaning"] = std::string(f.meaning);
    py::list choices;
    for (auto c : f.choices) choices.append(std::string(c));
    d["choices"] = choices;
    out.append(d);
  }
  return out;
}

std::string advise(std::int64_t clients_low, std::int64_t clients, const std::string& failed_attempts,
                   const std::string& unit, double attempt_duration, double rate, double base, double drain_within,
                   double probability, const std::vector<std::string>& strategies, std::uint64_t seed, int threads) {
  advise::Request r;
  double D = 1.0;
  try {
    D = attempt_length(unit, attempt_duration);
    if (failed_attempts == "free")
      r.model = Model::free;
    else if (failed_attempts == "use-capacity")
      r.model = Model::shared;
    else if (failed_attempts == "collide")
      r.model = Model::collision;
    else
      throw InputError("--failed-attempts",
                       fmt::format("must be free, use-capacity or collide (got {})", failed_attempts));
    r.clients = clients;
    r.clients_low = clients_low;
    r.rate = rate * D;
    if (base != 0.0) r.base = base / D;
    if (drain_within != 0.0) r.drain_within = drain_within / D;
    r.probability = probability;
    if (!strategies.empty()) {
      r.strategies.clear();
      for (const auto& name : strategies) {
        const auto s = parse_strategy(name);
        if (!s)
          throw InputError("--strategies",
                           fmt::format("must name nojitter, full, equal, decorrelated or memoryless (got {})", name));
        r.strategies.push_back(*s);
      }
    }
    r.seed = seed;
    r.threads = threads;
    advise::check_request(r);
  } catch (const InputError& e) {
    raise(e);
  }
  advise::Advice a;
  {
    py::gil_scoped_release release;
    a = advise::advise(r);
  }
  Json j;
  j["retrylab"] = std::string(version);
  j["unit"] = unit == "attempt" ? std::string("attempt-duration") : unit;
  if (unit != "attempt") j["attempt_duration"] = D;
  const Json body = advise::advice_json(a, D);
  for (auto& [k, v] : body.items()) j[k] = v;
  return j.dump();
}

std::string check(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw py::value_error(fmt::format("check: TRACE must be a readable file (got {})", path));
  validation::TraceReport r;
  try {
    r = validation::check_trace(in);
  } catch (const InputError& e) {
    throw py::value_error(fmt::format("check: {} {}", path, e.what()));
  }
  if (r.rows == 0)
    throw py::value_error(fmt::format("check: {} has a header but no attempt rows: nothing to check", path));
  return validation::trace_report_json(r, path).dump();
}

std::string validate(bool quick, std::uint64_t seed, int threads, const std::vector<std::string>& only) {
  validation::SuiteOptions opt;
  opt.only = only;
  opt.scale = quick ? validation::Scale::quick : validation::Scale::full;
  opt.seed = seed;
  opt.threads = threads;
  validation::SuiteResult result;
  {
    py::gil_scoped_release release;
    result = validation::run_suite(opt);
  }
  return validation::format_json(result, std::string(version));
}

// Closed forms: thin calls of analytic/; each checks its input (InputError -> ValueError by the
// translator registered in the module).
Backoff backoff_of(const std::string& strategy, double base, double cap, double window) {
  const auto s = parse_strategy(strategy);
  if (!s)
    throw InputError(
        "strategy",
        fmt::format("must be one of none, nojitter, full, equal, decorrelated, window, memoryless (got {})", strategy));
  return Backoff{*s, base, cap, window};
}

Model model_of(const std::string& name) {
  const auto m = parse_model(name);
  if (!m) throw InputError("model", fmt::format("must be one of collision, free, shared, ps (got {})", name));
  return *m;
}

void bind_analytic(py::module_& m) {
  constexpr double inf = unbounded_cap;
  m.def(
      "aloha_goodput",
      [](double rate) {
        PureAloha a{rate};
        check_aloha(a);
        return goodput(a);
      },
      py::arg("rate"), "Pure ALOHA goodput rate·e^(−2·rate) (proofs/Aloha.v)");
  m.def(
      "aloha_inverse",
      [](double g) {
        const AlohaInverse r = aloha_inverse(g);
        return py::make_tuple(r.low, r.high);
      },
      py::arg("goodput"), "The two loads with goodput g: (low <= 1/2, high >= 1/2), Lambert W");
  m.def(
      "occ_goodput",
      [](double rate) {
        OccFree o{rate};
        check_occ(o);
        return goodput(o);
      },
      py::arg("rate"), "First-commit-wins, failures free (M/D/1/1 loss): rate/(1+rate)");
  m.def(
      "ps_mean_time",
      [](double load, double service) {
        ProcessorSharing p{load, service};
        check_ps(p);
        return mean_time(p);
      },
      py::arg("load"), py::arg("service") = 1.0, "Processor sharing: mean time in system service/(1−load)");
  m.def(
      "sleep_mean",
      [](const std::string& strategy, int retry, double base, double cap, double window) {
        return SleepDistribution(backoff_of(strategy, base, cap, window), retry).mean();
      },
      py::arg("strategy"), py::arg("retry"), py::arg("base") = 1.0, py::arg("cap") = 1000.0, py::arg("window") = 0.0,
      "Mean of the sleep before retry k");
  m.def(
      "sleep_quantile",
      [](const std::string& strategy, int retry, double q, double base, double cap, double window) {
        return SleepDistribution(backoff_of(strategy, base, cap, window), retry).quantile(q);
      },
      py::arg("strategy"), py::arg("retry"), py::arg("q"), py::arg("base") = 1.0, py::arg("cap") = 1000.0,
      py::arg("window") = 0.0, "Quantile q of the sleep before retry k");
  m.def(
      "classic",
      [](const std::string& model, const std::string& strategy, std::int64_t clients, double base, double cap) {
        ClassicTest t{model_of(model), backoff_of(strategy, base, cap, 0.0), clients};
        check_classic(t);
        const ClassicResult r = classic(t);
        py::dict d;
        d["finishes"] = r.finishes;
        d["attempts_per_client"] = r.attempts_per_client ? py::cast(*r.attempts_per_client) : py::none();
        d["makespan"] = r.makespan ? py::cast(*r.makespan) : py::none();
        return d;
      },
      py::arg("model"), py::arg("strategy"), py::arg("clients"), py::arg("base") = 1.0, py::arg("cap") = 1000.0,
      "Classic test (N clients together), exact: attempts per client and makespan");
  m.def(
      "markov",
      [](const std::string& model, std::int64_t clients, double base, double cap) {
        MarkovBurst b{model_of(model), Backoff{Strategy::memoryless, base, cap, 0.0}, clients};
        check_markov(b);
        const MarkovSolution s = solve_markov(b);
        return py::make_tuple(s.attempts_per_client, s.makespan);
      },
      py::arg("model"), py::arg("clients"), py::arg("base") = 1.0, py::arg("cap") = 8.0,
      "EXACT classic test of N <= 8 memoryless clients (Markov chain): (attempts per client, makespan)");
  m.def(
      "amplification",
      [](int layers, int attempts, double failure) {
        RetryAmplification a{layers, attempts, failure};
        check_amplification(a);
        return expected_bottom_calls(a);
      },
      py::arg("layers"), py::arg("attempts"), py::arg("failure"), "Expected bottom calls per top request");
  m.def(
      "growth",
      [](std::optional<double> sleep, double base, double cap) {
        return sleep ? decorrelated_step_growth(*sleep, base, cap) : decorrelated_growth_limit();
      },
      py::arg("sleep") = py::none(), py::arg("base") = 1.0, py::arg("cap") = inf,
      "Decorrelated jitter: E[ln(s_k/s_(k-1)) | s_(k-1) = sleep], or its limit ln 3 - 1 without a sleep");
  m.def(
      "budget",
      [](const std::string& preset, std::optional<double> capacity, std::optional<double> cost,
         std::optional<double> refund, std::optional<double> threshold, double successes, double requests) {
        if (preset == "finagle") {
          const FinagleBudget f{};
          check_finagle_budget(f);
          return finagle_max_retries(f, requests);
        }
        TokenBucket t;
        if (preset == "aws-standard")
          t = aws_standard();
        else if (preset == "aws-standard-timeout")
          t = aws_standard_timeout();
        else if (preset == "grpc")
          t = grpc_throttling();
        else if (preset == "custom") {
          if (!capacity || !cost || !refund)
            throw InputError("preset", "custom needs capacity, cost and refund (a custom bucket has no preset values)");
          t.threshold = 0.0;
        } else
          throw InputError(
              "preset",
              fmt::format("must be aws-standard, aws-standard-timeout, grpc, finagle or custom (got {})", preset));
        if (capacity) t.capacity = *capacity;
        if (cost) t.retry_cost = *cost;
        if (refund) t.refund = *refund;
        if (threshold) t.threshold = *threshold;
        check_token_bucket(t);
        return max_retries(t, successes);
      },
      py::arg("preset") = "aws-standard", py::arg("capacity") = py::none(), py::arg("cost") = py::none(),
      py::arg("refund") = py::none(), py::arg("threshold") = py::none(), py::arg("successes") = 0.0,
      py::arg("requests") = 0.0, "Retry budget: the most retries allowed (as `retrylab analytic budget`)");
  m.def(
      "fluid_cap",
      [](std::int64_t clients, double rate, const std::string& strategy, double base) {
        const FluidCapEstimate e = fluid_cap(FluidCap{clients, rate, backoff_of(strategy, base, inf, 0.0)});
        return e.cap;
      },
      py::arg("clients"), py::arg("rate") = 0.0, py::arg("strategy") = "full", py::arg("base") = 1.0,
      "ESTIMATE of the least cap that drains a burst on collision (fluid argument)");
  m.def(
      "burst",
      [](const std::string& model, const std::string& strategy, std::int64_t clients, double base, double cap,
         double rate, double horizon, double collapse) {
        BurstModel b{model_of(model), backoff_of(strategy, base, cap, 0.0), clients, rate, horizon, collapse};
        check_burst_model(b);
        const BurstPrediction p = predict_burst(b);
        py::dict d;
        d["drained"] = p.drained;
        d["collapsed"] = p.collapsed;
        d["drain_time"] = p.drain_time;
        d["drain_time_p99"] = p.drain_time_p99;
        d["peak_backlog"] = p.peak_backlog;
        return d;
      },
      py::arg("model"), py::arg("strategy"), py::arg("clients"), py::arg("base") = 1.0, py::arg("cap") = 1000.0,
      py::arg("rate") = 0.05, py::arg("horizon") = 60000.0, py::arg("collapse") = 3000.0,
      "ESTIMATE (stage ODEs) of a burst on steady load: drained, drain times");
  m.def(
      "burst_cap",
      [](const std::string& model, const std::string& strategy, std::int64_t clients, double base, double rate,
         double horizon, double collapse) {
        BurstModel b{model_of(model), backoff_of(strategy, base, base, 0.0), clients, rate, horizon, collapse};
        const auto c = burst_cap_threshold(b);
        return c ? py::cast(*c) : py::none();
      },
      py::arg("model"), py::arg("strategy"), py::arg("clients"), py::arg("base") = 1.0, py::arg("rate") = 0.05,
      py::arg("horizon") = 60000.0, py::arg("collapse") = 3000.0,
      "ESTIMATE: the smallest cap base·2^(i/8) at which the stage model drains the burst (None if none), as burst "
      "--find-cap");
  m.def(
      "steady_fold_load",
      [](const std::string& model, const std::string& strategy, double base, double cap) {
        const MeanField f(SteadyModel{model_of(model), backoff_of(strategy, base, cap, 0.0)});
        const auto fold = f.fold_load(1e6);
        return fold ? py::cast(*fold) : py::none();
      },
      py::arg("model"), py::arg("strategy"), py::arg("base") = 1.0, py::arg("cap") = 1000.0,
      "ESTIMATE (mean field): the steady load at which the stable low backlog disappears (None: no fold)");
}

}  // namespace

}  // namespace retrylab::python

PYBIND11_MODULE(_core, m) {
  using namespace retrylab::python;
  m.doc() = "retrylab's C++ core (use the retrylab package)";
  m.attr("version") = std::string(retrylab::version);
  m.attr("validation_seed") = retrylab::validation::default_seed;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const retrylab::InputError& e) {
      const std::string name = retrylab::api::spelled(e.field(), retrylab::api::Spelling::keyword);
      PyErr_SetString(PyExc_ValueError, (name + std::string(e.what()).substr(e.field().size())).c_str());
    }
  });
  m.def("fields", &fields, "The scenario field table");
  m.def("simulate", &simulate);
  m.def("advise", &advise);
  m.def("check", &check);
  m.def("validate", &validate);
  py::module_ analytic = m.def_submodule("analytic", "Closed forms and estimates (analytic/)");
  bind_analytic(analytic);
}

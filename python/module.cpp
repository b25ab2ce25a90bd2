// retrylab._core: the pybind11 extension under `import retrylab` (python/retrylab/__init__.py wraps
// it). The Python API mirrors the CLI: scenario fields by their names in the field table
// (montecarlo/fields.hpp), values parsed by that table's parser, times in the unit given
// (--unit/--attempt-duration of `retrylab simulate`), the summary built from the same summarize() in
// the same run order, so a seed gives the CLI's numbers bit for bit (python/tests compares them).
// Results cross into Python as JSON text (doubles printed to round-trip) plus numpy arrays for the
// per-run metrics. Every InputError becomes ValueError with the CLI's one-line message, its fields
// spelled as keywords (api/spelling.hpp). The GIL is released while the engine runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "advise/advise.hpp"
#include "analytic/error.hpp"
#include "analytic/input_file.hpp"
#include "analytic/version.hpp"
#include "api/advise.hpp"
#include "api/analytic.hpp"
#include "api/prepare.hpp"
#include "api/scenario.hpp"
#include "api/series.hpp"
#include "api/simulate.hpp"
#include "montecarlo/fields.hpp"
#include "montecarlo/metrics.hpp"
#include "montecarlo/resources.hpp"
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

// An InputError as Python's ValueError: its field and the fields its message mentions (references,
// api/spelling.hpp) as Python spells them (reject_cost, unit="ms"). The memory limit is half the
// machine's memory, which a Python caller cannot raise (the CLI's max_memory option can).
std::string in_keywords(const InputError& e) {
  const std::string what = e.what();
  std::string text = what.substr(std::min(what.size(), e.field().size() + 1));
  // The api spells the rule before it leaves (api::prepare): the option to raise, as Python spells it.
  const std::string raise = ", or raise " + api::spelled("max_memory", api::Spelling::keyword);
  if (const auto at = text.find(raise); at != std::string::npos)
    text.replace(at, raise.size(), "; the limit is half the machine's memory");
  return api::spelled(e.field(), api::Spelling::keyword) + " " + api::spell_text(text, api::Spelling::keyword);
}

// Its text printable (a file's bytes quoted in it may not be UTF-8, which Python's str refuses).
[[noreturn]] void raise(const InputError& e) { throw py::value_error(printable(in_keywords(e))); }

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

py::array_t<double> column(const std::vector<montecarlo::RunResult>& runs, auto value) {
  py::array_t<double> a(static_cast<py::ssize_t>(runs.size()));
  auto w = a.mutable_unchecked<1>();
  for (std::size_t i = 0; i < runs.size(); ++i) w(static_cast<py::ssize_t>(i)) = value(runs[i]);
  return a;
}

// A warning as Python's UserWarning (an error when the warnings filter says so).
void user_warning(const std::string& w) {
  if (PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 1) != 0) throw py::error_already_set();
}

// Returns (summary JSON text, per-run arrays): the CLI's document (api/simulate.hpp) plus the
// canonical string, and one array per shown metric and per core count. api::prepare checks and
// builds everything (as for `retrylab simulate`); the policy file's and the sanity warnings are
// UserWarnings, the latter also the document's "warnings".
py::tuple simulate(const std::map<std::string, std::string>& values, const std::string& unit, double attempt_duration,
                   std::int64_t runs, std::uint64_t seed, int threads, bool server_engine, std::optional<double> series,
                   std::optional<std::string> policy_file, const std::string& select, bool strict) {
  for (const auto& [name, text] : values)
    if (!montecarlo::find_field(name))
      throw py::type_error(
          fmt::format("simulate() got an unexpected keyword argument '{}' (retrylab.fields() lists "
                      "the scenario fields)",
                      name));
  api::SimulateRequest request;
  request.scenario.fields.insert(values.begin(), values.end());
  request.scenario.unit = unit;
  if (attempt_duration != 0.0) request.scenario.attempt_duration = attempt_duration;
  request.policy = std::move(policy_file);
  if (!select.empty()) request.policy_select = select;
  request.strict = strict;
  request.plan.runs = runs;
  request.plan.seed = seed;
  request.plan.threads = threads;
  request.plan.server_engine = server_engine;
  request.series = series;
  api::PreparedSimulation prepared;
  try {
    prepared = api::prepare(request, api::Spelling::keyword, user_warning);
  } catch (const InputError& e) {
    raise(e);
  }
  for (const std::string& w : prepared.warnings) user_warning(w);
  api::Simulation sim;
  {
    py::gil_scoped_release release;
    sim = api::simulate(prepared);
  }
  for (const std::string& n : api::stop_notes(sim, api::Spelling::keyword)) user_warning(n);
  const api::ResolvedScenario& sc = prepared.scenario;
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

// The field table as api::field_list_json gives it to `retrylab simulate --list-fields json`, with
// each field's choices and kind (python/retrylab/_fields.py: annotations and defaults).
py::object fields() { return py::module_::import("json").attr("loads")(api::field_list_json(true).dump()); }

// retrylab.advise(): the request as given, checked, run and written by api/advise.hpp, as for
// `retrylab advise --json`.
std::string advise(const std::string& clients, std::optional<std::string> failed_attempts, const std::string& unit,
                   std::optional<double> attempt_duration, std::optional<double> rate, std::optional<double> base,
                   std::optional<double> drain_within, double probability, const std::string& objective,
                   std::optional<double> weight, std::optional<std::string> strategies, std::uint64_t seed,
                   int threads) {
  api::AdviseRequest r;
  r.clients = clients;
  r.failed_attempts = std::move(failed_attempts);
  r.unit = unit;
  r.attempt_duration = attempt_duration;
  r.rate = rate;
  r.base = base;
  r.drain_within = drain_within;
  r.probability = probability;
  r.objective = objective;
  r.weight = weight;
  r.strategies = std::move(strategies);
  r.seed = seed;
  r.threads = threads;
  api::PreparedAdvice p;
  try {
    p = api::prepare_advise(r, api::Spelling::keyword);
  } catch (const InputError& e) {
    raise(e);
  }
  advise::Advice a;
  {
    py::gil_scoped_release release;
    a = api::run_advise(p);
  }
  return api::advise_json(a, p).dump();
}

std::string check(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw py::value_error(printable(fmt::format("check: TRACE must be a readable file (got {})", path)));
  validation::TraceReport r;
  try {
    r = validation::check_trace(in);
  } catch (const InputError& e) {
    throw py::value_error(printable(fmt::format("check: {} {}", path, e.what())));
  }
  if (r.rows == 0)
    throw py::value_error(printable(fmt::format("check: {} has a header but no attempt rows: nothing to check", path)));
  return validation::trace_report_json(r, path).dump();
}

// retrylab.check on columns (arrays, a DataFrame): the in-memory entry point of the checker, the
// columns already converted to its types and put in trace order by python/retrylab/_trace.py. Errors
// name the row by its index in the columns given ("row 3: outcome ...").
using Ints = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
using Reals = py::array_t<double, py::array::c_style | py::array::forcecast>;
using Flags = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>;

std::string check_columns(const std::map<std::string, std::string>& header, const Ints& run, const Ints& client,
                          const Ints& retry, const Reals& arrival, const Reals& start, const Reals& end,
                          const Reals& sleep, const Flags& success, const Flags& burst, const Flags& kind,
                          const std::vector<std::tuple<std::int64_t, std::string, double>>& run_ends) {
  const auto span = [](const auto& a) { return std::span(a.data(), static_cast<std::size_t>(a.size())); };
  const validation::TraceColumns columns{span(run), span(client), span(retry),   span(arrival), span(start),
                                         span(end), span(sleep),  span(success), span(burst),   span(kind)};
  std::vector<validation::TraceRunEnd> ends;
  for (const auto& [r, stop, time] : run_ends) ends.push_back({r, stop, time});
  validation::TraceReport report;
  try {
    report = validation::check_trace(header, columns, ends);
  } catch (const InputError& e) {
    throw py::value_error(printable(fmt::format("trace {}", e.what())));
  }
  return validation::trace_report_json(report, "(columns)").dump();
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

// The analytic registry (api/analytic.hpp): one function per command, NAME(**params) returning the
// document `retrylab analytic NAME --json` prints, as a dict. A value of the wrong type raises
// TypeError naming the parameter; the registry's InputError, ValueError with the CLI's line.
std::string_view python_kind(api::ParamKind k) {
  switch (k) {
    case api::ParamKind::real: return "a number";
    case api::ParamKind::integer: return "an int";
    case api::ParamKind::text: return "a str";
    case api::ParamKind::flag: return "a bool";
  }
  return "";
}

api::AnalyticValue analytic_value(const std::string& command, const api::AnalyticParam& p, const py::handle& x) {
  const bool boolean = py::isinstance<py::bool_>(x), text = py::isinstance<py::str>(x);
  const bool integral = !boolean && (py::isinstance<py::int_>(x) || PyIndex_Check(x.ptr()));
  const bool real = !boolean && !text && (integral || py::isinstance<py::float_>(x) || py::hasattr(x, "__float__"));
  switch (p.kind) {
    case api::ParamKind::real:
      if (real) return x.cast<double>();
      break;
    case api::ParamKind::integer:
      if (integral) {
        try {
          return py::int_(py::reinterpret_borrow<py::object>(x)).cast<std::int64_t>();
        } catch (const py::cast_error&) {
          throw py::value_error(fmt::format("{} must be an integer in [{}, {}] (got {})", p.name,
                                            std::numeric_limits<std::int64_t>::min(),
                                            std::numeric_limits<std::int64_t>::max(), std::string(py::str(x))));
        }
      }
      break;
    case api::ParamKind::text:  // a cap may also be a number, or None (or inf) for "none"
      if (text) return x.cast<std::string>();
      if (x.is_none()) return std::string("none");
      if (real) {
        const double v = x.cast<double>();
        return std::isinf(v) && v > 0 ? std::string("none") : fmt::format("{}", v);
      }
      break;
    case api::ParamKind::flag:
      if (boolean) return x.cast<bool>();
      break;
  }
  throw py::type_error(fmt::format("{}() argument '{}': expected {} (got {})", command, p.name, python_kind(p.kind),
                                   std::string(py::str(x.get_type().attr("__name__")))));
}

std::string python_name(std::string_view name) {
  std::string s(name);
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

std::string analytic_doc(const api::AnalyticCommand& c) {
  std::string doc =
      fmt::format("{}\n\nAs `retrylab analytic {} --json`, returned as a dict. Parameters:\n", c.meaning, c.name);
  for (const api::AnalyticParam& p : c.params)
    doc += fmt::format("  {}: {}{}\n", p.name, api::spell_text(p.help, api::Spelling::keyword),
                       p.fallback.empty() ? std::string() : fmt::format(" (default {})", p.fallback));
  return doc;
}

py::list analytic_commands() {
  py::list out;
  for (const api::AnalyticCommand& c : api::analytic_commands()) {
    py::list params;
    for (const api::AnalyticParam& p : c.params) {
      py::dict d;
      d["name"] = std::string(p.name);
      d["kind"] = std::string(python_kind(p.kind));
      d["help"] = api::spell_text(p.help, api::Spelling::keyword);
      d["unit"] = std::string(p.unit);
      d["default"] = p.fallback.empty() ? py::object(py::none()) : py::object(py::str(std::string(p.fallback)));
      d["required"] = p.required;
      params.append(d);
    }
    py::dict d;
    d["name"] = std::string(c.name);
    d["function"] = python_name(c.name);
    d["meaning"] = std::string(c.meaning);
    d["unit"] = std::string(c.unit);
    d["times"] = api::has_times(c);  // takes unit= and attempt_duration=
    d["params"] = params;
    out.append(d);
  }
  return out;
}

void bind_analytic(py::module_& m) {
  m.def("commands", &analytic_commands,
        "The analytic commands: name, function, meaning, unit and parameters (name, kind, help with the allowed "
        "range, unit, default, required)");
  for (const api::AnalyticCommand& c : api::analytic_commands()) {
    const std::string name = python_name(c.name);
    m.def(
        name.c_str(),
        [&c, name](const py::kwargs& kwargs) {
          api::AnalyticValues values;
          api::AnalyticUnit unit;  // unit= and attempt_duration=, as --unit and --attempt-duration
          for (const auto& [key, value] : kwargs) {
            const std::string k = py::str(key);
            if (api::has_times(c) && k == "unit") {
              if (!py::isinstance<py::str>(value))
                throw py::type_error(fmt::format("{}() argument 'unit': expected a str", name));
              unit.unit = value.cast<std::string>();
              continue;
            }
            if (api::has_times(c) && k == "attempt_duration") {
              if (py::isinstance<py::bool_>(value) ||
                  !(py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)))
                throw py::type_error(fmt::format("{}() argument 'attempt_duration': expected a number", name));
              unit.attempt_duration = value.cast<double>();
              continue;
            }
            const auto p = std::find_if(c.params.begin(), c.params.end(),
                                        [&](const api::AnalyticParam& q) { return q.name == k; });
            if (p == c.params.end())
              throw py::type_error(fmt::format("{}() got an unexpected keyword argument '{}'", name, k));
            values.emplace(k, analytic_value(name, *p, value));
          }
          std::string text;
          try {
            py::gil_scoped_release release;
            text = api::analytic_json(c, api::analytic_document(c, std::move(values), unit), unit).dump();
          } catch (const InputError& e) {
            raise(e);
          }
          return py::module_::import("json").attr("loads")(text);
        },
        analytic_doc(c).c_str());
  }
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
      PyErr_SetString(PyExc_ValueError, in_keywords(e).c_str());
    }
  });
  m.def("fields", &fields, "The scenario field table");
  m.def("simulate", &simulate);
  m.def("advise", &advise);
  m.def("check", &check);
  m.def("check_columns", &check_columns);
  m.def("validate", &validate);
  py::module_ analytic = m.def_submodule("analytic", "Closed forms and estimates (analytic/)");
  bind_analytic(analytic);
}

#include "api/prepare.hpp"

#include <fmt/format.h>

#include "analytic/error.hpp"
#include "api/policy.hpp"
#include "api/sanity.hpp"
#include "api/series.hpp"
#include "montecarlo/resources.hpp"
#include "montecarlo/series.hpp"

namespace retrylab::api {

namespace {

PreparedSimulation prepared(const SimulateRequest& r, Spelling how,
                            const std::function<void(const std::string&)>& warn) {
  ScenarioRequest request = r.scenario;
  if (!r.policy) {
    if (r.policy_select) throw InputError(spelled("policy_select", how), "needs `policy=FILE`");
    if (r.strict) throw InputError(spelled("strict", how), "needs `policy=FILE`");
  } else {
    // The file's fields, in the request's unit; the fields given keep their values (docs/policies.md).
    const policy::Policy p = load_policy(*r.policy, r.policy_select.value_or(""), how);
    for (const std::string& w : apply_policy(request, p, how, r.strict)) warn(w);
  }
  PreparedSimulation out;
  out.scenario = resolve(request, how);
  out.plan = r.plan;
  montecarlo::check_run_plan(out.plan);
  if (r.series) {
    if (r.plot) check_plot_path(*r.plot, how);
    out.bin = series_bin(*r.series, out.scenario, how);
  } else if (r.plot) {
    throw InputError(spelled("plot", how), "needs `series=BIN` (the figure is of the time series)");
  }
  try {  // the limits name fields (load_profile): as the front end spells them
    montecarlo::check_resources(
        out.scenario.scenario, out.plan, r.max_memory.value_or(montecarlo::default_max_memory()),
        out.bin ? montecarlo::series_bins(*out.bin, montecarlo::effective_horizon(out.scenario.scenario)) : 0);
  } catch (const InputError& e) {
    // The brooker preset sets collapse itself (above its clients): lowering collapse cannot help.
    if (const auto m = request.fields.find("model"); m != request.fields.end() && m->second == "brooker") {
      std::string text = std::string(e.what()).substr(e.field().size() + 1);
      const std::string lower = "lower `runs` or `collapse`";
      if (const auto at = text.find(lower); at != std::string::npos) {
        text.replace(at, lower.size(), "lower `runs`");
        rethrow_spelled(InputError(e.field(), text), how);
      }
    }
    rethrow_spelled(e, how);
  }
  out.warnings = sanity_warnings(out.scenario, how);
  return out;
}

}  // namespace

PreparedSimulation prepare(const SimulateRequest& r, Spelling how,
                           const std::function<void(const std::string&)>& warn) {
  try {
    return prepared(r, how, warn);
  } catch (const InputError& e) {
    rethrow_spelled(e, how);  // the field and the fields its message mentions, as the front end spells them
  }
}

Simulation simulate(const PreparedSimulation& p, const std::function<void(std::int64_t, std::int64_t)>& done) {
  Simulation sim = simulate(p.scenario, p.plan, done, p.bin);
  sim.warnings = p.warnings;
  return sim;
}

}  // namespace retrylab::api

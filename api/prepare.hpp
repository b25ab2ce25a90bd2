#pragma once
// A simulation as a front end asks for it (docs/cli.md "simulate", docs/python.md): the scenario
// request, a policy file, the run plan, a series and its figure, in; the checked scenario, plan and
// series bin out, every limit checked before any run. `retrylab simulate` and retrylab.simulate()
// call prepare() and then api::simulate: neither checks or builds anything itself.
// Invariants: a policy file's warnings reach `warn` as they are found (before a later error);
// the sanity warnings (api/sanity.hpp) are returned with the scenario, for stderr and the JSON
// document's "warnings"; every InputError names the field as `how` spells it.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/scenario.hpp"
#include "api/simulate.hpp"
#include "montecarlo/scenario.hpp"

namespace retrylab::api {

struct SimulateRequest {
  ScenarioRequest scenario;
  std::optional<std::string> policy;         // a client policy file (docs/policies.md)
  std::optional<std::string> policy_select;  // its method, instance or profile
  bool strict = false;                       // refuse a policy naming what retrylab does not model
  montecarlo::RunPlan plan;                  // runs, seed, threads, server_engine
  std::optional<double> series;              // a bin width in the scenario's unit
  std::optional<std::string> plot;           // the series as a figure (.svg or .png); needs series
  std::optional<double> max_memory;          // bytes; empty = half the RAM
};

struct PreparedSimulation {
  ResolvedScenario scenario;
  montecarlo::RunPlan plan;
  std::optional<double> bin;          // the series' bin in attempt-durations, when asked for
  std::vector<std::string> warnings;  // sanity warnings, one line each
};

PreparedSimulation prepare(const SimulateRequest& r, Spelling how, const std::function<void(const std::string&)>& warn);

// api::simulate on the prepared scenario, plan and bin, the warnings kept for the JSON document.
Simulation simulate(const PreparedSimulation& p, const std::function<void(std::int64_t, std::int64_t)>& done = {});

}  // namespace retrylab::api

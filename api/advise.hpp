#pragma once
// advise from a front end (docs/advise.md): the request as the user gave it, in the user's unit, in;
// a checked advise::Request in attempt-durations out; the answer as the JSON document and the table.
// `retrylab advise` (cli/advise_cmd.cpp) and retrylab.advise() (python/module.cpp) only parse and
// print: every rule and message is here, once, so both refuse and answer alike (python/tests
// compares them on random requests).
// Invariants: an InputError names the option as `how` spells it (--drain-within or drain_within);
// the document is a pure function of the request (the thread count never changes a byte).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "advise/advise.hpp"
#include "api/scenario.hpp"

namespace retrylab::api {

// What the user asked, as given: an option left out is empty (its default applies).
struct AdviseRequest {
  std::optional<std::string> clients;          // "N" or a range "LOW:HIGH" (required)
  std::optional<std::string> failed_attempts;  // free | use-capacity | collide (required)
  std::string unit = "attempt";                // attempt | ms | s
  std::optional<double> attempt_duration;      // in `unit`; required with ms and s
  std::optional<double> rate;                  // steady load per `unit`
  std::optional<double> base;                  // in `unit`; empty = searched
  std::optional<double> drain_within;          // in `unit`; empty = 60,000 attempt-durations
  double probability = 0.99;
  std::string objective = "drain-time";   // drain-time | attempts | weighted
  std::optional<double> weight;           // weighted: `unit`s of drain time one attempt per client is worth
  std::optional<std::string> strategies;  // comma-separated; empty = every strategy with a cap
  std::uint64_t seed = 1;
  int threads = 0;
};

// A checked request and the unit its answer is printed in.
struct PreparedAdvice {
  advise::Request request;  // in attempt-durations
  std::string unit = "attempt";
  double attempt_duration = 1.0;  // D: one attempt-duration in `unit` (1 with attempt)
  Spelling how = Spelling::flag;  // how the warnings and notes name an option
};

// Throws InputError naming the option in `how`'s spelling, with its allowed range.
PreparedAdvice prepare_advise(const AdviseRequest& r, Spelling how);

// Runs the search (watch: progress only, never a result).
advise::Advice run_advise(const PreparedAdvice& p, advise::Watch watch = {});

// `retrylab advise --json` and retrylab.advise(): the provenance, then advise::advice_json.
nlohmann::ordered_json advise_json(const advise::Advice& a, const PreparedAdvice& p);
// `retrylab advise`'s table.
std::string advise_table(const advise::Advice& a, const PreparedAdvice& p);

}  // namespace retrylab::api

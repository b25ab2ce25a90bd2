#pragma once
// Inside the analytic registry (api/analytic.hpp): a command's values as one struct and the pieces
// every document shares, for the files that compute the documents (analytic_closed.cpp: the closed
// forms; analytic_models.cpp: markov, steady and burst).
#include <cstdint>
#include <optional>
#include <string>

#include "analytic/model.hpp"
#include "analytic/strategy.hpp"
#include "api/analytic.hpp"

namespace retrylab::api::detail {

// Every parameter of every command by its name: a compute function reads the fields of its
// parameters (the values arrive with each fallback filled in and of its parameter's kind).
struct Options {
  std::optional<double> rate, goodput, load, quantile, sleep, capacity, cost, refund, threshold;
  double service = 0.0, base = 0.0, window = 0.0, failure = 0.0, successes = 0.0, requests = 0.0;
  double collapse = 0.0, horizon = 0.0, delay = 0.0;
  std::string cap, strategy, model, preset;
  int retry = 0, layers = 0, attempts = 0;  // InputError naming the field outside int's range
  std::int64_t clients = 0;
  bool find_cap = false;
};
Options options_of(const AnalyticValues& values);

// The strategy and model named by a text field; InputError(field) listing the names otherwise.
Strategy strategy_of(const std::string& name);
Model model_of(const std::string& name);
// The backoff of the options: a window given to a strategy other than window is refused (it was
// ignored: full jitter's sleeps do not depend on it).
Backoff backoff_of(const Options& o);

// A cap is a number, or the string "none" when unbounded (the CLI's own spelling).
Document cap_value(double cap);
Document number(const std::optional<double>& x);  // null when empty or not finite
// {"model", "inputs", "value"}: the opening of every closed form's document.
Document opening(const std::string& model, Document inputs, double value);
void cite(Document& doc, const std::string& formula, const std::string& assumptions, const std::string& proof);

// The documents, one per command.
Document aloha(const AnalyticValues& v);
Document occ(const AnalyticValues& v);
Document ps(const AnalyticValues& v);
Document hedge(const AnalyticValues& v);
Document sleep(const AnalyticValues& v);
Document classic(const AnalyticValues& v);
Document growth(const AnalyticValues& v);
Document fluid_cap(const AnalyticValues& v);
Document amplification(const AnalyticValues& v);
Document budget(const AnalyticValues& v);
Document markov(const AnalyticValues& v);
Document steady(const AnalyticValues& v);
Document burst(const AnalyticValues& v);

}  // namespace retrylab::api::detail

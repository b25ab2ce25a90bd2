#pragma once
// BudgetParams: the retry budget's parameters (components/budget.hpp, its rows of the field table),
// held by value in the scenario's client policy (ClientPolicy::budget). A preset of a library
// (index into budget_preset_names, montecarlo/controls.hpp; 0 = none), whose the budget is (scope),
// and the generic token bucket's numbers (fields bucket_*; they apply only to the preset
// token-bucket, whose defaults are aws-standard's): capacity (it starts full), what a retry takes
// (timeout_cost after a timeout), what a success returns, the threshold the tokens must stay at or
// above, and how it charges (index into charge_names: per retry, or per failed attempt as gRPC).
// Ranges: the rows; rules between them: Budget::check.
#include "montecarlo/scoped.hpp"

namespace retrylab::montecarlo {

struct BudgetConfig;  // montecarlo/controls.hpp

inline constexpr std::string_view charge_names[] = {"per-retry", "per-failure"};

struct BudgetParams {
  int preset = 0;  // index into budget_preset_names (field `budget`)
  Scope scope = Scope::shared;
  double capacity = 500.0, cost = 5.0, timeout_cost = 10.0, refund = 1.0, threshold = 0.0;
  int charge = 0;

  bool on() const noexcept { return preset != 0; }
  // The budget the clients run: the preset, with the bucket's numbers for token-bucket.
  BudgetConfig config() const;
};

}  // namespace retrylab::montecarlo

#pragma once
// 95% intervals that respect the quantity they bound. A fraction of runs (k of n) gets a Wilson or
// Clopper–Pearson interval; a count per run (an integer total over n runs) an exact Poisson (Garwood)
// interval on the total, widened to the log-scale interval when the runs are overdispersed; a mean of
// per-run fractions a logit-scale interval; any other non-negative mean (latency, drain time, work)
// a log-scale interval; a difference of times (*_lead, which may be negative) mean ± t·sd/√n.
// Invariant: every bound of a non-negative quantity is >= 0, and a fraction's bounds lie in [0, 1]; a
// degenerate sample (n < 2 or sd = 0) gives [mean, mean], as the summary's own interval does,
// except a count of zero in every run, which keeps its exact Poisson upper bound (−ln 0.025 / n).
#include <cstdint>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "papers/render.hpp"

namespace retrylab::papers::intervals {

enum class Quantity { fraction_of_runs, count, fraction_mean, positive, signed_mean };

// The quantity a summary metric measures (docs/models.md §5 keys), by name: *_fraction is a mean of
// fractions; unfinished, attempts, retries, timeouts and the other per-run tallies are counts;
// collapsed, drained and recovered (stored as count / n) are fractions of runs; *_lead is a signed
// mean; anything else is a non-negative mean.
Quantity quantity_of(std::string_view metric) noexcept;

// A fraction k / n with its Wilson or Clopper–Pearson interval (analytic/stats.hpp computes both).
Estimate wilson(std::int64_t k, std::int64_t n, double confidence = 0.95);
Estimate clopper_pearson(std::int64_t k, std::int64_t n, double confidence = 0.95);
// The mean per run of a count whose total over n runs is `total` (Garwood's exact interval / n).
Estimate poisson_mean(double total, std::int64_t n, double confidence = 0.95);
// mean ± t·sd/√n on log(mean) (delta method): always positive, wider above than below.
Estimate log_scale(double mean, double sd, std::int64_t n, double confidence = 0.95);
// The same on logit(mean), for a mean of fractions in [0, 1].
Estimate logit_scale(double mean, double sd, std::int64_t n, double confidence = 0.95);

// The interval for one summary entry {"mean","sd","n"} or {"count","fraction","n"} of `metric`;
// NaNs when the entry has no value (no run contributed).
Estimate for_metric(std::string_view metric, const nlohmann::json& entry);

}  // namespace retrylab::papers::intervals

#pragma once
// Summaries over independent runs (docs/models.md §5): a real-valued metric as mean, sd, n and a Student-t
// interval; a yes/no metric as count, fraction, n and a Wilson interval (Clopper–Pearson on request).
// Assumptions: the runs are independent and identically distributed (each run has its own RNG key).
// Intervals are two-sided at level `level` (0 < level < 1). n = 0 gives NaN fields (printed as null);
// n = 1 gives sd = NaN and an interval of NaN: one run says nothing about spread.
#include <cstdint>
#include <span>

namespace retrylab {

struct Interval {
  double lo;
  double hi;
};

struct MeanSummary {
  double mean;
  double sd;  // sample standard deviation (n − 1)
  std::int64_t n;
  Interval ci95;
};

struct ProportionSummary {
  std::int64_t count;
  double fraction;
  std::int64_t n;
  Interval ci95;
};

// Welford accumulation in the order given, so the result is a pure function of the sequence.
class MeanAccumulator {
 public:
  void add(double x) noexcept;
  std::int64_t n() const noexcept { return n_; }
  double mean() const noexcept;
  double variance() const noexcept;  // sample variance, NaN for n < 2
  MeanSummary summary(double level = 0.95) const;

 private:
  std::int64_t n_ = 0;
  double mean_ = 0.0;
  double m2_ = 0.0;
};

MeanSummary summarize_mean(std::span<const double> xs, double level = 0.95);

// Student-t interval mean ± t_{(1+level)/2, n−1} · sd/√n.
Interval student_t_interval(double mean, double sd, std::int64_t n, double level = 0.95);
// Wilson score interval for count successes out of n.
Interval wilson_interval(std::int64_t count, std::int64_t n, double level = 0.95);
// Clopper–Pearson (exact) interval from beta quantiles.
Interval clopper_pearson_interval(std::int64_t count, std::int64_t n, double level = 0.95);

ProportionSummary summarize_proportion(std::int64_t count, std::int64_t n, double level = 0.95);

}  // namespace retrylab

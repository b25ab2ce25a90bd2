#pragma once
// LoadProfile: a steady arrival rate that changes over time, λ(t) (docs/models.md §1). Arrivals with
// a profile are a non-homogeneous Poisson process drawn by thinning (components/load_profile.hpp).
// Forms (times and rates in one unit; the api layer converts the user's):
//  - linear "t:rate,t:rate,...": piecewise-linear between the points, the first rate before the
//    first time, the last after the last (a CSV trace of (time, rate) rows is read into this form);
//  - step "step:t:rate[,t:rate...]": rate_i from t_i until the next time, 0 before the first;
//  - sine "sine:period:amplitude:mean": mean + amplitude·sin(2πt/period) (mean: --rate when the
//    text gives only period and amplitude).
// Invariants (check()): at least one point, at most max_profile_points; times finite, >= 0 and
// strictly increasing; rates finite and >= 0; period finite > 0, 0 <= amplitude <= mean finite;
// max_rate() > 0. Every InputError names load_profile and the allowed forms or range.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace retrylab::montecarlo {

inline constexpr std::size_t max_profile_points = 1'000'000;

enum class ProfileKind { none, linear, step, sine };

struct ProfilePoint {
  double t = 0.0, rate = 0.0;
  friend bool operator==(const ProfilePoint&, const ProfilePoint&) = default;
};

class LoadProfile {
 public:
  LoadProfile() = default;  // none: the scenario's `rate` decides the steady arrivals
  static LoadProfile linear(std::vector<ProfilePoint> points);
  static LoadProfile step(std::vector<ProfilePoint> points);
  static LoadProfile sine(double period, double amplitude, double mean);
  // Parses the inline forms above (not a file: the api layer reads CSV files). A sine given as
  // "sine:period:amplitude" comes back with needs_mean() true; with_mean() completes it.
  static LoadProfile parse(std::string_view text);

  bool set() const noexcept { return kind_ != ProfileKind::none; }
  ProfileKind kind() const noexcept { return kind_; }
  bool needs_mean() const noexcept { return kind_ == ProfileKind::sine && mean_ < 0.0; }
  LoadProfile with_mean(double mean) const;
  const std::vector<ProfilePoint>& points() const noexcept { return points_; }

  double rate(double t) const noexcept;
  double max_rate() const noexcept { return max_; }
  double integral(double a, double b) const noexcept;  // ∫_a^b λ(t) dt, a <= b
  // Times divided by d, rates multiplied by d (the user's unit into attempt-durations, d = the
  // attempt-duration in that unit).
  LoadProfile scaled(double d) const;
  // The canonical text: the form's spelling with shortest round-trip numbers (sine with its mean).
  std::string text() const;
  // Throws InputError("load_profile", ...) when an invariant above fails.
  void check() const;

  friend bool operator==(const LoadProfile&, const LoadProfile&) = default;

 private:
  double primitive(double t) const noexcept;  // ∫_0^t λ (t >= 0), or the signed one below 0
  void finish();                              // computes max_

  ProfileKind kind_ = ProfileKind::none;
  std::vector<ProfilePoint> points_;                     // linear, step
  double period_ = 0.0, amplitude_ = 0.0, mean_ = -1.0;  // sine (mean -1: not given yet)
  double max_ = 0.0;
};

}  // namespace retrylab::montecarlo

#include "montecarlo/profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

#include "analytic/error.hpp"

namespace retrylab::montecarlo {

namespace {

constexpr const char* forms =
    "t:rate,t:rate,... (piecewise-linear), step:t:rate[,t:rate...], sine:period:amplitude[:mean], or a CSV file "
    "of time,rate rows";

[[noreturn]] void refuse(const std::string& what) { throw InputError("load_profile", what); }

// A finite decimal number, the whole of `text` (no hex, no "inf"/"nan", nothing after it).
double number(std::string_view text, std::string_view whole) {
  double v = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    refuse(fmt::format("must be one of {}; \"{}\" is not a finite number (got {})", forms, text, whole));
  return v;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    const std::size_t at = text.find(sep);
    out.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return out;
    text.remove_prefix(at + 1);
  }
}

std::vector<ProfilePoint> parse_points(std::string_view list, std::string_view whole) {
  std::vector<ProfilePoint> points;
  for (const std::string_view item : split(list, ',')) {
    const auto parts = split(item, ':');
    if (parts.size() != 2) refuse(fmt::format("must be one of {}; each point is t:rate (got {})", forms, whole));
    points.push_back({number(parts[0], whole), number(parts[1], whole)});
  }
  return points;
}

}  // namespace

LoadProfile LoadProfile::linear(std::vector<ProfilePoint> points) {
  LoadProfile p;
  p.kind_ = ProfileKind::linear;
  p.points_ = std::move(points);
  p.finish();
  return p;
}

LoadProfile LoadProfile::step(std::vector<ProfilePoint> points) {
  LoadProfile p = linear(std::move(points));
  p.kind_ = ProfileKind::step;
  return p;
}

LoadProfile LoadProfile::sine(double period, double amplitude, double mean) {
  LoadProfile p;
  p.kind_ = ProfileKind::sine;
  p.period_ = period;
  p.amplitude_ = amplitude;
  p.mean_ = mean;
  p.finish();
  return p;
}

LoadProfile LoadProfile::parse(std::string_view text) {
  if (text.rfind("sine:", 0) == 0) {
    const auto parts = split(text.substr(5), ':');
    if (parts.size() != 2 && parts.size() != 3)
      refuse(fmt::format("must be one of {}; sine takes period:amplitude[:mean] (got {})", forms, text));
    const double mean = parts.size() == 3 ? number(parts[2], text) : -1.0;
    return sine(number(parts[0], text), number(parts[1], text), mean);
  }
  if (text.rfind("step:", 0) == 0) return step(parse_points(text.substr(5), text));
  return linear(parse_points(text, text));
}

LoadProfile LoadProfile::with_mean(double mean) const { return sine(period_, amplitude_, mean); }

void LoadProfile::finish() {
  max_ = 0.0;
  if (kind_ == ProfileKind::sine) {
    max_ = mean_ + amplitude_;
  } else {
    for (const ProfilePoint& q : points_) max_ = std::max(max_, q.rate);
  }
}

double LoadProfile::rate(double t) const noexcept {
  if (kind_ == ProfileKind::sine) {
    return std::clamp(mean_ + amplitude_ * std::sin(2.0 * std::numbers::pi * t / period_), 0.0, max_);
  }
  if (points_.empty()) return 0.0;
  // The last point at or before t.
  const auto after =
      std::upper_bound(points_.begin(), points_.end(), t, [](double x, const ProfilePoint& q) { return x < q.t; });
  if (after == points_.begin()) return kind_ == ProfileKind::step ? 0.0 : points_.front().rate;
  const ProfilePoint& a = *(after - 1);
  if (after == points_.end() || kind_ == ProfileKind::step) return a.rate;
  const ProfilePoint& b = *after;
  return std::clamp(a.rate + (b.rate - a.rate) * ((t - a.t) / (b.t - a.t)), 0.0, max_);
}

double LoadProfile::integral(double a, double b) const noexcept {
  if (!(b > a)) return 0.0;
  if (kind_ == ProfileKind::sine) {
    const double w = 2.0 * std::numbers::pi / period_;
    return mean_ * (b - a) + amplitude_ / w * (std::cos(w * a) - std::cos(w * b));
  }
  if (points_.empty()) return 0.0;
  // Pieces: (-inf, t0), [t_i, t_i+1), [t_n, +inf); each clipped to [a, b].
  double sum = 0.0;
  const auto piece = [&](double lo, double hi, double r_lo, double r_hi, bool flat) {
    const double x = std::max(lo, a), y = std::min(hi, b);
    if (!(y > x)) return;
    if (flat) {
      sum += r_lo * (y - x);
      return;
    }
    const auto at = [&](double t) { return r_lo + (r_hi - r_lo) * ((t - lo) / (hi - lo)); };
    sum += (y - x) * (at(x) + at(y)) / 2.0;
  };
  const bool step = kind_ == ProfileKind::step;
  const double inf = std::numeric_limits<double>::infinity();
  piece(-inf, points_.front().t, step ? 0.0 : points_.front().rate, 0.0, true);
  for (std::size_t i = 0; i + 1 < points_.size(); ++i)
    piece(points_[i].t, points_[i + 1].t, points_[i].rate, points_[i + 1].rate, step);
  piece(points_.back().t, inf, points_.back().rate, 0.0, true);
  return sum;
}

LoadProfile LoadProfile::scaled(double d) const {
  if (kind_ == ProfileKind::sine) return sine(period_ / d, amplitude_ * d, mean_ < 0.0 ? mean_ : mean_ * d);
  std::vector<ProfilePoint> points = points_;
  for (ProfilePoint& q : points) q = {q.t / d, q.rate * d};
  LoadProfile p = linear(std::move(points));
  p.kind_ = kind_;
  return p;
}

std::string LoadProfile::text() const {
  if (kind_ == ProfileKind::none) return "";
  if (kind_ == ProfileKind::sine) return fmt::format("sine:{}:{}:{}", period_, amplitude_, mean_);
  std::string out = kind_ == ProfileKind::step ? "step:" : "";
  for (std::size_t i = 0; i < points_.size(); ++i)
    out += fmt::format("{}{}:{}", i == 0 ? "" : ",", points_[i].t, points_[i].rate);
  return out;
}

void LoadProfile::check() const {
  if (kind_ == ProfileKind::none) return;
  if (kind_ == ProfileKind::sine) {
    if (!(period_ > 0.0) || !std::isfinite(period_))
      refuse(fmt::format("sine period must be a finite number > 0 (got {})", period_));
    if (mean_ < 0.0 || !std::isfinite(mean_))
      refuse("sine:period:amplitude needs its mean: give rate (the mean rate) or sine:period:amplitude:mean");
    if (!(amplitude_ >= 0.0) || !(amplitude_ <= mean_))
      refuse(fmt::format("sine amplitude must be in [0, mean {}] (a rate is never < 0) (got {})", mean_, amplitude_));
    if (!(max_ > 0.0)) refuse("sine mean must be > 0 (no arrivals otherwise)");
    return;
  }
  if (points_.empty()) refuse(fmt::format("must be one of {} with at least one point", forms));
  if (points_.size() > max_profile_points)
    refuse(fmt::format("has {} points, above the limit {}", points_.size(), max_profile_points));
  for (std::size_t i = 0; i < points_.size(); ++i) {
    const ProfilePoint& q = points_[i];
    if (!(q.t >= 0.0) || !std::isfinite(q.t)) refuse(fmt::format("times must be finite and >= 0 (got {})", q.t));
    if (!(q.rate >= 0.0) || !std::isfinite(q.rate))
      refuse(fmt::format("rates must be finite and >= 0 (got {} at t={})", q.rate, q.t));
    if (i > 0 && !(q.t > points_[i - 1].t))
      refuse(fmt::format("times must increase strictly (got {} after {})", q.t, points_[i - 1].t));
  }
  if (!(max_ > 0.0)) refuse("needs a rate > 0 somewhere (no arrivals otherwise)");
}

}  // namespace retrylab::montecarlo

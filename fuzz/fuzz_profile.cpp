// libFuzzer target: load profiles (montecarlo/profile.hpp) as the front ends take them. The first
// byte picks the reader: even, the inline forms (t:rate,..., step:..., sine:...); odd, the CSV
// reader of api/profile_csv.hpp on the rest as a file's bytes. A profile that parses goes the way
// api/scenario.cpp takes it (a sine without its mean gets one, check(), scaled to attempt-durations)
// and is then held to what its header promises: λ(t) in [0, max_rate()], ∫λ >= 0, the
// canonical text parsing back to the same profile. Any outcome but that or an InputError naming
// load_profile is a finding (abort), as is a sanitizer report.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "analytic/error.hpp"
#include "api/profile_csv.hpp"
#include "montecarlo/profile.hpp"

namespace {

using retrylab::montecarlo::LoadProfile;

void require(bool ok) {
  if (!ok) std::abort();
}

void exercise(const LoadProfile& p) {
  const double max = p.max_rate();
  require(std::isfinite(max) && max > 0.0);
  for (const double t : {0.0, 0.5, 1.0, 3.0, 1e3, 1e9}) {
    const double r = p.rate(t);
    require(r >= 0.0 && r <= max);
  }
  const double area = p.integral(0.0, 1e3);  // may overflow to +inf (rates near DBL_MAX): never < 0 or NaN
  require(area >= 0.0);
  // The canonical text reads back as the same profile (the JSON scenario and the reproducer line
  // carry it); shortest round-trip numbers make that exact.
  require(LoadProfile::parse(p.text()) == p);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 64 * 1024) return -1;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    LoadProfile p;
    if (data[0] % 2 == 0) {
      p = LoadProfile::parse(text);
    } else {
      std::istringstream in(text);
      p = retrylab::api::read_profile_csv(in, "fuzz.csv");
    }
    if (p.needs_mean()) p = p.with_mean(0.25);
    p.check();
    exercise(p);
    const LoadProfile scaled = p.scaled(20.0);  // a 20 ms attempt-duration; may leave the ranges (refused)
    scaled.check();
    exercise(scaled);
  } catch (const retrylab::InputError& e) {
    require(e.field() == "load_profile");
  }
  return 0;
}

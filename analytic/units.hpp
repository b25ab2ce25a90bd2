#pragma once
// The units of time that JSON and JSONL outputs name beside the retrylab version (docs/outputs.md;
// the version is analytic/version.hpp, generated from the CMake project version). The paper models
// measure time in attempt-durations (the mean duration of one attempt is 1); Brooker's test and the
// failing-dependency simulators in milliseconds; a document without any time (retry
// amplification, budgets) says "none".
#include <string_view>

namespace retrylab::units {

inline constexpr std::string_view attempt_duration = "attempt-duration";
inline constexpr std::string_view ms = "ms";
inline constexpr std::string_view none = "none";

}  // namespace retrylab::units

#pragma once
// A traffic trace as CSV text (montecarlo/profile.hpp's linear form from rows): the parser that a
// front end (api/profile_csv.hpp) and a study spec (papers/spec_series.hpp) hand a file's text to;
// this library reads no files. The text: one `time,rate` row per line, an optional header first (a
// first row of two names: the first starting with a letter, a quote or '_', neither a number), blank lines and `#`
// comments skipped; times finite, >= 0 and strictly increasing, rates finite and >= 0; at most max_profile_points rows.
// Every InputError names load_profile, the source (a file's path) and the line.
#include <cstddef>
#include <string>
#include <string_view>

#include "montecarlo/profile.hpp"

namespace retrylab::montecarlo {

// The most of a profile file a front end or a spec reads (a larger one is refused, an endless one
// never read to its end): 10^6 rows of two numbers fit in it many times over.
inline constexpr std::size_t max_profile_bytes = std::size_t{32} << 20;

LoadProfile parse_profile_csv(std::string_view text, const std::string& source);

}  // namespace retrylab::montecarlo

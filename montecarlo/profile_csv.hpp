#pragma once
// A traffic trace as CSV text (montecarlo/profile.hpp's linear form from rows): the parser that a
// front end (api/profile_csv.hpp) and a study spec (papers/spec_series.hpp) hand a file's text to;
// this library reads no files. The text: one `time,rate` row per line, an optional header first (a
// line whose first cell is not a number), blank lines and `#` comments skipped; times finite, >= 0
// and strictly increasing, rates finite and >= 0; at most max_profile_points rows. Every
// InputError names load_profile, the source (a file's path) and the line.
#include <string>
#include <string_view>

#include "montecarlo/profile.hpp"

namespace retrylab::montecarlo {

LoadProfile parse_profile_csv(std::string_view text, const std::string& source);

}  // namespace retrylab::montecarlo

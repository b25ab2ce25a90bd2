#pragma once
// A load profile as a front end gives it (montecarlo/profile.hpp): an inline form, or the path of
// a CSV file of (time, rate) rows, a traffic trace, read here (the library reads no files). The
// path is only opened, never passed to a shell. The file: one `time,rate` row per line, an optional
// header first (a line whose first cell is not a number), blank lines and `#` comments skipped;
// times finite, >= 0 and strictly increasing, rates finite and >= 0; at most max_profile_points
// rows and max_profile_bytes (a folder or an endless file is refused, not read to its end). Its
// profile is piecewise-linear between the rows. Every InputError names load_profile, and for a
// file its path and line.
#include <cstddef>
#include <istream>
#include <string>
#include <string_view>

#include "montecarlo/profile.hpp"
#include "montecarlo/profile_csv.hpp"

namespace retrylab::api {

// The most of a profile file read (a larger one is refused, an endless one never read to its end).
using montecarlo::max_profile_bytes;

// True when `text` names a file: it ends in ".csv" or holds no ':' (every inline form has one).
bool names_profile_file(std::string_view text);
montecarlo::LoadProfile read_profile_csv(const std::string& path);
// The same rows from a stream; `path` only names it in errors (the fuzz target reads no files).
montecarlo::LoadProfile read_profile_csv(std::istream& in, const std::string& path);
// The file's profile, or the inline form's (unchecked: a sine may still need its mean).
montecarlo::LoadProfile load_profile_of(const std::string& text);

}  // namespace retrylab::api

#include "api/profile_csv.hpp"

#include <fmt/format.h>

#include <string>

#include "analytic/error.hpp"
#include "analytic/input_file.hpp"
#include "montecarlo/profile_csv.hpp"

namespace retrylab::api {

namespace {

// At most max_profile_bytes of `in`, never the whole of an endless file (/dev/zero, a pipe): 10^6
// rows of two numbers fit in it many times over.
std::string read_bounded(std::istream& in, const std::string& path) {
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= max_profile_bytes && (in.read(chunk, sizeof chunk) || in.gcount() > 0))
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw InputError("load_profile", fmt::format("cannot read the file {}", path));
  if (text.size() > max_profile_bytes)
    throw InputError("load_profile", fmt::format("file {} is over {} MiB: not a profile of at most {} rows", path,
                                                 max_profile_bytes >> 20, montecarlo::max_profile_points));
  return text;
}

}  // namespace

bool names_profile_file(std::string_view text) {
  return text.find(':') == std::string_view::npos || (text.size() >= 4 && text.substr(text.size() - 4) == ".csv");
}

montecarlo::LoadProfile read_profile_csv(const std::string& path) {
  // A regular file only: a folder, FIFO or device is refused before a byte is read.
  InputFile f = read_input_file(path, max_profile_bytes);
  if (!f.refusal.empty())
    throw InputError("load_profile", fmt::format("file {} {} (a CSV file of time,rate rows, at most {} MiB)", path,
                                                 f.refusal, max_profile_bytes >> 20));
  return montecarlo::parse_profile_csv(f.text, path);
}

montecarlo::LoadProfile read_profile_csv(std::istream& in, const std::string& path) {
  return montecarlo::parse_profile_csv(read_bounded(in, path), path);
}

montecarlo::LoadProfile load_profile_of(const std::string& text) {
  return names_profile_file(text) ? read_profile_csv(text) : montecarlo::LoadProfile::parse(text);
}

}  // namespace retrylab::api

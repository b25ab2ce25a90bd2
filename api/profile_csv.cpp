#include "api/profile_csv.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "analytic/error.hpp"
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
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError("load_profile", fmt::format("must name a CSV file, not a folder (got {})", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("load_profile", fmt::format("cannot read the file {} ({})", path, std::strerror(errno)));
  return read_profile_csv(in, path);
}

montecarlo::LoadProfile read_profile_csv(std::istream& in, const std::string& path) {
  return montecarlo::parse_profile_csv(read_bounded(in, path), path);
}

montecarlo::LoadProfile load_profile_of(const std::string& text) {
  return names_profile_file(text) ? read_profile_csv(text) : montecarlo::LoadProfile::parse(text);
}

}  // namespace retrylab::api

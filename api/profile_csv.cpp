#include "api/profile_csv.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "analytic/error.hpp"
#include "montecarlo/profile_csv.hpp"

namespace retrylab::api {

bool names_profile_file(std::string_view text) {
  return text.find(':') == std::string_view::npos || (text.size() >= 4 && text.substr(text.size() - 4) == ".csv");
}

montecarlo::LoadProfile read_profile_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("load_profile", fmt::format("cannot read the file {} ({})", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError("load_profile", fmt::format("cannot read the file {}", path));
  return montecarlo::parse_profile_csv(text.str(), path);
}

montecarlo::LoadProfile load_profile_of(const std::string& text) {
  return names_profile_file(text) ? read_profile_csv(text) : montecarlo::LoadProfile::parse(text);
}

}  // namespace retrylab::api

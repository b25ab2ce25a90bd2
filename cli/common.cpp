#include "cli/common.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

#include "analytic/error.hpp"

namespace retrylab::cli {

void add_format_options(CLI::App* cmd, OutputFormat& format) {
  cmd->add_option_function<std::string>(
         "--format",
         [&format](const std::string& v) {
           if (v == "table") format = OutputFormat::table;
           else if (v == "json") format = OutputFormat::json;
           else if (v == "csv") format = OutputFormat::csv;
           else throw CLI::ValidationError("--format", "must be table, json or csv (got " + v + ")");
         },
         "Output format: table (for people), json (one document on stdout), csv")
      ->type_name("table|json|csv")
      ->default_str("table");
  cmd->add_flag_callback("--json", [&format] { format = OutputFormat::json; }, "Short for --format json");
}

nlohmann::ordered_json provenance(std::string_view unit) {
  nlohmann::ordered_json j;
  j["retrylab"] = std::string(version);
  j["unit"] = std::string(unit);
  return j;
}

double parse_cap(const std::string& text) {
  if (text == "none") return HUGE_VAL;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v) || !(v > 0))
    throw InputError("--cap", fmt::format("must be a number > 0 or \"none\" (got {})", text));
  return v;
}

void require_finite(const std::string& flag, double x) {
  if (!std::isfinite(x)) throw InputError(flag, fmt::format("must be a finite number (got {})", x));
}

}  // namespace retrylab::cli

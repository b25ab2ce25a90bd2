#include "cli/common.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <regex>
#include <vector>

#include "analytic/error.hpp"
#include "api/analytic.hpp"  // decimal_real
#include "montecarlo/atomic_file.hpp"

namespace retrylab::cli {

namespace {

std::optional<double> real_value(const std::string& t) { return api::decimal_real(t); }

template <typename T>
std::optional<T> integer_value(const std::string& t) {
  const char* first = t.data();
  const char* last = t.data() + t.size();
  if (first != last && *first == '+') ++first;  // from_chars takes '-' but not '+'
  if (first == last || (std::is_unsigned_v<T> && *first == '-')) return std::nullopt;
  T v{};
  const auto [p, ec] = std::from_chars(first, last, v, 10);
  if (ec != std::errc() || p != last) return std::nullopt;
  return v;
}

CLI::Validator make_validator(std::function<std::string(const std::string&)> rule) {
  return CLI::Validator([rule](std::string& v) { return rule(v); }, "");
}

}  // namespace

double parse_real(const std::string& field, const std::string& text) {
  const auto v = real_value(text);
  if (!v) throw InputError(field, fmt::format("must be a finite decimal number (got \"{}\")", text));
  return *v;
}

std::int64_t parse_int(const std::string& field, const std::string& text, std::int64_t lo, std::int64_t hi) {
  const auto v = integer_value<std::int64_t>(text);
  if (!v || *v < lo || *v > hi)
    throw InputError(field, fmt::format("must be an integer in [{}, {}] (got \"{}\")", lo, hi, text));
  return *v;
}

std::uint64_t parse_uint64(const std::string& field, const std::string& text) {
  const auto v = integer_value<std::uint64_t>(text);
  if (!v)
    throw InputError(field, fmt::format("must be an integer in [0, {}] (got \"{}\")",
                                        std::numeric_limits<std::uint64_t>::max(), text));
  return *v;
}

CLI::Validator strict_real() {
  return make_validator([](const std::string& v) {
    return real_value(v) ? std::string() : fmt::format("must be a finite decimal number (got \"{}\")", v);
  });
}

CLI::Validator strict_int() {
  return make_validator([](const std::string& v) {
    return integer_value<std::int64_t>(v)
               ? std::string()
               : fmt::format("must be a decimal integer in [{}, {}] (got \"{}\")",
                             std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(), v);
  });
}

CLI::Validator strict_uint() {
  return make_validator([](const std::string& v) {
    return integer_value<std::uint64_t>(v) ? std::string()
                                           : fmt::format("must be a decimal integer in [0, {}] (got \"{}\")",
                                                         std::numeric_limits<std::uint64_t>::max(), v);
  });
}

CLI::Validator non_empty() {
  return make_validator(
      [](const std::string& v) { return v.empty() ? std::string("must not be empty") : std::string(); });
}

void harden_options(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_expected_min() < 1) continue;  // flags take no value
    const std::string type = opt->get_type_name().substr(0, opt->get_type_name().find(':'));
    // Each check runs before the option's own (CLI11 runs validators in order): strictness first.
    opt->check(non_empty());
    if (type == "FLOAT")
      opt->check(strict_real());
    else if (type == "INT")
      opt->check(strict_int());
    else if (type == "UINT")
      opt->check(strict_uint());
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) harden_options(*sub);
}

void require_writable_file(const std::string& flag, const std::string& path) {
  const std::filesystem::path p(path);
  std::error_code ec;
  const std::filesystem::path dir = p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
  if (p.filename().empty() || !std::filesystem::is_directory(dir, ec))
    throw InputError(flag, fmt::format("must name a file in an existing folder (got \"{}\")", path));
  try {
    require_replaceable(p);
  } catch (const OutputError&) {
    throw InputError(flag, fmt::format("must be a new or regular file; a symlink, FIFO, device or folder is never "
                                       "replaced (got \"{}\")",
                                       path));
  }
}

void require_writable_folder(const std::string& flag, const std::string& path) {
  const std::string reason = folder_write_problem(path);
  if (!reason.empty())
    throw InputError(flag, fmt::format("must be a folder retrylab can write (got \"{}\": {})", path, reason));
}

int finish_stdout(int rc) {
  std::cout.flush();
  errno = 0;
  const bool ok = std::cout.good() && std::fflush(stdout) == 0 && !std::ferror(stdout);
  if (!ok)
    throw OutputError(
        fmt::format("cannot write to standard output: {}", errno != 0 ? std::strerror(errno) : "a write failed"));
  return rc;
}

void add_commands(CLI::App& app, Action& action) {
  add_analytic_command(app, action);
  add_simulate_command(app, action);
  add_policy_command(app, action);
  add_validate_command(app, action);
  add_check_command(app, action);
#ifndef RETRYLAB_FAULTY_CLI  // advise searches on the engine: never on the planted-fault build
  add_advise_command(app, action);
#endif
#ifndef RETRYLAB_FAULTY_CLI  // the planted-fault build has no study commands: experiments never run on it
  add_study_commands(app, action);
#endif
  harden_options(app);
}

std::optional<std::string> nearest(const std::string& name, const std::vector<std::string>& candidates) {
  const auto distance = [](const std::string& a, const std::string& b) {  // Levenshtein, one row
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t diagonal = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const std::size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diagonal = up;
      }
    }
    return row[b.size()];
  };
  std::optional<std::string> best;
  std::size_t best_distance = std::max<std::size_t>(1, name.size() / 3) + 1;
  for (const std::string& c : candidates) {
    const std::size_t d = distance(name, c);
    if (d < best_distance) best = c, best_distance = d;
  }
  return best;
}

namespace {

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

}  // namespace

std::optional<std::string> unknown_command(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* at = &app;
  std::string path = "retrylab";
  for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
    const std::vector<std::string> names = subcommand_names(*at);
    if (names.empty()) return std::nullopt;  // a positional argument (SPEC, TRACE)
    const auto sub = std::find(names.begin(), names.end(), std::string(argv[i]));
    if (sub != names.end()) {
      at = at->get_subcommand(*sub);
      path += " " + *sub;
      continue;
    }
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    const auto near = nearest(argv[i], names);
    return fmt::format("unknown command \"{}\" for {}{} (the commands are {}; `{} --help` describes them)", argv[i],
                       path, near ? fmt::format("; did you mean {}?", *near) : std::string(), list, path);
  }
  return std::nullopt;
}

std::optional<std::string> unknown_flag(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* at = &app;  // the deepest subcommand parsed
  std::string path = "retrylab";
  for (;;) {
    const auto parsed = at->get_subcommands();
    if (parsed.empty()) break;
    at = parsed.front();
    path += " " + at->get_name();
  }
  std::vector<std::string> flags;
  for (const CLI::Option* o : at->get_options())
    for (const std::string& n : o->get_lnames()) flags.push_back("--" + n);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0 || arg == "--") continue;
    arg = arg.substr(0, arg.find('='));
    if (std::find(flags.begin(), flags.end(), arg) != flags.end()) continue;
    const auto near = nearest(arg, flags);
    return fmt::format("{} is not a flag of {}{} (`{} --help` lists them)", arg, path,
                       near ? fmt::format("; did you mean {}?", *near) : std::string(), path);
  }
  return std::nullopt;
}

void add_format_options(CLI::App* cmd, OutputFormat& format, bool csv) {
  CLI::Option* format_option =
      cmd->add_option_function<std::string>(
             "--format",
             [&format, csv](const std::string& v) {
               if (v == "table")
                 format = OutputFormat::table;
               else if (v == "json")
                 format = OutputFormat::json;
               else if (v == "csv" && csv)
                 format = OutputFormat::csv;
               else
                 throw CLI::ValidationError("--format", csv ? "must be table, json or csv (got " + v + ")"
                                                            : "must be table or json (got " + v + ")");
             },
             csv ? "Output format: table (for people), json (one document on stdout), csv"
                 : "Output format: table (for people), json (one document on stdout)")
          ->type_name(csv ? "table|json|csv" : "table|json")
          ->default_str("table");
  // Both at once is a conflict (--json --format csv printed JSON), refused rather than resolved.
  CLI::Option* json = cmd->add_flag_callback(
                             "--json", [&format] { format = OutputFormat::json; }, "Short for --format json")
                          ->excludes(format_option);
  if (csv)
    cmd->add_flag_callback(
           "--csv", [&format] { format = OutputFormat::csv; }, "Short for --format csv")
        ->excludes(format_option)
        ->excludes(json);
}

void require_finite(const std::string& flag, double x) {
  if (!std::isfinite(x)) throw InputError(flag, fmt::format("must be a finite number (got {})", x));
}

}  // namespace retrylab::cli

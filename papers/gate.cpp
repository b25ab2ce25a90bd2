#include "papers/gate.hpp"

#include <fmt/format.h>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "montecarlo/atomic_file.hpp"
#include "validation/certificate.hpp"
#include "validation/report.hpp"
#include "validation/suite.hpp"

namespace retrylab::papers {

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// A study reusing certificate c: its tables (kept beside it by `validate`) replace OUT/validation, so
// the table beside the results is the one of the certificate they name. Certificates written before
// tables were kept have none: then OUT/validation is left alone, and the user is told.
void copy_certified_tables(const validation::Certificate& c, const fs::path& out, const GateOptions& o) {
  const fs::path from = validation::certificate_tables_dir(c);
  std::error_code ec;
  if (!fs::is_regular_file(from / "validation.md", ec)) {
    o.say(
        fmt::format("the validation table of certificate {} is not stored (written by an older retrylab): {} is "
                    "not refreshed; `retrylab validate --out {}` rewrites it",
                    c.id, (out / "validation").string(), (out / "validation").string()));
    return;
  }
  fs::create_directories(out / "validation");
  for (const char* name : {"validation.md", "validation.tex", "validation.csv"})
    if (fs::is_regular_file(from / name, ec)) write_file_atomic(out / "validation" / name, read_file(from / name));
  if (!o.quiet) o.say(fmt::format("its table copied to {}", (out / "validation").string()));
}

// No passing certificate and asked to validate: the quick catalogue, its tables and certificate.
std::optional<std::string> validate_now(const GateOptions& o, const fs::path& out) {
  validation::require_writable_certificate_dir();  // before the catalogue runs, not after it
  if (!o.quiet) o.say("no passing certificate for this build: running `retrylab validate --quick` first");
  validation::SuiteOptions opt;
  opt.threads = o.threads;
  const auto result = validation::run_suite(opt);
  validation::write_reports(result, out / "validation");
  const auto cert = validation::make_certificate(result, o.version);
  validation::write_reports(result, validation::certificate_tables_dir(cert));
  validation::write_certificate(cert);
  if (!result.passed) {
    o.say(fmt::format("validation failed (certificate {}, table in {}): no study runs on this build", cert.id,
                      (out / "validation").string()));
    return std::nullopt;
  }
  if (!o.quiet)
    o.say(fmt::format("validation passed: certificate {} (table in {})", cert.id, (out / "validation").string()));
  return cert.id;
}

}  // namespace

std::optional<std::string> pass_gate(const GateOptions& options, const fs::path& out) {
  GateOptions o = options;
  if (!o.say) o.say = [](const std::string& line) { std::fprintf(stderr, "retrylab: %s\n", line.c_str()); };
  if (auto c = validation::find_passing_certificate()) {
    if (!o.quiet) o.say(fmt::format("results rest on validation certificate {}", c->id));
    copy_certified_tables(*c, out, o);
    return c->id;
  }
  if (!o.validate) {
    o.say(
        fmt::format("this build ({}) has no passing validation certificate in {}; run `retrylab validate` "
                    "first (or pass --validate to run it now)",
                    validation::current_build_id(), validation::certificate_dir().string()));
    return std::nullopt;
  }
  return validate_now(o, out);
}

}  // namespace retrylab::papers

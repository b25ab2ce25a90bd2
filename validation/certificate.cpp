#include "validation/certificate.hpp"

#include "montecarlo/atomic_file.hpp"

#include <fmt/format.h>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "analytic/error.hpp"
#include "analytic/units.hpp"
#include "montecarlo/hash.hpp"

namespace retrylab::validation {

namespace {

std::filesystem::path self_exe() { return std::filesystem::read_symlink("/proc/self/exe"); }

nlohmann::json to_json(const Certificate& c) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& v : c.cases) cases.push_back({{"name", v.name}, {"passed", v.passed}});
  // "retrylab" and "unit" as in every JSON output (docs/outputs.md); "version" is kept for readers.
  return {{"id", c.id},
          {"version", c.version},
          {"retrylab", c.version},
          {"unit", units::attempt_duration},
          {"build_id", c.build_id},
          {"scale", c.scale},
          {"seed", c.seed},
          {"passed", c.passed},
          {"cases", cases}};
}

std::optional<Certificate> read_certificate(const std::filesystem::path& p) {
  std::ifstream in(p);
  if (!in) return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  try {
    Certificate c;
    c.id = j.at("id").get<std::string>();
    c.version = j.at("version").get<std::string>();
    c.build_id = j.at("build_id").get<std::string>();
    c.scale = j.at("scale").get<std::string>();
    c.seed = j.at("seed").get<std::uint64_t>();
    c.passed = j.at("passed").get<bool>();
    for (const auto& v : j.at("cases"))
      c.cases.push_back({v.at("name").get<std::string>(), v.at("passed").get<bool>()});
    return c;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a foreign or truncated file is simply not a certificate
  }
}

}  // namespace

std::string current_build_id() {
  // 64-bit FNV-1a (montecarlo/hash.hpp) over the executable's bytes: any rebuild that changes the code changes the id.
  std::ifstream in(self_exe(), std::ios::binary);
  if (!in) throw std::runtime_error("cannot read /proc/self/exe to identify this build");
  std::uint64_t h = montecarlo::fnv1a64_basis;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    h = montecarlo::fnv1a64_update(h, std::string_view(buf, static_cast<std::size_t>(in.gcount())));
  }
  return fmt::format("{:016x}", h);
}

std::filesystem::path certificate_dir() {
  if (const char* env = std::getenv("RETRYLAB_CERTIFICATE_DIR"); env != nullptr && *env != '\0') return env;
  return self_exe().parent_path() / "certificates";
}

std::filesystem::path certificate_tables_dir(const Certificate& c) { return certificate_dir() / c.id; }

void require_writable_certificate_dir() {
  const auto dir = certificate_dir();
  const std::string reason = folder_write_problem(dir);
  if (!reason.empty())
    throw OutputError(
        fmt::format("cannot write the validation certificate in {} ({}); set RETRYLAB_CERTIFICATE_DIR "
                    "to a folder retrylab can write",
                    dir.string(), reason));
}

std::filesystem::path write_certificate(const Certificate& c) {
  const auto dir = certificate_dir();
  std::filesystem::create_directories(dir);
  const auto final_path = dir / (c.id + ".json");
  write_file_atomic(final_path, to_json(c).dump(2) + "\n");
  return final_path;
}

std::optional<Certificate> find_passing_certificate() {
  const auto dir = certificate_dir();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return std::nullopt;
  const std::string build = current_build_id();
  std::optional<Certificate> best;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const auto& p = entry.path();
    if (p.extension() != ".json" || p.filename().string().front() == '.') continue;
    auto c = read_certificate(p);
    if (!c || !c->passed || c->build_id != build) continue;
    bool all_cases = !c->cases.empty();
    for (const auto& v : c->cases) all_cases = all_cases && v.passed;
    if (!all_cases) continue;
    // Prefer full over quick; among equals the smallest id, so the choice does not depend on
    // directory order.
    if (!best || (c->scale == "full" && best->scale != "full") || (c->scale == best->scale && c->id < best->id))
      best = std::move(c);
  }
  return best;
}

}  // namespace retrylab::validation

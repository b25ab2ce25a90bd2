// `retrylab policy show FILE`: what a client policy file means in retrylab's terms (docs/policies.md):
// every field it sets, with its value, unit and source, and every setting retrylab does not model.
#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "analytic/error.hpp"
#include "analytic/input_file.hpp"
#include "api/policy.hpp"
#include "cli/common.hpp"
#include "montecarlo/fields.hpp"
#include "policy/policy.hpp"

namespace retrylab::cli {

namespace {

struct PolicyOptions {
  std::string file;
  std::string select;
  bool strict = false;
  OutputFormat format = OutputFormat::table;
};

std::string unit_of(const montecarlo::Field& f, const policy::Entry& e) {
  if (f.unit != montecarlo::FieldUnit::time || e.value == "none") return "";
  return e.unit == "attempt" ? "attempt-durations" : e.unit;
}

std::string source_of(const policy::Entry& e) {
  return e.line > 0 ? fmt::format("{} (line {})", e.source, e.line) : e.source;
}

nlohmann::ordered_json as_json(const policy::Policy& p) {
  nlohmann::ordered_json j{{"file", p.path}, {"format", policy::to_string(p.format)}, {"selected", p.selected}};
  j["fields"] = nlohmann::ordered_json::array();
  for (const policy::Entry& e : p.entries) {
    const montecarlo::Field& f = api::policy_field(p, e, api::Spelling::flag);
    j["fields"].push_back({{"field", e.field},
                           {"value", e.value},
                           {"unit", unit_of(f, e)},
                           {"source", e.source},
                           {"line", e.line},
                           {"meaning", f.meaning}});
  }
  j["not_modelled"] = nlohmann::ordered_json::array();
  j["no_effect"] = nlohmann::ordered_json::array();
  for (const policy::Note& n : p.notes)
    j[n.effect ? "not_modelled" : "no_effect"].push_back({{"key", n.key}, {"line", n.line}, {"text", n.text}});
  return j;
}

std::string as_table(const policy::Policy& p) {
  std::size_t wf = 5, wv = 5, wu = 4;
  for (const policy::Entry& e : p.entries) {
    const montecarlo::Field& f = api::policy_field(p, e, api::Spelling::flag);
    wf = std::max(wf, e.field.size());
    wv = std::max(wv, printable(e.value).size());
    wu = std::max(wu, unit_of(f, e).size());
  }
  // Every text from the file (a key, a value, a name) printable: an escape sequence in a key must
  // not reach the terminal (the JSON document escapes them itself).
  std::string out = fmt::format("{} ({}{})\n\n", printable(p.path), policy::to_string(p.format),
                                p.selected.empty() ? std::string() : "; " + printable(p.selected));
  out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", "field", wf, "value", wv, "unit", wu, "source");
  for (const policy::Entry& e : p.entries) {
    const montecarlo::Field& f = api::policy_field(p, e, api::Spelling::flag);
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", e.field, wf, printable(e.value), wv, unit_of(f, e), wu,
                       printable(source_of(e)));
  }
  for (const bool effect : {true, false}) {
    std::string lines;
    for (const policy::Note& n : p.notes)
      if (n.effect == effect) lines += "  " + printable(policy::note_line(p, n)) + "\n";
    if (!lines.empty())
      out += fmt::format("\n{}\n{}",
                         effect ? "not modelled (a warning; an error with --strict):" : "no effect here:", lines);
  }
  return out;
}

int run_show(const PolicyOptions& o) {
  const policy::Policy p = api::load_policy(o.file, o.select, api::Spelling::flag);
  if (o.strict)
    for (const policy::Note& n : p.notes)
      if (n.effect) throw InputError("--policy", fmt::format("{} (refused by --strict)", policy::note_line(p, n)));
  switch (o.format) {
    case OutputFormat::json:
      std::cout << as_json(p).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
      break;
    case OutputFormat::csv:  // never: policy show offers table|json only (add_format_options)
    case OutputFormat::table: std::cout << as_table(p); break;
  }
  return 0;
}

}  // namespace

void add_policy_command(CLI::App& app, Action& action) {
  auto opts = std::make_shared<PolicyOptions>();
  CLI::App* cmd = app.add_subcommand("policy", "Client policy files: what they mean in retrylab's terms");
  cmd->require_subcommand(1);
  CLI::App* show = cmd->add_subcommand(
      "show", "Print every field a policy file sets (value, unit, source) and what retrylab does not model");
  show->add_option("FILE", opts->file,
                   "retrylab TOML, gRPC service config (.json), Envoy or resilience4j (.yaml), "
                   "AWS SDK settings")
      ->required();
  show->add_option("--select", opts->select, "The gRPC method, resilience4j instance or AWS profile");
  show->add_flag("--strict", opts->strict, "Exit 2 if the file sets what retrylab does not model");
  add_format_options(show, opts->format, false);
  show->callback([opts, &action] { action = [opts] { return run_show(*opts); }; });
}

}  // namespace retrylab::cli

// `retrylab analytic NAME`: one subcommand per command of the analytic registry (api/analytic.hpp),
// its flags the command's parameters (--find-cap for find_cap), typed by their kind so that every
// flag is read as strictly as any other (harden_options). Parses, asks the registry for the
// document, prints it; the registry computes, checks and formats (docs/cli.md "analytic").
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/analytic.hpp"
#include "api/spelling.hpp"
#include "cli/common.hpp"

namespace retrylab::cli {

namespace {

// One parameter's value as CLI11 fills it: the plain member when the parameter has a default (shown
// in --help), the optional one when it has none.
struct Slot {
  double real = 0.0;
  std::optional<double> maybe_real;
  std::int64_t integer = 0;
  std::optional<std::int64_t> maybe_integer;
  std::string text;
  std::optional<std::string> maybe_text;
  bool flag = false;
};

struct Given {
  OutputFormat format = OutputFormat::table;
  api::AnalyticUnit unit;                   // --unit and --attempt-duration (commands with times)
  std::vector<Slot> slots;                  // one per parameter, in the table's order; never resized once bound
  std::vector<const CLI::Option*> options;  // the flag of each: only those given are passed on
};

std::string flag_of(std::string_view name) {
  std::string flag = "--" + std::string(name);
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

CLI::Option* bind(CLI::App* sub, const api::AnalyticParam& p, Slot& s) {
  const std::string flag = flag_of(p.name), help = api::spell_text(p.help, api::Spelling::flag);
  const bool fallback = !p.fallback.empty();
  if (fallback) {
    const api::AnalyticValue v = api::fallback_value(p);
    if (p.kind == api::ParamKind::real) s.real = std::get<double>(v);
    if (p.kind == api::ParamKind::integer) s.integer = std::get<std::int64_t>(v);
    if (p.kind == api::ParamKind::text) s.text = std::get<std::string>(v);
  }
  CLI::Option* o = nullptr;
  switch (p.kind) {
    case api::ParamKind::real:
      o = fallback ? sub->add_option(flag, s.real, help) : sub->add_option(flag, s.maybe_real, help);
      break;
    case api::ParamKind::integer:
      o = fallback ? sub->add_option(flag, s.integer, help) : sub->add_option(flag, s.maybe_integer, help);
      break;
    case api::ParamKind::text:
      o = fallback ? sub->add_option(flag, s.text, help) : sub->add_option(flag, s.maybe_text, help);
      break;
    case api::ParamKind::flag: return sub->add_flag(flag, s.flag, help);
  }
  if (fallback) o->capture_default_str();
  if (p.required) o->required();
  return o;
}

api::AnalyticValues values_of(const api::AnalyticCommand& c, const Given& g) {
  api::AnalyticValues v;
  for (std::size_t i = 0; i < c.params.size(); ++i) {
    const api::AnalyticParam& p = c.params[i];
    const Slot& s = g.slots[i];
    const std::string name(p.name);
    // A flag not given is left to the registry's default (in attempt-durations whatever --unit says).
    if (g.options[i]->count() == 0) continue;
    const bool fallback = !p.fallback.empty();
    switch (p.kind) {
      case api::ParamKind::real:
        if (fallback || s.maybe_real) v.emplace(name, fallback ? s.real : *s.maybe_real);
        break;
      case api::ParamKind::integer:
        if (fallback || s.maybe_integer) v.emplace(name, fallback ? s.integer : *s.maybe_integer);
        break;
      case api::ParamKind::text:
        if (fallback || s.maybe_text) v.emplace(name, fallback ? s.text : *s.maybe_text);
        break;
      case api::ParamKind::flag: v.emplace(name, s.flag); break;
    }
  }
  return v;
}

int print(const api::AnalyticCommand& c, const Given& g) {
  const api::Document doc = api::analytic_document(c, values_of(c, g), g.unit);
  std::string out;
  if (g.format == OutputFormat::json)
    out = api::analytic_json(c, doc, g.unit).dump(2) + "\n";
  else if (g.format == OutputFormat::csv)
    out = api::analytic_csv(doc);
  else
    out = api::analytic_table(doc);
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace

void add_analytic_command(CLI::App& app, Action& action) {
  CLI::App* analytic =
      app.add_subcommand("analytic", "Closed forms: value, formula, assumptions and the proof that backs it");
  analytic->require_subcommand(1);
  for (const api::AnalyticCommand& c : api::analytic_commands()) {
    auto given = std::make_shared<Given>();
    given->slots.resize(c.params.size());
    CLI::App* sub = analytic->add_subcommand(std::string(c.name), std::string(c.meaning));
    add_format_options(sub, given->format);
    for (std::size_t i = 0; i < c.params.size(); ++i) given->options.push_back(bind(sub, c.params[i], given->slots[i]));
    if (api::has_times(c)) {
      sub->add_option("--unit", given->unit.unit,
                      "Unit of every time and rate given and printed: attempt (attempt-durations), ms or s")
          ->capture_default_str();
      sub->add_option("--attempt-duration", given->unit.attempt_duration,
                      "Mean time of one attempt in --unit (required with ms or s); defaults stay in attempt-durations");
    }
    sub->callback([&c, given, &action] { action = [&c, given] { return print(c, *given); }; });
  }
}

}  // namespace retrylab::cli

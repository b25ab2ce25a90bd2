// retrylab's own policy format: the client-policy fields of the field table, grouped as
// docs/scenario-fields.md and docs/policies.md show them ([backoff], [client]), with the unit of
// every time at the top. Which keys are fields of which group is the field table's to say: api/
// checks that when it merges the entries (naming this file, the line and the key).
#include <fmt/format.h>
#include <toml++/toml.h>
#include <cmath>

#include "policy/detail.hpp"

namespace retrylab::policy::detail {

namespace {

int line(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

std::string text_of(const toml::node& n, const std::string& path, const std::string& key) {
  if (auto s = n.as_string()) return s->get();
  if (auto b = n.as_boolean()) return b->get() ? "on" : "off";
  if (auto i = n.as_integer()) return fmt::format("{}", i->get());
  if (auto f = n.as_floating_point()) {
    if (std::isinf(f->get()) && f->get() > 0) return "none";
    if (!std::isfinite(f->get())) fail(path, line(n), key, "must be a finite number or \"none\"");
    return num(f->get());
  }
  fail(path, line(n), key, "must be a string, number or boolean");
}

}  // namespace

Policy parse_toml(const std::string& text, const std::string& path) {
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    fail(path, static_cast<int>(e.source().begin.line), "(syntax)",
         fmt::format("is not valid TOML: {}", e.description()));
  }
  Policy p;
  p.path = path;
  p.format = Format::toml;
  std::string unit = "attempt";
  if (auto u = root["unit"]) {
    auto s = u.as_string();
    if (!s || (s->get() != "attempt" && s->get() != "ms" && s->get() != "s"))
      fail(path, line(*u.node()), "unit", "must be \"attempt\", \"ms\" or \"s\" (the unit of every time in the file)");
    unit = s->get();
  }
  for (const auto& [k, node] : root) {
    const std::string group(k.str());
    if (group == "unit") continue;
    if (group != "backoff" && group != "client")
      fail(path, line(node), group,
           "is not a key of a policy file (unit, [backoff], [client]: the client-policy fields, docs/policies.md)");
    auto t = node.as_table();
    if (!t) fail(path, line(node), group, "must be a table of fields");
    for (const auto& [fk, fv] : *t) {
      const std::string key = fmt::format("{}.{}", group, fk.str());
      const bool number = fv.is_integer() || fv.is_floating_point();
      p.entries.push_back({std::string(fk.str()), text_of(fv, path, key), number ? unit : "", key, line(fv)});
    }
  }
  return p;
}

}  // namespace retrylab::policy::detail

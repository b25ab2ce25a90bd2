// render_published (papers/published.hpp): the published table, the table of every number of the
// paper's text, and the summary.
#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "montecarlo/atomic_file.hpp"
#include "papers/published.hpp"
#include "papers/published/statements.hpp"
#include "papers/store.hpp"

namespace retrylab::papers {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> certificates(const fs::path& dir) {
  std::vector<std::string> certs;
  for (const auto& [key, rec] : read_results(dir / "results.jsonl")) {
    const std::string c = rec.value("certificate", "");
    if (std::find(certs.begin(), certs.end(), c) == certs.end()) certs.push_back(c);
  }
  return certs;
}

std::string listed(const PublishedRow& r) {
  return fmt::format(
      "- **{}** ({}: published {}, reproduced {}{}): {}\n", r.statement, r.verdict, r.published,
      format_number(r.reproduced.mean),
      std::isnan(r.replica.mean) ? "" : fmt::format(" and {} on the second seed", format_number(r.replica.mean)),
      r.reason);
}

std::string summary_text(const PublishedReport& rep) {
  std::map<std::string, int> n;
  for (const auto& r : rep.rows) ++n[r.verdict];
  std::string s = fmt::format(
      "Of the {} statements, at this scale: {} hold ({} of them within noise), {} hold under a stated reading, {} "
      "differ, {} not tested. The verdict rule (docs/published.md) compares each reproduction with the published "
      "value allowing for the sampling error of both, on two independent seeds; \"differs\" means both seeds "
      "differ.\n",
      rep.rows.size(), n["holds"] + n["within noise"], n["within noise"], n["holds under a reading"], n["differs"],
      n["not tested"]);
  if (!rep.readings.empty()) {
    s += "\n**One reading per unstated setting, for the whole paper** (the value that reproduces the most "
         "statements at once):\n\n";
    for (const auto& l : rep.readings) s += "- " + l + "\n";
  }
  if (rep.numbers > 0)
    s += fmt::format(
        "\nThe paper's text holds {} numbers (published_numbers.md): {} are tested by a statement, {} are settings, "
        "definitions or citations, each with the reason it is not.\n",
        rep.numbers, rep.numbers_tested, rep.numbers - rep.numbers_tested);
  for (const auto& [verdict, title] :
       std::vector<std::pair<std::string, std::string>>{{"holds under a reading", "hold only under a reading"},
                                                        {"differs", "differ"},
                                                        {"not tested", "are not tested"}}) {
    std::string list;
    for (const auto& r : rep.rows)
      if (r.verdict == verdict) list += listed(r);
    if (!list.empty()) s += "\nThe statements that " + title + ", and why:\n\n" + list;
  }
  return s;
}

Table numbers_table(const fs::path& statements, const PublishedReport& rep) {
  const auto st = published::load(statements);
  std::map<std::string, const PublishedRow*> by_id;
  for (const auto& r : rep.rows) by_id[r.id] = &r;
  Table t{"published_numbers",
          "Every number of the paper's text and what tests it",
          {"number", "where (the paper's words)", "statements", "verdicts, or why no statement"},
          {},
          {}};
  for (const auto& n : st.numbers) {
    std::vector<std::string> verdicts;
    for (const auto& id : n.statements) verdicts.push_back(by_id.at(id)->verdict);
    t.rows.push_back({n.text, "\"" + n.at + "\"",
                      n.statements.empty() ? "–" : fmt::format("{}", fmt::join(n.statements, ", ")),
                      n.statements.empty() ? n.skip : fmt::format("{}", fmt::join(verdicts, ", "))});
  }
  t.notes.push_back(
      "Listed from the paper's text, in order, one row per occurrence (published.toml, [[number]]); a "
      "number with neither a statement nor a reason is refused when the file is read.");
  return t;
}

}  // namespace

std::vector<fs::path> render_published(const fs::path& statements, const StudySpec& spec, const fs::path& dir) {
  const PublishedReport rep = compute_report(statements, spec, dir);
  Table t{"published",
          "Published against reproduced",
          {"statement", "quote", "published", "paper's runs", "reproduced", "second seed", "verdict",
           "settings that reproduce it", "reason"},
          {},
          {}};
  for (const auto& r : rep.rows)
    t.rows.push_back({r.statement, "\"" + r.quote + "\"", r.published, r.runs, r.reproduced, r.replica, r.verdict,
                      r.settings.empty() ? "–" : r.settings, r.reason.empty() ? "–" : r.reason});
  t.notes.push_back(
      "Reproduced at the paper's stated settings from this folder's results.jsonl (papers/published.hpp), on the "
      "study's seed and on its second seed (the replica sweeps NAME@2). Verdicts (docs/published.md): holds = both "
      "seeds reproduce the printed value (for a bound: their whole 95% interval is on its side); within noise = not "
      "both, but the difference is within the sampling error of the reproduction and of the paper's own runs (its "
      "interval widened by sqrt(1 + n / paper's runs); Fisher's exact test for fractions of runs) on at least one "
      "seed; holds under a reading = the paper-wide value of an unstated setting, or a named reading, reproduces it; "
      "differs = both seeds differ. Grid values (best points' settings, sleep quantiles of 200,000 draws) have no "
      "interval.");
  const auto certs = certificates(dir);
  auto files = write_table(t, dir, certs);
  const auto st = published::load(statements);
  if (!st.numbers.empty())
    for (auto& f : write_table(numbers_table(statements, rep), dir, certs)) files.push_back(f);
  write_file_atomic(dir / "published_summary.md", summary_text(rep));
  files.push_back(dir / "published_summary.md");
  return files;
}

}  // namespace retrylab::papers

#pragma once
// Published against reproduced: a paper's statements (papers/NAME/published.toml) set beside the
// values the study computes from its own results store, with a verdict and a reason. Nothing in
// the table is typed by hand except the published side: each statement names a sweep, the points at
// the paper's stated settings and a measure over them (papers/published/measures.hpp).
// Verdicts (docs/published.md; papers/published/verdict.hpp gives the rule):
//   holds                 the reproduction agrees on both seeds (rounds to the printed value, or
//                         is on the bound's side);
//   within noise          not on both seeds, but the difference is within the sampling error of the
//                         reproduction and of the paper's own runs on at least one;
//   holds under a reading it differs at the stated settings, and the paper-wide value of a setting
//                         the paper leaves unstated (one K for the paper, one drain definition, ...;
//                         papers/published/readings.hpp) or a named reading reproduces it;
//   differs               both seeds differ under every reading; not tested: no sweep measures it.
// The statements file also lists every number of the paper's text, each with its statements or a
// reason to skip it; a number with neither is refused (InputError) when the file is read.
#include <filesystem>
#include <string>
#include <vector>

#include "papers/render.hpp"
#include "papers/spec.hpp"

namespace retrylab::papers {

struct PublishedRow {
  std::string id;
  std::string statement;  // what is stated, in this repository's words, with the paper's settings
  std::string quote;      // a short quote locating it in the paper
  std::string published;  // the paper's number as printed
  std::string runs;       // the paper's runs behind it ("–": not a sampled number; "20?" not stated)
  Estimate reproduced;    // first seed; NaN lo/hi when the measure has no interval (a grid value)
  Estimate replica;       // second seed (NaN when the sweep has no replica)
  std::string verdict;    // holds | within noise | holds under a reading | differs | not tested
  std::string settings;   // the values of each searched setting that reproduce it ("" when none searched)
  std::string reason;
};

struct PublishedReport {
  std::vector<PublishedRow> rows;
  std::vector<std::string> readings;            // one line per setting: the paper-wide value and what it fails
  std::size_t numbers = 0, numbers_tested = 0;  // numbers of the paper's text, and those with a statement
};

// Reads `statements` and checks that every sweep it names is one of `spec`'s (InputError if not),
// so that a typo is reported before a study runs, not after.
void check_statements(const std::filesystem::path& statements, const StudySpec& spec);

// Computes every statement of `statements` (published.toml) from DIR/results.jsonl of `spec`.
PublishedReport compute_report(const std::filesystem::path& statements, const StudySpec& spec,
                               const std::filesystem::path& dir);
std::vector<PublishedRow> compute_published(const std::filesystem::path& statements, const StudySpec& spec,
                                            const std::filesystem::path& dir);

// Writes DIR/published.{md,tex,csv} (the table), DIR/published_numbers.{md,tex,csv} (every number
// of the paper's text and what tests it) and DIR/published_summary.md (counts of verdicts, the
// paper-wide readings, the statements that do not hold and why); returns the files written.
std::vector<std::filesystem::path> render_published(const std::filesystem::path& statements, const StudySpec& spec,
                                                    const std::filesystem::path& dir);

}  // namespace retrylab::papers

#pragma once
// Published against reproduced: a paper's numeric and checkable statements (papers/NAME/published.toml)
// set beside the values the study computes from its own results store, with a verdict and a reason.
// Nothing in the table is typed by hand except the published side: each statement names a sweep, the
// points at the paper's stated settings and a measure over them (a metric's value, a ratio of two,
// a best point of a search, one point against the best of several, a collapse load for a threshold K
// (the sustainable load's one definition, report::last_surviving), a cap threshold, a sleep quantile,
// a fitted exponent). Verdicts, for a published value v stated to a half-unit h of its last digit:
//   holds: the reproduced value lies in [v − h, v + h] (for a bound: its whole interval is on the
//     stated side);
//   within noise: it does not, but its 95% interval (papers/intervals.hpp) reaches [v − h, v + h]
//     (for a bound: the interval straddles it);
//   differs: neither; not tested: the study has no sweep that measures it (the reason says so).
// For a statement that does not hold, each alternative reading the file lists (another threshold K,
// the other drain-time definition, the long horizon, ...) is computed the same way, and the first
// that holds is named as the reason; a search whose best point is at its grid's edge is flagged (no
// backoff, the zero-sleep limit of every search, is named as that limit instead).
// Any unknown key or bad value in the file throws InputError naming the statement and the key.
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
  Estimate reproduced;    // NaN lo/hi when the measure has no interval (a grid value)
  std::string verdict;    // holds | within noise | differs | not tested
  std::string reason;
};

// Reads `statements` and checks that every sweep it names is one of `spec`'s (InputError if not),
// so that a typo is reported before a study runs, not after.
void check_statements(const std::filesystem::path& statements, const StudySpec& spec);

// Computes every statement of `statements` (published.toml) from DIR/results.jsonl of `spec`.
std::vector<PublishedRow> compute_published(const std::filesystem::path& statements, const StudySpec& spec,
                                            const std::filesystem::path& dir);

// Writes DIR/published.{md,tex,csv} (the table) and DIR/published_summary.md (counts of verdicts and
// the statements that do not hold, with their reasons); returns the files written.
std::vector<std::filesystem::path> render_published(const std::filesystem::path& statements, const StudySpec& spec,
                                                    const std::filesystem::path& dir);

}  // namespace retrylab::papers

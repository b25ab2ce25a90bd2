#pragma once
// The answer of advise::advise as data for people and scripts: the warnings and notes it carries
// and the JSON object that `retrylab advise --json` prints after its provenance and
// retrylab.advise() returns (docs/advise.md). Times are multiplied by d (the length of one
// attempt-duration in the user's unit), rates divided by it; counts stay as they are; the
// objective is a time (drain-time, weighted) or a count (attempts). Warning and note texts are
// unit-free (loads per attempt-duration, differences in percent), so the CLI and Python print the
// same document whatever the unit. One writer, so the CLI and Python never disagree.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "advise/advise.hpp"

namespace retrylab::advise {

// "failed attempts collide" for collision, "... are free", "... use capacity".
const char* plain_words(Model m) noexcept;

// The objective's scale in the user's unit: d for a time, 1 for attempts.
double objective_scale(const Request& r, double d) noexcept;

// The stats that describe a candidate: its confirming runs when confirmed, else its search runs.
const Stats& headline(const Candidate& c) noexcept;

// Where no client policy helps (shared) and what would (an option it names is a reference, `base`,
// spelled by the front end: api/spelling.hpp); a steady load at or above the sustainable one; ...
std::vector<std::string> warnings(const Advice& a);

// What the reader should know about the recommendation: why a cap within 2x the base, how long a
// lone failure waits, the margin rule.
std::vector<std::string> notes(const Advice& a);

// {"request", "search", "recommended", "candidates", "warnings", "notes"} in the user's unit.
nlohmann::ordered_json advice_json(const Advice& a, double d);

}  // namespace retrylab::advise

#pragma once
// The answer of advise::advise as data for people and scripts: the warnings it carries and the JSON
// object that `retrylab advise --json` prints after its provenance and retrylab.advise() returns
// (docs/advise.md). Times are multiplied by d (the length of one attempt-duration in the user's unit),
// rates divided by it; counts stay as they are. One writer, so the CLI and Python never disagree.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "advise/advise.hpp"

namespace retrylab::advise {

// "failed attempts collide" for collision, "... are free", "... use capacity".
const char* plain_words(Model m) noexcept;

// Where no client policy helps (shared), and what would; strategies that drained nothing.
std::vector<std::string> warnings(const Advice& a);

// {"request", "recommended", "candidates", "warnings"} in the user's unit.
nlohmann::ordered_json advice_json(const Advice& a, double d);

}  // namespace retrylab::advise

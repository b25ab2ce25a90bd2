#pragma once
// Sanity warnings (docs/cli.md "Warnings"): a scenario the checks accept whose numbers are almost
// surely not what the user meant, said in the user's unit before any run. Each is one line; the
// front end prints it on stderr ("retrylab: warning: ...", a Python UserWarning) and the JSON
// document lists it under "warnings". None changes a run.
//  - a steady load at or above the resource's capacity (M rows serve at most M attempts per
//    attempt-duration): the clients waiting grow until the collapse rule stops the run;
//  - a horizon shorter than one attempt-duration: no attempt can end within it;
//  - a cap that does not let the backoff grow: at or below the first retry's window (base for
//    nojitter, full and equal; 3 x base for decorrelated, whose first sleep is uniform(base, 3 base)).
#include <string>
#include <vector>

#include "api/scenario.hpp"

namespace retrylab::api {

std::vector<std::string> sanity_warnings(const ResolvedScenario& s, Spelling how);

}  // namespace retrylab::api

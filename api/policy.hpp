#pragma once
// A client policy read from a file (policy/policy.hpp) merged into a scenario request: each entry
// becomes a field text in the request's unit, checked against the field table. Rules:
// - only the client-policy fields (the backoff and client groups of the field table) may come from
//   a policy; any other is refused, naming the file, line and key;
// - a field the front end also gives explicitly keeps the explicit value (a warning names both);
//   a budget or breaker given explicitly replaces the policy's with its numbers and scope;
// - every note of what retrylab does not model is a warning, or, with `strict`, an error when it
//   changes what a real client does;
// - a time stated in ms or s needs the request's unit to be ms or s (with its attempt duration), so
//   it can be stated in attempt-durations; a time stated in attempt-durations needs the unit attempt.
// Every error is an InputError naming "policy" in `how`'s spelling.
#include <string>
#include <vector>

#include "api/scenario.hpp"
#include "policy/policy.hpp"

namespace retrylab::montecarlo {
struct Field;
}

namespace retrylab::api {

// The entry's field row, after checking it is a client-policy field and its value parses
// (in the entry's own unit); throws InputError naming the policy's file, line and key.
const montecarlo::Field& policy_field(const policy::Policy& p, const policy::Entry& e, Spelling how);

// Merges p into r; returns the warnings, one line each, for the front end to print.
std::vector<std::string> apply_policy(ScenarioRequest& r, const policy::Policy& p, Spelling how, bool strict);

// policy::load with its InputError spelled for the front end.
policy::Policy load_policy(const std::string& path, const std::string& select, Spelling how);

}  // namespace retrylab::api

#pragma once
// A sweep's `policy = "FILE"` (docs/study-spec.md): the client-policy fields a policy file sets
// (policy/policy.hpp, docs/policies.md), as values in the sweep's unit, for the fields the sweep
// does not give itself. Invariants: FILE is relative to the spec's folder; only the backoff and
// client groups; a time needs the sweep's unit to place it (ms or s with attempt_duration, or a
// file in attempt-durations); every failure is a SpecError naming the policy key's line. What the
// file sets that retrylab does not model is the caller's to print (a warning, once per sweep).
#include <cstdint>
#include <string>
#include <vector>

#include "policy/policy.hpp"

namespace retrylab::papers {

struct PolicyValue {
  std::string field;
  double value;  // in the sweep's unit
};

// A file name a spec gives (policy, load_profile): relative, without "..", no empty or
// control-character name.
bool inside_folder(const std::string& name);
// The file `name` (inside_folder) relative to the spec's folder, checked to stay in that folder once
// its symbolic links are resolved: "" when it leaves it (a link to /etc/passwd or /dev/zero).
std::string spec_relative_file(const std::string& spec_file, const std::string& name);

// The file, read (relative to the spec's folder; a name outside it refused without reading it).
policy::Policy sweep_policy_file(const std::string& spec_file, const std::string& key, std::int64_t line,
                                 const std::string& file, const std::string& select);
// Its fields in the sweep's unit.
std::vector<PolicyValue> sweep_policy(const policy::Policy& p, const std::string& spec_file, const std::string& key,
                                      std::int64_t line, const std::string& unit, double attempt_duration);

}  // namespace retrylab::papers

// A `check` report read by name in the trace tests: one rule's verdict (a test failure when the report
// has no rule of that name) and every failed rule with what it observed, for an assertion's message.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "validation/trace_check.hpp"

namespace retrylab::test {

inline const validation::TraceCheck& find_check(const validation::TraceReport& r, const std::string& name) {
  for (const auto& c : r.checks)
    if (c.name == name) return c;
  ADD_FAILURE() << "no check " << name;
  static const validation::TraceCheck none;
  return none;
}

inline std::string failed_checks(const validation::TraceReport& r) {
  std::string s;
  for (const auto& c : r.checks)
    if (c.verdict == validation::CheckVerdict::fail) s += c.name + ": " + c.observed + "\n";
  return s;
}

}  // namespace retrylab::test

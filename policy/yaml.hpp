#pragma once
// The YAML importers' (envoy.cpp, resilience4j.cpp) one way into yaml-cpp: a syntax error becomes the
// importers' malformed-file error, naming the file and the line yaml-cpp reports.
#include <string>

#include <yaml-cpp/yaml.h>

#include "policy/detail.hpp"

namespace retrylab::policy::detail {

inline YAML::Node load_yaml(const std::string& text, const std::string& path) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail(path, e.mark.line < 0 ? 0 : e.mark.line + 1, "(syntax)", "is not valid YAML: " + e.msg);
  }
}

}  // namespace retrylab::policy::detail

#pragma once
// The YAML importers' (envoy.cpp, resilience4j.cpp) one way into yaml-cpp. Before a node is built,
// one pass over the parser's events bounds the document as the importers will walk it, with every
// alias expanded: at most max_yaml_nodes nodes, max_yaml_depth levels, max_yaml_path_bytes of key
// paths, and no alias inside the node it names (a recursive alias: "a: &a [*a]"). A file outside a
// bound, or a syntax error, becomes the importers' malformed-file error, naming the file and line.
#include <cstddef>
#include <string>

#include <yaml-cpp/yaml.h>

#include "policy/detail.hpp"

namespace retrylab::policy::detail {

inline constexpr std::size_t max_yaml_nodes = 100'000;
inline constexpr int max_yaml_depth = 64;
inline constexpr std::size_t max_yaml_path_bytes = std::size_t{64} << 20;

YAML::Node load_yaml(const std::string& text, const std::string& path);

}  // namespace retrylab::policy::detail

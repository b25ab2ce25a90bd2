#include "policy/yaml.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace retrylab::policy::detail {

namespace {

// The expanded document's size, counted from the parser's events. An anchored node's expansion is
// recorded when it closes, so an alias adds its size, height and key-path bytes without a walk.
class Shape final : public YAML::EventHandler {
 public:
  explicit Shape(const std::string& path) : path_(path) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { scalar(mark, anchor, "~"); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    scalar(mark, anchor, value);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (open_.count(anchor) != 0)
      refuse(mark, "has an alias inside the node it names (a recursive alias, which never ends when expanded)");
    const auto it = done_.find(anchor);
    const Expansion e = it == done_.end() ? Expansion{1, 0, 0} : it->second;
    const std::uint64_t prefix = place(0);
    count(mark, e.nodes, e.path_bytes + e.nodes * prefix, depth() + e.height);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    start(mark, anchor, false);
  }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    start(mark, anchor, true);
  }
  void OnSequenceEnd() override { end(); }
  void OnMapEnd() override { end(); }

 private:
  struct Expansion {
    std::uint64_t nodes, height, path_bytes;
  };
  struct Frame {
    YAML::anchor_t anchor;
    bool map;
    bool key_next;
    std::uint64_t key_bytes;  // the last key's length, for its value's path
    std::uint64_t prefix;     // this node's key path length
    std::uint64_t nodes_before, bytes_before, deepest;
    std::set<std::string> keys;  // a map's scalar keys so far
  };

  std::uint64_t depth() const { return stack_.size(); }

  // The key path length of the node about to come; records a scalar key's length for its value.
  std::uint64_t place(std::uint64_t scalar_bytes) {
    if (stack_.empty()) return 0;
    Frame& f = stack_.back();
    if (!f.map) return f.prefix + 8;  // "[index]"
    if (f.key_next) {
      f.key_next = false;
      f.key_bytes = scalar_bytes;
      return f.prefix;
    }
    f.key_next = true;
    return f.prefix + f.key_bytes + 1;
  }

  void count(const YAML::Mark& mark, std::uint64_t nodes, std::uint64_t bytes, std::uint64_t deepest) {
    nodes_ += nodes;
    bytes_ += bytes;
    if (nodes_ > max_yaml_nodes)
      refuse(mark, fmt::format("expands to over {} nodes with its aliases (a policy file has a few hundred)",
                               max_yaml_nodes));
    if (bytes_ > max_yaml_path_bytes)
      refuse(mark, fmt::format("has over {} MiB of key paths once expanded (keys too long or nested too deep)",
                               max_yaml_path_bytes >> 20));
    if (deepest > static_cast<std::uint64_t>(max_yaml_depth))
      refuse(mark, fmt::format("nests deeper than {} levels (with its aliases expanded)", max_yaml_depth));
    if (!stack_.empty()) stack_.back().deepest = std::max(stack_.back().deepest, deepest);
  }

  void scalar(const YAML::Mark& mark, YAML::anchor_t anchor, const std::string& value) {
    if (!stack_.empty() && stack_.back().map && stack_.back().key_next && !stack_.back().keys.insert(value).second)
      fail(path_, mark.line < 0 ? 0 : mark.line + 1, value,
           "is given twice in one map: a YAML map's keys must be unique (YAML 1.2)");
    const std::uint64_t prefix = place(value.size());
    count(mark, 1, prefix, depth());
    if (anchor != 0) done_[anchor] = {1, 0, 0};
  }

  void start(const YAML::Mark& mark, YAML::anchor_t anchor, bool map) {
    const std::uint64_t prefix = place(0);
    count(mark, 1, prefix, depth() + 1);
    stack_.push_back({anchor, map, true, 0, prefix, nodes_ - 1, bytes_ - prefix, depth() + 1, {}});
    if (anchor != 0) open_.insert(anchor);
  }

  void end() {
    if (stack_.empty()) return;
    const Frame f = std::move(stack_.back());
    stack_.pop_back();
    if (!stack_.empty()) stack_.back().deepest = std::max(stack_.back().deepest, f.deepest);
    if (f.anchor == 0) return;
    open_.erase(f.anchor);
    const std::uint64_t nodes = nodes_ - f.nodes_before;
    const std::uint64_t bytes = bytes_ - f.bytes_before - nodes * f.prefix;
    done_[f.anchor] = {nodes, f.deepest - depth(), bytes};
  }

  [[noreturn]] void refuse(const YAML::Mark& mark, const std::string& message) const {
    fail(path_, mark.line < 0 ? 0 : mark.line + 1, "(structure)", message);
  }

  const std::string& path_;
  std::vector<Frame> stack_;
  std::set<YAML::anchor_t> open_;
  std::map<YAML::anchor_t, Expansion> done_;
  std::uint64_t nodes_ = 0, bytes_ = 0;
};

}  // namespace

YAML::Node load_yaml(const std::string& text, const std::string& path) {
  try {
    {
      std::istringstream in(text);
      YAML::Parser parser(in);
      Shape shape(path);
      parser.HandleNextDocument(shape);  // YAML::Load reads the first document only
    }
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail(path, e.mark.line < 0 ? 0 : e.mark.line + 1, "(syntax)", "is not valid YAML: " + e.msg);
  }
}

}  // namespace retrylab::policy::detail

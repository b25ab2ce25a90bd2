// The importers' bounds on hostile files (policy/policy.hpp, policy/yaml.hpp, policy/detail.hpp):
// a tiny file whose expansion or nesting would crash, hang or exhaust memory, a file that is not
// UTF-8, a key given twice, and a file that is not a regular file (a FIFO, a device) are each
// refused with one InputError naming the file (and the line where there is one). Every case here
// crashed (stack overflow), hung or grew to gigabytes before the bounds. Exact tests.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "analytic/error.hpp"
#include "analytic/input_file.hpp"
#include "policy/detail.hpp"
#include "policy/policy.hpp"
#include "policy/yaml.hpp"

namespace policy_bounds_test {

namespace pol = retrylab::policy;

namespace {

// The error's text for a policy text that must be refused.
std::string refusal(pol::Format f, const std::string& text, const std::string& name = "bad") {
  try {
    pol::parse(f, text, name);
  } catch (const retrylab::InputError& e) {
    EXPECT_EQ(e.field(), "policy");
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text.substr(0, 200);
  return {};
}

bool starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// n nested levels of `count` aliases each: "billion laughs".
std::string laughs(int levels, int count) {
  std::string t = "l0: &l0 [x]\n";
  for (int i = 1; i <= levels; ++i) {
    t += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < count; ++k) t += (k ? ", *l" : "*l") + std::to_string(i - 1);
    t += "]\n";
  }
  return t;
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char name[] = "/tmp/retrylab-policy-bounds-XXXXXX";
    path = ::mkdtemp(name);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST(PolicyBounds, RecursiveYamlAliasIsRefused) {
  for (pol::Format f : {pol::Format::envoy, pol::Format::resilience4j}) {
    const std::string e = refusal(f, "a: &a [*a]\n");
    EXPECT_TRUE(starts(e, "policy bad:1: (structure) has an alias inside the node it names")) << e;
    EXPECT_TRUE(starts(refusal(f, "resilience4j.retry: &r\n  instances: {x: *r}\n"), "policy bad:2: (structure)"));
  }
}

TEST(PolicyBounds, YamlAliasExpansionIsBounded) {
  // 10 levels of 10: 10^10 nodes expanded from 600 bytes; 4 x 24: 2.8e14.
  for (const auto& [levels, count] : {std::pair{10, 10}, std::pair{24, 4}}) {
    const std::string e = refusal(pol::Format::envoy, laughs(levels, count));
    EXPECT_NE(e.find("(structure) expands to over 100000 nodes"), std::string::npos) << e;
  }
  // Expanded nesting counts too: an alias of a 40-deep node inside a 40-deep node.
  std::string deep = "a: &a " + std::string(40, '[') + std::string(40, ']') + "\nb: " + std::string(40, '[') + "*a" +
                     std::string(40, ']') + "\n";
  EXPECT_NE(refusal(pol::Format::envoy, deep).find("nests deeper than 64 levels"), std::string::npos);
  // A few aliases of a small node are fine (Envoy configs use anchors).
  EXPECT_NO_THROW(pol::parse(pol::Format::envoy, laughs(3, 3) + "retry_policy:\n  num_retries: 2\n", "ok.yaml"));
}

TEST(PolicyBounds, DeepAndWideYamlIsRefused) {
  EXPECT_TRUE(starts(refusal(pol::Format::envoy, std::string(100000, '[')), "policy bad:1: "));
  std::string wide;
  for (int i = 0; i < 150000; ++i) wide += "- a\n";
  EXPECT_NE(refusal(pol::Format::envoy, wide).find("expands to over 100000 nodes"), std::string::npos);
}

TEST(PolicyBounds, DeepJsonIsRefusedAtItsLine) {
  const std::string e = refusal(pol::Format::grpc, "\n" + std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_EQ(e, "policy bad:2: (structure) nests deeper than 64 levels");
  // A long key above many keys: each key's path repeats it (quadratic before the bound).
  std::string wide = "{\"" + std::string(500000, 'k') + "\": {";
  for (int i = 0; i < 50000; ++i) wide += (i ? ",\"" : "\"") + std::to_string(i) + "\":0";
  wide += "}}";
  EXPECT_NE(refusal(pol::Format::grpc, wide).find("(structure) has over 64 MiB of key paths"), std::string::npos);
}

TEST(PolicyBounds, DeepTomlAndAwsAreBounded) {
  EXPECT_TRUE(starts(refusal(pol::Format::toml, "a = " + std::string(100000, '[')), "policy bad:1: (syntax)"));
  EXPECT_TRUE(starts(refusal(pol::Format::toml, std::string(100000, '{')), "policy bad:1: (syntax)"));
  // Indented AWS lines are sub-settings of the last unindented one, not of each other (the key no
  // longer grows with every line).
  std::string aws = "[default]\nretry_mode = standard\ns3 =\n";
  for (int i = 0; i < 50000; ++i) aws += "  k" + std::to_string(i) + " = 1\n";
  const pol::Policy p = pol::parse(pol::Format::aws, aws, "config");
  std::size_t longest = 0;
  bool last = false;
  for (const pol::Note& n : p.notes) {
    longest = std::max(longest, n.key.size());
    last = last || n.key == "s3.k49999";
  }
  EXPECT_TRUE(last);
  EXPECT_LE(longest, 20u);
}

TEST(PolicyBounds, NonUtf8IsRefusedWithItsLine) {
  for (pol::Format f :
       {pol::Format::envoy, pol::Format::resilience4j, pol::Format::aws, pol::Format::grpc, pol::Format::toml})
    EXPECT_EQ(refusal(f, "a: 1\nb: \xff\n"),
              "policy bad:2: (encoding) is not UTF-8 (byte 0xFF at offset 8; a policy file is UTF-8 text)");
  EXPECT_EQ(retrylab::first_non_utf8("caf\xc3\xa9 \xe2\x88\x9e"), std::string_view::npos);
  EXPECT_EQ(retrylab::first_non_utf8("\xc0\xaf"), 0u);          // overlong
  EXPECT_EQ(retrylab::first_non_utf8("ab\xed\xa0\x80"), 2u);    // surrogate
  EXPECT_EQ(retrylab::first_non_utf8("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(retrylab::first_non_utf8("x\xe2\x88"), 1u);         // cut short
}

TEST(PolicyBounds, DuplicateKeysAreRefusedInEveryFormat) {
  EXPECT_EQ(refusal(pol::Format::grpc, "{\"a\": 1,\n \"a\": 2}"),
            "policy bad:2: a is given twice (first on line 1): a JSON object's keys must be unique");
  EXPECT_EQ(refusal(pol::Format::envoy, "a: 1\nb: {c: 1}\na: 2\n"),
            "policy bad:3: a is given twice in one map: a YAML map's keys must be unique (YAML 1.2)");
  EXPECT_TRUE(starts(refusal(pol::Format::resilience4j, "resilience4j.retry:\n  x: 1\n  x: 2\n"), "policy bad:3: x "));
  EXPECT_EQ(refusal(pol::Format::aws, "[default]\nretry_mode = standard\nRETRY_MODE = legacy\n"),
            "policy bad:3: retry_mode is given twice in [default] (first on line 2): botocore refuses a setting given "
            "twice");
  EXPECT_TRUE(starts(refusal(pol::Format::aws, "[default]\nmax_attempts = 2\n[default]\n"),
                     "policy bad:3: [default] names profile \"default\" again (first on line 1)"));
  // Spring's relaxed binding: maxAttempts and max-attempts in one instance are one key given twice
  // (the last won silently); an instance's key over its base config's is an override, not a repeat.
  EXPECT_EQ(refusal(pol::Format::resilience4j,
                    "resilience4j.retry:\n  instances:\n    b:\n      maxAttempts: 3\n      max-attempts: 4\n"),
            "policy bad:5: resilience4j.retry.instances.b.max-attempts is resilience4j.retry.instances.b.maxAttempts "
            "again (Spring's relaxed binding reads both as one key)");
  EXPECT_NO_THROW(pol::parse(pol::Format::resilience4j,
                             "resilience4j.retry:\n  configs:\n    default:\n      maxAttempts: 3\n  instances:\n"
                             "    b:\n      max-attempts: 4\n",
                             "ok.yml"));
  // The same key in two maps is not a duplicate.
  EXPECT_NO_THROW(pol::parse(pol::Format::grpc, R"({"a": {"x": 1}, "b": {"x": 1}})", "ok.json"));
}

TEST(PolicyBounds, OnlyRegularFilesAreRead) {
  TempDir t;
  const std::string fifo = (t.path / "policy.yaml").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    pol::load(fifo);  // blocked forever before: a FIFO no one writes to
    ADD_FAILURE() << "a FIFO was read";
  } catch (const retrylab::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "policy " + fifo +
                                         ": file is a FIFO (a pipe), not a regular file (a policy file of at most 1 "
                                         "MiB: .toml, .json, .yaml/.yml or an AWS config)");
  }
  const std::string zero = (t.path / "zero.toml").string();
  std::filesystem::create_symlink("/dev/zero", zero);
  try {
    pol::load(zero);
    ADD_FAILURE() << "/dev/zero was read";
  } catch (const retrylab::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("file is a character device, not a regular file"), std::string::npos);
  }
  const std::string big = (t.path / "big.toml").string();
  std::ofstream(big) << std::string(pol::max_policy_bytes + 1, '#');
  try {
    pol::load(big);
    ADD_FAILURE() << "an oversized file was read";
  } catch (const retrylab::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("file is over 1 MiB"), std::string::npos);
  }
}

// resilience4j values under a flag that is off were neither checked nor named.
TEST(PolicyBounds, Resilience4jValuesUnderAnOffFlagAreCheckedAndNamed) {
  const std::string head = "resilience4j.retry:\n  instances:\n    b:\n      maxAttempts: 3\n";
  EXPECT_EQ(refusal(pol::Format::resilience4j, head + "      exponentialBackoffMultiplier: -5\n"),
            "policy bad:5: resilience4j.retry.instances.b.exponentialBackoffMultiplier must be in [1, 100] (got -5)");
  EXPECT_EQ(refusal(pol::Format::resilience4j, head + "      randomizedWaitFactor: 7\n"),
            "policy bad:5: resilience4j.retry.instances.b.randomizedWaitFactor must be in [0, 1] (got 7)");
  const pol::Policy p =
      pol::parse(pol::Format::resilience4j,
                 head + "      exponentialBackoffMultiplier: 3\n      randomizedWaitFactor: 0.2\n", "ok.yml");
  int named = 0;
  for (const pol::Note& n : p.notes)
    if (n.text.rfind("has no effect: enable", 0) == 0) ++named;
  EXPECT_EQ(named, 2);
  EXPECT_EQ(p.find("multiplier")->value, "1");
}

}  // namespace policy_bounds_test

// libFuzzer target: the policy importers (policy/policy.hpp) on arbitrary bytes. The first byte
// picks the format (retrylab TOML, gRPC JSON, Envoy YAML, AWS settings, resilience4j YAML), the
// rest is the file. Any outcome but a Policy or an InputError is a finding: another exception
// escapes and aborts (yaml-cpp's and nlohmann's own exceptions included: the importers must turn
// them into InputError), and ASan/UBSan report memory errors and undefined behaviour. A first byte
// of 0x80 or more reads the rest as operations on a document (fuzz/structured.hpp) instead: deep
// nesting, YAML aliases, duplicate keys and stray bytes in the format's own syntax.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analytic/error.hpp"
#include "fuzz/structured.hpp"
#include "policy/policy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 64 * 1024) return -1;  // policy files are small
  using retrylab::policy::Format;
  static constexpr Format formats[] = {Format::toml, Format::grpc, Format::envoy, Format::aws, Format::resilience4j};
  const Format f = formats[data[0] % 5];
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 0x80) {
    using retrylab::fuzz::Syntax;
    static constexpr Syntax syntax[] = {Syntax::toml, Syntax::json, Syntax::yaml, Syntax::ini, Syntax::yaml};
    text = retrylab::fuzz::structured_text(text, syntax[data[0] % 5]);
    if (f == Format::resilience4j) text = "resilience4j.retry:\n  instances:\n    " + text;
  }
  try {
    const auto p = retrylab::policy::parse(f, text, "fuzz");
    for (const auto& n : p.notes) (void)retrylab::policy::note_line(p, n);
  } catch (const retrylab::InputError&) {
  }
  return 0;
}

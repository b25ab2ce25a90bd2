// libFuzzer target: the policy importers (policy/policy.hpp) on arbitrary bytes. The first byte
// picks the format (retrylab TOML, gRPC JSON, Envoy YAML, AWS settings, resilience4j YAML), the
// rest is the file. Any outcome but a Policy or an InputError is a finding: another exception
// escapes and aborts (yaml-cpp's and nlohmann's own exceptions included: the importers must turn
// them into InputError), and ASan/UBSan report memory errors and undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analytic/error.hpp"
#include "policy/policy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 64 * 1024) return -1;  // policy files are small
  using retrylab::policy::Format;
  static constexpr Format formats[] = {Format::toml, Format::grpc, Format::envoy, Format::aws, Format::resilience4j};
  const Format f = formats[data[0] % 5];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    const auto p = retrylab::policy::parse(f, text, "fuzz");
    for (const auto& n : p.notes) (void)retrylab::policy::note_line(p, n);
  } catch (const retrylab::InputError&) {
  }
  return 0;
}

// libFuzzer target: the attempt-trace reader and checker (validation/trace_check.hpp). A malformed
// trace must be an InputError; anything else escaping, or a sanitizer report, is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "analytic/error.hpp"
#include "validation/trace_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 256 * 1024) return -1;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const auto report = retrylab::validation::check_trace(in);
    (void)report.passed();
  } catch (const retrylab::InputError&) {
  }
  return 0;
}

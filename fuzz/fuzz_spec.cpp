// libFuzzer target: the study-spec parser (papers/spec.hpp) on arbitrary bytes, at both scales.
// Any outcome but a StudySpec or an InputError (SpecError is one) is a finding: another exception
// escapes and aborts, and ASan/UBSan report memory errors and undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analytic/error.hpp"
#include "papers/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return -1;  // specs are small; large inputs only slow the search
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* scale : {"quick", "full"}) {
    try {
      const auto spec = retrylab::papers::parse_study_text(text, "fuzz.toml", scale);
      (void)spec.total_points();
    } catch (const retrylab::InputError&) {
    }
  }
  return 0;
}

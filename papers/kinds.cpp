#include "papers/kinds.hpp"

#include <stdexcept>

namespace retrylab::papers {

bool is_extension_kind(SweepKind) noexcept { return false; }

nlohmann::json run_extension_point(const SweepSpec& sw, std::int64_t, int, const std::function<void()>&) {
  throw std::logic_error("sweep " + sw.name + ": kind " + std::string(to_string(sw.kind)) +
                         " is not an extension kind");
}

}  // namespace retrylab::papers

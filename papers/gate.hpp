#pragma once
// The validation gate of a study: results rest on a passing validation certificate for this very
// build (validation/certificate.hpp). With one, its tables are copied to OUT/validation so the
// table beside the results is the one of the certificate they name. Without one the gate refuses,
// or, when asked to validate, runs the quick catalogue (validation/suite.hpp) first, writes its
// tables and certificate, and passes only if it passed. Invariant: a study never runs on a build
// whose certificate failed. Lines for the user go to `say` (progress ones only when not quiet).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace retrylab::papers {

struct GateOptions {
  bool validate = false;                             // run the quick catalogue when no passing certificate exists
  int threads = 0;                                   // for that run (0 = all cores)
  bool quiet = false;                                // only refusals and warnings are said
  std::string version;                               // the retrylab version the certificate records
  std::function<void(const std::string& line)> say;  // default: "retrylab: LINE" on stderr
};

// The certificate id the results will rest on, or nullopt (after saying why) when the gate refuses.
std::optional<std::string> pass_gate(const GateOptions& options, const std::filesystem::path& out);

}  // namespace retrylab::papers

#pragma once
// Certificate: the record that this exact build passed the validation gate (`retrylab validate`).
// Experiments (`run`, `reproduce`) refuse a build without one, and every result file names the
// certificate id it rests on. A build is identified by build_id: a stable hash of the running
// executable's bytes, so a rebuilt engine needs a new certificate.
// Stored as JSON in certificate_dir(): $RETRYLAB_CERTIFICATE_DIR if set, else "certificates/"
// beside the executable.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace retrylab::validation {

struct CaseVerdict {
  std::string name;
  bool passed = false;
};

struct Certificate {
  std::string id;        // "<build_id>-<scale>-<seed>", names it in result files
  std::string version;   // retrylab version
  std::string build_id;  // hash of the executable
  std::string scale;     // "quick" or "full"
  std::uint64_t seed = 0;
  bool passed = false;
  std::vector<CaseVerdict> cases;
};

std::string current_build_id();
std::filesystem::path certificate_dir();

// Where the validation tables (validation.md, .tex, .csv) of the run that wrote certificate c are
// kept: certificate_dir()/<id>/. A study that reuses the certificate copies them into its output
// folder, so the table beside the results is always the certified one.
std::filesystem::path certificate_tables_dir(const Certificate& c);

// Throws OutputError unless certificate_dir() exists (it is created) and a file can be made in it:
// called before a validation run, so a folder the certificate could not be written to is found
// before the catalogue runs, not after.
void require_writable_certificate_dir();

// Writes the certificate (atomically: temporary name, then rename) and returns its path.
std::filesystem::path write_certificate(const Certificate& c);

// A passing certificate for the running build, if one was recorded (prefers "full" over "quick").
std::optional<Certificate> find_passing_certificate();

}  // namespace retrylab::validation

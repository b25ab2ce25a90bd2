#pragma once
// InputError: a parameter outside its allowed range. Every layer reports bad input with it, so the
// CLI can turn any of them into one line on stderr and exit status 2 (docs/cli.md "Exit status").
// what() reads "<field> must be <rule> (got <value>)"; field is the domain name (cap, base, rate),
// which the CLI prefixes with "--" and a spec reader with the key and line.
#include <stdexcept>
#include <string>

namespace retrylab {

class InputError : public std::invalid_argument {
 public:
  InputError(std::string field, const std::string& message)
      : std::invalid_argument(field + " " + message), field_(std::move(field)) {}
  const std::string& field() const noexcept { return field_; }

 private:
  std::string field_;
};

// OutputError: a file (or standard output) could not be written, or a target is refused because it
// is not a regular file. what() is one line naming the file and the reason; the CLI prints it and
// exits with status 1 (the work was done, its result could not be stored).
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace retrylab

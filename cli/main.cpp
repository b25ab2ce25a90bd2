// retrylab: a thin main. Parses, calls the library, formats; all errors become one
// line on stderr with exit status 2 (bad input) per docs/cli.md.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>

#include "analytic/error.hpp"
#include "api/spelling.hpp"
#include "cli/common.hpp"
#include "validation/escape.hpp"
#ifdef RETRYLAB_WITH_MPI
#include "papers/mpi.hpp"
#endif

namespace {

// An error names its field by id and mentions others as references (api/spelling.hpp): the CLI
// spells them as flags ("--cap"). Positional arguments are named in upper case (SPEC, PAPER, TRACE),
// as --help shows them, and stay as they are.
std::string as_flags(const retrylab::InputError& e) {
  return retrylab::api::spelled_message(e, retrylab::api::Spelling::flag);
}

// CLI11's validators report "--flag: must be ..."; every other error reads "--flag must be ...".
std::string without_colon(const std::string& message) {
  const std::size_t colon = message.find(": ");
  const bool flag = message.rfind("-", 0) == 0 && colon != std::string::npos && message.find(' ') > colon;
  return flag ? message.substr(0, colon) + message.substr(colon + 1) : message;
}

// CLI11 says "--runs: At Most 1 required but received 2" of a flag given twice: say it in our terms.
std::string parse_message(const std::string& message) {
  const std::string twice = ": At Most 1 required but received ";
  const std::size_t at = message.find(twice);
  if (at != std::string::npos && message.rfind("-", 0) == 0)
    return fmt::format("{} is given {} times; give it once (a repeated flag would silently override the first)",
                       message.substr(0, at), message.substr(at + twice.size()));
  return without_colon(message);
}

// Every error is one line on stderr: a message quotes what was typed or read (a flag value, a line
// of a file), and a newline or other control character in it must not start a second line.
void say(const std::string& message) {
  std::fprintf(stderr, "retrylab: %s\n", retrylab::validation::one_line(message).c_str());
}

// --help and --version print to stdout like any result: a failed write is exit 1, not 0.
int print_and_finish(CLI::App& app, const CLI::Error& e) {
  try {
    return retrylab::cli::finish_stdout(app.exit(e));
  } catch (const retrylab::OutputError& err) {
    say(err.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A reader that closes the pipe early (`retrylab ... | head`) makes the next write fail with EPIPE
  // instead of killing the process (status 141): finish_stdout reports it, one line, exit 1.
  std::signal(SIGPIPE, SIG_IGN);
  // A file over the size limit (ulimit -f) makes its write fail with EFBIG, reported like any failed
  // write (one line naming the file, exit 1), instead of a SIGXFSZ that kills the process silently.
  std::signal(SIGXFSZ, SIG_IGN);
#ifdef RETRYLAB_WITH_MPI
  // MPI_Init only under an MPI launcher (mpirun, srun); MPI_Finalize when main returns.
  retrylab::papers::mpi::Session mpi_session(argc, argv);
#endif
  CLI::App app{"retrylab: retries with exponential backoff and jitter against a contended resource"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(retrylab::version));
  retrylab::cli::Action action;
  retrylab::cli::add_commands(app, action);
  if (const auto unknown = retrylab::cli::unknown_command(app, argc, argv)) {
    say(*unknown);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return print_and_finish(app, e);
  } catch (const CLI::CallForAllHelp& e) {
    return print_and_finish(app, e);
  } catch (const CLI::CallForVersion& e) {
    return print_and_finish(app, e);
  } catch (const CLI::ParseError& e) {
    const auto unknown_flag = retrylab::cli::unknown_flag(app, argc, argv);
    say(unknown_flag ? *unknown_flag : parse_message(e.what()));
    return 2;
  } catch (const retrylab::InputError& e) {
    say(as_flags(e));
    return 2;
  }
  try {
    return retrylab::cli::finish_stdout(action ? action() : 2);
  } catch (const retrylab::OutputError& e) {
    say(e.what());
    return 1;
  } catch (const retrylab::InputError& e) {
    say(as_flags(e));
    return 2;
  } catch (const std::exception& e) {
    say(std::string("error: ") + e.what());
    return 3;
  }
}

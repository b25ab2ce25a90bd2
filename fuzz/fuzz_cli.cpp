// libFuzzer target: the command-line parser of `retrylab` (cli/common.hpp add_commands, as main()
// builds it). The input is split at NUL bytes into at most 16 arguments; parsing must end in an
// action, a CLI11 ParseError, help/version, or an InputError. The action is not run (it would run
// simulations); the rapidcheck property in tests/cli/hostile_test.cpp runs whole command lines.
#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analytic/error.hpp"
#include "cli/common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return -1;
  std::vector<std::string> args{"retrylab"};
  std::string current;
  for (std::size_t i = 0; i < size && args.size() < 17; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current.push_back(static_cast<char>(data[i]));
    }
  }
  if (args.size() < 17) args.push_back(current);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  CLI::App app{"retrylab"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "fuzz");
  retrylab::cli::Action action;
  retrylab::cli::add_commands(app, action);
  if (retrylab::cli::unknown_command(app, static_cast<int>(argv.size()), argv.data())) return 0;
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::Error&) {  // ParseError, help and version
  } catch (const retrylab::InputError&) {
  }
  return 0;
}

#pragma once
// The model subcommands of `retrylab analytic` (cli/analytic_models_cmd.cpp): markov, steady and
// burst, registered under the `analytic` command by add_analytic_command, printed by its printer.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/common.hpp"

namespace retrylab::cli {

// analytic_cmd.cpp's document printer (table, json or csv), shared so every analytic answer prints alike.
int print_analytic(const nlohmann::ordered_json& doc, OutputFormat format);

void add_analytic_model_commands(CLI::App* analytic, Action& action);

}  // namespace retrylab::cli

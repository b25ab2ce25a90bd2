#include "cli/common.hpp"

namespace retrylab::cli {
void add_analytic_command(CLI::App& app, Action& action) { (void)app; (void)action; }  // placeholder until its issue lands
}  // namespace retrylab::cli

#pragma once
// Errors as data, spelled by each front end. The library (analytic/, montecarlo/, advise/, api/)
// names a field by its id, the field table's name ("reject_cost"): an InputError's field() is an id,
// and a field its message mentions is a reference, the id in backquotes: "must be > 0 when `rate` is
// 0", or with a value, "`unit=ms`". A front end spells both: the CLI as flags ("--reject-cost",
// "--unit ms"), Python as keywords ("reject_cost", 'unit="ms"'). This file (spelling.cpp) is the one
// place a CLI flag is spelled out (tests/repo: repo_flag_spelling).
// Invariants: spelling is idempotent (a spelled text has no references left, and spelled() of a flag
// or keyword gives it back); only a well-formed reference (`[a-z][a-z0-9_]*` with an optional
// `=VALUE` without backquotes or spaces) is rewritten, any other backquote stays as it is.
#include <string>
#include <string_view>

#include "analytic/error.hpp"

namespace retrylab::api {

// How a front end names a field: "--reject-cost" (a CLI flag) or "reject_cost" (a Python keyword).
enum class Spelling { flag, keyword };

// A field's id ("reject_cost"; a flag "--reject-cost" is read back as its id) as `how` spells it.
std::string spelled(std::string_view field, Spelling how);
// `id` and `id=value`: a reference to a field inside a message, for a message built at run time.
std::string ref(std::string_view id);
std::string ref(std::string_view id, std::string_view value);
// text with every reference spelled: "`unit=ms`" is "--unit ms" or unit="ms" (a number or an
// upper-case placeholder such as FILE stays unquoted: series=BIN).
std::string spell_text(std::string_view text, Spelling how);
// The message after the field name (what() without "<field> "), its references spelled.
std::string spelled_rule(const InputError& e, Spelling how);
// The whole line: the field spelled, then the rule ("--cap must be >= base (got ...)").
std::string spelled_message(const InputError& e, Spelling how);
// An InputError from the library rethrown with its field and references spelled for the front end.
[[noreturn]] void rethrow_spelled(const InputError& e, Spelling how);

}  // namespace retrylab::api

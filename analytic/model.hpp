#pragma once
// The contention models of docs/models.md §1, by their CLI names. A shared type: the closed forms name the
// model they hold for, the engine simulates it.
//   collision: success iff no overlap (pure ALOHA);   free: first-commit-wins, failures cost nothing;
//   shared: first-commit-wins on a processor-sharing server;   ps: processor sharing, no conflicts;
//   none: an uncontended dependency (every attempt served alone at rate 1), whose attempts fail only by
//   injected failure (the full tier's failure_prob and outage).
#include <optional>
#include <string_view>

namespace retrylab {

enum class Model { collision, free, shared, ps, none };
inline constexpr Model all_models[] = {Model::collision, Model::free, Model::shared, Model::ps, Model::none};

std::string_view to_string(Model m) noexcept;
std::optional<Model> parse_model(std::string_view name) noexcept;

}  // namespace retrylab

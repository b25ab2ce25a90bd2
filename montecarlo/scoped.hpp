#pragma once
// Scoped<Control, Config>: a client-side control (a retry budget, a circuit breaker; controls.hpp)
// whose scope is `shared` (one for every client of the run) or `client` (one per client, made
// afresh from the config when the client arrives, its slot reused or not). Breaker and Budget hold
// their control through it (components/breaker.hpp, budget.hpp).
// Invariants: the shared control always exists (made from the config); with scope client, of(c) is
// client c's own control once renew(c) has run for its slot, and the shared one is never asked.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace retrylab::montecarlo {

// Whose a client-side control is: one instance shared by every client of the run (one process
// serving them all, or a fleet that shares the control's state), or one per client (each client a
// process of its own that makes one request: a CLI run, a batch job's worker, a function's cold
// start). docs/models.md §4 says why shared is the default.
enum class Scope { shared, client };
inline constexpr std::string_view scope_names[] = {"shared", "client"};  // its field's choices

template <class Control, class Config>
class Scoped {
 public:
  Scoped(Config config, bool per_client) : config_(std::move(config)), shared_(config_), per_client_(per_client) {}

  bool per_client() const noexcept { return per_client_; }
  const Config& config() const noexcept { return config_; }
  const Control& shared() const noexcept { return shared_; }

  // Client c arrives: with scope client, a fresh control in its slot; `retired` hears the one it
  // replaces (a breaker keeps its count of openings). With scope shared, nothing changes.
  template <class Retired>
  void renew(std::int32_t c, Retired&& retired) {
    if (!per_client_) return;
    const auto slot = static_cast<std::size_t>(c);
    if (slot < clients_.size()) {
      retired(std::as_const(clients_[slot]));
      clients_[slot] = Control(config_);
    } else {
      clients_.resize(slot + 1, Control(config_));
    }
  }
  void renew(std::int32_t c) {
    renew(c, [](const Control&) {});
  }

  // Client c's control: the shared one, or its own.
  Control& of(std::int32_t c) noexcept { return per_client_ ? clients_[static_cast<std::size_t>(c)] : shared_; }

  // Every control the run holds now: the shared one, then each client slot's.
  template <class F>
  void each(F&& f) const {
    f(shared_);
    for (const Control& x : clients_) f(x);
  }

 private:
  Config config_;
  Control shared_;
  bool per_client_;
  std::vector<Control> clients_;  // by client slot (scope client)
};

}  // namespace retrylab::montecarlo

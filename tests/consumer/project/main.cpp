// Uses the installed retrylab the way a user's project would: a closed form from retrylab::analytic
// and one engine run from retrylab::montecarlo.
#include <analytic/aloha.hpp>
#include <cstdio>
#include <montecarlo/simulate.hpp>

int main() {
  std::printf("aloha goodput at 0.5 = %.7f\n", retrylab::goodput(retrylab::PureAloha{0.5}));
  retrylab::montecarlo::Scenario s;
  s.model = retrylab::Model::free;
  s.backoff.strategy = retrylab::Strategy::none;
  s.traffic.clients = 10;
  const auto r = retrylab::montecarlo::simulate_run(s, 1, 0);
  std::printf("free/none classic test, 10 clients: makespan %g\n", r.makespan);
}

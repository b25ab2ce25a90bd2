#include "analytic/markov.hpp"

#include <fmt/format.h>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "analytic/error.hpp"

namespace retrylab {

namespace {

constexpr int max_stages = 40;

// The first k with w_k = c: stages past it sleep alike.
int stage_count(const Backoff& b) {
  int k = 1;
  while (window_width(b, k) < b.cap && k < max_stages + 1) ++k;
  return k;
}

// A state: the number of clients of each kind, one byte per kind. Kinds: sleeping at stage
// k = 1..S, in flight clean with f = 0..S failures, in flight doomed with f = 0..S failures.
using State = std::string;

struct Layout {
  int S = 1;
  int kinds() const { return 3 * S + 2; }
  int sleeping(int k) const { return k - 1; }
  int clean(int f) const { return S + f; }
  int doomed(int f) const { return 2 * S + 1 + f; }
};

struct Transition {
  State to;
  double rate;
  bool wake;  // an attempt starts
};

void doom_all_clean(const Layout& L, State& y) {
  for (int f = 0; f <= L.S; ++f) {
    y[L.doomed(f)] = static_cast<char>(y[L.doomed(f)] + y[L.clean(f)]);
    y[L.clean(f)] = 0;
  }
}

bool any_in_flight(const Layout& L, const State& x) {
  for (int f = 0; f <= L.S; ++f)
    if (x[L.clean(f)] > 0 || x[L.doomed(f)] > 0) return true;
  return false;
}

// Every transition out of x (models: see the header).
std::vector<Transition> transitions(Model model, const Layout& L, const std::vector<double>& wake_rate,
                                    const State& x) {
  std::vector<Transition> out;
  for (int k = 1; k <= L.S; ++k) {
    const int n = x[L.sleeping(k)];
    if (n == 0) continue;
    State y = x;
    --y[L.sleeping(k)];
    if (model == Model::collision && any_in_flight(L, y)) {
      doom_all_clean(L, y);
      ++y[L.doomed(k)];
    } else {
      ++y[L.clean(k)];
    }
    out.push_back({std::move(y), n * wake_rate[static_cast<std::size_t>(k)], true});
  }
  for (int f = 0; f <= L.S; ++f) {
    if (const int n = x[L.clean(f)]; n > 0) {  // success; on free every other attempt is doomed
      State y = x;
      --y[L.clean(f)];
      if (model == Model::free) doom_all_clean(L, y);
      out.push_back({std::move(y), static_cast<double>(n), false});
    }
    if (const int n = x[L.doomed(f)]; n > 0) {  // failure: sleep at stage min(f + 1, S)
      State y = x;
      --y[L.doomed(f)];
      ++y[L.sleeping(std::min(f + 1, L.S))];
      out.push_back({std::move(y), static_cast<double>(n), false});
    }
  }
  return out;
}

struct Chain {
  std::vector<State> states;  // states[0]: all N in flight at t = 0
  std::vector<std::vector<Transition>> out;
  std::unordered_map<State, std::int64_t> index;
};

Chain explore(const MarkovBurst& m, const Layout& L, const std::vector<double>& wake_rate) {
  Chain c;
  auto& index = c.index;
  State start(static_cast<std::size_t>(L.kinds()), '\0');
  const auto n = static_cast<char>(m.clients);
  if (m.model == Model::collision && m.clients > 1)
    start[L.doomed(0)] = n;
  else
    start[L.clean(0)] = n;
  index.emplace(start, 0);
  c.states.push_back(start);
  for (std::size_t i = 0; i < c.states.size(); ++i) {
    auto t = transitions(m.model, L, wake_rate, c.states[i]);
    for (const auto& tr : t) {
      if (index.contains(tr.to)) continue;
      if (static_cast<std::int64_t>(c.states.size()) >= markov_max_states)
        throw InputError("cap", fmt::format("must be smaller (or clients fewer): N={} with S={} stages (cap/base={}) "
                                            "has over {} states",
                                            m.clients, L.S, m.backoff.cap / m.backoff.base, markov_max_states));
      index.emplace(tr.to, static_cast<std::int64_t>(c.states.size()));
      c.states.push_back(tr.to);
    }
    c.out.push_back(std::move(t));
  }
  return c;
}

double max_abs(const Eigen::VectorXd& v) { return v.size() == 0 ? 0.0 : v.cwiseAbs().maxCoeff(); }

}  // namespace

void check_markov(const MarkovBurst& m) {
  if (m.model != Model::collision && m.model != Model::free)
    throw InputError("model",
                     fmt::format("must be collision or free for the Markov chain (got {})", to_string(m.model)));
  if (m.backoff.strategy != Strategy::memoryless)
    throw InputError("strategy",
                     fmt::format("must be memoryless for the Markov chain (got {})", to_string(m.backoff.strategy)));
  check_backoff(m.backoff);
  if (!std::isfinite(m.backoff.cap))
    throw InputError("cap", "must be finite for the Markov chain (the stages must end)");
  if (stage_count(m.backoff) > max_stages)
    throw InputError("cap", fmt::format("must be at most base·2^{} for the Markov chain (got cap/base={})",
                                        max_stages - 1, m.backoff.cap / m.backoff.base));
  if (m.clients < 1 || m.clients > markov_max_clients)
    throw InputError("clients",
                     fmt::format("must be in [1, {}] for the Markov chain (got {})", markov_max_clients, m.clients));
}

MarkovSolution solve_markov(const MarkovBurst& m) {
  check_markov(m);
  Layout L;
  L.S = stage_count(m.backoff);
  std::vector<double> wake_rate(static_cast<std::size_t>(L.S) + 1, 0.0);
  for (int k = 1; k <= L.S; ++k) wake_rate[static_cast<std::size_t>(k)] = 2.0 / window_width(m.backoff, k);
  const Chain c = explore(m, L, wake_rate);
  const auto n = static_cast<Eigen::Index>(c.states.size());
  const auto& index = c.index;
  const State done(static_cast<std::size_t>(L.kinds()), '\0');
  const Eigen::Index absorbing = index.at(done);

  // The generator Q over every state, then A = −Q_TT over the transient ones (the absorbing state
  // dropped: transient index = i, or i − 1 past it).
  std::vector<Eigen::Triplet<double>> q, a;
  Eigen::VectorXd wakes = Eigen::VectorXd::Zero(n - 1);
  auto transient = [&](Eigen::Index i) { return i < absorbing ? i : i - 1; };
  std::int64_t off_diagonal = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    double total = 0.0, wake = 0.0;
    for (const auto& tr : c.out[static_cast<std::size_t>(i)]) {
      const Eigen::Index j = index.at(tr.to);
      q.emplace_back(i, j, tr.rate);
      ++off_diagonal;
      total += tr.rate;
      if (tr.wake) wake += tr.rate;
      if (i != absorbing && j != absorbing) a.emplace_back(transient(i), transient(j), -tr.rate);
    }
    q.emplace_back(i, i, -total);
    if (i != absorbing) {
      a.emplace_back(transient(i), transient(i), total);
      wakes[transient(i)] = wake;
    }
  }
  Eigen::SparseMatrix<double> Q(n, n), A(n - 1, n - 1);
  Q.setFromTriplets(q.begin(), q.end());
  A.setFromTriplets(a.begin(), a.end());
  A.makeCompressed();

  MarkovSolution s;
  s.states = n;
  s.transitions = off_diagonal;
  s.stages = L.S;
  s.row_sum_error = max_abs(Q * Eigen::VectorXd::Ones(n));

  Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> lu;
  lu.compute(A);
  if (lu.info() != Eigen::Success) throw InputError("cap", "gives a chain whose generator could not be factorised");
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(n - 1);
  const Eigen::VectorXd time = lu.solve(ones);
  const Eigen::VectorXd count = lu.solve(wakes);
  s.residual = std::max(max_abs(A * time - ones) / 1.0, max_abs(A * count - wakes) / std::max(1e-300, max_abs(wakes)));
  const Eigen::Index start = transient(0);
  const double N = static_cast<double>(m.clients);
  s.makespan = time[start];
  s.attempts_per_client = (N + count[start]) / N;
  return s;
}

}  // namespace retrylab

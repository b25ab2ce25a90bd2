// Speed against a peer on the same work: Brooker's classic OCC test run by retrylab's engine (the
// scenario `simulate --model brooker` expands to, montecarlo/brooker_preset.hpp) and by an
// independent SimPy implementation (bench/peers/simpy_brooker.py) on the same configuration, in one
// invocation. The retrylab side is the engine's whole run: montecarlo::simulate of the scenario. Prints each side's
// wall and CPU time, the speed-up (SimPy time / retrylab time; the target is > 200×) and whether the two agree on mean
// work (write attempts) and mean time (makespan) per strategy: Welch's two-sample t test, two-sided, at a family-wise
// false-alarm rate --alpha split evenly (Bonferroni) over the 2 × strategies tests. Exit 0 when every test agrees, 1
// when one disagrees, 2 on bad input or a failed peer.
//   bench/brooker_peer                                    (100 clients, 100 runs, all five strategies)
//   bench/brooker_peer --clients 10 --runs 5              (the ctest smoke test)
// retrylab is timed with --threads J (default 1, the same single core SimPy uses) and, for
// reference, on all cores. SimPy's times exclude the interpreter's start-up (timed by the script).
// Both sides use fixed seeds, so a run of this program is reproducible (SimPy's runs are seeded
// Python Random instances; its numbers differ from retrylab's, its distribution must not).
#include <sys/wait.h>
#include <time.h>

#include <fmt/format.h>
#include <array>
#include <boost/math/distributions/students_t.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analytic/error.hpp"
#include "analytic/stats.hpp"
#include "montecarlo/brooker_preset.hpp"
#include "montecarlo/simulate.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::Strategy;

namespace {

struct Options {
  std::int64_t clients = 100;
  std::int64_t runs = 100;
  double leg_mean = mc::BrookerTest{}.leg_mean;
  double leg_sd = mc::BrookerTest{}.leg_sd;
  double base = mc::BrookerTest{}.base;  // Brooker's convention (the peer's): the first window is 2·base
  double cap = mc::BrookerTest{}.cap;
  std::string strategies = "none,nojitter,full,equal,decorrelated";
  int threads = 1;
  double alpha = 0.01;
  std::uint64_t seed = 1;
  std::string python = "/usr/bin/python3";
  std::string peer = RETRYLAB_SIMPY_BROOKER;
};

[[noreturn]] void usage(const std::string& message) {
  std::fprintf(
      stderr,
      "brooker_peer: %s\nusage: brooker_peer [--clients N] [--runs R] [--strategies a,b,...] [--leg-mean MS]\n"
      "  [--leg-sd MS] [--base MS] [--cap MS] [--threads J] [--alpha A] [--seed S] [--python PATH] [--peer PATH]\n",
      message.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") usage("Brooker's OCC test: retrylab against SimPy");
    if (i + 1 >= argc) usage(flag + " needs a value");
    const std::string v = argv[++i];
    try {
      if (flag == "--clients")
        o.clients = std::stoll(v);
      else if (flag == "--runs")
        o.runs = std::stoll(v);
      else if (flag == "--strategies")
        o.strategies = v;
      else if (flag == "--leg-mean")
        o.leg_mean = std::stod(v);
      else if (flag == "--leg-sd")
        o.leg_sd = std::stod(v);
      else if (flag == "--base")
        o.base = std::stod(v);
      else if (flag == "--cap")
        o.cap = std::stod(v);
      else if (flag == "--threads")
        o.threads = std::stoi(v);
      else if (flag == "--alpha")
        o.alpha = std::stod(v);
      else if (flag == "--seed")
        o.seed = std::stoull(v);
      else if (flag == "--python")
        o.python = v;
      else if (flag == "--peer")
        o.peer = v;
      else
        usage("unknown flag " + flag);
    } catch (const std::logic_error&) {
      usage(flag + ": not a number (got " + v + ")");
    }
  }
  if (!(o.alpha > 0.0 && o.alpha < 1.0)) usage(fmt::format("--alpha must be in (0, 1) (got {})", o.alpha));
  if (o.runs < 2) usage(fmt::format("--runs must be >= 2 for a t test (got {})", o.runs));
  if (o.threads < 0) usage(fmt::format("--threads must be >= 0 (got {})", o.threads));
  return o;
}

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Sample {
  retrylab::MeanSummary attempts, makespan;
};

struct Welch {
  double t, df, p;
};

// Welch's t for two independent samples with unequal variances; df by Welch–Satterthwaite.
// Both variances 0 (a deterministic lockstep case): p = 1 if the means are equal, else 0.
Welch welch(const retrylab::MeanSummary& a, const retrylab::MeanSummary& b) {
  const double va = a.sd * a.sd / static_cast<double>(a.n), vb = b.sd * b.sd / static_cast<double>(b.n);
  if (va + vb == 0.0) return {0.0, NAN, a.mean == b.mean ? 1.0 : 0.0};
  const double t = (a.mean - b.mean) / std::sqrt(va + vb);
  const double df =
      (va + vb) * (va + vb) / (va * va / static_cast<double>(a.n - 1) + vb * vb / static_cast<double>(b.n - 1));
  const boost::math::students_t dist(df);
  return {t, df, 2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(t)))};
}

std::string run_peer(const Options& o) {
  const std::string cmd = fmt::format(
      "'{}' '{}' --strategies {} --clients {} --runs {} --base {} --cap {} --leg-mean {} --leg-sd {} --seed {}",
      o.python, o.peer, o.strategies, o.clients, o.runs, o.base, o.cap, o.leg_mean, o.leg_sd, o.seed);
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) usage("cannot start the peer: " + cmd);
  std::string out;
  std::array<char, 65536> buf{};
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  if (!WIFEXITED(raw) || WEXITSTATUS(raw) != 0) {
    std::fprintf(stderr, "brooker_peer: the SimPy peer failed (%s)\n", cmd.c_str());
    std::exit(2);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::vector<std::string> names;
  {
    std::stringstream ss(o.strategies);
    for (std::string name; std::getline(ss, name, ',');) {
      const auto st = retrylab::parse_strategy(name);
      if (!st || *st == Strategy::window) usage("--strategies: unknown or unsupported strategy " + name);
      names.push_back(name);
    }
  }
  if (names.empty()) usage("--strategies is empty");

  // retrylab: every strategy with o.threads threads, then all cores (reference).
  std::vector<Sample> ours;
  double our_wall = 0.0, our_cpu = 0.0, our_wall_all = 0.0;
  try {
    for (const std::string& name : names) {
      mc::BrookerTest t;
      t.strategy = *retrylab::parse_strategy(name);
      t.base = o.base;
      t.cap = o.cap;
      t.clients = o.clients;
      t.leg_mean = o.leg_mean;
      t.leg_sd = o.leg_sd;
      const mc::Scenario s = mc::brooker_scenario(t);
      const mc::RunPlan plan{o.runs, o.seed, o.threads};
      const double c0 = cpu_seconds();
      const auto w0 = std::chrono::steady_clock::now();
      const auto results = mc::simulate(s, plan);
      our_wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
      our_cpu += cpu_seconds() - c0;
      retrylab::MeanAccumulator attempts, makespan;
      for (const auto& r : results) {
        attempts.add(static_cast<double>(r.attempts));
        makespan.add(r.makespan);
      }
      ours.push_back({attempts.summary(), makespan.summary()});
      const auto w1 = std::chrono::steady_clock::now();
      const auto again = mc::simulate(s, mc::RunPlan{o.runs, o.seed, 0});
      our_wall_all += std::chrono::duration<double>(std::chrono::steady_clock::now() - w1).count();
      if (again.size() != results.size()) return 2;
    }
  } catch (const retrylab::InputError& e) {
    usage(std::string("--") + e.what());
  }

  // SimPy: one interpreter for every strategy; it times its own simulations.
  const auto peer_w0 = std::chrono::steady_clock::now();
  const nlohmann::json peer = nlohmann::json::parse(run_peer(o));
  const double peer_process_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - peer_w0).count();
  std::vector<Sample> theirs;
  double peer_wall = 0.0, peer_cpu = 0.0;
  for (const std::string& name : names) {
    const auto& st = peer.at("strategies").at(name);
    peer_wall += st.at("seconds").get<double>();
    peer_cpu += st.at("cpu_seconds").get<double>();
    retrylab::MeanAccumulator a, m;
    for (const auto& r : st.at("runs")) {
      a.add(r.at("attempts").get<double>());
      m.add(r.at("makespan").get<double>());
    }
    theirs.push_back({a.summary(), m.summary()});
  }

  const auto tests = static_cast<double>(2 * names.size());
  const double alpha_each = o.alpha / tests;
  std::printf(
      "Brooker's OCC test: %lld clients, %lld runs per strategy, legs |Normal(%g, %g)| ms, base %g ms, cap %g ms\n",
      static_cast<long long>(o.clients), static_cast<long long>(o.runs), o.leg_mean, o.leg_sd, o.base, o.cap);
  std::printf("peer: %s (%s)\n\n", peer.at("peer").get<std::string>().c_str(), o.peer.c_str());
  std::printf("%-13s %-22s %14s %14s %9s %9s %6s\n", "strategy", "metric (unit)", "retrylab mean", "SimPy mean",
              "Welch t", "p", "agree");
  bool all_agree = true;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::pair<const char*, std::pair<retrylab::MeanSummary, retrylab::MeanSummary>> rows[] = {
        {"work (write attempts)", {ours[i].attempts, theirs[i].attempts}},
        {"time (makespan, ms)", {ours[i].makespan, theirs[i].makespan}}};
    for (const auto& [label, pair] : rows) {
      const Welch w = welch(pair.first, pair.second);
      const bool agree = w.p > alpha_each;
      all_agree = all_agree && agree;
      std::printf("%-13s %-22s %14.6g %14.6g %9.3f %9.3g %6s\n", names[i].c_str(), label, pair.first.mean,
                  pair.second.mean, w.t, w.p, agree ? "yes" : "NO");
    }
  }
  std::printf("\nagreement: Welch two-sided, family-wise alpha %g over %g tests (%.3g each, Bonferroni): %s\n", o.alpha,
              tests, alpha_each, all_agree ? "all agree" : "DISAGREEMENT");
  std::printf("\n%-44s %12s %12s\n", "time for all strategies", "wall (s)", "CPU (s)");
  std::printf(
      "%-44s %12.4f %12.4f\n",
      fmt::format("retrylab, {} thread(s)", o.threads == 0 ? std::string("all") : std::to_string(o.threads)).c_str(),
      our_wall, our_cpu);
  std::printf("%-44s %12.4f %12s\n", "retrylab, all cores", our_wall_all, "-");
  std::printf("%-44s %12.4f %12.4f\n", "SimPy (simulations only)", peer_wall, peer_cpu);
  std::printf("%-44s %12.4f %12s\n", "SimPy (whole process, with start-up)", peer_process_wall, "-");
  std::printf("\nspeed-up (SimPy / retrylab), target > 200x:\n");
  std::printf("  wall, %s thread(s): %.1fx\n", o.threads == 0 ? "all" : std::to_string(o.threads).c_str(),
              peer_wall / our_wall);
  std::printf("  CPU:                %.1fx\n", peer_cpu / our_cpu);
  std::printf("  wall, all cores:    %.1fx\n", peer_wall / our_wall_all);
  return all_agree ? 0 : 1;
}

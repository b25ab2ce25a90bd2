#!/usr/bin/python3
"""Brooker's classic OCC test (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015) written
with SimPy, independently of retrylab's engine, as the peer of bench/brooker_peer.

The same test as montecarlo/brooker_preset.hpp: N clients start at t = 0, each wants one successful update
of one row. An attempt is four one-way legs, each |Normal(leg_mean, leg_sd)| ms (read request, read
reply, write request, write reply). The server takes no time: the version is read when the read
request arrives; the write is checked and applied when the write request arrives and succeeds iff
the version is unchanged. After its k-th failure a client sleeps (window w_k = min(cap, base*2^k);
none 0, nojitter w_k, full U(0, w_k), equal w_k/2 + U(0, w_k/2), decorrelated
s = min(cap, U(base, 3 s)) from s = base), then sends its next read.
Work = write attempts; time = when the last successful write's reply reaches its client (ms).
Simultaneous events run in SimPy's order (schedule order); retrylab picks a uniform winner among
simultaneous commits. Only the distribution of the aggregates is compared, and ties have
probability zero when leg_sd > 0.

Output: one JSON document on stdout: per strategy, every run's attempts, reads, makespan and
latency, and the wall-clock and CPU seconds the simulations took (interpreter start-up excluded).
Run with Debian's python (python3-simpy3): /usr/bin/python3 bench/peers/simpy_brooker.py --help
"""
import argparse
import json
import random
import sys
import time

import simpy

STRATEGIES = ("none", "nojitter", "full", "equal", "decorrelated")


def make_sleep(strategy, base, cap, rng):
    """The sleep after the k-th failure, as a closure holding decorrelated jitter's state."""
    if strategy == "none":
        return lambda k: 0.0
    if strategy == "nojitter":
        return lambda k: min(cap, base * 2.0 ** k)
    if strategy == "full":
        return lambda k: rng.uniform(0.0, min(cap, base * 2.0 ** k))

    if strategy == "equal":
        def equal(k):
            w = min(cap, base * 2.0 ** k)
            return w / 2 + rng.uniform(0.0, w / 2)
        return equal
    if strategy == "decorrelated":
        state = [base]

        def decorrelated(k):
            state[0] = min(cap, rng.uniform(base, 3.0 * state[0]))
            return state[0]
        return decorrelated
    raise ValueError(strategy)


def one_run(strategy, clients, base, cap, leg_mean, leg_sd, rng):
    env = simpy.Environment()
    row = {"version": 0}
    stats = {"attempts": 0, "reads": 0, "makespan": 0.0, "latency_sum": 0.0}

    def leg():
        return abs(rng.normalvariate(leg_mean, leg_sd)) if leg_sd > 0 else leg_mean

    def client():
        sleep = make_sleep(strategy, base, cap, rng)
        failures = 0
        yield env.timeout(leg())                    # read request reaches the server
        while True:
            stats["reads"] += 1
            version_read = row["version"]
            yield env.timeout(leg())                # read reply
            yield env.timeout(leg())                # write request reaches the server
            stats["attempts"] += 1
            ok = row["version"] == version_read
            if ok:
                row["version"] += 1
            yield env.timeout(leg())                # write reply
            if ok:
                stats["makespan"] = max(stats["makespan"], env.now)
                stats["latency_sum"] += env.now
                return
            failures += 1
            yield env.timeout(sleep(failures) + leg())  # sleep, then the next read request

    for _ in range(clients):
        env.process(client())
    env.run()
    return {"attempts": stats["attempts"], "reads": stats["reads"], "makespan": stats["makespan"],
            "latency": stats["latency_sum"] / clients}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--strategies", default=",".join(STRATEGIES),
                   help="comma-separated subset of " + ",".join(STRATEGIES))
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--base", type=float, default=5.0, help="ms")
    p.add_argument("--cap", type=float, default=2000.0, help="ms")
    p.add_argument("--leg-mean", type=float, default=10.0, help="ms")
    p.add_argument("--leg-sd", type=float, default=2.0, help="ms (0: fixed legs, no network delay variance)")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    strategies = [s for s in a.strategies.split(",") if s]
    for s in strategies:
        if s not in STRATEGIES:
            p.error("--strategies: unknown strategy %r (allowed: %s)" % (s, ",".join(STRATEGIES)))
    if a.clients < 1 or a.runs < 1:
        p.error("--clients and --runs must be >= 1")
    if not (0 < a.base <= a.cap) or a.leg_mean < 0 or a.leg_sd < 0:
        p.error("need 0 < base <= cap, leg-mean >= 0, leg-sd >= 0")

    out = {"peer": "simpy " + simpy.__version__, "unit": "ms", "clients": a.clients, "runs": a.runs,
           "base": a.base, "cap": a.cap, "leg_mean": a.leg_mean, "leg_sd": a.leg_sd, "strategies": {}}
    for si, s in enumerate(strategies):
        start, cpu_start = time.perf_counter(), time.process_time()
        runs = []
        for r in range(a.runs):
            rng = random.Random(a.seed * 1_000_003 + si * 100_003 + r)
            runs.append(one_run(s, a.clients, a.base, a.cap, a.leg_mean, a.leg_sd, rng))
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
        out["strategies"][s] = {"seconds": seconds, "cpu_seconds": cpu_seconds, "runs": runs}
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

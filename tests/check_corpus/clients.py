"""What the corpus's simulators share besides the resource: the traffic (docs/models.md §3), the
clients' retry loop (§2), the trace they write (docs/traces.md) and the per-run numbers an effect is
measured on. Written from the docs, not from retrylab's code. Traffic and bookkeeping bugs live
here; with bug=None every rule is the documented one.
"""
import random

import backoff

TRAFFIC_BUGS = {
    "arrivals-uniform-gaps": "steady gaps U(0, 2/rate): the right rate, not a Poisson process",
    "arrivals-fixed-gaps": "steady gaps exactly 1/rate: the right rate, not a Poisson process",
    "rate-wrong-unit": "the header's rate per ms used as a rate per attempt-duration (10 ms): rate/10",
    "burst-at-t1": "the burst arrives at t = 1 instead of t = 0",
    "burst-spread": "the burst's clients arrive over [0, 1) instead of together at t = 0",
}
BOOKKEEPING_BUGS = {
    "client-lost": "a failed client is dropped with probability 0.02 instead of retrying",
    "burst-one-short": "the burst loop starts at 1: N - 1 clients arrive",
    "client-duplicated": "one arrival in 20 (and the burst's last client) is registered twice",
    "retry-after-success": "one success in 20 is retried once more",
    "start-from-previous-start": "a retry starts at previous start + sleep: times run backwards",
    "arrival-reset": "the arrival column holds the current attempt's start",
    "steady-flagged-burst": "steady clients are written with burst = 1",
    "same-seed-jitter": "each client's jitter comes from a generator seeded alike: clients sleep in step",
    "jitter-per-client": "each client draws its jitter fraction once and reuses it at every retry",
}


class Frozen:
    """A generator that always draws the same fraction (the jitter-per-client bug)."""

    def __init__(self, u):
        self.u = u

    def random(self):
        return self.u

    def uniform(self, a, b):
        return a + (b - a) * self.u


class Trace:
    """Writes a trace (docs/traces.md) in the scenario's unit: times x D, rates / D."""

    def __init__(self, out, sc, runs, seed):
        self.out, self.d = out, sc.get("attempt_duration", 1.0)
        d = self.d
        head = [("model", sc["model"]), ("strategy", sc["strategy"]), ("base", sc["base"] * d),
                ("cap", sc["cap"] * d), ("window", sc.get("window", 0.0) * d), ("clients", sc["clients"]),
                ("rate", sc["rate"] / d), ("horizon", sc["horizon"] * d), ("warmup", 0), ("collapse", 1000000000),
                ("retries", "on")]
        if d != 1.0:
            head += [("time_unit", sc["unit"]), ("attempt_duration", d)]
        head += [("seed", seed), ("runs", runs)]
        out.write("# retrylab-trace version=1\n")
        out.write("".join("# %s=%s\n" % (k, repr(v) if isinstance(v, float) else v) for k, v in head))
        out.write("run,client,arrival,start,end,outcome,retry,sleep,burst\n")

    def row(self, run, cid, c, start, end, ok):
        d = self.d
        self.out.write("%d,%d,%r,%r,%r,%s,%d,%s,%d\n" % (
            run, cid, c["arrival"] * d, start * d, end * d, "success" if ok else "failure", c["retry"],
            "" if c["retry"] == 0 else repr(c["sleep"] * d), c["burst"]))

    def run_end(self, run, stop, t):
        self.out.write("# run_end run=%d stop=%s stop_time=%r\n" % (run, stop, t * self.d))


def arrivals(sc, rng, bug):
    """[(time, burst)] of one run: N at t = 0, then Poisson arrivals at rate lambda on [0, horizon)."""
    n = sc["clients"] - (1 if bug == "burst-one-short" else 0)
    out = [(1.0 if bug == "burst-at-t1" else rng.random() if bug == "burst-spread" else 0.0, 1) for _ in range(n)]
    if bug == "client-duplicated" and n > 0:
        out.append(out[-1])
    rate = sc["rate"] / 10 if bug == "rate-wrong-unit" else sc["rate"]
    t = 0.0
    while rate > 0:
        gap = rng.expovariate(rate)
        if bug == "arrivals-uniform-gaps":
            gap = rng.uniform(0.0, 2.0 / rate)
        elif bug == "arrivals-fixed-gaps":
            gap = 1.0 / rate
        t += gap
        if t >= sc["horizon"]:
            break
        out.append((t, 1 if bug == "steady-flagged-burst" else 0))
        if bug == "client-duplicated" and rng.random() < 0.05:
            out.append((t, 0))
    return out


class Clients:
    """The clients of one run: each attempt's end goes through end(), which writes its row and says
    when the client's next attempt starts (None: it left). Counts what an effect is measured on; the
    simulator counts the attempts it starts in `started`."""

    def __init__(self, sc, bug, rng, run, trace):
        self.sc, self.bug, self.rng, self.run, self.trace = sc, bug, rng, run, trace
        self.state, self.started, self.arrived, self.waiting, self.makespan = {}, 0, 0, 0, None
        self.latency, self.successes = 0.0, 0
        self.jitter_bug = bug if bug in backoff.BUGS else None

    def arrive(self, t, burst):
        """A new client; returns its id (its first attempt starts at t)."""
        cid = len(self.state)
        self.state[cid] = {"arrival": t, "retry": 0, "sleep": 0.0, "prev": None, "burst": burst,
                           "rng": self.jitter_rng()}
        self.arrived += 1
        self.waiting += 1
        return cid

    def jitter_rng(self):
        if self.bug == "same-seed-jitter":
            return random.Random(self.run)
        return Frozen(self.rng.random()) if self.bug == "jitter-per-client" else self.rng

    def end(self, cid, start, end, ok):
        c, bug, rng = self.state[cid], self.bug, self.rng
        if bug == "arrival-reset":
            c["arrival"] = start if c["retry"] > 0 else c["arrival"]
        self.trace.row(self.run, cid, c, start, end, ok)
        if ok and not (bug == "retry-after-success" and not c.get("again") and rng.random() < 0.05):
            self.waiting -= 1
            self.makespan = end
            self.latency += end - c["arrival"]
            self.successes += 1
            return None
        c["again"] = ok
        if bug == "client-lost" and rng.random() < 0.02:
            self.waiting -= 1
            return None
        c["retry"] += 1
        c["sleep"], c["prev"] = backoff.sleep(self.sc, c["retry"], c["prev"], c["rng"], self.jitter_bug)
        return (start if bug == "start-from-previous-start" else end) + c["sleep"]

    def stats(self, stop):
        """The numbers an effect is measured on (docs/models.md §5): attempts per client (by N in a
        pure burst), the drain time (the last success of a finished pure burst) and the latency (mean
        success - arrival over the clients that succeeded)."""
        n = self.sc["clients"] if self.sc["rate"] == 0 else self.arrived
        return {"attempts_per_client": self.started / max(n, 1),
                "drain_time": self.makespan if stop == "finished" else None,
                "latency": self.latency / self.successes if self.successes else None}


def simulate(run_once, sc, bug, seed, runs, out):
    """Runs 0..runs-1 of sc with run_once(sc, bug, rng, run, trace) -> stats; writes the trace to out."""
    trace = Trace(out, sc, runs, seed)
    return [run_once(sc, bug, random.Random(seed * 1000003 + run), run, trace) for run in range(runs)]


def main(run_once, models, bugs, doc):
    """The command line both simulators share: the scenario as retrylab simulate's flags."""
    import argparse
    import json
    import sys
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", choices=models, required=True)
    p.add_argument("--strategy", choices=["none", "nojitter", "full", "equal", "decorrelated", "window"],
                   default="full")
    for flag, default in [("base", 1.0), ("cap", 1000.0), ("window", 0.0), ("rate", 0.0), ("horizon", 1e7),
                          ("attempt-duration", 1.0)]:
        p.add_argument("--" + flag, type=float, default=default)
    p.add_argument("--unit", choices=["attempt", "ms", "s"], default="attempt")
    for flag, default in [("clients", 0), ("runs", 1), ("seed", 1)]:
        p.add_argument("--" + flag, type=int, default=default)
    p.add_argument("--bug", choices=sorted(bugs), help="plant one documented bug")
    p.add_argument("--out", default="-", help="trace file (- for standard output)")
    p.add_argument("--stats", help="also write each run's attempts per client and drain time (JSON)")
    a = p.parse_args()
    sc = {"model": a.model, "strategy": a.strategy, "base": a.base, "cap": a.cap, "window": a.window,
          "clients": a.clients, "rate": a.rate, "horizon": a.horizon, "unit": a.unit,
          "attempt_duration": a.attempt_duration}
    out = sys.stdout if a.out == "-" else open(a.out, "w")
    stats = simulate(run_once, sc, a.bug, a.seed, a.runs, out)
    out.flush()
    if a.stats:
        with open(a.stats, "w") as f:
            json.dump(stats, f)

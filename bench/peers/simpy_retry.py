#!/usr/bin/python3
"""A peer simulator of retries with backoff against one contended resource, written with SimPy,
independently of retrylab's engine. It writes retrylab's attempt-trace format (docs/traces.md) so
`retrylab check` can hold it to the same invariants and closed forms.

Models (docs/models.md §1): `free` (first commit wins; simultaneous eligible commits: one uniform winner)
and `collision` (success iff no overlap; exact simultaneous end/start ties other than a common start
are not ordered, which jitter makes a probability-zero event). Attempts take 1.0.

Planted bugs, to show that `retrylab check` catches them:
  --bug window-exponent   sleep windows from base*2^k instead of base*2^(k-1)
  --bug ties-all-fail     in `free`, simultaneous eligible commits all fail

Run with Debian's python (python3-simpy3): /usr/bin/python3 bench/peers/simpy_retry.py --help
"""
import argparse
import math
import random
import sys

import simpy


def width(args, k, bug):
    exponent = k if bug == "window-exponent" else k - 1
    return min(args.cap, args.base * 2.0 ** exponent)


def sleep_for(args, k, prev, rng):
    s = args.strategy
    if s == "none":
        return 0.0, prev
    if s == "nojitter":
        return width(args, k, args.bug), prev
    if s == "full":
        return rng.uniform(0.0, width(args, k, args.bug)), prev
    if s == "equal":
        w = width(args, k, args.bug)
        return w / 2 + rng.uniform(0.0, w / 2), prev
    if s == "decorrelated":
        x = min(args.cap, rng.uniform(args.base, 3.0 * prev))
        return x, x
    if s == "window":
        return rng.uniform(0.0, args.window), prev
    raise ValueError(s)


class Run:
    def __init__(self, args, run, rng, out):
        self.args, self.run, self.rng, self.out = args, run, rng, out
        self.env = simpy.Environment()
        self.last_commit = -math.inf
        self.pending = {}          # free: end time -> attempts ending then
        self.in_flight = []        # collision: attempts in flight
        self.next_client = 0
        self.waiting = 0
        self.arrivals_done = args.rate == 0

    def resolve(self, end):
        yield self.env.timeout(0)  # after every attempt ending at `end` has registered
        group = self.pending.pop(end)
        eligible = [a for a in group if not self.last_commit > a["start"]]
        winner = None
        if eligible and not (self.args.bug == "ties-all-fail" and len(eligible) >= 2):
            winner = self.rng.choice(eligible)
        if winner is not None:
            self.last_commit = end
        for a in group:
            a["done"].succeed(a is winner)

    def attempt(self, client):
        start = self.env.now
        a = {"start": start, "done": self.env.event(), "collided": False}
        if self.args.model == "collision":
            if self.in_flight:
                a["collided"] = True
                for b in self.in_flight:
                    b["collided"] = True
            self.in_flight.append(a)
            yield self.env.timeout(1.0)
            self.in_flight.remove(a)
            ok = not a["collided"]
        else:
            yield self.env.timeout(1.0)
            end = self.env.now
            if end not in self.pending:
                self.pending[end] = []
                self.env.process(self.resolve(end))
            self.pending[end].append(a)
            ok = yield a["done"]
        return start, self.env.now, ok

    def client(self, burst):
        cid = self.next_client
        self.next_client += 1
        self.waiting += 1
        arrival = self.env.now
        retry, sleep, prev = 0, None, self.args.base
        while True:
            start, end, ok = yield self.env.process(self.attempt(cid))
            self.out.write("%d,%d,%r,%r,%r,%s,%d,%s,%d\n" % (
                self.run, cid, arrival, start, end, "success" if ok else "failure", retry,
                "" if sleep is None else repr(sleep), 1 if burst else 0))
            if ok or self.args.retries == "off":
                self.waiting -= 1
                if self.waiting == 0 and self.arrivals_done:
                    self.finished.succeed()
                return
            retry += 1
            sleep, prev = sleep_for(self.args, retry, prev, self.rng)
            yield self.env.timeout(sleep)

    def arrivals(self):
        while True:
            gap = self.rng.expovariate(self.args.rate)
            if self.env.now + gap >= self.args.horizon:
                self.arrivals_done = True
                return
            yield self.env.timeout(gap)
            self.env.process(self.client(False))

    def go(self):
        self.finished = self.env.event()
        for _ in range(self.args.clients):
            self.env.process(self.client(True))
        if self.args.rate > 0:
            self.env.process(self.arrivals())
        horizon = self.args.horizon
        self.env.run(until=simpy.events.AnyOf(self.env, [self.finished, self.env.timeout(horizon)]))
        if self.finished.triggered:
            self.out.write("# run_end run=%d stop=finished stop_time=%r\n" % (self.run, self.env.now))
        else:
            self.out.write("# run_end run=%d stop=horizon stop_time=%r\n" % (self.run, horizon))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", choices=["free", "collision"], default="free")
    p.add_argument("--strategy", choices=["none", "nojitter", "full", "equal", "decorrelated", "window"],
                   default="full")
    p.add_argument("--base", type=float, default=1.0)
    p.add_argument("--cap", type=float, default=1000.0)
    p.add_argument("--window", type=float, default=0.0)
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--rate", type=float, default=0.0)
    p.add_argument("--horizon", type=float, default=1e7)
    p.add_argument("--retries", choices=["on", "off"], default="on")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--bug", choices=["none", "window-exponent", "ties-all-fail"], default="none")
    p.add_argument("--out", default="-")
    args = p.parse_args()
    out = sys.stdout if args.out == "-" else open(args.out, "w")
    header = [("model", args.model), ("strategy", args.strategy), ("base", repr(args.base)),
              ("cap", repr(args.cap)), ("window", repr(args.window)), ("clients", args.clients),
              ("rate", repr(args.rate)), ("horizon", repr(args.horizon)), ("retries", args.retries),
              ("time_unit", "attempt-duration"), ("seed", args.seed), ("runs", args.runs)]
    out.write("# retrylab-trace version=1\n")
    for k, v in header:
        out.write("# %s=%s\n" % (k, v))
    out.write("run,client,arrival,start,end,outcome,retry,sleep,burst\n")
    for run in range(args.runs):
        Run(args, run, random.Random(args.seed * 1000003 + run), out).go()
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()

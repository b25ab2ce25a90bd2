#!/usr/bin/env python3
"""A simulator of retries against one processor-sharing resource (docs/models.md §1), written from
the docs, not from retrylab's code: n attempts in flight are each served at rate 1/n, and an attempt
ends when it has received one unit of service.
  shared  first commit wins: [s, e) succeeds iff no successful commit happened in (s, e]; a doomed
          attempt keeps its share until its own end; eligible attempts ending together: one uniform
          winner.
  ps      every attempt succeeds.
Virtual time V runs at dV/dt = 1/n; an attempt started at V = v ends when V = v + 1, so attempts end
in the order they started. At equal times ends come before starts. It writes retrylab's attempt
trace (docs/traces.md). --bug plants one documented bug (the corpus of tests/check_corpus).
"""
import collections
import heapq
import itertools

import backoff
import clients as cl

RESOURCE_BUGS = {
    "rate-not-divided": "every attempt is served at rate 1 whatever the number in flight",
    "rate-n-plus-one": "n attempts in flight are each served at rate 1/(n+1)",
    "doomed-released-early": "shared: attempts doomed by a commit leave (fail) at that commit",
    "fifo-server": "attempts are served one at a time in arrival order, not shared",
    "ps-fails-crowded": "ps: an attempt that ends while 3 or more others are in flight fails",
}
BUGS = {**backoff.BUGS, **cl.TRAFFIC_BUGS, **cl.BOOKKEEPING_BUGS, **RESOURCE_BUGS}


def speed(bug, n):
    """dV/dt with n attempts in flight (the rate each one is served at)."""
    if bug in ("rate-not-divided", "fifo-server"):
        return 1.0
    return 1.0 / (n + 1) if bug == "rate-n-plus-one" else 1.0 / n


def run_once(sc, bug, rng, run, trace):
    cs = cl.Clients(sc, bug, rng, run, trace)
    starts, seq = [], itertools.count()
    for t, burst in cl.arrivals(sc, rng, bug):
        heapq.heappush(starts, (t, next(seq), cs.arrive(t, burst)))
    flight = collections.deque()  # [v_end, client, start], in start order (so in end order)
    t, v, last_commit, horizon = 0.0, 0.0, float("-inf"), sc["horizon"]
    while starts or flight:
        next_start = starts[0][0] if starts else float("inf")
        next_end = t + (flight[0][0] - v) / speed(bug, len(flight)) if flight else float("inf")
        if min(next_start, next_end) >= horizon:
            break
        if next_start < next_end:
            v += (next_start - t) * speed(bug, len(flight)) if flight else 0.0
            t = next_start
            _, _, cid = heapq.heappop(starts)
            # fifo-server: the attempt's service begins when the ones before it are done
            v_end = (flight[-1][0] if bug == "fifo-server" and flight else v) + 1.0
            flight.append([v_end, cid, t])
            cs.started += 1
            continue
        t, v = next_end, flight[0][0]
        group = []
        while flight and flight[0][0] == v:
            group.append(flight.popleft())
        ok = [True] * len(group)
        if sc["model"] == "shared":
            eligible = [i for i, a in enumerate(group) if last_commit <= a[2]]
            ok = [False] * len(group)
            if eligible:
                ok[rng.choice(eligible)] = True
                last_commit = t
                if bug == "doomed-released-early":
                    group += list(flight)  # every attempt in flight started before t: doomed
                    ok += [False] * len(flight)
                    flight.clear()
        elif bug == "ps-fails-crowded" and len(flight) >= 3:
            ok = [False] * len(group)
        for a, success in zip(group, ok):
            nxt = cs.end(a[1], a[2], t, success)
            if nxt is not None:
                heapq.heappush(starts, (nxt, next(seq), a[1]))
        if not flight:
            v = 0.0  # idle: restart virtual time, so it never grows large
        if sc["rate"] == 0 and cs.waiting == 0:
            trace.run_end(run, "finished", t)
            return cs.stats("finished")
    trace.run_end(run, "horizon", horizon)
    return cs.stats("horizon")


if __name__ == "__main__":
    cl.main(run_once, ["shared", "ps"], BUGS, __doc__)

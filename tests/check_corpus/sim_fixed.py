#!/usr/bin/env python3
"""A simulator of retries against one contended resource whose attempts take exactly one
attempt-duration (docs/models.md §1), written from the docs, not from retrylab's code:
  collision  an attempt [s, s+1) succeeds iff no other attempt overlaps it (pure ALOHA);
  free       it succeeds iff no successful commit happened in (s, e] (first commit wins);
             several eligible attempts ending together: one uniform winner.
Intervals are half-open: at equal times ends come before starts. It writes retrylab's attempt
trace (docs/traces.md). --bug plants one documented bug (the corpus of tests/check_corpus).
Scenario flags are in attempt-durations; --unit ms --attempt-duration D writes the trace in ms.
"""
import heapq
import itertools

import backoff
import clients as cl

RESOURCE_BUGS = {
    "conflict-window-1.5": "collision: attempts starting less than 1.5 apart conflict (the later one fails), not 1",
    "collision-one-sided": "collision: only the attempt that starts into another fails; the one in flight succeeds",
    "ties-all-fail": "free: eligible attempts ending together all fail",
    "ties-all-win": "free: eligible attempts ending together all succeed",
    "ties-lowest-id": "free: eligible attempts ending together: the lowest client id wins, not a uniform one",
    "commit-on-failure": "free: a failed attempt also counts as a commit",
}
BUGS = {**backoff.BUGS, **cl.TRAFFIC_BUGS, **cl.BOOKKEEPING_BUGS, **RESOURCE_BUGS}
END, START = 0, 1  # at equal times ends come first


def outcomes(sc, bug, rng, group, state):
    """The outcome of each attempt [client, start, collided] of a group ending together at t."""
    if sc["model"] == "collision":
        return [not a[2] for a in group]
    t = group[0][1] + 1.0
    eligible = [i for i, a in enumerate(group) if state["last_commit"] <= a[1]]
    winners = set()
    if eligible:
        if bug == "ties-all-win" or (bug == "ties-all-fail" and len(eligible) == 1):
            winners = set(eligible)
        elif bug == "ties-lowest-id":
            winners = {min(eligible, key=lambda i: group[i][0])}
        elif bug != "ties-all-fail":
            winners = {rng.choice(eligible)}
    if winners or bug == "commit-on-failure":
        state["last_commit"] = t
    return [i in winners for i in range(len(group))]


def run_once(sc, bug, rng, run, trace):
    cs = cl.Clients(sc, bug, rng, run, trace)
    heap, seq = [], itertools.count()
    for t, burst in cl.arrivals(sc, rng, bug):
        heapq.heappush(heap, (t, START, next(seq), cs.arrive(t, burst)))
    in_flight, recent = {}, []  # collision: attempts in flight; the bug's starts of the last 1.5
    state = {"last_commit": float("-inf")}
    while heap and heap[0][0] < sc["horizon"]:
        t, kind, key, x = heapq.heappop(heap)
        if kind == START:
            a = [x, t, False]
            cs.started += 1
            if sc["model"] == "collision":
                if in_flight:
                    a[2] = True
                    if bug != "collision-one-sided":
                        for b in in_flight.values():
                            b[2] = True
                if bug == "conflict-window-1.5":
                    recent = [s for s in recent if s > t - 1.5]
                    a[2] = a[2] or bool(recent)
                    recent.append(t)
                in_flight[key] = a
            heapq.heappush(heap, (t + 1.0, END, key, a))
            continue
        group, keys = [x], [key]
        while heap and heap[0][0] == t and heap[0][1] == END:
            _, _, k, y = heapq.heappop(heap)
            group.append(y)
            keys.append(k)
        for k in keys:
            in_flight.pop(k, None)
        for a, ok in zip(group, outcomes(sc, bug, rng, group, state)):
            nxt = cs.end(a[0], a[1], t, ok)
            if nxt is not None:
                heapq.heappush(heap, (nxt, START, next(seq), a[0]))
        if sc["rate"] == 0 and cs.waiting == 0:
            trace.run_end(run, "finished", t)
            return cs.stats("finished")
    trace.run_end(run, "horizon", sc["horizon"])
    return cs.stats("horizon")


if __name__ == "__main__":
    cl.main(run_once, ["collision", "free"], BUGS, __doc__)

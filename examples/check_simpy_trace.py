#!/usr/bin/python3
"""Check your own simulator with retrylab: a 40-line SimPy model of a burst of clients retrying with
full jitter against one resource where overlapping attempts collide (retrylab's `collision` model),
writing retrylab's attempt-trace format (docs/traces.md); then retrylab.check() holds the trace to
the model's invariants and closed forms. Run it once as written (it passes), and once with
--bug, a classic off-by-one in the backoff window (base*2^k instead of base*2^(k-1)): the check
names it. Replace simulate() with your simulator and keep the last ten lines.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/check_simpy_trace.py [--bug]
"""
import argparse
import random
import sys

import simpy

import retrylab


def simulate(out, clients=30, base=1.0, cap=64.0, runs=3, seed=1, bug=False):
    out.write("# retrylab-trace version=1\n# model=collision\n# strategy=full\n")
    out.write(f"# base={base!r}\n# cap={cap!r}\n# clients={clients}\n# retries=on\n# seed={seed}\n# runs={runs}\n")
    out.write("run,client,arrival,start,end,outcome,retry,sleep,burst\n")
    for run in range(runs):
        env, rng, in_flight = simpy.Environment(), random.Random(seed * 1000003 + run), []

        def client(cid):
            retry, sleep = 0, None
            while True:
                start, me = env.now, {"collided": bool(in_flight)}
                for other in in_flight:
                    other["collided"] = True
                in_flight.append(me)
                yield env.timeout(1.0)  # an attempt takes one attempt-duration
                in_flight.remove(me)
                ok = not me["collided"]
                out.write(f"{run},{cid},0,{start!r},{env.now!r},{'success' if ok else 'failure'},{retry},"
                          f"{'' if sleep is None else repr(sleep)},1\n")
                if ok:
                    return
                retry += 1
                window = min(cap, base * 2.0 ** (retry if bug else retry - 1))
                sleep = rng.uniform(0.0, window)
                yield env.timeout(sleep)

        for cid in range(clients):
            env.process(client(cid))
        env.run()
        out.write(f"# run_end run={run} stop=finished stop_time={env.now!r}\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bug", action="store_true", help="plant the window off-by-one")
    p.add_argument("--out", default="simpy_trace.csv", help="trace file to write (default simpy_trace.csv)")
    args = p.parse_args()
    with open(args.out, "w") as f:
        simulate(f, bug=args.bug)
    report = retrylab.check(args.out)
    for c in report["checks"]:
        print(f"{c['verdict']:<14} {c['check']:<34} {c['observed']}")
    print("PASS" if report["passed"] else "FAIL", f"({report['rows']} attempts, {report['runs']} runs)")
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())

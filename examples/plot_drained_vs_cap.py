#!/usr/bin/python3
"""Drained fraction against cap for your own pile-up, with matplotlib: N clients arrive at once,
retry with full jitter (base one attempt) and a cap on a doubling grid; for each cap, the fraction of
runs in which every client succeeded within the drain objective, with its 95% Wilson interval, and
the cap `retrylab advise` recommends. Times in your unit (here ms, attempts of 20 ms).

    PYTHONPATH=build/release/python /usr/bin/python3 examples/plot_drained_vs_cap.py --clients 300
"""
import argparse

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

import retrylab  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--attempt-ms", type=float, default=20.0, help="mean time of one attempt in ms")
    p.add_argument("--failed-attempts", default="collide", choices=["free", "use-capacity", "collide"])
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--out", default="drained_vs_cap.png")
    args = p.parse_args()
    model = {"free": "free", "use-capacity": "shared", "collide": "collision"}[args.failed_attempts]
    d, horizon = args.attempt_ms, 60000 * args.attempt_ms  # the drain objective: advise's default
    caps = [d * 2 ** (k / 2) for k in range(4, 22)]  # 4 .. 1448 attempt-durations, half-octave steps
    fraction, lo, hi = [], [], []
    for cap in caps:
        r = retrylab.simulate(model=model, strategy="full", clients=args.clients, base=d, cap=cap, horizon=horizon,
                              runs=args.runs, unit="ms", attempt_duration=d)
        m = r["metrics"]["drained"]
        fraction.append(m["fraction"])
        lo.append(max(0.0, m["fraction"] - m["ci95"][0]))
        hi.append(max(0.0, m["ci95"][1] - m["fraction"]))
    # base=d: the curve's base (advise searches the base when it is not given)
    advice = retrylab.advise(clients=args.clients, failed_attempts=args.failed_attempts, strategies="full", unit="ms",
                             attempt_duration=d, base=d)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.errorbar(caps, fraction, yerr=[lo, hi], marker="o", capsize=3, label=f"full jitter, {args.runs} runs per cap")
    if advice["recommended"]:
        ax.axvline(advice["recommended"]["cap"], color="k", ls="--",
                   label=f"advise: cap {advice['recommended']['cap']:.4g} ms")
    ax.set_xscale("log")
    ax.set_xlabel("cap (ms)")
    ax.set_ylabel("drained fraction")
    ax.set_title(f"{args.clients} clients at once, attempts of {d:g} ms, failed attempts {args.failed_attempts}")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    for cap, f in zip(caps, fraction):
        print(f"cap {cap:>10.4g} ms  drained {f:.2f}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

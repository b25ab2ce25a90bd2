#!/usr/bin/env python3
"""Measures the tables of analytic/README.md: the estimates (the stage model of a burst, the mean field
of steady traffic) against the engine and against paper 1's committed results. Every number comes from
the retrylab CLI (`analytic burst|steady`, `simulate`) or from papers/cap-is-doing-the-work/results.jsonl;
nothing is typed in. Rows print as they finish (Markdown), so a long run can be read as it goes.

  python3 analytic/tables.py burst-caps  [--exe PATH] [--models ...] [--strategies ...] [--clients ...]
  python3 analytic/tables.py steady      [--exe PATH] [--models ...] [--strategies ...]
  python3 analytic/tables.py drain       [--exe PATH] [--rows MODEL:STRATEGY:B:CAP ...]
  python3 analytic/tables.py markov      [--exe PATH]

burst-caps: the least draining cap (window W for the window strategy) of the stage model and of the
engine on the grid 2^(i/8) (base 1), for a burst of B on steady load: collision and shared at
lambda = 0.05, horizon 60,000; free at lambda = 0.06, horizon 20,000 (paper 1's burst sweeps); K = 3,000.
The engine "drains" at a grid value when all of 20 runs (seed 1) drain; its least draining value is
found as the model's is (analytic/burst.cpp: burst_cap_threshold): octaves from a start, then bisection
over the eighth-octaves, so both assume draining is monotone in the cap; the value below the least
draining one was probed and failed (its count is printed). `none` has no cap: one run of each.

steady: the mean field's collapse loads against paper 1's simulated thresholds (the last load of its
0.05 grid at which fewer than half the runs reached K, from each run's peak backlog).
drain: the stage model's drain times against paper 1's means (burst_drain.csv).
markov: the Markov chain's exact expectations against the engine's means (20,000 runs, seed 1).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_INDEX = 127  # the octave search stops at 2^15 = 32,768, the last octave below 2^(127/8) (paper 1 went to 64,000)
RUNS = 20
# drain: paper 1's caps at or just above each threshold, one near 4,000, and its largest (64,000) where all
# 40 runs drained there (full jitter at B = 300 drained 37 of 40 at 64,000, so it is left out).
DRAIN_ROWS = [("collision", s, b, c) for s, b, c in (
    ("full", 100, 250), ("full", 100, 1000), ("full", 100, 64000), ("full", 300, 500), ("full", 300, 1000),
    ("full", 300, 4000), ("full", 1000, 2000), ("full", 1000, 4000),
    ("equal", 100, 250), ("equal", 100, 1000), ("equal", 100, 64000), ("equal", 300, 500), ("equal", 300, 1000),
    ("equal", 300, 4000), ("equal", 1000, 2000), ("equal", 1000, 4000),
    ("decorrelated", 100, 500), ("decorrelated", 100, 4000), ("decorrelated", 100, 64000))] + [
    ("shared", "full", 100, 1000), ("shared", "full", 100, 4000), ("shared", "full", 100, 64000),
    ("shared", "equal", 100, 500), ("shared", "equal", 100, 4000)]


def cli(exe, *args):
    out = subprocess.run([exe, *map(str, args)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def grid(i):
    return 2.0 ** (i / 8.0)


def fmt(x):
    return "–" if x is None else f"{x:.4g}"


def burst_setting(model):
    return (0.06, 20000) if model == "free" else (0.05, 60000)


def least_index(drains, start, max_index=MAX_INDEX):
    """The least grid index that drains and the failing one probed below it (None: the base drains),
    as burst_cap_threshold searches: octaves from `start` (a multiple of 8), then bisection."""
    hi = start
    if drains(hi):
        while hi > 0 and drains(hi - 8):
            hi -= 8
    else:
        while True:
            hi += 8
            if hi > max_index:
                return None, None
            if drains(hi):
                break
    lo = hi - 8 if hi > 0 else -1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if drains(mid):
            hi = mid
        else:
            lo = mid
    return hi, (lo if lo >= 0 else None)


def burst_row(exe, model, strategy, clients):
    rate, horizon = burst_setting(model)
    common = ["--model", model, "--strategy", strategy, "--clients", clients, "--rate", rate, "--horizon", horizon]
    knob = "--window" if strategy == "window" else "--cap"

    def model_drains(i):
        extra = ["--window", grid(i), "--cap", max(1000.0, grid(i))] if strategy == "window" else ["--cap", grid(i)]
        return cli(exe, "analytic", "burst", *common, *extra, "--json")["drained"]

    engine_counts = {}

    # Without backoff every waiting client retries at once: on collision and shared a run makes ~10^8
    # attempts before it collapses, so beyond B = 100 `none` gets 2 runs (it drains none or all).
    runs = 2 if strategy == "none" and model != "free" and clients > 100 else RUNS

    def engine_drains(i):
        if i not in engine_counts:
            extra = ["--window", grid(i), "--cap", max(1000.0, grid(i))] if strategy == "window" else ["--cap", grid(i)]
            r = cli(exe, "simulate", *common, *extra, "--runs", runs, "--seed", 1, "--threads", 1, "--quiet", "--json")
            engine_counts[i] = r["metrics"]["drained"]["count"]
        return engine_counts[i] == runs

    t0 = time.time()
    if strategy == "none":
        m = cli(exe, "analytic", "burst", *common, "--json")
        engine_drains(0)
        row = (model, strategy, clients, "drains" if m["drained"] else "does not drain",
               f"{engine_counts[0]} of {runs} drain", "agree" if m["drained"] == (engine_counts[0] == runs) else "differ")
        return row, time.time() - t0
    if strategy == "window":
        i_model, _ = least_index(model_drains, 8 * int(math.log2(clients)))
    else:
        cap = cli(exe, "analytic", "burst", *common, "--find-cap", "--json")["cap_threshold"]
        i_model = None if cap is None else round(8 * math.log2(cap))
    start = 8 * (i_model // 8) if i_model is not None else 8 * int(math.log2(clients))
    i_engine, i_fail = least_index(engine_drains, start)
    model_text = "none ≤ 1e6" if i_model is None else fmt(grid(i_model))
    if i_engine is None:
        engine_text = f"none ≤ {grid(8 * (MAX_INDEX // 8)):.0f}"  # the last octave probed
        ratio = "–"
    else:
        below = f"{fmt(grid(i_fail))}: {engine_counts[i_fail]}/{runs}" if i_fail is not None else "the base"
        engine_text = f"{fmt(grid(i_engine))} ({below})"
        if i_model is None:
            ratio = "–"
        elif i_fail is None:
            ratio = f"≥ {grid(i_model) / grid(i_engine):.2f}" if i_model != i_engine else "both at the base"
        else:
            ratio = f"{grid(i_model) / grid(i_engine):.2f}–{grid(i_model) / grid(i_fail):.2f}"
    return (model, strategy, clients, model_text, engine_text, ratio), time.time() - t0


def burst_caps(args):
    print("| model | strategy | B | model: least draining " + ("cap/W") + " | engine: least draining (below it) | model / engine |")
    print("|---|---|---|---|---|---|")
    for model in args.models:
        for strategy in args.strategies:
            for clients in args.clients:
                row, secs = burst_row(args.exe, model, strategy, clients)
                print("| " + " | ".join(str(x) for x in row) + " |", flush=True)
                print(f"{model} {strategy} {clients}: {secs:.0f} s", file=sys.stderr, flush=True)


def paper_thresholds():
    """Paper 1's steady thresholds from results.jsonl: per (model, strategy, K), the last load of its
    grid at which most runs survived (fewer than half reached K), every load below it too; None when
    even the first load fails, the top load when none does. Checked against steady_thresholds.csv."""
    paper = os.path.join(ROOT, "papers", "cap-is-doing-the-work")
    peaks = {}
    with open(os.path.join(paper, "results.jsonl")) as f:
        for line in f:
            d = json.loads(line)
            if d.get("sweep") != "steady":
                continue
            # Records hold the scenario as an object; older ones held its canonical string.
            scenario = d["scenario"]
            fields = scenario if isinstance(scenario, dict) else dict(kv.split("=", 1) for kv in scenario.split())
            key = (fields["model"], fields["strategy"])
            peaks.setdefault(key, {})[float(fields["rate"])] = d["per_run"]["max_waiting"]
    out = {}
    for key, runs in peaks.items():
        loads = sorted(runs)
        for k in (100, 300, 1000, 3000):
            last = None
            for x in loads:
                if 2 * sum(p >= k for p in runs[x]) < len(runs[x]):
                    last = x
                else:
                    break
            out[key + (k,)] = (last, loads[-1])
    with open(os.path.join(paper, "steady_thresholds.csv")) as f:
        header = f.readline()
        for line in f:
            model, strategy, *cells = line.strip().split(",")
            for k, cell in zip((100, 300, 1000, 3000), cells):
                last, top = out[(model, strategy, k)]
                mine = "< 0.05" if last is None else (f"≥ {top:g}" if last == top else f"{last:g}")
                if mine != cell:
                    sys.exit(f"paper 1 threshold {model} {strategy} K={k}: results.jsonl gives {mine}, the CSV {cell}")
    return out


def steady(args):
    paper = paper_thresholds()
    print("| model | strategy | fold load | K | collapse load: escape | no escape | passage | model threshold: escape | "
          "passage | paper 1 threshold | error (grid steps): escape | passage |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    text = lambda x, top: "< 0.05" if x is None else (f"≥ {top:g}" if x == top else f"{x:g}")
    grid_loads = [round(0.05 * i, 2) for i in range(1, 20)]
    tally = {}
    for model in args.models:
        for strategy in args.strategies:
            for k in (100, 300, 1000, 3000):
                window = ["--window", 1000] if strategy == "window" else []
                d = cli(args.exe, "analytic", "steady", "--model", model, "--strategy", strategy, *window,
                        "--collapse", k, "--horizon", 20000, "--json")
                last, top = paper[(model, strategy, k)]
                load = lambda x: "none < 1" if x is None else f"{x:.4f}"
                # A model threshold, defined as the paper's: the last grid load below its collapse load.
                thr = lambda c: top if c is None else max([x for x in grid_loads if x < c - 1e-9], default=None)
                cells = []
                for name in ("escape", "passage"):
                    mine = thr(d["collapse_load_" + name])
                    steps = round(((mine or 0.0) - (last or 0.0)) / 0.05)
                    t = tally.setdefault((model, name), [0, 0, 0, 0])
                    t[0] += 1; t[1] += steps == 0; t[2] += abs(steps) <= 1; t[3] += abs(steps)
                    cells.append((text(mine, top), f"{steps:+d}"))
                fold = "none" if d["fold_load"] is None else f"{d['fold_load']:.4f}"
                print(f"| {model} | {strategy} | {fold} | {k} | {load(d['collapse_load_escape'])} | "
                      f"{load(d['collapse_load_no_escape'])} | {load(d['collapse_load_passage'])} | {cells[0][0]} | "
                      f"{cells[1][0]} | {text(last, top)} | {cells[0][1]} | {cells[1][1]} |", flush=True)
    print()
    for (model, name), (n, exact, one, total) in tally.items():
        print(f"- {model}, {name}: exact {exact}/{n}, within one grid step {one}/{n}, mean |error| {total / n:.2f} steps")


def drain(args):
    """The stage model's drain times against paper 1's (burst_drain.csv: the mean over its 40 runs, all
    of which drained at these caps), collision and shared at lambda = 0.05, horizon 60,000."""
    rows = {}
    with open(os.path.join(ROOT, "papers", "cap-is-doing-the-work", "burst_drain.csv")) as f:
        f.readline()
        for line in f:
            c = line.strip().split(",")
            if c[5] and float(c[5]) == 1.0:
                rows[(c[0], c[1], int(c[3]), float(c[4]))] = (float(c[6]), float(c[9]))
    print("| model | strategy | B | cap | drain time: model | paper 1 | error | 99%: model | paper 1 | error |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for model, strategy, clients, cap in args.rows:
        if (model, strategy, clients, cap) not in rows:
            sys.exit(f"paper 1 has no fully drained row {model} {strategy} B={clients} cap={cap:g}")
        last, p99 = rows[(model, strategy, clients, cap)]
        d = cli(args.exe, "analytic", "burst", "--model", model, "--strategy", strategy, "--clients", clients,
                "--cap", cap, "--json")
        m, m99 = d["drain_time"], d["drain_time_p99"]
        err = lambda a, b: "–" if a is None else f"{100 * (a / b - 1):+.1f}%"
        whole = lambda x: "–" if x is None else f"{x:.0f}"
        print(f"| {model} | {strategy} | {clients} | {cap:g} | {whole(m)} | {last:.0f} | {err(m, last)} | {whole(m99)} | "
              f"{p99:.0f} | {err(m99, p99)} |", flush=True)


def markov(args):
    """The Markov chain's exact expectations against the engine (20,000 runs, seed 1)."""
    print("| model | N | cap | states | attempts/client: chain | engine | makespan: chain | engine |")
    print("|---|---|---|---|---|---|---|---|")
    for model, n, cap in ((("collision", 8, 8), ("free", 8, 8), ("collision", 6, 4), ("free", 6, 4),
                           ("collision", 4, 64))):
        c = cli(args.exe, "analytic", "markov", "--model", model, "--clients", n, "--cap", cap, "--json")
        e = cli(args.exe, "simulate", "--model", model, "--strategy", "memoryless", "--cap", cap, "--clients", n,
                "--service", "exponential", "--runs", 20000, "--seed", 1, "--quiet", "--json")["metrics"]
        half = lambda m: (m["ci95"][1] - m["ci95"][0]) / 2
        a, t = e["attempts_per_client"], e["makespan"]
        print(f"| {model} | {n} | {cap} | {c['states']:,} | {c['attempts_per_client']:.5g} | {a['mean']:.5g} ± "
              f"{half(a):.2g} | {c['makespan']:.5g} | {t['mean']:.5g} ± {half(t):.2g} |", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("table", choices=["burst-caps", "steady", "drain", "markov"])
    p.add_argument("--exe", default=os.path.join(ROOT, "build", "release", "cli", "retrylab"))
    p.add_argument("--models", nargs="+", default=["collision", "free", "shared"])
    p.add_argument("--strategies", nargs="+",
                   default=["none", "nojitter", "full", "equal", "decorrelated", "window"])
    p.add_argument("--clients", nargs="+", type=int, default=[100, 300, 1000])
    p.add_argument("--rows", nargs="+", type=lambda t: (lambda m, s, b, c: (m, s, int(b), float(c)))(*t.split(":")),
                   default=[tuple(r) for r in DRAIN_ROWS], help="drain: MODEL:STRATEGY:B:CAP ...")
    args = p.parse_args()
    {"burst-caps": burst_caps, "steady": steady, "drain": drain, "markov": markov}[args.table](args)


if __name__ == "__main__":
    main()

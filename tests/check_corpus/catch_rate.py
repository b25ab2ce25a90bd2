#!/usr/bin/env python3
"""The catch rate of `retrylab check` on the corpus of simulators (docs/traces.md, "How much check
catches").

  catch_rate.py RETRYLAB                  CI: each family's correct simulator over CORRECT_SEEDS, each
                                          mutant over MUTANT_SEEDS, at the family's trace size; exit 1
                                          if a mutant whose effect exceeds 1% escapes on any seed, or
                                          the correct simulators fail more than the stated rate allows
  catch_rate.py RETRYLAB --effects        measure every mutant's effect (EFFECT_RUNS runs of it and of
                                          its correct simulator) into effects.json
  catch_rate.py RETRYLAB --sizes          the smallest trace (runs) that catches each mutant on every
                                          seed, into sizes.json
  catch_rate.py RETRYLAB --table          the CI run, then the tables of docs/traces.md
  catch_rate.py RETRYLAB --engine         each family's correct simulator (400 runs) against the
                                          engine (`retrylab simulate`, 2,000 runs): means and z
  catch_rate.py RETRYLAB --selftest       shows the CI verdict can fail: a mutant check lets through
                                          (ties broken by the lowest id: no effect, no trace of it),
                                          declared one that must be caught, is reported as escaped

A mutant is caught on a seed when `retrylab check` exits 1 (a check failed) or 2 (it refused the
trace). Its effect is the relative change of the mean attempts per client, drain time or latency
(docs/models.md §5) from the correct simulator's; it "exceeds 1%" when the upper end of its 95%
interval does for one of them, so a mutant whose effect is uncertain near 1% must be caught too.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # run from the source tree: leave no __pycache__ in it
import clients  # noqa: E402
import mutants as M  # noqa: E402

CORRECT_SEEDS = range(1, 11)  # 8 families x 10 seeds = 80 correct traces
MUTANT_SEEDS = range(101, 104)  # every mutant on 3 seeds
EFFECT_RUNS = 400
SIZES = [1, 2, 3, 5, 8, 12, 20, 30, 50]  # runs tried by --sizes
HERE = os.path.dirname(os.path.abspath(__file__))
# A correct trace fails a statistical check with probability at most 0.001 (the checker's per-trace
# budget); an invariant never fails it. The test allows the fewest statistical failures whose
# binomial tail over all correct traces is below 0.001: its own false-failure rate.
TRACE_ALPHA, TEST_ALPHA = 1e-3, 1e-3


def allowed_false_alarms(traces):
    k, tail = 0, 1.0
    while True:
        tail -= math.comb(traces, k) * TRACE_ALPHA ** k * (1 - TRACE_ALPHA) ** (traces - k)
        if tail < TEST_ALPHA:
            return k, tail
        k += 1


def scenario(family, runs=None):
    sc = {"window": 0.0, "unit": "attempt", "attempt_duration": 1.0, **M.FAMILIES[family]}
    n = sc.pop("runs")
    return sc, runs or n


def simulate(family, bug, seed, path, runs=None):
    sc, n = scenario(family, runs)
    with open(path, "w") as out:
        return clients.simulate(M.simulator(family).run_once, sc, bug, seed, n, out)


def check(retrylab, path):
    """(exit status, the checks that failed: names, or the error of a refused trace)."""
    p = subprocess.run([retrylab, "check", path, "--json"], capture_output=True, text=True)
    if p.returncode == 2:
        return 2, ["refused: " + p.stderr.strip().split(path + " ", 1)[-1][:100]]
    if p.returncode not in (0, 1):
        raise RuntimeError("retrylab check exited %d: %s" % (p.returncode, p.stderr))
    report = json.loads(p.stdout)
    return p.returncode, [(c["check"], c["kind"]) for c in report["checks"] if c["verdict"] == "FAIL"]


def rows_of(path):
    with open(path) as f:
        return sum(1 for line in f if line[0] != "#") - 1


def run_corpus(retrylab, tmp, only=None):
    """Every correct simulator and mutant through check: {(family, bug): [(seed, rc, failed, rows)]}."""
    out = {}
    items = [(f, None, CORRECT_SEEDS) for f in M.FAMILIES] + [(f, b, MUTANT_SEEDS) for f, b in M.MUTANTS]
    if only:
        items = [i for i in items if (i[0], i[1]) == only]
    for family, bug, seeds in items:
        for seed in seeds:
            path = os.path.join(tmp, "trace.csv")
            simulate(family, bug, seed, path)
            rc, failed = check(retrylab, path)
            out.setdefault((family, bug), []).append((seed, rc, failed, rows_of(path)))
    return out


def mean_se(xs):
    xs = [x for x in xs if x is not None]
    if len(xs) < 2:
        return None, None
    m = sum(xs) / len(xs)
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs))


def effect(base, mutant, metric):
    """The relative change of a metric's mean and the upper end of its 95% interval."""
    m0, s0 = mean_se([r[metric] for r in base])
    m1, s1 = mean_se([r[metric] for r in mutant])
    undefined = sum(r[metric] is None for r in mutant) - sum(r[metric] is None for r in base)
    if m0 is None:
        return None
    if m1 is None or undefined > 0:  # undefined in runs where the correct one has it: no drain, no success
        return {"effect": math.inf, "upper": math.inf, "undefined_runs": undefined}
    e = (m1 - m0) / m0
    se = math.sqrt((s0 / m0) ** 2 + (s1 / m0) ** 2)
    return {"effect": e, "upper": abs(e) + 1.96 * se}


def measure_effects(tmp):
    path = os.path.join(tmp, "effects.csv")
    base = {f: simulate(f, None, 7, path, EFFECT_RUNS) for f in M.FAMILIES}
    out = {}
    for family, bug in M.MUTANTS:
        stats = simulate(family, bug, 7, path, EFFECT_RUNS)
        e = {k: effect(base[family], stats, k) for k in ("attempts_per_client", "drain_time", "latency")}
        e = {k: v for k, v in e.items() if v is not None}
        out["%s/%s" % (family, bug)] = {**e, "exceeds_1pct": any(v["upper"] > 0.01 for v in e.values())}
        print("%-17s %-26s %s" % (family, bug, json.dumps(e)), flush=True)
    return out


def against_engine(retrylab, tmp):
    """The correct simulators are independent implementations of docs/models.md: their means should
    agree with the engine's within sampling error (z = difference / its standard error)."""
    path = os.path.join(tmp, "engine.csv")
    for family in M.FAMILIES:
        sc, _ = scenario(family)
        ours = simulate(family, None, 5, path, EFFECT_RUNS)
        cmd = [retrylab, "simulate", "--quiet", "--json", "--runs", "2000", "--model", sc["model"], "--strategy",
               sc["strategy"], "--base", repr(sc["base"]), "--cap", repr(sc["cap"]), "--collapse", "1000000000",
               "--horizon", repr(sc["horizon"])]
        cmd += ["--clients", str(sc["clients"])] if sc["clients"] else ["--rate", repr(sc["rate"])]
        metrics = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)["metrics"]
        line = [family]
        for ours_key, key in (("attempts_per_client", "attempts_per_client"), ("drain_time", "drain_time"),
                              ("latency", "latency")):
            m, se = mean_se([r[ours_key] for r in ours])
            e = metrics.get(key) or {}
            if m is None or not e.get("mean"):
                continue
            ese = (e.get("sd") or 0.0) / math.sqrt(e["n"])
            if max(se, ese) <= 1e-9 * abs(m):  # the same in every run: compare exactly
                line.append("%s %.10g vs %.10g (exact: relative difference %.1e)" % (
                    key, m, e["mean"], abs(m - e["mean"]) / abs(e["mean"])))
            else:
                line.append("%s %.4g vs %.4g (z %+.2f)" % (key, m, e["mean"], (m - e["mean"]) / math.hypot(se, ese)))
        print("; ".join(line), flush=True)


def smallest_size(retrylab, tmp, family, bug):
    path = os.path.join(tmp, "size.csv")
    for runs in SIZES:
        rows = []
        for seed in MUTANT_SEEDS:
            simulate(family, bug, seed, path, runs)
            rows.append(rows_of(path))
            if check(retrylab, path)[0] == 0:
                break
        else:
            return {"runs": runs, "rows": max(rows)}
    return None


def verdicts(results, effects):
    """Per mutant: caught on every seed, required (effect > 1%), the checks that caught it."""
    table = []
    for family, bug in [m for m in M.MUTANTS if m in results]:
        r = results[(family, bug)]
        e = effects.get("%s/%s" % (family, bug))
        if e is None:
            raise SystemExit("effects.json has no %s/%s: run catch_rate.py RETRYLAB --effects" % (family, bug))
        # "sleep distribution, retry 3" and its siblings are one rule
        names = sorted({(f[0] if isinstance(f, tuple) else f).split(",")[0] for _, _, failed, _ in r for f in failed})
        table.append({"family": family, "bug": bug, "group": M.group_of(bug), "required": e["exceeds_1pct"],
                      "caught": all(rc != 0 for _, rc, _, _ in r), "seeds_caught": sum(rc != 0 for _, rc, _, _ in r),
                      "by": names, "rows": max(x[3] for x in r), "effect": e})
    return table


def correct_failures(results):
    invariant, statistic = [], []
    for family in M.FAMILIES:
        for seed, rc, failed, _ in results[(family, None)]:
            for f in failed:
                (invariant if rc == 2 or f[1] == "invariant" else statistic).append((family, seed, f))
    return invariant, statistic


def fmt_effect(e):
    parts = []
    for k, label in (("attempts_per_client", "apc"), ("drain_time", "drain"), ("latency", "latency")):
        if k in e:
            if math.isinf(e[k]["effect"]):
                parts.append("%s undefined in %d of %d runs" % (label, e[k]["undefined_runs"], EFFECT_RUNS))
            else:
                parts.append("%s %+.1f%%" % (label, 100 * e[k]["effect"]))
    return ", ".join(parts)


def print_tables(table, sizes):
    print("\n| bug family | mutants | caught | effect > 1% | of those caught | trace size needed |")
    print("|---|---|---|---|---|---|")
    for group, _ in M.GROUPS:
        rows = [t for t in table if t["group"] == group]
        need = [sizes.get("%s/%s" % (t["family"], t["bug"])) for t in rows if t["caught"]]
        need = [n for n in need if n]
        size = "%d-%d runs (%d-%d rows)" % (min(n["runs"] for n in need), max(n["runs"] for n in need),
                                            min(n["rows"] for n in need), max(n["rows"] for n in need)) if need else "-"
        req = [t for t in rows if t["required"]]
        print("| %s | %d | %d | %d | %d | %s |" % (group, len(rows), sum(t["caught"] for t in rows), len(req),
                                                  sum(t["caught"] for t in req), size))
    print("\n| family | mutant | effect | caught (seeds) | by | runs needed |")
    print("|---|---|---|---|---|---|")
    for t in table:
        n = sizes.get("%s/%s" % (t["family"], t["bug"]))
        print("| %s | `%s` | %s | %d/%d | %s | %s |" % (t["family"], t["bug"], fmt_effect(t["effect"]),
                                                      t["seeds_caught"], len(MUTANT_SEEDS), "; ".join(t["by"]) or "-",
                                                      "%d (%d rows)" % (n["runs"], n["rows"]) if n else "-"))


def main():
    retrylab, mode = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
    with tempfile.TemporaryDirectory() as tmp:
        if mode == "--effects":
            with open(os.path.join(HERE, "effects.json"), "w") as f:
                json.dump(measure_effects(tmp), f, indent=1, sort_keys=True)
            return 0
        if mode == "--engine":
            against_engine(retrylab, tmp)
            return 0
        if mode == "--sizes":
            sizes = {}
            for family, bug in M.MUTANTS:
                sizes["%s/%s" % (family, bug)] = smallest_size(retrylab, tmp, family, bug)
                print(family, bug, sizes["%s/%s" % (family, bug)], flush=True)
            with open(os.path.join(HERE, "sizes.json"), "w") as f:
                json.dump(sizes, f, indent=1, sort_keys=True)
            return 0
        with open(os.path.join(HERE, "effects.json")) as f:
            effects = json.load(f)
        if mode == "--selftest":
            planted = ("free-burst", "ties-lowest-id")
            effects["%s/%s" % planted]["exceeds_1pct"] = True
            table = verdicts(run_corpus(retrylab, tmp, planted), effects)
            escaped = [t for t in table if t["required"] and not t["caught"]]
            print("planted %s/%s as a mutant that must be caught: %s" % (
                planted + ("reported escaped, as it should be" if escaped else "NOT reported",)))
            return 0 if escaped else 1
        results = run_corpus(retrylab, tmp)
    table = verdicts(results, effects)
    traces = len(CORRECT_SEEDS) * len(M.FAMILIES)
    allowed, tail = allowed_false_alarms(traces)
    invariant, statistic = correct_failures(results)
    for t in table:
        print("%-4s %-17s %-26s effect %-28s caught %d/%d by %s" % (
            "REQ" if t["required"] else "", t["family"], t["bug"], fmt_effect(t["effect"]), t["seeds_caught"],
            len(MUTANT_SEEDS), ", ".join(t["by"]) or "-"))
    escaped = [t for t in table if t["required"] and not t["caught"]]
    print("\n%d mutants, %d caught on every seed; %d with an effect over 1%%, %d of them caught" % (
        len(table), sum(t["caught"] for t in table), sum(t["required"] for t in table),
        sum(t["caught"] for t in table if t["required"])))
    print("correct simulators: %d traces, %d invariant failures, %d statistical failures (allowed %d: "
          "P(more | per-trace rate 0.001) = %.2g)" % (traces, len(invariant), len(statistic), allowed, tail))
    for f in invariant + statistic:
        print("  correct %s seed %d failed %s" % f)
    if mode == "--table":
        sizes = {}
        if os.path.exists(os.path.join(HERE, "sizes.json")):
            with open(os.path.join(HERE, "sizes.json")) as f:
                sizes = json.load(f)
        print_tables(table, sizes)
    for t in escaped:
        print("ESCAPED: %s/%s (effect %s)" % (t["family"], t["bug"], fmt_effect(t["effect"])))
    return 1 if escaped or invariant or len(statistic) > allowed else 0


if __name__ == "__main__":
    sys.exit(main())

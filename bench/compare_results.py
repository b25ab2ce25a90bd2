#!/usr/bin/env python3
"""Two runs of a study, statistically: are OLD and NEW draws of the same law?

For a change that keeps the distributions but not the random numbers (a new sampler, another order of
draws), the goldens and committed results change byte for byte, and the question becomes whether old
and new agree. This script reads two results files (`results.jsonl` of `retrylab run|reproduce`),
pairs their points by sweep and canonical scenario, and for every metric whose summary has a mean, a
standard deviation and n >= 2 runs on both sides computes Welch's z = (new - old) / sqrt(sd_old^2 /
n_old + sd_new^2 / n_new). Means equal on both sides to 1e-12 (pure bursts, sleep records: the same
draws; a constant up to rounding) count as identical and are not tested; a metric constant on both
sides but unequal is listed, and fails the comparison unless the two agree to 1e-9 (relative).

It prints the number of means compared, how many exceed |z| 3 and 4, the largest |z|, and the --top
points by |z|. Exit status 0 when no |z| exceeds the Bonferroni bound of a two-sided test at the
family-wise --alpha (default 0.01) over the means compared, 1 when some does, 2 on bad input. The z of
a mean over 20 runs of a heavy-tailed metric is not quite normal, so a point above the bound is one to
rerun with more runs on both builds and independent seeds (`retrylab simulate ... --runs 400 --seed
S`), not yet a difference.

    python3 bench/compare_results.py OLD/results.jsonl NEW/results.jsonl [--top 10] [--alpha 0.01]
"""
import argparse
import json
import math
import statistics
import sys


def points(path):
    """(sweep, canonical) -> summary, from a results file; the header line is skipped."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if "summary" in record:  # records before the scenario object held the canonical string in "scenario"
                canonical = record["canonical"] if "canonical" in record else record["scenario"]
                out[(record.get("sweep", ""), canonical)] = record["summary"]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--top", type=int, default=10, help="points listed, largest |z| first (default 10)")
    parser.add_argument("--alpha", type=float, default=0.01, help="family-wise false-alarm rate (default 0.01)")
    args = parser.parse_args()  # exits 2 on a bad flag
    if not (0.0 < args.alpha < 1.0) or args.top < 0:
        print("compare_results: --alpha must lie in (0, 1) and --top be >= 0", file=sys.stderr)
        sys.exit(2)
    try:
        old, new = points(args.old), points(args.new)
    except (OSError, ValueError, KeyError) as e:
        print(f"compare_results: {e}", file=sys.stderr)
        sys.exit(2)
    common = sorted(set(old) & set(new))
    if not common:
        print("compare_results: the two files share no point (sweep and canonical scenario)", file=sys.stderr)
        sys.exit(2)

    tested, identical, constant = [], 0, []
    for key in common:
        for metric, a in old[key].items():
            b = new[key].get(metric)
            if not isinstance(a, dict) or not isinstance(b, dict):
                continue
            if any(not isinstance(s.get(f), (int, float)) for s in (a, b) for f in ("mean", "sd", "n")):
                continue
            if abs(a["mean"] - b["mean"]) <= 1e-12 * abs(a["mean"]):  # equal, or but for rounding: a
                identical += 1  # constant such as collision's sojourn 1 = (t + 1) - t differs in the last bits
                continue
            if a["n"] < 2 or b["n"] < 2:
                continue
            se = math.sqrt(a["sd"] ** 2 / a["n"] + b["sd"] ** 2 / b["n"])
            if se == 0.0:  # constant on both sides but unequal: not a sampling question
                constant.append((key, metric, a["mean"], b["mean"]))
                continue
            tested.append(((b["mean"] - a["mean"]) / se, key, metric, a, b))

    only_old, only_new = len(set(old) - set(new)), len(set(new) - set(old))
    print(f"points: {len(common)} in both ({only_old} only in old, {only_new} only in new)")
    print(f"means: {len(tested)} compared, {identical} identical, {len(constant)} constant in both but unequal")
    apart = [c for c in constant if abs(c[3] - c[2]) > 1e-9 * max(abs(c[2]), abs(c[3]))]
    for (sweep, canonical), metric, a, b in constant:
        print(f"  constant {sweep}: {canonical}  {metric}: old {a!r}, new {b!r}")
    if not tested:
        return 1 if apart else 0
    zs = [abs(t[0]) for t in tested]
    m = len(tested)
    bound = statistics.NormalDist().inv_cdf(1.0 - args.alpha / (2 * m))
    print(f"|z| > 3: {sum(z > 3 for z in zs)}, |z| > 4: {sum(z > 4 for z in zs)}, largest |z| {max(zs):.2f}; "
          f"Bonferroni bound at family-wise alpha {args.alpha:g} over {m} means: {bound:.2f}")
    for z, (sweep, canonical), metric, a, b in sorted(tested, key=lambda t: -abs(t[0]))[: args.top]:
        print(f"  z {z:+.2f}  {sweep}: {canonical}  {metric}: old {a['mean']:.6g} (n {a['n']}), "
              f"new {b['mean']:.6g} (n {b['n']})")
    return 1 if max(zs) > bound or apart else 0


if __name__ == "__main__":
    sys.exit(main())

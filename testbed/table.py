#!/usr/bin/python3
"""testbed/table.py: every scenario of testbed/scenarios/ (but the CI ones), then the Markdown table
of docs/reality.md from their result.json files.

    /usr/bin/python3 testbed/table.py --retrylab build/release/cli/retrylab --out out/testbed
    /usr/bin/python3 testbed/table.py --from out/testbed          # the table only, from results

Runs the scenarios one after another (each 30 s of arrivals plus its settling: about 8 minutes in
all on two cores). Exit 1 if a run failed.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def fmt(x, d=3):
    if x is None:
        return "–"
    if isinstance(x, float):
        return ("%." + str(d) + "g") % x
    return str(x)


def cell(row):
    if row is None:
        return "–", "–", "–"
    pi = "[%s, %s]" % (fmt(row["model_lo"]), fmt(row["model_hi"])) if row["model_lo"] is not None else ""
    return fmt(row["real"]), "%s %s" % (fmt(row["model_mean"]), pi), row["verdict"]


def markdown(results):
    out = ["| scenario | client | requests | attempts/request real | model [95% PI] | verdict "
           "| lost fraction real | model [95% PI] | verdict | p99 latency ms real | model [95% PI] "
           "| verdict | sleep law (KS p: model · library) |",
           "|" + "---|" * 13]
    for r in results:
        rows = {x["metric"].split(" (")[0]: x for x in r["rows"]}
        a = cell(rows.get("attempts per request"))
        lo = cell(rows.get("lost fraction"))
        p = cell(rows.get("latency p99"))
        sl = "; ".join("k=%d n=%d: %s · %s" % (
            s["retry"], s["n"], fmt(s["p_model"], 2),
            "exact %g ms + noise (calibration)" % s["min_ms"] if s.get("calibration") else
            "%s (+noise %s)" % (fmt(s["p_library"], 2), fmt(s.get("p_library_noise"), 2)))
            for s in r["sleeps"] if s["n"] >= 20 and s["p_model"] is not None) or "–"
        if s_cal := [s["calibration"] for s in r["sleeps"] if s.get("calibration")]:
            sl = sl.replace("exact %g ms" % [s["min_ms"] for s in r["sleeps"]
                                             if s.get("calibration")][0],
                            "initialBackoff, seen %s ms late (median)" % fmt(s_cal[0]["median_ms"], 2))
        requests = str(r["requests"])
        if r.get("requests_unfinished"):
            requests += " (%d unfinished)" % r["requests_unfinished"]
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["scenario"], r["client"], requests, a[0], a[1], a[2], lo[0], lo[1], lo[2],
            p[0], p[1], p[2], sl))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--retrylab")
    ap.add_argument("--out", default=os.path.join("out", "testbed"))
    ap.add_argument("--from", dest="from_dir", help="only print the table from DIR/*/result.json")
    args = ap.parse_args()
    names = sorted(os.path.splitext(os.path.basename(p))[0]
                   for p in glob.glob(os.path.join(HERE, "scenarios", "*.toml")))
    names = [n for n in names if not n.startswith("ci-")]
    failed = False
    if not args.from_dir:
        for name in names:
            cmd = [sys.executable, os.path.join(HERE, "run.py"),
                   os.path.join(HERE, "scenarios", name + ".toml"), "--out",
                   os.path.join(args.out, name)]
            if args.retrylab:
                cmd += ["--retrylab", args.retrylab]
            print("== " + name, file=sys.stderr, flush=True)
            if subprocess.run(cmd).returncode != 0:
                failed = True
    base = args.from_dir or args.out
    results = []
    for name in names:
        path = os.path.join(base, name, "result.json")
        if os.path.exists(path):
            with open(path) as f:
                results.append(json.load(f))
    print(markdown(results))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

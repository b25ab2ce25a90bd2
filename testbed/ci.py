#!/usr/bin/python3
"""The testbed's short version (ctest testbed.short, label testbed): one scenario per library.

Runs testbed/scenarios/ci-grpcio.toml, ci-grpcjs.toml and ci-botocore.toml (12 s of arrivals
each, fixed seeds for the arrivals, the server's draws and the model) through run.py and fails
unless, for each:
- attempts per request and lost fraction lie inside the model's 99.9% prediction interval for one
  run (mean ± 3.29·sd·√(1 + 1/n) over simulate's 200 runs), or within 5% of its mean;
- every sleep law the library's source states (docs/policies.md, "What the libraries do"), plus the
  time the run measured outside the server as independent noise, with at least 20 sleeps, is not
  rejected by a KS test at the 0.1% level;
- `retrylab check` reads the server-side trace (exit 0 or 1, never 2: the format holds).
False-failure rate: at most 0.1% per comparison if the libraries behave as modelled, about 10
comparisons, so at most 1% a run (Bonferroni). Timing is real, so a run is not byte-reproducible
(the arrivals and the server's draws are); docs/reality.md quantifies the noise.

--selftest plants a wrong prediction (the grpcio scenario's model run at failure_prob 0.15
instead of 0.3) and exits 0 only if the criterion rejects it: the test can fail.

Exit 0 pass, 1 fail (each failed comparison printed), 2 bad input.
"""
import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = ["ci-grpcio.toml", "ci-grpcjs.toml", "ci-botocore.toml"]
Z999 = 3.29  # two-sided 99.9% normal quantile; the model's n = 200 runs makes t ~ z
ALPHA = 0.001


def inside(row):
    real, mean, sd, n = row["real"], row["model_mean"], row["model_sd"], row["model_n"]
    if real is None or mean is None:
        return False, "no value"
    if mean != 0 and abs(real - mean) <= 0.05 * abs(mean):
        return True, "within 5%"
    if sd is None or not n:
        return real == mean, "exact"
    half = Z999 * sd * math.sqrt(1 + 1.0 / n)
    return abs(real - mean) <= half, "PI [%.4g, %.4g]" % (mean - half, mean + half)


def judge(res):
    failures = []
    for row in res["rows"]:
        if row["metric"] not in ("attempts per request", "lost fraction"):
            continue
        ok, why = inside(row)
        print("  %-22s real %.4g model %.4g  %s  %s" % (row["metric"], row["real"] or 0,
                                                         row["model_mean"] or 0, why,
                                                         "ok" if ok else "FAIL"))
        if not ok:
            failures.append(row["metric"])
    for s in res["sleeps"]:
        if s["n"] < 20 or s["p_library_noise"] is None:
            continue
        ok = s["p_library_noise"] >= ALPHA
        print("  sleep before retry %d: n %d, KS %.3f to the library's law plus the measured time "
              "outside the server, p %.3g  %s" % (s["retry"], s["n"], s["ks_library_noise"],
                                                   s["p_library_noise"], "ok" if ok else "FAIL"))
        if not ok:
            failures.append("sleep law, retry %d" % s["retry"])
    chk = res.get("check") or {}
    if chk.get("exit") == 2:
        failures.append("trace malformed: " + chk.get("summary", ""))
    print("  retrylab check: " + chk.get("summary", "-"))
    return failures


def run(scenario, retrylab, out, extra=()):
    cmd = [sys.executable, os.path.join(HERE, "run.py"), os.path.join(HERE, "scenarios", scenario),
           "--retrylab", retrylab, "--out", out, "--json"] + list(extra)
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=200)
    if res.returncode != 0:
        print("testbed.short: %s failed (exit %d): %s" % (scenario, res.returncode,
                                                         res.stderr.strip()[-2000:]))
        return None
    return json.loads(res.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("retrylab")
    ap.add_argument("--out", default=os.path.join("out", "testbed-short"))
    ap.add_argument("--selftest", action="store_true")
    args = ap.parse_args()
    if not os.access(args.retrylab, os.X_OK):
        print("testbed.short: retrylab executable %r not found" % args.retrylab, file=sys.stderr)
        return 2
    missing = []
    for mod in ("grpc", "botocore"):
        if subprocess.run([sys.executable, "-c", "import " + mod]).returncode != 0:
            missing.append("python3 module %s (Debian python3-%s)" % (mod, mod.replace("grpc", "grpcio")))
    if not os.path.isdir(os.path.join(HERE, "node_modules", "@grpc", "grpc-js")):
        missing.append("testbed/node_modules (npm ci in testbed/)")
    if missing:
        print("testbed.short: missing %s: run .ci/install-deps" % "; ".join(missing))
        return 1
    if args.selftest:
        out = os.path.join(args.out, "selftest")
        res = run("ci-grpcio.toml", args.retrylab, out, ["--model-set", "failure_prob=0.15"])
        if res is None:
            return 1
        failures = judge(res)
        print("selftest: the planted prediction was %s" % ("rejected" if failures else "ACCEPTED"))
        return 0 if failures else 1
    failed = []
    for sc in SCENARIOS:
        print(sc)
        res = run(sc, args.retrylab, os.path.join(args.out, os.path.splitext(sc)[0]))
        if res is None:
            failed.append(sc + ": did not run")
            continue
        failed += ["%s: %s" % (sc, f) for f in judge(res)]
    if failed:
        print("testbed.short FAILED: " + "; ".join(failed))
        return 1
    print("testbed.short passed: %d scenarios, every comparison inside its bar" % len(SCENARIOS))
    return 0


if __name__ == "__main__":
    sys.exit(main())

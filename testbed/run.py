#!/usr/bin/python3
"""testbed/run.py SCENARIO [--policy FILE]: a real retry library against retrylab's prediction.

Starts the testbed server (server.py) on 127.0.0.1, drives the scenario's client library
(grpcio, grpc-js or botocore) open-loop with the scenario's Poisson arrivals, then runs
`retrylab simulate` on the same scenario and policy file and prints the two side by side
(compare.py): attempts per request, lost fraction, the sleeps between attempts (KS distance to
the model's law and to the library's own), the first retry a budget denied, hedging's added load
and p99 latency, and goodput and backlog per bin around an outage or a spike. Writes everything to
--out (result.json, the logs, the server-side trace).

Exit status: 0 done (the verdicts are in the output, a CI test judges them: ci_check.py), 1 a
process failed or overran, 2 bad input (one line naming the field).

Invariants: nothing listens or connects beyond 127.0.0.1; a run is bounded (horizon at most 60 s
of wall time, at most 5,000 requests expected, every process killed by its id after its limit).
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402
import laws  # noqa: E402
import report  # noqa: E402
import tracefile  # noqa: E402

CLIENTS = {"grpcio", "grpc-js", "botocore"}
KINDS = {"retryable", "throttled", "fatal"}
TOP_KEYS = {"title", "client", "policy", "policy_select", "failure_kind", "seed", "runs", "bin",
            "unit", "attempt_duration", "window", "scenario", "pending", "budget_scope"}
SERVER_FIELDS = {"model", "service", "limit", "overflow", "rate", "horizon", "failure_prob",
                 "outage_start", "outage_end", "outage_fraction", "load_profile"}
MAX_HORIZON_MS = 60000.0
MAX_REQUESTS = 5000


def fail(msg):
    print("testbed: " + msg, file=sys.stderr)
    sys.exit(2)


def find_retrylab(given):
    if given:
        return given
    root = os.path.dirname(HERE)
    for cand in (os.path.join(root, "build", "release", "cli", "retrylab"),
                 "/work/main/build/release/cli/retrylab"):
        if os.access(cand, os.X_OK):
            return cand
    fail("--retrylab: no retrylab executable found (build cli/retrylab or pass --retrylab PATH)")


def load_scenario(path, policy_override):
    try:
        with open(path, "rb") as f:
            spec = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        fail("%s: %s" % (path, e))
    for key in spec:
        if key not in TOP_KEYS:
            fail("%s: unknown key %r (allowed: %s)" % (path, key, ", ".join(sorted(TOP_KEYS))))
    if spec.get("client") not in CLIENTS:
        fail("%s: client must be one of %s (got %r)" % (path, ", ".join(sorted(CLIENTS)),
                                                          spec.get("client")))
    kind = spec.get("failure_kind", "retryable")
    if kind not in KINDS:
        fail("%s: failure_kind must be one of %s (got %r)" % (path, ", ".join(sorted(KINDS)), kind))
    if spec.get("unit") != "ms":
        fail("%s: unit must be \"ms\" (the server keeps time in ms)" % path)
    d = spec.get("attempt_duration")
    if not isinstance(d, (int, float)) or not 1 <= d <= 1000:
        fail("%s: attempt_duration must be a number of ms in [1, 1000] (got %r)" % (path, d))
    sc = spec.get("scenario", {})
    for key in sc:
        if key not in SERVER_FIELDS:
            fail("%s: [scenario] key %r is not a field the server plays (allowed: %s; the client's "
                 "fields come from the policy file)" % (path, key, ", ".join(sorted(SERVER_FIELDS))))
    if sc.get("model", "none") != "none":
        fail("%s: model must be \"none\" (the testbed's dependency fails only by injected failure)"
             % path)
    horizon = sc.get("horizon")
    if not isinstance(horizon, (int, float)) or not 0 < horizon <= MAX_HORIZON_MS:
        fail("%s: horizon must be in (0, %g] ms (got %r)" % (path, MAX_HORIZON_MS, horizon))
    if sc.get("service", "deterministic") not in ("deterministic", "exponential"):
        fail("%s: service must be deterministic or exponential" % path)
    if ("rate" in sc) == ("load_profile" in sc):
        fail("%s: give exactly one of rate and load_profile" % path)
    try:
        _, peak = laws.profile(sc.get("load_profile"), sc.get("rate"))
    except (TypeError, ValueError) as e:
        fail("%s: rate or load_profile: %s" % (path, e))
    if not peak >= 0 or peak * horizon > MAX_REQUESTS:
        fail("%s: rate: %g requests expected over the horizon, at most %d allowed"
             % (path, peak * horizon, MAX_REQUESTS))
    policy = policy_override or spec.get("policy")
    if not policy:
        fail("%s: policy is required (or --policy FILE)" % path)
    if not policy_override:
        policy = os.path.join(os.path.dirname(os.path.abspath(path)), policy)
    if not os.path.isfile(policy):
        fail("--policy: no such file %r" % policy)
    spec["policy"] = policy
    spec["failure_kind"] = kind
    for key, lo, hi in (("seed", 0, 2**31 - 1), ("runs", 2, 2000), ("bin", 1, MAX_HORIZON_MS)):
        v = spec.get(key, {"seed": 1, "runs": 200, "bin": 1000}[key])
        if not isinstance(v, (int, float)) or not lo <= v <= hi:
            fail("%s: %s must be in [%g, %g] (got %r)" % (path, key, lo, hi, v))
        spec[key] = v
    return spec


def arrivals(sc, seed):
    """Poisson arrivals on [0, horizon) at `rate` per ms, or a load profile by thinning."""
    rng = random.Random(seed)
    horizon = float(sc["horizon"])
    rate_at, peak = laws.profile(sc.get("load_profile"), sc.get("rate"))
    if peak * horizon > MAX_REQUESTS:
        fail("rate: %g requests expected over the horizon, more than %d" % (peak * horizon,
                                                                          MAX_REQUESTS))
    out, t = [], 0.0
    while peak > 0:
        t += rng.expovariate(peak)
        if t >= horizon:
            break
        if rng.random() * peak < rate_at(t):
            out.append(["r%06d" % len(out), round(t, 3)])
    return out


def run_real(spec, out, retrylab):
    sc = spec["scenario"]
    cfg = dict(sc)
    cfg["attempt_duration"] = spec["attempt_duration"]
    cfg["failure_kind"] = spec["failure_kind"]
    paths = {k: os.path.join(out, v) for k, v in (("cfg", "server.json"), ("arr", "arrivals.json"),
                                                  ("att", "attempts.jsonl"),
                                                  ("req", "requests.jsonl"))}
    with open(paths["cfg"], "w") as f:
        json.dump(cfg, f)
    arr = arrivals(sc, spec["seed"])
    with open(paths["arr"], "w") as f:
        json.dump(arr, f)
    horizon_s = float(sc["horizon"]) / 1000.0
    limit_s = horizon_s + 40.0  # the last arrivals' retries settle (botocore sleeps up to 20 s)
    epoch = time.time() + 1.5
    server = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "server.py"), "--config", paths["cfg"], "--epoch",
         repr(epoch), "--seed", str(spec["seed"]), "--log", paths["att"], "--max-seconds",
         str(limit_s + 10)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ports = json.loads(server.stdout.readline())
        client = spec["client"]
        common = ["--arrivals", paths["arr"], "--epoch", repr(epoch), "--out", paths["req"],
                  "--max-seconds", str(limit_s)]
        if client == "grpcio":
            cmd = [sys.executable, os.path.join(HERE, "client_grpcio.py"), "--port",
                   str(ports["grpc_port"]), "--service-config", spec["policy"]] + common
        elif client == "grpc-js":
            node = shutil.which("node") or fail("client grpc-js: node is not installed")
            cmd = [node, os.path.join(HERE, "client_grpcjs.js"), "--port", str(ports["grpc_port"]),
                   "--service-config", spec["policy"]] + common
        else:
            cmd = [sys.executable, os.path.join(HERE, "client_botocore.py"), "--port",
                   str(ports["http_port"]), "--aws-config", spec["policy"]] + common
            if spec.get("policy_select"):
                cmd += ["--profile", spec["policy_select"]]
        started = time.time()
        proc = subprocess.Popen(cmd)
        try:
            rc = proc.wait(timeout=limit_s + 15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            rc = "timeout"
        wall = time.time() - started
    finally:
        server.stdin.close()  # the server writes its log and exits
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    if rc != 0 or server.returncode != 0:
        print("testbed: client exit %s, server exit %s" % (rc, server.returncode), file=sys.stderr)
        sys.exit(1)
    return paths, len(arr), wall


def simulate(spec, retrylab, out):
    sc = spec["scenario"]
    cmd = [retrylab, "simulate", "--quiet", "--json", "--unit", "ms", "--attempt-duration",
           str(spec["attempt_duration"]), "--policy", spec["policy"], "--runs", str(spec["runs"]),
           "--seed", str(spec["seed"]), "--settle", "on", "--series", str(spec["bin"])]
    if spec.get("policy_select"):
        cmd += ["--policy-select", spec["policy_select"]]
    if spec.get("budget_scope"):
        cmd += ["--budget-scope", spec["budget_scope"]]
    if spec["failure_kind"] != "retryable":
        # the server's failures, in the outage too, are of this kind (retryable: the engine's default)
        kind = spec["failure_kind"]
        if float(sc.get("failure_prob", 0)) > 0:
            cmd += ["--failure-kind", kind]
        if float(sc.get("outage_end", 0)) > float(sc.get("outage_start", 0)):
            cmd += ["--outage-kind", kind]
        if sc.get("overflow") == "reject":  # and so are its rejections
            cmd += ["--reject-kind", kind]
    for key, value in sc.items():
        cmd += ["--" + key.replace("_", "-"), str(value)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    with open(os.path.join(out, "simulate.cmd"), "w") as f:
        f.write(" ".join(cmd) + "\n")
    if res.returncode != 0:
        # simulate checks every field as its flags are checked: its bad input is ours (exit 2)
        print("testbed: retrylab simulate refused the scenario (%d): %s"
              % (res.returncode, res.stderr.strip().splitlines()[-1] if res.stderr.strip() else ""),
              file=sys.stderr)
        sys.exit(2 if res.returncode == 2 else 1)
    return json.loads(res.stdout), cmd, res.stderr.strip()


def policy_fields(retrylab, spec):
    cmd = [retrylab, "policy", "show", "--format", "json", spec["policy"]]
    if spec.get("policy_select"):
        cmd[3:3] = ["--select", spec["policy_select"]]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if res.returncode != 0:
        print("testbed: retrylab policy show failed: %s" % res.stderr.strip(), file=sys.stderr)
        sys.exit(1)
    doc = json.loads(res.stdout)
    return {f["field"]: f for f in doc.get("fields", [])}, doc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("--policy", help="policy file (default: the scenario's)")
    ap.add_argument("--retrylab", help="retrylab executable (default: this tree's build)")
    ap.add_argument("--out", help="folder for logs and result.json (default out/testbed/NAME)")
    ap.add_argument("--json", action="store_true", help="print result.json instead of the table")
    ap.add_argument("--reuse", action="store_true",
                    help="analyse the logs already in --out instead of running the client again")
    ap.add_argument("--model-set", action="append", default=[], metavar="FIELD=VALUE",
                    help="set a field of `retrylab simulate` for the model only (a what-if, e.g. "
                         "strategy=nojitter; a planted error: ci.py --selftest); the flag wins "
                         "over the policy file's value")
    args = ap.parse_args()
    spec = load_scenario(args.scenario, args.policy)
    retrylab = find_retrylab(args.retrylab)
    name = os.path.splitext(os.path.basename(args.scenario))[0]
    out = args.out or os.path.join("out", "testbed", name)
    os.makedirs(out, exist_ok=True)
    fields, shown = policy_fields(retrylab, spec)
    model_spec = dict(spec, scenario=dict(spec["scenario"]))
    for item in args.model_set:
        key, sep, value = item.partition("=")
        if not sep or not key.replace("_", "").isalnum():
            fail("--model-set: FIELD=VALUE with FIELD a field of retrylab simulate (got %r)" % item)
        model_spec["scenario"][key] = value
    model, cmd, warnings = simulate(model_spec, retrylab, out)
    if args.reuse:
        with open(os.path.join(out, "real.json")) as f:
            real = json.load(f)
        paths, n_arrivals, wall = real["paths"], real["requests"], real["wall_seconds"]
    else:
        paths, n_arrivals, wall = run_real(spec, out, retrylab)
        with open(os.path.join(out, "real.json"), "w") as f:
            json.dump({"paths": paths, "requests": n_arrivals, "wall_seconds": wall}, f)
    run = compare.Run(paths["att"], paths["req"])
    trace_path = os.path.join(out, "trace.csv")
    check = tracefile.write_and_check(run, spec, fields, trace_path, retrylab)
    result = report.build(name, spec, fields, run, model, cmd, warnings, n_arrivals, wall, check)
    with open(os.path.join(out, "result.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result, indent=1) if args.json else report.table(result))


if __name__ == "__main__":
    main()

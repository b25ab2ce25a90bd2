"""The server's attempt log as a retrylab trace, held to `retrylab check`.

The header is the one `retrylab simulate --trace` writes for the same scenario and policy (so it
declares exactly what the engine would run: model, strategy, base, cap, server options, time_unit
ms and attempt_duration), with `runs=1`; the rows are the server's view of every attempt
(docs/traces.md, version 2, or 3 with each failure's kind when the engine's header is version 3): client = the request's index in arrival order, arrival = its first
attempt's arrival at the server, start = the attempt's arrival at the server, end = the end of its
service (or its rejection), retry = attempts before it, sleep = start − the previous attempt's
end (so it includes the loopback and the client's own scheduling, not only the backoff sleep), rows
in end order. Cancelled attempts (hedging) have no row, as in the engine's traces.

Not checked (the reason is recorded): hedged scenarios (docs/traces.md: a hedged trace is not one
to check) and load profiles (a trace header cannot carry one).

Invariants: the trace file is written whole; `retrylab check` is run with a list of arguments,
never through a shell.
"""
import json
import os
import subprocess


def engine_header(spec, retrylab, tmp):
    sc = spec["scenario"]
    cmd = [retrylab, "simulate", "--quiet", "--unit", "ms", "--attempt-duration",
           str(spec["attempt_duration"]), "--policy", spec["policy"], "--runs", "1", "--seed",
           str(spec["seed"]), "--trace", tmp]
    if spec.get("policy_select"):
        cmd += ["--policy-select", spec["policy_select"]]
    for key, value in sc.items():
        cmd += ["--" + key.replace("_", "-"), str(value)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if res.returncode != 0:
        return None, res.stderr.strip()
    header = []
    with open(tmp) as f:
        for line in f:
            if not line.startswith("#"):
                header.append(line)  # the column line
                break
            header.append(line)
    os.remove(tmp)
    return header, None


def rows(run, kinds=False):
    """Trace rows of the server's attempts; None when a request's attempts overlap (hedging).
    With kinds (a version-3 header: its column line ends in `kind`), a failure's row ends with the
    kind the server gave it and a success's with an empty field."""
    order = sorted(run.by_request, key=lambda rid: run.by_request[rid][0]["arrival"])
    out = []
    for client, rid in enumerate(order):
        atts = [a for a in run.by_request[rid] if a["outcome"] in ("success", "failure")]
        if not atts:
            continue
        arrival = atts[0]["arrival"]
        prev_end = None
        for retry, a in enumerate(atts):
            if prev_end is not None and a["arrival"] < prev_end:
                return None
            sleep = "" if prev_end is None else repr(a["arrival"] - prev_end)
            line = "0,%d,%r,%r,%r,%s,%d,%s,0" % (
                client, arrival, a["arrival"], a["end"], a["outcome"], retry, sleep)
            if kinds:
                line += "," + (a.get("kind") or "retryable" if a["outcome"] == "failure" else "")
            out.append((a["end"], line))
            prev_end = a["end"]
    out.sort(key=lambda r: r[0])
    return [line for _, line in out]


def write_and_check(run, spec, fields, path, retrylab):
    if "hedge_attempts" in fields:
        return {"summary": "not checked: a hedged trace is not one to check (docs/traces.md)"}
    if "load_profile" in spec["scenario"]:
        return {"summary": "not checked: a trace header cannot carry a load profile"}
    header, err = engine_header(spec, retrylab, path + ".engine")
    if header is None:
        return {"summary": "not checked: the engine would not write this scenario's trace: " + err}
    body = rows(run, kinds=header[-1].rstrip("\n").endswith(",kind"))
    if body is None:
        return {"summary": "not checked: a request's attempts overlap"}
    last_end = max((a["end"] for a in run.attempts if a["end"] is not None), default=0.0)
    # The server hears a request a loopback hop after the client sent it: the header's horizon is
    # the scenario's plus the largest such lag seen, so a request sent just before the horizon is
    # not declared a late arrival.
    lag = max((run.by_request[r["request"]][0]["arrival"] - r["arrival"] for r in run.requests
               if r["request"] in run.by_request), default=0.0)
    horizon = float(spec["scenario"]["horizon"]) + max(0.0, lag)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for line in header:
            if line.startswith("# runs="):
                line = "# runs=1\n"
            elif line.startswith("# horizon="):
                line = "# horizon=%r\n" % horizon
            f.write(line)
        for line in body:
            f.write(line + "\n")
        f.write("# run_end run=0 stop=finished stop_time=%r\n" % last_end)
    os.replace(tmp, path)
    res = subprocess.run([retrylab, "check", "--format", "json", path], capture_output=True,
                         text=True, timeout=300)
    if res.returncode == 2:
        return {"summary": "malformed (exit 2): " + res.stderr.strip(), "exit": 2}
    doc = json.loads(res.stdout)
    verdicts = {}
    failed = []
    for c in doc.get("checks", []):
        verdicts[c["verdict"]] = verdicts.get(c["verdict"], 0) + 1
        if c["verdict"].lower() == "fail":
            failed.append({"check": c["check"], "count": c.get("count"),
                           "observed": c.get("observed"), "expected": c.get("expected")})
    summary = "exit %d; %s" % (res.returncode, ", ".join(
        "%d %s" % (n, v) for v, n in sorted(verdicts.items())))
    if failed:
        summary += "; failed: " + "; ".join("%s (%s rows)" % (f["check"], f["count"])
                                            for f in failed)
    return {"summary": summary, "exit": res.returncode, "failed": failed, "verdicts": verdicts,
            "trace": path, "loopback_lag_max_ms": lag}

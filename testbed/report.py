"""A testbed run's result: the real library's numbers beside retrylab's, with verdicts.

`build` gathers one run (compare.Run) and simulate's JSON into one document (result.json);
`table` prints it for people. Verdicts: "agree (inside)" when the real value lies in the model's
95% prediction interval for one run, "agree (5%)" when within 5% of the model's mean, else
"DIFFER"; a scenario marked `pending` (a mechanism the engine does not have yet) prints the
prediction as pending instead of judging it.

Invariants: pure; reads nothing but its arguments.
"""
import json
import math

import compare
import laws


def _metric(model, key):
    return model.get("metrics", {}).get(key) or {}


def _row(name, real, summary, unit, pending):
    mean, lo, hi = compare.prediction_interval(summary) if summary else (None, None, None)
    v = "pending" if pending else compare.verdict(real, mean, lo, hi)
    rel = None
    if real is not None and mean not in (None, 0):
        rel = (real - mean) / abs(mean)
    return {"metric": name, "unit": unit, "real": real, "model_mean": mean, "model_lo": lo,
            "model_hi": hi, "model_sd": (summary or {}).get("sd"), "model_n": (summary or {}).get("n"),
            "rel_diff": rel, "verdict": v}


def _grpc_policy(spec):
    if spec["client"] == "botocore":
        return None
    with open(spec["policy"]) as f:
        doc = json.load(f)
    for mc in doc.get("methodConfig", []):
        if "retryPolicy" in mc:
            return mc["retryPolicy"]
    return None


def sleep_rows(run, spec, fields):
    gaps = run.sleeps()
    policy = _grpc_policy(spec)
    noise = run.overhead_sample()
    calibration = None
    if spec["client"] == "grpcio" and policy is not None and gaps.get(1):
        # C-core waits initialBackoff exactly before the first retry: what the server sees beyond
        # it is the loopback and C-core's timer, the noise of every later gap of this run
        base = laws.library_base_ms(policy)
        calibration = [g - base for g in gaps[1]]
        noise = calibration
    rows = []
    for k in sorted(gaps):
        vals = gaps[k]
        if len(vals) < 5:
            continue
        row = {"retry": k, "n": len(vals), "median_ms": compare.nearest_rank(vals, 0.5),
               "min_ms": min(vals), "max_ms": max(vals),
               "library_point_mass": spec["client"] == "grpcio" and k == 1}
        if calibration is not None and k == 1:
            row["calibration"] = {"median_ms": compare.nearest_rank(calibration, 0.5),
                                  "p99_ms": compare.nearest_rank(calibration, 0.99),
                                  "min_ms": min(calibration), "max_ms": max(calibration)}
        for label, cdf in (("model", laws.model_sleep_cdf(fields, k)),
                           ("library", laws.library_sleep_cdf(spec["client"], policy, k))):
            if cdf is None:
                row["ks_" + label] = row["p_" + label] = None
                row["ks_%s_noise" % label] = row["p_%s_noise" % label] = None
                continue
            d = compare.ks_distance(vals, cdf)
            row["ks_" + label], row["p_" + label] = d, compare.ks_pvalue(d, len(vals))
            # the same law plus the measured time outside the server (the loopback both ways and
            # the client's own work: compare.Run.overhead_sample), added as independent noise
            noisy = laws.plus_noise(cdf, noise)
            d = compare.ks_distance(vals, noisy) if noise else None
            if label == "library" and row.get("calibration"):
                d = None  # the calibration itself: no test
            row["ks_%s_noise" % label] = d
            row["p_%s_noise" % label] = compare.ks_pvalue(d, len(vals)) if d is not None else None
        rows.append(row)
    return rows


def series_rows(run, spec, model):
    sc = spec["scenario"]
    series = model.get("series")
    if not series:
        return []
    bin_ms = float(spec["bin"])
    horizon = float(sc["horizon"])
    succ, backlog = run.series(bin_ms, horizon)
    if "outage_end" in sc:
        lo_t, hi_t = float(sc["outage_start"]) - 3 * bin_ms, float(sc["outage_end"]) + 6 * bin_ms
    elif "load_profile" in sc:
        lo_t, hi_t = 0.0, horizon
    else:
        return []
    rows = []
    for k in range(len(succ)):
        t = k * bin_ms
        if not lo_t <= t < hi_t:
            continue
        gm, glo, ghi = compare.model_bin(series, "successes", k)
        bm, blo, bhi = compare.model_bin(series, "backlog", k)
        rows.append({"t_ms": t, "goodput_real": succ[k], "goodput_model": gm, "goodput_lo": glo,
                     "goodput_hi": ghi, "backlog_real": backlog[k], "backlog_model": bm,
                     "backlog_lo": blo, "backlog_hi": bhi,
                     "goodput_inside": glo is not None and glo <= succ[k] <= ghi,
                     "backlog_inside": blo is not None and blo <= backlog[k] <= bhi})
    return rows


def throttle_row(run, spec, fields, model):
    if "budget" not in fields:
        return None
    max_attempts = int(float(fields.get("max_attempts", {}).get("value", 0) or 0))
    statuses = {"retryable": {"UNAVAILABLE", "ServiceUnavailable"},
                "throttled": {"RESOURCE_EXHAUSTED", "ThrottlingException"}}.get(
                    spec["failure_kind"], set())
    first, count = run.first_denied_retry(max_attempts, statuses)
    series = model.get("series") or {}
    q = (series.get("quantities") or {}).get("retries_denied")
    model_any = model_typical = None
    if q:
        for k, m in enumerate(q["mean"]):
            if m is not None and m > 0 and model_any is None:
                model_any = k * series["bin"]
            if m is not None and m >= 1 and model_typical is None:
                model_typical = k * series["bin"]
    denied = _metric(model, "retries_denied")
    return {"first_denied_real_ms": first, "denied_real": count,
            "first_bin_any_model_ms": model_any, "first_bin_mean_ge1_model_ms": model_typical,
            "denied_model_mean": denied.get("mean"), "denied_model_sd": denied.get("sd")}


def build(name, spec, fields, run, model, cmd, warnings, n_arrivals, wall, check):
    pending = spec.get("pending")
    hedged = "hedge_attempts" in fields
    rows = [_row("attempts per request", run.attempts_per_request(),
                 _metric(model, "attempts_per_client"), "attempts", pending),
            _row("lost fraction", run.lost_fraction(), _metric(model, "lost_fraction"), "fraction",
                 pending),
            _row("latency p99", run.latency_p99(), _metric(model, "latency_p99"), "ms",
                 pending)]
    if hedged:
        rows.append(_row("added load (attempts per request - 1)", run.hedges_per_request(),
                         _shift(_metric(model, "attempts_per_client"), -1.0), "attempts", pending))
    missing = sum(1 for r in run.requests if r["request"] not in run.by_request)
    return {"scenario": name, "title": spec.get("title", ""), "client": spec["client"],
            "policy": spec["policy"], "failure_kind": spec["failure_kind"],
            "pending": pending, "requests": n_arrivals, "requests_ended": len(run.requests), "requests_unfinished": len(run.unfinished),
            "requests_unseen_by_server": missing, "attempts": len(run.attempts),
            "wall_seconds": wall, "simulate": cmd, "simulate_warnings": warnings,
            "rows": rows, "sleeps": sleep_rows(run, spec, fields),
            "throttle": throttle_row(run, spec, fields, model),
            "series": series_rows(run, spec, model), "check": check,
            "statuses": _count(r["status"] for r in run.requests),
            "client_overhead_ms": dict(zip(("median", "p90", "n"), run.client_overhead()))}


def _shift(summary, by):
    if not summary or summary.get("mean") is None:
        return summary
    out = dict(summary)
    out["mean"] = summary["mean"] + by
    return out


def _count(items):
    out = {}
    for x in items:
        out[x] = out.get(x, 0) + 1
    return out


def _f(x, digits=4):
    if x is None:
        return "-"
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        return ("%." + str(digits) + "g") % x
    return str(x)


def table(res):
    lines = ["%s: %s" % (res["scenario"], res["title"]),
             "client %s, policy %s, failures %s; %d requests (%d ended, %d unfinished when the "
             "client's time ran out), %d attempts seen, %.1f s"
             % (res["client"], res["policy"], res["failure_kind"], res["requests"],
                res["requests_ended"], res.get("requests_unfinished", 0), res["attempts"],
                res["wall_seconds"]),
             "statuses: " + ", ".join("%s %d" % kv for kv in sorted(res["statuses"].items())),
             "time a one-attempt request spent outside the server (library, loopback, scheduling): "
             "median %s ms, p90 %s ms (n %s)" % (_f(res["client_overhead_ms"]["median"]),
                                                 _f(res["client_overhead_ms"]["p90"]),
                                                 res["client_overhead_ms"]["n"])]
    if res["pending"]:
        lines.append("prediction pending: " + res["pending"])
    lines += ["", "%-40s %10s %10s %23s %8s  %s" % ("metric", "real", "model", "95% PI (one run)",
                                                   "diff", "verdict")]
    for r in res["rows"]:
        lines.append("%-40s %10s %10s %23s %8s  %s" % (
            r["metric"] + " (" + r["unit"] + ")", _f(r["real"]), _f(r["model_mean"]),
            "[%s, %s]" % (_f(r["model_lo"]), _f(r["model_hi"])),
            "-" if r["rel_diff"] is None else "%+.1f%%" % (100 * r["rel_diff"]), r["verdict"]))
    if res["sleeps"]:
        lines += ["", "sleeps before retry k (server-observed gap, ms): KS distance and p-value",
                  "(+noise: the law plus the measured noise: grpcio, the first retry's excess over "
                  "initialBackoff, which C-core waits exactly; others, the time a one-attempt "
                  "request spent outside the server)",
                  "%3s %5s %8s %8s %8s %8s %8s %9s %8s %8s %9s" % (
                      "k", "n", "min", "median", "max", "KS model", "p", "p +noise", "KS lib",
                      "p", "p +noise")]
        for s in res["sleeps"]:
            lines.append("%3d %5d %8s %8s %8s %8s %8s %9s %8s %8s %9s" % (
                s["retry"], s["n"], _f(s["min_ms"]), _f(s["median_ms"]), _f(s["max_ms"]),
                _f(s["ks_model"], 3), _f(s["p_model"], 3), _f(s["p_model_noise"], 3),
                _f(s["ks_library"], 3), _f(s["p_library"], 3), _f(s["p_library_noise"], 3)))
            if s.get("calibration"):
                c = s["calibration"]
                lines.append("    retry 1 is C-core's exact initialBackoff: the server saw it %s ms "
                             "late at the median, %s ms at p99 (%s to %s): the noise used above"
                             % (_f(c["median_ms"], 3), _f(c["p99_ms"], 3), _f(c["min_ms"], 3),
                                _f(c["max_ms"], 3)))
    if res["throttle"]:
        t = res["throttle"]
        lines += ["", "retries denied by the budget: real first at %s ms (%d requests); model: "
                  "first bin with any at %s ms, first with mean >= 1 at %s ms (%s per run)" % (
                      _f(t["first_denied_real_ms"]), t["denied_real"],
                      _f(t["first_bin_any_model_ms"]), _f(t["first_bin_mean_ge1_model_ms"]),
                      _f(t["denied_model_mean"]))]
    if res["series"]:
        lines += ["", "%8s %8s %22s %9s %22s" % ("t (ms)", "goodput", "model [PI]", "backlog",
                                                 "model [PI]")]
        for s in res["series"]:
            lines.append("%8d %8d %22s %9s %22s" % (
                s["t_ms"], s["goodput_real"], "%s [%s, %s]%s" % (
                    _f(s["goodput_model"], 3), _f(s["goodput_lo"], 3), _f(s["goodput_hi"], 3),
                    "" if s["goodput_inside"] else "*"),
                _f(s["backlog_real"], 3), "%s [%s, %s]%s" % (
                    _f(s["backlog_model"], 3), _f(s["backlog_lo"], 3), _f(s["backlog_hi"], 3),
                    "" if s["backlog_inside"] else "*")))
        inside = sum(s["goodput_inside"] for s in res["series"])
        binside = sum(s["backlog_inside"] for s in res["series"])
        lines.append("bins inside the model's 95%% PI: goodput %d/%d, backlog %d/%d (* outside)"
                     % (inside, len(res["series"]), binside, len(res["series"])))
    if res["check"]:
        c = res["check"]
        lines += ["", "retrylab check on the server-side trace: " + c.get("summary", "")]
    return "\n".join(lines)

"""What a testbed run measured, and how it stands against retrylab's prediction.

Reads the server's attempt log and the client's request log (times in ms since the run's epoch) and
computes the quantities `retrylab simulate` reports under the same names (docs/models.md §5):
attempts per request, lost fraction, latency p99, the sleeps between a request's attempts, the
first retry a budget denied, and per-bin successes and backlog. Each real number is one run; the
model's runs give its spread, so a real value is judged against the model's 95% *prediction*
interval for one run, mean ± t·sd·√(1 + 1/n), and by its relative difference.

Invariants: pure functions of the logs and the model's JSON; no I/O but reading the files given.
"""
import json
import math

# Two-sided 95% Student t quantiles (df -> t); df > 120 uses the normal's 1.96.
_T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
        10: 2.228, 15: 2.131, 20: 2.086, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980}


def t95(df):
    if df <= 0:
        return float("nan")
    keys = sorted(_T95)
    for k in keys:
        if df <= k:
            return _T95[k]
    return 1.96


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def prediction_interval(summary):
    """Model run-to-run 95% prediction interval for one more run, from simulate's summary."""
    mean, sd, n = summary.get("mean"), summary.get("sd"), summary.get("n")
    if mean is None:
        return None, None, None
    if sd is None or not n or n < 2:
        return mean, mean, mean
    half = t95(n - 1) * sd * math.sqrt(1 + 1.0 / n)
    return mean, max(0.0, mean - half) if mean >= 0 else mean - half, mean + half


def verdict(real, mean, lo, hi, rel=0.05):
    if real is None or mean is None:
        return "n/a"
    if lo is not None and lo <= real <= hi:
        return "agree (inside)"
    if mean != 0 and abs(real - mean) <= rel * abs(mean):
        return "agree (5%)"
    return "DIFFER"


def nearest_rank(values, q):
    if not values:
        return None
    s = sorted(values)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def ks_pvalue(d, n):
    """Asymptotic Kolmogorov p-value of distance d on n values (Numerical Recipes' correction)."""
    if n <= 0:
        return float("nan")
    lam = (math.sqrt(n) + 0.12 + 0.11 / math.sqrt(n)) * d
    if lam < 1e-3:
        return 1.0
    total = 0.0
    for j in range(1, 101):
        term = 2 * (-1) ** (j - 1) * math.exp(-2 * j * j * lam * lam)
        total += term
        if abs(term) < 1e-12:
            break
    return min(1.0, max(0.0, total))


def ks_distance(values, cdf):
    s = sorted(values)
    n = len(s)
    d = 0.0
    for i, x in enumerate(s):
        f = cdf(x)
        d = max(d, f - i / n, (i + 1) / n - f)
    return d


def uniform_cdf(lo, hi):
    if hi <= lo:  # a point mass at lo
        return lambda x: 1.0 if x >= lo else 0.0
    return lambda x: min(1.0, max(0.0, (x - lo) / (hi - lo)))


class Run:
    """One testbed run: the server's attempts and the client's requests, joined by request id."""

    def __init__(self, attempts_path, requests_path):
        self.attempts = read_jsonl(attempts_path)
        everything = read_jsonl(requests_path)
        # a request still running when the client's time ran out: counted apart, never as lost
        self.unfinished = [r for r in everything if r["outcome"] == "unfinished"]
        self.requests = [r for r in everything if r["outcome"] != "unfinished"]
        self.by_request = {}
        for a in self.attempts:
            self.by_request.setdefault(a["request"], []).append(a)
        for lst in self.by_request.values():
            lst.sort(key=lambda a: (a["arrival"], a["attempt"]))

    def attempts_per_request(self):
        n = len(self.requests)
        if n == 0 or self.unfinished:
            return None  # an unfinished request's attempts are not all in yet
        return sum(len(self.by_request.get(r["request"], [])) for r in self.requests) / n

    def lost_fraction(self):
        ended = [r for r in self.requests]
        if not ended:
            return None
        return sum(1 for r in ended if r["outcome"] != "success") / len(ended)

    def latencies(self):
        return [r["end"] - r["arrival"] for r in self.requests if r["outcome"] == "success"]

    def latency_p99(self):
        return nearest_rank(self.latencies(), 0.99)

    def sleeps(self):
        """retry index k (1 = before the second attempt) -> server-observed gaps (ms): arrival of
        attempt k+1 minus the end of attempt k, for requests whose attempts did not overlap."""
        out = {}
        for lst in self.by_request.values():
            for prev, cur in zip(lst, lst[1:]):
                if prev["end"] is None or cur["arrival"] < prev["end"]:
                    continue  # overlapping (hedged) attempts have no sleep
                out.setdefault(cur["attempt"] - 1, []).append(cur["arrival"] - prev["end"])
        return out

    def overhead_sample(self):
        """Per one-attempt request, the time (ms) it spent outside the server (see client_overhead)."""
        extra = []
        for r in self.requests:
            atts = self.by_request.get(r["request"], [])
            if len(atts) == 1 and r["issued"] is not None and atts[0]["end"] is not None:
                extra.append((r["end"] - r["issued"]) - (atts[0]["end"] - atts[0]["arrival"]))
        return extra

    def client_overhead(self):
        """Median and p90 (ms) of what a one-attempt request spent outside the server: the client's
        latency minus the attempt's time at the server (the library's own work, loopback, and the
        client process's scheduling on a shared machine)."""
        extra = self.overhead_sample()
        return nearest_rank(extra, 0.5), nearest_rank(extra, 0.9), len(extra)

    def hedges_per_request(self):
        n = len(self.requests)
        return None if n == 0 else (sum(len(self.by_request.get(r["request"], [])) - 1
                                        for r in self.requests) / n)

    def first_denied_retry(self, max_attempts, retried_statuses):
        """Client time (ms) at which the first request ended in a retryable failure with fewer
        attempts than allowed: a retry its budget denied. None if none was."""
        times = []
        for r in self.requests:
            if r["outcome"] == "success" or r["status"] not in retried_statuses:
                continue
            if len(self.by_request.get(r["request"], [])) < max_attempts:
                times.append(r["end"])
        return (min(times), len(times)) if times else (None, 0)

    def series(self, bin_ms, horizon_ms):
        """Per bin: attempts ending in success (goodput) and the time-averaged backlog (requests
        arrived and not yet ended)."""
        bins = int(math.ceil(horizon_ms / bin_ms))
        succ = [0] * bins
        for a in self.attempts:
            if a["outcome"] == "success" and a["end"] is not None:
                k = int(a["end"] // bin_ms)
                if 0 <= k < bins:
                    succ[k] += 1
        backlog = [0.0] * bins
        for r in self.requests:
            s, e = r["arrival"], r["end"]
            k0, k1 = int(max(0, s) // bin_ms), int(min(e, bins * bin_ms - 1e-9) // bin_ms)
            for k in range(k0, min(k1, bins - 1) + 1):
                lo, hi = max(s, k * bin_ms), min(e, (k + 1) * bin_ms)
                if hi > lo:
                    backlog[k] += (hi - lo) / bin_ms
        return succ, backlog


def model_bin(series, key, k):
    """Mean and 95% prediction interval of one more run's value in bin k of simulate's series."""
    q = series["quantities"].get(key)
    if q is None or k >= len(q["mean"]) or q["mean"][k] is None:
        return None, None, None
    mean, lo, n = q["mean"][k], q["lo"][k], q["n"][k]
    if lo is None or not n or n < 2:
        return mean, mean, mean
    sd = (mean - lo) / t95(n - 1) * math.sqrt(n)
    half = t95(n - 1) * sd * math.sqrt(1 + 1.0 / n)
    return mean, max(0.0, mean - half), mean + half  # every quantity binned here is >= 0

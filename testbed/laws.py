"""Laws the testbed compares against: arrivals' load profile and the sleep before retry k.

`model_sleep_cdf` is the law retrylab runs for a policy (what `retrylab policy show` prints:
strategy, base, cap, multiplier); `library_sleep_cdf` is the law the library's own code draws,
read from its source (docs/policies.md, "What the libraries do"):

- gRPC C-core (grpcio 1.51, src/core/lib/backoff/backoff.cc with RETRY_BACKOFF_JITTER 0.2 in
  retry_filter.cc): the first retry waits initialBackoff exactly; retry k >= 2 waits
  min(initialBackoff·m^(k−1), maxBackoff)·U(0.8, 1.2).
- grpc-js (1.14, retrying-call.ts getNextRetryJitter): every retry k waits
  min(initialBackoff·m^(k−1), maxBackoff)·U(0.8, 1.2).
- botocore standard and adaptive (retries/standard.py ExponentialBackoff): min(U(0,1)·2^(k−1), 20) s.

Invariants: pure functions; times in ms.
"""
import math


def profile(text, rate):
    """(rate_at(t), peak) for `rate` or a load profile `step:t:r,...` or `t:r,t:r,...` (ms, per ms)."""
    if text is None:
        r = float(rate)
        return (lambda t: r), r
    step = text.startswith("step:")
    body = text[5:] if step else text
    pts = []
    for part in body.split(","):
        t, _, r = part.partition(":")
        pts.append((float(t), float(r)))
    if not pts or any(b[0] <= a[0] for a, b in zip(pts, pts[1:])) or any(r < 0 for _, r in pts):
        raise ValueError("load_profile: times must increase and rates be >= 0 (got %r)" % text)
    peak = max(r for _, r in pts)

    def rate_at(t):
        if step:
            cur = 0.0
            for pt, pr in pts:
                if t >= pt:
                    cur = pr
            return cur
        if t <= pts[0][0]:
            return pts[0][1]
        for (t0, r0), (t1, r1) in zip(pts, pts[1:]):
            if t < t1:
                return r0 + (r1 - r0) * (t - t0) / (t1 - t0)
        return pts[-1][1]

    return rate_at, peak


def _uniform(lo, hi):
    if hi <= lo:
        return lambda x: 1.0 if x >= lo else 0.0
    return lambda x: min(1.0, max(0.0, (x - lo) / (hi - lo)))


def window(base, cap, mult, k):
    w = base * mult ** (k - 1)
    return w if cap is None else min(cap, w)


def model_sleep_cdf(fields, k):
    """CDF of the sleep before retry k in the law retrylab runs (ms), or None if not a law it has
    a closed CDF for here."""
    strategy = fields.get("strategy", {}).get("value")
    base = _num(fields.get("base"))
    cap = _num(fields.get("cap"))
    mult = _num(fields.get("multiplier")) or 2.0
    if strategy is None or base is None:
        return None
    w = window(base, cap, mult, k)
    if strategy == "full":
        return _uniform(0.0, w)
    if strategy == "equal":
        return _uniform(w / 2, w)
    if strategy == "nojitter":
        return _uniform(w, w)
    return None


def library_sleep_cdf(client, grpc_policy, k):
    """CDF of the sleep before retry k that the library's own code draws (ms)."""
    if client == "botocore":
        w = min(2.0 ** (k - 1), 20.0) * 1000.0
        # min(U·2^(k−1), 20): uniform below 20 s, an atom at 20 s when 2^(k−1) > 20.
        hi = 2.0 ** (k - 1) * 1000.0
        return lambda x: 1.0 if x >= w else min(1.0, max(0.0, x / hi))
    if grpc_policy is None:
        return None
    base = _duration_ms(grpc_policy["initialBackoff"])
    cap = _duration_ms(grpc_policy["maxBackoff"])
    mult = float(grpc_policy["backoffMultiplier"])
    w = window(base, cap, mult, k)
    if client == "grpcio" and k == 1:
        return _uniform(base, base)
    return _uniform(0.8 * w, 1.2 * w)


def plus_noise(cdf, noise):
    """CDF of X + E, X by `cdf`, E drawn from the sample `noise` (independent): mean of F(x − e)."""
    if not noise:
        return cdf
    m = len(noise)
    return lambda x: sum(cdf(x - e) for e in noise) / m


def library_base_ms(grpc_policy):
    return _duration_ms(grpc_policy["initialBackoff"])


def _num(field):
    if field is None:
        return None
    v = field.get("value")
    if v in (None, "none"):
        return None
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x * {"s": 1000.0, "ms": 1.0}.get(field.get("unit"), 1.0)


def _duration_ms(text):
    if not isinstance(text, str) or not text.endswith("s"):
        raise ValueError("gRPC duration must end in 's' (got %r)" % (text,))
    return float(text[:-1]) * 1000.0


def pit(values_by_k, cdf_for_k):
    """Probability integral transform of every sleep under its own retry index's law: uniform on
    [0, 1] when the law is right (a law with an atom gives its CDF value, so only continuous laws
    make a clean pooled test)."""
    out = []
    for k, vals in values_by_k.items():
        cdf = cdf_for_k(k)
        if cdf is None:
            continue
        out.extend(cdf(v) for v in vals)
    return out


def is_finite(x):
    return x is not None and not (isinstance(x, float) and math.isnan(x))

"""Backoff strategies as docs/models.md §2 states them, written from the docs, not from retrylab's
code, and the backoff and jitter bugs of the corpus. A bug is one named change to one rule; with
bug=None the rule is the documented one.

After the k-th failure (k = 1, 2, ...) a client sleeps, with w_k = min(c, b * 2^(k-1)):
  none 0; nojitter w_k; full U(0, w_k); equal w_k/2 + U(0, w_k/2);
  decorrelated s_k = min(c, U(b, 3 s_(k-1))), s_0 = b; window U(0, W).
"""
import math

BUGS = {
    # backoff arithmetic
    "retry-index-off-by-one": "w_k = min(c, b*2^k): the retry counted from 1 where the formula counts from 0",
    "cap-before-doubling": "w_k = 2*min(c, w_(k-1)): the cap applied before the doubling, so windows reach 2c",
    "no-cap": "w_k = b*2^(k-1): the cap forgotten",
    "multiplier-3": "w_k = min(c, b*3^(k-1)): the multiplier 3 where 2 is declared",
    "multiplier-1.5": "w_k = min(c, b*1.5^(k-1)): the multiplier 1.5 where 2 is declared",
    "base-ignored": "w_k = min(c, 1*2^(k-1)): the declared base ignored (1 used)",
    "window-linear": "w_k = min(c, b*k): the window grows linearly",
    "cap-on-sleep": "full jitter min(c, U(0, b*2^(k-1))): the cap applied to the sleep, not to the window",
    # jitter
    "full-half-range": "full jitter U(0, w_k/2): half the range",
    "full-triangular": "full jitter w_k*(U1 + U2)/2: a triangular law where the uniform is declared",
    "full-skewed": "full jitter w_k*U^2: a law skewed towards short sleeps",
    "full-exponential": "full jitter min(w_k, Exp(mean w_k/2)): an exponential law with the right mean",
    "equal-lower-half": "equal jitter U(0, w_k/2): the random half without the fixed half (the halves swapped)",
    "decorrelated-last-cap": "decorrelated U(b, 3*min(c, 3*s_(k-2))): the last draw's upper limit where the last sleep is due",
    "decorrelated-uncapped": "decorrelated U(b, 3*x_(k-1)) with x the uncapped draw: the cap not carried into the next draw",
    "decorrelated-from-zero": "decorrelated min(c, U(0, 3*s_(k-1))): the draw from 0 instead of from b",
    "decorrelated-times-2": "decorrelated min(c, U(b, 2*s_(k-1))): 2 where the rule has 3",
}


def window(sc, k, bug=None):
    """w_k: the window before the k-th retry."""
    b, c = sc["base"], sc["cap"]
    m = {"multiplier-3": 3.0, "multiplier-1.5": 1.5}.get(bug, 2.0)
    e = min(k if bug == "retry-index-off-by-one" else k - 1, 1000)  # past 2^1000 every window is capped
    if bug == "window-linear":
        return min(c, b * k)
    if bug in ("no-cap", "cap-on-sleep"):
        return b * m ** e
    if bug == "cap-before-doubling":
        return b if k == 1 else m * min(c, b * m ** (e - 1))
    return min(c, b * m ** e)


def sleep(sc, k, prev, rng, bug=None):
    """(the sleep before the k-th retry, the state the next call gets as prev).

    prev is the previous sleep (decorrelated jitter; None before the first retry: then s_0 = b)."""
    if bug == "base-ignored":
        sc = dict(sc, base=1.0)
    s, b, c = sc["strategy"], sc["base"], sc["cap"]
    if s == "none":
        return 0.0, prev
    if s == "window":
        return rng.uniform(0.0, sc["window"]), prev
    if s == "decorrelated":
        last = b if prev is None else prev
        lo, top = b, 3.0 * last
        if bug == "decorrelated-last-cap":
            top = 3.0 * min(c, 3.0 * last)
        elif bug == "decorrelated-from-zero":
            lo = 0.0
        elif bug == "decorrelated-times-2":
            top = 2.0 * last
        x = rng.uniform(lo, top)
        # the uncapped draw is carried on by the bug; the sleep itself is capped either way
        return min(c, x), (x if bug == "decorrelated-uncapped" else min(c, x))
    w = window(sc, k, bug)
    if s == "nojitter":
        return w, prev
    if s == "equal":
        if bug == "equal-lower-half":
            return rng.uniform(0.0, w / 2), prev
        return w / 2 + rng.uniform(0.0, w / 2), prev
    if s != "full":
        raise ValueError("strategy " + s)
    if bug == "cap-on-sleep":
        return min(c, rng.uniform(0.0, w)), prev
    if bug == "full-half-range":
        return rng.uniform(0.0, w / 2), prev
    if bug == "full-triangular":
        return w * (rng.random() + rng.random()) / 2, prev
    if bug == "full-skewed":
        return w * rng.random() ** 2, prev
    if bug == "full-exponential":
        return min(w, rng.expovariate(2.0 / w)), prev
    return rng.uniform(0.0, w), prev


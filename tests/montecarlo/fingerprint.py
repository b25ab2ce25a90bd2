#!/usr/bin/env python3
"""Engine fingerprints: a fixed, pseudo-random catalogue of scenarios over every model, strategy and
option the engine has, each run through `retrylab simulate` (JSON summary, and the attempt trace),
reduced to one SHA-256 per scenario. The digests are committed (golden/fingerprints.txt), so any
change to the engine that moves a single bit of any result or any event's order in a trace fails
`montecarlo.fingerprints`; a change meant to keep the numbers (a refactor) is proven by it, and one
meant to change them regenerates the file (RETRYLAB_UPDATE_GOLDEN=1) and says why in its commit.

The catalogue is drawn from splitmix64 with a fixed seed (not Python's random, whose algorithms may
change between versions), so it is the same on every machine. A scenario the CLI refuses (exit 2,
an invalid combination) is recorded as refused: the refusals are part of the contract too.

Usage: fingerprint.py RETRYLAB GOLDEN_FILE [--update] [--count N]
"""
import hashlib
import os
import subprocess
import sys
import tempfile

MASK = (1 << 64) - 1


class SplitMix:
    def __init__(self, seed):
        self.x = seed & MASK

    def next(self):
        self.x = (self.x + 0x9E3779B97F4A7C15) & MASK
        z = self.x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n

    def chance(self, p_percent):
        return self.below(100) < p_percent

    def pick(self, items):
        return items[self.below(len(items))]


STRATEGIES = ["none", "nojitter", "full", "equal", "decorrelated", "window", "memoryless"]
MODELS = ["collision", "free", "shared", "ps", "none"]


def scenario(r, i):
    """The flags of scenario i (everything but --runs/--seed/--trace/--json)."""
    f = ["--model", r.pick(MODELS)]
    strategy = r.pick(STRATEGIES)
    f += ["--strategy", strategy]
    base = r.pick(["0.5", "1", "2"])
    f += ["--base", base]
    f += ["--cap", r.pick(["none", "16", "100", "1000"])]
    if strategy == "window":
        f += ["--window", r.pick(["4", "30"])]
    if r.chance(15):
        f += ["--multiplier", r.pick(["1", "1.5", "3"])]
    traffic = r.below(3)
    if traffic in (0, 2):
        f += ["--clients", str(1 + r.below(120))]
    if traffic in (1, 2):
        f += ["--rate", r.pick(["0.05", "0.15", "0.3", "0.6"]), "--horizon", r.pick(["200", "400", "800"])]
        if r.chance(30):
            f += ["--warmup", "50"]
    else:  # always bounded: a burst that never drains (constant backoff) would run to 1e7
        f += ["--horizon", r.pick(["60", "300", "1500"])]
    if r.chance(15):
        f += ["--collapse", r.pick(["20", "80"])]
    if r.chance(8):
        f += ["--retries", "off"]
    # Server-side and client-side options, each now and then; some combinations are refused.
    if r.chance(20):
        f += ["--rows", str(2 + r.below(7))]
    if r.chance(20):
        service = r.pick(["exponential", "lognormal", "round-trip"])
        f += ["--service", service]
        if service == "lognormal":
            f += ["--service-cv", r.pick(["0.5", "2"])]
    if r.chance(25):
        f += ["--delay", r.pick(["0.1", "0.5", "1"])]
        dist = r.pick(["fixed", "exponential", "normal"])
        f += ["--delay-dist", dist]
        if dist == "normal":
            f += ["--delay-sd", r.pick(["0", "0.2"])]
    if r.chance(15):
        f += ["--lock", "on"]
    if r.chance(25):
        if r.chance(30):
            f += ["--aimd", "on"]
            if r.chance(50):
                f += ["--aimd-initial", "4", "--aimd-min", "2", "--aimd-max", "30", "--aimd-backoff", "0.7"]
            if r.chance(50):
                f += ["--aimd-timeout", "3"]
        else:
            f += ["--limit", str(1 + r.below(12))]
        if r.chance(40):
            f += ["--overflow", "queue"]
        elif r.chance(50):
            f += ["--reject-cost", r.pick(["0.05", "0.3"])]
        if r.chance(50):
            f += ["--retry-after", r.pick(["1", "5"]), "--retry-after-rule", r.pick(["fixed", "uniform"])]
            if r.chance(50):
                f += ["--ignore-retry-after", "0.3"]
    if r.chance(10):
        f += ["--mix", "0.3", "--mix-strategy", r.pick(STRATEGIES[:5]), "--mix-base", "1", "--mix-cap", "50"]
    if r.chance(20):
        f += ["--timeout", r.pick(["1.5", "3", "10"])]
        if r.chance(40):
            f += ["--idempotency", r.pick(["per-attempt", "fixed"])]
    if r.chance(20):
        f += ["--max-attempts", str(1 + r.below(6))]
    if r.chance(12):
        f += ["--deadline", r.pick(["20", "200"])]
    if r.chance(12):
        f += ["--failure-prob", r.pick(["0.05", "0.3"])]
    if r.chance(12):
        f += ["--outage-start", "20", "--outage-end", "80", "--outage-fraction", r.pick(["1", "0.5"])]
        if r.chance(50):
            f += ["--recovery-window", "10"]
    needs_ms = False
    if r.chance(12):
        f += ["--budget", r.pick(["aws-standard", "grpc", "finagle", "sre-adaptive", "token-bucket"])]
        needs_ms = True
        if r.chance(30):
            f += ["--bucket-capacity", "20", "--bucket-cost", "2", "--bucket-refund", "0.5"]
    if r.chance(10):
        f += ["--breaker", r.pick(["hystrix", "resilience4j"])]
        needs_ms = True
    if needs_ms:
        f += ["--attempt-ms", r.pick(["5", "50"])]
    if r.chance(10):
        f += ["--settle", "on"]
    server_engine = r.chance(10)
    if server_engine:
        f += ["--server-engine"]
    return f


# Shapes the random catalogue seldom draws: the shortcuts (lock-step, one event per attempt), the
# Brooker preset, the token bucket's own numbers and settling.
FIXED = [
    ["--model", "collision", "--strategy", "nojitter", "--base", "1", "--cap", "64", "--clients", "40",
     "--horizon", "3000"],
    ["--model", "collision", "--strategy", "none", "--clients", "5", "--horizon", "500", "--warmup", "10"],
    ["--model", "free", "--strategy", "full", "--clients", "60", "--delay", "0.5", "--delay-dist", "normal",
     "--delay-sd", "0.1", "--service", "round-trip"],
    ["--model", "free", "--strategy", "equal", "--clients", "80", "--delay", "0.3", "--delay-dist", "exponential",
     "--rows", "3", "--horizon", "400"],
    ["--model", "brooker", "--strategy", "full", "--clients", "50"],
    ["--model", "brooker", "--strategy", "decorrelated", "--clients", "30", "--leg-sd", "0"],
    ["--model", "shared", "--strategy", "full", "--rate", "0.3", "--horizon", "300", "--budget", "token-bucket",
     "--bucket-capacity", "10", "--bucket-cost", "3", "--bucket-timeout-cost", "4", "--bucket-refund", "0.5",
     "--bucket-threshold", "1", "--attempt-ms", "10", "--timeout", "2"],
    ["--model", "shared", "--strategy", "equal", "--rate", "0.4", "--horizon", "200", "--max-attempts", "3",
     "--settle", "on", "--timeout", "2", "--idempotency", "fixed"],
    ["--model", "collision", "--strategy", "full", "--clients", "50", "--deadline", "30", "--settle", "on",
     "--limit", "3", "--overflow", "queue", "--lock", "on", "--rows", "2"],
]


def digest(retrylab, flags, tmp):
    trace = os.path.join(tmp, "t.csv")
    if os.path.exists(trace):
        os.remove(trace)
    cmd = [retrylab, "simulate", "--quiet", "--runs", "3", "--seed", "11", "--json", "--threads", "2",
           "--trace", trace] + flags
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if p.returncode == 2:
        return "refused"
    if p.returncode != 0:
        return f"exit{p.returncode}"
    h = hashlib.sha256(p.stdout)
    with open(trace, "rb") as t:
        h.update(t.read())
    return h.hexdigest()[:24]


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    retrylab, golden = args[0], args[1]
    update = "--update" in args or os.environ.get("RETRYLAB_UPDATE_GOLDEN") == "1"
    count = int(args[args.index("--count") + 1]) if "--count" in args else 600
    r = SplitMix(20261203)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(count):
            flags = FIXED[i] if i < len(FIXED) else scenario(r, i)
            lines.append(f"{i} {digest(retrylab, flags, tmp)} {' '.join(flags)}")
    text = "\n".join(lines) + "\n"
    if update:
        with open(golden, "w") as g:
            g.write(text)
        print(f"wrote {golden}: {count} scenarios")
        return 0
    with open(golden) as g:
        want = g.read().splitlines()
    got = text.splitlines()
    bad = [(w, x) for w, x in zip(want, got) if w != x]
    if len(want) != len(got):
        print(f"{len(got)} scenarios, the golden file has {len(want)}")
        return 1
    for w, x in bad[:20]:
        print(f"want {w}\n got {x}")
    refused = sum(1 for x in got if x.split()[1] == "refused")
    print(f"{len(got)} scenarios ({refused} refused by design), {len(bad)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

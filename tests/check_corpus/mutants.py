"""The corpus: eight families (a model under burst or steady traffic, each with one scenario and a
correct simulator) and the mutants, each one documented bug planted in one family's simulator.
Scenarios are in attempt-durations; `runs` is the trace size the catch-rate test checks (the size
docs/traces.md recommends: about 10^4 attempts, and 1,000 sleeps per retry index for the KS tests).
"""
import backoff
import clients
import sim_fixed
import sim_ps

FAMILIES = {
    "collision-burst": dict(model="collision", strategy="full", base=1.0, cap=256.0, clients=50, rate=0.0,
                            horizon=5000.0, runs=20),
    "collision-steady": dict(model="collision", strategy="equal", base=1.0, cap=64.0, clients=0, rate=0.1,
                             horizon=2000.0, runs=10),
    "free-burst": dict(model="free", strategy="nojitter", base=1.0, cap=64.0, clients=40, rate=0.0, horizon=5000.0,
                       runs=12),
    "free-steady": dict(model="free", strategy="full", base=1.0, cap=64.0, clients=0, rate=0.3, horizon=2000.0,
                        runs=10, unit="ms", attempt_duration=10.0),
    "shared-burst": dict(model="shared", strategy="decorrelated", base=2.0, cap=20.0, clients=50, rate=0.0,
                         horizon=5000.0, runs=20),
    "shared-steady": dict(model="shared", strategy="full", base=1.0, cap=64.0, clients=0, rate=0.2, horizon=2000.0,
                          runs=10),
    "ps-burst": dict(model="ps", strategy="full", base=1.0, cap=1000.0, clients=200, rate=0.0, horizon=5000.0,
                     runs=20),
    "ps-steady": dict(model="ps", strategy="full", base=1.0, cap=1000.0, clients=0, rate=0.7, horizon=2000.0,
                      runs=10, unit="ms", attempt_duration=10.0),
}

# (family, bug): every bug is documented where it is planted (backoff.BUGS, clients.*_BUGS,
# sim_fixed.RESOURCE_BUGS, sim_ps.RESOURCE_BUGS).
MUTANTS = [
    ("collision-burst", "retry-index-off-by-one"),
    ("collision-burst", "cap-before-doubling"),
    ("collision-burst", "window-linear"),
    ("collision-burst", "cap-on-sleep"),
    ("collision-burst", "full-skewed"),
    ("collision-burst", "full-triangular"),
    ("collision-burst", "same-seed-jitter"),
    ("collision-burst", "jitter-per-client"),
    ("collision-burst", "collision-one-sided"),
    ("collision-burst", "conflict-window-1.5"),
    ("collision-burst", "client-lost"),
    ("collision-burst", "burst-at-t1"),
    ("collision-steady", "no-cap"),
    ("collision-steady", "equal-lower-half"),
    ("collision-steady", "conflict-window-1.5"),
    ("collision-steady", "arrivals-uniform-gaps"),
    ("collision-steady", "start-from-previous-start"),
    ("collision-steady", "steady-flagged-burst"),
    ("free-burst", "multiplier-3"),
    ("free-burst", "ties-all-fail"),
    ("free-burst", "ties-all-win"),
    ("free-burst", "ties-lowest-id"),
    ("free-burst", "client-duplicated"),
    ("free-burst", "burst-spread"),
    ("free-steady", "multiplier-1.5"),
    ("free-steady", "full-half-range"),
    ("free-steady", "full-exponential"),
    ("free-steady", "commit-on-failure"),
    ("free-steady", "rate-wrong-unit"),
    ("free-steady", "retry-after-success"),
    ("shared-burst", "base-ignored"),
    ("shared-burst", "decorrelated-last-cap"),
    ("shared-burst", "decorrelated-uncapped"),
    ("shared-burst", "decorrelated-from-zero"),
    ("shared-burst", "decorrelated-times-2"),
    ("shared-burst", "rate-not-divided"),
    ("shared-burst", "doomed-released-early"),
    ("shared-burst", "arrival-reset"),
    ("shared-steady", "rate-n-plus-one"),
    ("shared-steady", "rate-not-divided"),
    ("shared-steady", "no-cap"),
    ("shared-steady", "arrivals-fixed-gaps"),
    ("ps-burst", "rate-not-divided"),
    ("ps-burst", "fifo-server"),
    ("ps-burst", "burst-one-short"),
    ("ps-steady", "ps-fails-crowded"),
    ("ps-steady", "rate-n-plus-one"),
    ("ps-steady", "arrivals-fixed-gaps"),
    ("ps-steady", "rate-wrong-unit"),
]

# The bug family each bug belongs to, for the table of docs/traces.md.
GROUPS = [("backoff arithmetic", ["retry-index-off-by-one", "cap-before-doubling", "no-cap", "multiplier-3",
                                  "multiplier-1.5", "base-ignored", "window-linear", "cap-on-sleep"]),
          ("jitter", ["full-half-range", "full-triangular", "full-skewed", "full-exponential", "equal-lower-half",
                      "decorrelated-last-cap", "decorrelated-uncapped", "decorrelated-from-zero",
                      "decorrelated-times-2", "same-seed-jitter", "jitter-per-client"]),
          ("resource", list(sim_fixed.RESOURCE_BUGS) + list(sim_ps.RESOURCE_BUGS)),
          ("traffic", list(clients.TRAFFIC_BUGS)),
          ("bookkeeping", [b for b in clients.BOOKKEEPING_BUGS if "jitter" not in b])]


def simulator(family):
    return sim_fixed if FAMILIES[family]["model"] in ("collision", "free") else sim_ps


def describe(bug):
    return {**backoff.BUGS, **clients.TRAFFIC_BUGS, **clients.BOOKKEEPING_BUGS, **sim_fixed.RESOURCE_BUGS,
            **sim_ps.RESOURCE_BUGS}[bug]


def group_of(bug):
    return next(g for g, bugs in GROUPS if bug in bugs)

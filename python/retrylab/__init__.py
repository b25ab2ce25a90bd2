"""retrylab from Python: the CLI's commands as functions (docs/python.md).

    import retrylab
    r = retrylab.simulate(model="collision", strategy="full", clients=100, runs=20)
    r["metrics"]["attempts_per_client"]      # {"mean", "sd", "n", "ci95"}, as `retrylab simulate --json`
    r["per_run"]["drain_time"]               # numpy array, one value per run

Scenario fields are the CLI's, by the names of the field table (`retrylab.fields()`, `retrylab
simulate --list-fields`), with the same units (unit="ms", attempt_duration=20 as --unit ms
--attempt-duration 20) and defaults. A value may be a number, a string as typed on the command line
("none", "lognormal"), or True/False for on/off fields. Bad input raises ValueError with the CLI's
one-line message.
"""
import json as _json
import math as _math
import os as _os

from . import _core
from ._core import analytic  # noqa: F401  (retrylab.analytic.*: the closed forms)

__version__ = _core.version
__all__ = ["simulate", "advise", "check", "validate", "fields", "analytic", "__version__"]


def fields():
    """The scenario field table: name, flag, unit, default, allowed range, meaning, choices."""
    return _core.fields()


def _text(name, value):
    """A field value as the command line would spell it."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    if isinstance(value, float):
        if _math.isinf(value) and value > 0:
            return "none"
        return repr(value)  # the shortest text that round-trips, as the CLI prints
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    raise TypeError(f"field {name}: expected a number, a string or a bool (got {type(value).__name__})")


def simulate(*, runs=20, seed=1, threads=0, unit="attempt", attempt_duration=None, server_engine=False, series=None,
             policy=None, policy_select=None, strict=False, **fields):
    """Run one scenario `runs` times, as `retrylab simulate --json`.

    Returns the CLI's JSON document as a dict (plus "canonical", the scenario's canonical string)
    with "per_run": a dict of numpy arrays, one value per run, in the same unit.

    series: a bin width in `unit` (as `--series`): the result's "series" holds "t" (bin starts) and,
    per quantity, numpy arrays "mean", "lo", "hi" (the 95% interval) and "n" (runs defined in the
    bin; NaN where none); "series_frame" is the same as a pandas DataFrame (columns t, KEY, KEY_lo,
    KEY_hi) when pandas can be imported.

    policy: a client policy file (as `--policy`, docs/policies.md): retrylab TOML, a gRPC service
    config, an Envoy route, resilience4j YAML or AWS SDK settings; its fields apply unless given as
    keywords. policy_select names its gRPC method, resilience4j instance or AWS profile. What the
    file sets that retrylab does not model is a UserWarning each, or with strict=True a ValueError.
    """
    values = {name: _text(name, v) for name, v in fields.items()}
    if series is not None and (isinstance(series, bool) or not isinstance(series, (int, float))):
        raise TypeError(f"series: expected a number (a bin width in {unit}), got {type(series).__name__}")
    text, per_run = _core.simulate(values, unit, float(attempt_duration or 0.0), int(runs), int(seed), int(threads),
                                   bool(server_engine), None if series is None else float(series),
                                   None if policy is None else _os.fspath(policy), policy_select or "", bool(strict))
    out = _json.loads(text)
    out["per_run"] = per_run
    if "series" in out:
        out["series"], out["series_frame"] = _series_arrays(out["series"])
    return out


def _series_arrays(series):
    import numpy as np

    def array(values):
        return np.array([np.nan if v is None else v for v in values], dtype=float)

    out = {"bin": series["bin"], "bins": series["bins"], "t": array(series["t"]), "quantities": {}}
    for key, q in series["quantities"].items():
        out["quantities"][key] = {"label": q["label"], "unit": q["unit"], "mean": array(q["mean"]),
                                  "lo": array(q["lo"]), "hi": array(q["hi"]), "n": np.array(q["n"], dtype=np.int64)}
    try:
        import pandas as pd
    except ImportError:
        return out, None
    columns = {"t": out["t"]}
    for key, q in out["quantities"].items():
        columns[key], columns[key + "_lo"], columns[key + "_hi"] = q["mean"], q["lo"], q["hi"]
    return out, pd.DataFrame(columns)


def advise(*, clients, failed_attempts, unit="attempt", attempt_duration=None, rate=0.0, base=None, drain_within=None,
           probability=0.99, strategies=None, seed=1, threads=0):
    """The strategy, base and cap that drain a pile-up of `clients`, as `retrylab advise --json`.
    `clients` may be a range (low, high) or "low:high", as --clients LOW:HIGH."""
    low = 0
    if isinstance(clients, str) and ":" in clients:
        low, clients = (int(x) for x in clients.split(":", 1))
    elif isinstance(clients, (tuple, list)):
        low, clients = (int(x) for x in clients)
    if isinstance(strategies, str):
        strategies = strategies.split(",")
    text = _core.advise(int(low), int(clients), failed_attempts, unit, float(attempt_duration or 0.0), float(rate),
                        float(base or 0.0), float(drain_within or 0.0), float(probability), list(strategies or []),
                        int(seed), int(threads))
    return _json.loads(text)


def check(path):
    """Check an attempt trace (docs/traces.md), as `retrylab check --json`; "passed" says the verdict."""
    return _json.loads(_core.check(str(path)))


def validate(quick=True, seed=None, threads=0, only=None):
    """Run the validation suite (quick or full scale), as `retrylab validate --json`; `only`: the
    cases whose name contains one of these strings (as --only)."""
    return _json.loads(_core.validate(bool(quick), _core.validation_seed if seed is None else int(seed), int(threads),
                                      list(only or [])))

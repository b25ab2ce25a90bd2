"""retrylab from Python: the CLI's commands as functions (docs/python.md).

    import retrylab
    r = retrylab.simulate(model="collision", strategy="full", clients=100, runs=20)
    r["metrics"]["attempts_per_client"]      # {"mean", "sd", "n", "ci95"}, as `retrylab simulate --json`
    r["per_run"]["drain_time"]               # numpy array, one value per run
    retrylab.sweep({"cap": [100, 1000]}, model="collision", strategy="full", clients=100)  # one table

Scenario fields are keyword parameters named as in the field table (`retrylab.fields()`, `retrylab
simulate --list-fields`), with the same units (unit="ms", attempt_duration=20 as --unit ms
--attempt-duration 20) and defaults; `help(retrylab.simulate)` lists them. A value may be a number,
a string as typed on the command line ("none", "lognormal"), or True/False for on/off fields. A
misspelt name raises TypeError naming the nearest field; a bad value raises ValueError naming the
argument as Python spells it and the value as given.
"""
import json as _json
import os as _os
import typing as _t

from . import _core
from ._fields import integer as _integer
from ._fields import suggests_keywords as _suggests_keywords
from ._fields import takes_fields as _takes_fields
from ._fields import text as _text
from ._fields import utf8 as _utf8

__version__ = _core.version


def _analytic():
    """retrylab.analytic: _core.analytic's closed forms (their errors name keywords: the core spells them)."""
    import functools
    import sys
    import types

    from ._fields import unknown

    module = types.ModuleType(__name__ + ".analytic", _core.analytic.__doc__)
    params = {c["function"]: [p["name"] for p in c["params"]] + (["unit", "attempt_duration"] if c["times"] else [])
              for c in _core.analytic.commands()}

    def suggesting(name, func):
        @functools.wraps(func)
        def call(**kwargs):
            for k in kwargs:
                if k not in params[name]:
                    raise unknown(name, k, params[name], f"help(retrylab.analytic.{name}) lists them")
            return func(**kwargs)

        return call

    for name in dir(_core.analytic):
        if not name.startswith("_"):
            value = getattr(_core.analytic, name)
            if callable(value) and name in params:
                value = suggesting(name, value)
            setattr(module, name, value)
    sys.modules[module.__name__] = module  # `import retrylab.analytic` works too
    return module


analytic = _analytic()
__all__ = ["simulate", "sweep", "advise", "check", "validate", "fields", "analytic", "Result", "__version__"]

_U64 = 2**64 - 1
_I64 = 2**63 - 1


def fields():
    """The scenario field table: name, flag, unit, default, allowed range, meaning, choices."""
    return _core.fields()


@_takes_fields
def simulate(*, runs: int = 20, seed: int = 1, threads: int = 0, unit: str = "attempt",
             attempt_duration: _t.Optional[float] = None, server_engine: bool = False,
             series: _t.Optional[float] = None, policy: _t.Optional[_t.Union[str, "_os.PathLike[str]"]] = None,
             policy_select: _t.Optional[str] = None, strict: bool = False,
             load_profile: _t.Optional[_t.Union[str, "_os.PathLike[str]"]] = None, **fields):
    """Run one scenario `runs` times, as `retrylab simulate --json`.

    Returns the CLI's JSON document as a dict (plus "canonical", the scenario's canonical string)
    with "per_run": a dict of numpy arrays, one value per run, in the same unit.

    runs: independent runs (>= 1); seed: as --seed (same seed, same numbers, whatever `threads`);
    threads: 0 = every core. unit: "attempt" (times in attempt-durations), "ms" or "s" with
    attempt_duration, the mean time of one attempt in that unit: every time given and returned is
    then in the unit, every rate per unit. server_engine: as --server-engine, the server engine and
    its metrics (docs/models.md) even without server options.

    series: a bin width in `unit` (as `--series`): the result's "series" holds "t" (bin starts) and,
    per quantity, numpy arrays "mean", "lo", "hi" (the 95% interval) and "n" (runs defined in the
    bin; NaN where none); "series_frame" is the same as a pandas DataFrame (columns t, KEY, KEY_lo,
    KEY_hi) when pandas can be imported.

    policy: a client policy file (as `--policy`, docs/policies.md): retrylab TOML, a gRPC service
    config, an Envoy route, resilience4j YAML or AWS SDK settings; its fields apply unless given as
    keywords. policy_select names its gRPC method, resilience4j instance or AWS profile. What the
    file sets that retrylab does not model is a UserWarning each, or with strict=True a ValueError.

    load_profile: a load that changes over time, in `unit` (as `--load-profile`): "t:rate,t:rate,..."
    (piecewise-linear), "step:t:rate[,t:rate...]", "sine:period:amplitude" (mean: rate), or the
    path of a CSV file of time,rate rows; it replaces rate and needs horizon.
    """
    values = {name: _text(name, v) for name, v in fields.items()}
    if load_profile is not None and not isinstance(load_profile, (str, _os.PathLike)):
        raise TypeError(f"load_profile must be a string or a path (got {type(load_profile).__name__} {load_profile!r})")
    if load_profile is not None and "\0" in _os.fsdecode(_os.fspath(load_profile)):
        raise ValueError(f"load_profile must be a text without NUL characters (got {_os.fspath(load_profile)!r})")
    if load_profile is not None:  # a text field of the table (as `--load-profile`): an inline form or a CSV file's path
        values["load_profile"] = _os.fsencode(_os.fspath(load_profile))  # a path's bytes as the OS has them
    if series is not None and (isinstance(series, bool) or not isinstance(series, (int, float))):
        raise TypeError(f"series must be a number, a bin width in {unit} (got {type(series).__name__} {series!r})")
    if policy is not None and not isinstance(policy, (str, _os.PathLike)):
        raise TypeError(f"policy must be a path (got {type(policy).__name__} {policy!r})")
    if policy is not None and "\0" in _os.fsdecode(_os.fspath(policy)):
        raise ValueError(f"policy must be a path without NUL characters (got {_os.fspath(policy)!r})")
    if policy_select is not None and not isinstance(policy_select, str):
        raise TypeError(f"policy_select must be a string (got {type(policy_select).__name__} {policy_select!r})")
    runs, seed, threads = _run_options(runs, seed, threads)
    unit = _utf8("unit", unit) if isinstance(unit, str) else unit
    text, per_run = _core.simulate(values, unit, _duration(attempt_duration), runs, seed, threads,
                                   bool(server_engine), None if series is None else float(series),
                                   None if policy is None else _os.fsencode(_os.fspath(policy)),
                                   _utf8("policy_select", policy_select or ""), bool(strict))
    out = Result(_json.loads(text))
    out["per_run"] = per_run
    if "series" in out:
        out["series"], out["series_frame"] = _series_arrays(out["series"])
    return out


class Result(dict):
    """What simulate() returns: the CLI's JSON document as a dict (plus "canonical", "per_run" and,
    with a series, "series" and "series_frame"), and its tables as pandas DataFrames."""

    def to_frame(self, what: str = "runs"):
        """A pandas DataFrame (pandas must be installed: Debian's python3-pandas).

        what="runs": one row per run, a column per per-run value (r["per_run"]), in the unit;
        "metrics": one row per metric (index: its key) with mean, sd, n, ci95_lo, ci95_hi and, for a
        yes/no metric, count and fraction, as `retrylab simulate --format csv`;
        "series": one row per bin (t, KEY, KEY_lo, KEY_hi), as r["series_frame"] (needs series=).
        """
        import pandas as pd

        if what == "runs":
            return pd.DataFrame(self["per_run"])
        if what == "metrics":
            rows = {}
            for key, m in self["metrics"].items():
                lo, hi = (float("nan") if x is None else x for x in m["ci95"])
                value = (lambda k: float("nan") if m.get(k) is None else m[k])
                rows[key] = {"mean": value("mean"), "sd": value("sd"), "n": m["n"], "ci95_lo": lo, "ci95_hi": hi,
                             "count": m.get("count"), "fraction": value("fraction")}
            return pd.DataFrame.from_dict(rows, orient="index")
        if what == "series":
            if "series_frame" not in self:
                raise ValueError('to_frame("series") needs a series: simulate(..., series=BIN)')
            return self["series_frame"]
        raise ValueError(f'what must be "runs", "metrics" or "series" (got {what!r})')


def _run_options(runs, seed, threads):
    return _integer("runs", runs, 1, _I64), _integer("seed", seed, 0, _U64), _integer("threads", threads, 0, 2**31 - 1)


def _duration(attempt_duration):
    if attempt_duration is None:
        return 0.0
    if isinstance(attempt_duration, bool) or not isinstance(attempt_duration, (int, float)):
        raise TypeError(f"attempt_duration must be a number (got {type(attempt_duration).__name__} "
                        f"{attempt_duration!r})")
    if attempt_duration == 0:  # the core reads 0 as "not given"
        raise ValueError(f"attempt_duration must be a finite number > 0 (got {attempt_duration})")
    return float(attempt_duration)


@_takes_fields
def sweep(grid: _t.Mapping[str, _t.Sequence[_t.Any]], *, runs: int = 20, seed: int = 1, threads: int = 0,
          unit: str = "attempt", attempt_duration: _t.Optional[float] = None, server_engine: bool = False, **fields):
    """Run every scenario of a grid, as `simulate` runs one, and return one table.

    grid: a dict of scenario field -> list of values, expanded as a cartesian product (the first key
    outermost), e.g. {"cap": [100, 1000], "clients": [50, 100]} is four scenarios; the other fields
    and the run options are the same for every point. Every point runs with the same seed.

    Returns a pandas DataFrame when pandas can be imported, else a dict of numpy arrays, with one
    row per point: a column per grid key, "canonical" (the scenario), and per metric (as in
    simulate's "metrics") its mean (a yes/no metric such as drained: its fraction) and the ends of
    its 95% interval, KEY_lo and KEY_hi; NaN where a point does not have the metric.
    """
    from . import _sweep

    allowed = list(sweep.__signature__.parameters)  # the wrapped sweep: its own keywords and the fields
    keys, points = _sweep.expand(grid, fields, "sweep", allowed)
    # Each point keeps only what the table reads (its per-run arrays are dropped as it ends).
    results = []
    for point in points:
        r = simulate(runs=runs, seed=seed, threads=threads, unit=unit, attempt_duration=attempt_duration,
                     server_engine=server_engine, **fields, **dict(zip(keys, point)))
        results.append({"canonical": r["canonical"], "metrics": r["metrics"]})
    return _sweep.table(keys, points, results)


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


@_suggests_keywords
def advise(*, clients: _t.Union[int, str, _t.Tuple[int, int]], failed_attempts: str, unit: str = "attempt",
           attempt_duration: _t.Optional[float] = None, rate: _t.Optional[float] = None,
           base: _t.Optional[float] = None, drain_within: _t.Optional[float] = None, probability: float = 0.99,
           objective: str = "drain-time", weight: _t.Optional[float] = None,
           strategies: _t.Union[str, _t.Sequence[str], None] = None, seed: int = 1, threads: int = 0):
    """The strategy, base and cap that drain a pile-up of `clients`, as `retrylab advise --json`.

    Every option of `retrylab advise` (docs/advise.md), checked by the same code with the same
    messages: clients: the pile-up, or a range (low, high) or "low:high" (as --clients LOW:HIGH).
    failed_attempts: "free", "use-capacity" or "collide" (what a failed attempt costs the server).
    unit, attempt_duration: as simulate's; rate (steady arrivals per unit), base, drain_within (a
    time in unit), probability (that the pile-up drains); objective: "drain-time", "attempts"
    (needs drain_within) or "weighted" (drain time + weight x attempts per client; weight: the time
    in unit one attempt per client is worth); strategies: a list (or "a,b") of the strategies to
    consider. None: the option is left out (its default applies).
    """
    if isinstance(clients, (tuple, list)):
        if len(clients) != 2:
            raise ValueError(f"clients must be N, (LOW, HIGH) or \"LOW:HIGH\" (got {clients!r})")
        low, high = (_integer("clients", x, 0, _I64) for x in clients)
        clients = f"{low}:{high}"
    elif not isinstance(clients, str):
        clients = str(_integer("clients", clients, 0, _I64))
    if not isinstance(strategies, (str, type(None))):
        strategies = ",".join(strategies)
    seed, threads = _integer("seed", seed, 0, _U64), _integer("threads", threads, 0, 2**31 - 1)
    numbers = {"rate": rate, "base": base, "drain_within": drain_within, "probability": probability,
               "weight": weight, "attempt_duration": attempt_duration}
    for name, value in numbers.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise TypeError(f"{name} must be a number (got {type(value).__name__} {value!r})")
    for name, value in {"failed_attempts": failed_attempts, "unit": unit, "objective": objective}.items():
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str (got {type(value).__name__} {value!r})")

    def real(x):
        return None if x is None else float(x)

    text = _core.advise(clients, _utf8("failed_attempts", failed_attempts), _utf8("unit", unit),
                        real(attempt_duration), real(rate), real(base), real(drain_within), float(probability),
                        _utf8("objective", objective), real(weight),
                        None if strategies is None else _utf8("strategies", strategies), seed,
                        threads)
    return _json.loads(text)


def check(trace: _t.Any, *,
          run_ends: _t.Optional[_t.Sequence[_t.Tuple[int, str, float]]] = None, **header):
    """Check an attempt trace (docs/traces.md), as `retrylab check --json`; "passed" says the verdict.

    trace: a file path (CSV or JSON Lines), or the trace as columns: a dict of arrays or a pandas
    DataFrame with columns run, client, arrival, start, end, outcome ("success"/"failure" or
    True/False), retry, sleep (NaN or None on a first attempt) and optionally burst (0/1) and kind
    (a failure's kind: retryable, throttled or fatal; empty or None on a success). Columns
    need the header as keywords: model, strategy, retries (required), and base, cap, window,
    clients, rate, horizon, warmup, collapse, seed, runs and any server field, with unit="ms" and
    attempt_duration=D for times in ms, as the file's header (`# key=value`). The rows are checked in
    trace order (sorted by run, then end; stable), and a row named in an error or in a check's
    "lines" is its index in the columns given. run_ends: optional (run, stop, stop_time) triples,
    the file's `# run_end` records.
    """
    if isinstance(trace, (str, bytes, _os.PathLike)):
        if header or run_ends is not None:
            raise TypeError("check(path) takes no header keywords: a file carries its own header")
        path = _os.fsdecode(trace)
        if not _os.path.isfile(path) or not _os.access(path, _os.R_OK):
            raise ValueError(f"trace must be a readable file (got {path})")
        return _json.loads(_core.check(_os.fsencode(path)))
    from ._trace import check_columns

    return check_columns(trace, run_ends, header)


@_suggests_keywords
def validate(quick: bool = True, seed: _t.Optional[int] = None, threads: int = 0,
             only: _t.Union[str, _t.Sequence[str], None] = None):
    """Run the validation suite (quick or full scale), as `retrylab validate --json`; `only`: the
    cases whose name contains one of these strings (as --only)."""
    seed = _core.validation_seed if seed is None else _integer("seed", seed, 0, _U64)
    if isinstance(only, str):
        only = [only]
    if only is not None:
        only = list(only)
        # An empty string matches every name: [''] ran the whole suite, as [] would (as --cases "," is refused).
        if not only or any(not isinstance(s, str) or not s.strip() for s in only):
            raise ValueError(f"only must name at least one case, each a non-empty string (got {only!r})")
    return _json.loads(_core.validate(bool(quick), seed, _integer("threads", threads, 0, 2**31 - 1), list(only or [])))

"""retrylab.check on a trace given as columns (a dict of arrays, a pandas DataFrame, anything
indexable by column name): the columns of docs/traces.md, the header as keyword arguments. The rows
are put in trace order (by run, then end; stable, so ties keep their order) and handed to the
checker's in-memory entry point (validation/trace_check.hpp); a row named in an error or a report
is the row's index in the columns as given."""
import json
import re

import numpy as np

from . import _core
from ._fields import text

COLUMNS = ("run", "client", "arrival", "start", "end", "outcome", "retry", "sleep", "burst", "kind")
_KINDS = ("retryable", "throttled", "fatal")  # a failure's kind (version 3): its code is its index
_NO_KIND = 255  # a success's (validation/trace_check.hpp: trace_no_kind)
_VERSION_1_KEYS = {"model", "strategy", "base", "cap", "window", "clients", "rate", "horizon", "warmup", "collapse",
                   "retries", "time_unit", "attempt_duration", "seed", "runs", "order"}
_UNITS = {"attempt": "attempt-duration", "attempt-duration": "attempt-duration", "ms": "ms", "s": "s"}


def _column(trace, name, required=True):
    try:
        values = trace[name]
    except (KeyError, IndexError, TypeError, ValueError):
        if required:
            raise ValueError(f"trace needs a column {name!r} (the columns: {', '.join(COLUMNS)}; "
                             "burst and kind may be left out; docs/traces.md)") from None
        return None
    return np.asarray(values)


def _outcome(values):
    if values.dtype.kind in "OUS":
        words = np.char.lower(values.astype(str))
        bad = ~np.isin(words, ["success", "failure"])
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"trace row {i}: outcome must be success or failure (got {values[i]!r})")
        return (words == "success").astype(np.uint8)
    return _flags("outcome", values)


def _kinds(values, success):
    """A failure's kind (retryable, throttled, fatal) as its code; a success has none (empty, None, NaN)."""
    codes = np.full(len(values), _NO_KIND, np.uint8)
    for i, (v, ok) in enumerate(zip(values, success)):
        empty = v is None or (isinstance(v, float) and np.isnan(v)) or (isinstance(v, str) and v == "")
        if ok:
            if not empty:
                raise ValueError(f"trace row {i}: kind must be empty on a success row (got {v!r})")
        elif empty or str(v).lower() not in _KINDS:
            raise ValueError(f"trace row {i}: kind must be retryable, throttled or fatal on a failure row (got {v!r})")
        else:
            codes[i] = _KINDS.index(str(v).lower())
    return codes


def _flags(name, values):
    as_float = values.astype(float)
    bad = ~np.isin(as_float, [0.0, 1.0])
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"trace row {i}: {name} must be 0 or 1, or True/False (got {values[i]!r})")
    return as_float.astype(np.uint8)


def _integers(name, values):
    if values.dtype.kind in "iu":
        return values.astype(np.int64)
    as_float = values.astype(float)
    bad = ~(np.isfinite(as_float) & (as_float == np.floor(as_float)))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"trace row {i}: {name} must be an integer (got {values[i]!r})")
    return as_float.astype(np.int64)


def _sleeps(values):
    if values.dtype.kind == "O":  # None on retry-0 rows
        values = np.array([np.nan if v is None else v for v in values], dtype=float)
    return values.astype(float)


def _header(header, kinds):
    out = {}
    for key, value in header.items():
        if key == "unit":
            key, value = "time_unit", _UNITS.get(value, value)
        out[key] = text(key, value)
    if "load_profile" in out and not kinds:
        raise ValueError("trace with a load_profile is version 3, whose rows carry a kind column: give kind "
                         "(retryable on every failure when the simulator has no failure kinds; docs/traces.md)")
    out["version"] = "3" if kinds else "1" if set(out) <= _VERSION_1_KEYS else "2"
    return out


def check_columns(trace, run_ends, header):
    """The check report (a dict) for a trace given as columns."""
    missing = [c for c in COLUMNS[:-2] if _column(trace, c, required=False) is None]
    if missing:
        raise ValueError(f"trace needs the column{'s' if len(missing) > 1 else ''} {', '.join(missing)} (the "
                         f"columns: {', '.join(COLUMNS)}; burst and kind may be left out; docs/traces.md)")
    run = _integers("run", _column(trace, "run"))
    end = _column(trace, "end").astype(float)
    if len(end) != len(run):
        raise ValueError(f"trace column end must have one entry per row: {len(run)} (got {len(end)})")
    order = np.lexsort((end, run))  # by run, then by end; stable
    burst = _column(trace, "burst", required=False)
    kind = _column(trace, "kind", required=False)
    success = _outcome(_column(trace, "outcome"))
    columns = [_integers("client", _column(trace, "client")), _integers("retry", _column(trace, "retry")),
               _column(trace, "arrival").astype(float), _column(trace, "start").astype(float), end,
               _sleeps(_column(trace, "sleep")), success,
               np.zeros(0, np.uint8) if burst is None else _flags("burst", burst),
               np.zeros(0, np.uint8) if kind is None or len(kind) != len(success) else _kinds(kind, success)]
    if kind is not None and len(kind) != len(success):
        raise ValueError(f"trace column kind must have one entry per row: {len(success)} (got {len(kind)})")
    for c in columns[:-2] + [c for c, given in ((columns[-2], burst), (columns[-1], kind)) if given is not None]:
        if len(c) != len(run):
            break  # the checker names the column and the lengths
    else:
        columns = [c[order] if len(c) else c for c in columns]
        run = run[order]

    def given(i):  # a row in trace order -> its index in the columns as given
        return int(order[i]) if 0 <= i < len(order) else i

    ends = [(int(e[0]), str(e[1]), float(e[2])) for e in (run_ends or [])]
    try:
        report = json.loads(_core.check_columns(_header(header, kind is not None), run, *columns, ends))
    except ValueError as e:
        message = re.sub(r"\brow (\d+)", lambda m: f"row {given(int(m.group(1)))}", str(e), count=1)
        raise ValueError(message.replace("time_unit=", "unit=")) from None  # the keyword check() takes
    for check in report.get("checks", []):
        check["lines"] = [given(i) for i in check.get("lines", [])]
    return report

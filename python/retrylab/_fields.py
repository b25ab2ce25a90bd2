"""The scenario field table (`_core.fields()`, montecarlo/fields.hpp) as Python parameters.

Every function that takes scenario fields (simulate, sweep) is wrapped by `takes_fields`: its
signature (`inspect.signature`, `help()`, editors) gains one keyword-only parameter per field, with
the table's default, a type from the field's kind and a docstring line with its unit and range; a
name that is neither a field nor one of the function's own parameters raises TypeError naming the
nearest one. Only the fields the caller gives are passed on, so a default shown here is the
engine's default, never a value sent in its place.
"""
import difflib
import functools
import inspect
import math
import numbers
import typing

from . import _core

TABLE = _core.fields()
NAMES = [f["name"] for f in TABLE]
BY_NAME = {f["name"]: f for f in TABLE}


class Unset:
    """The default of a field whose default depends on other fields: the field is not passed on."""

    __slots__ = ("note",)

    def __init__(self, note):
        self.note = note

    def __repr__(self):
        return f"<{self.note}>"


# Defaults the table's one value does not say (the engine refuses the scenario without them).
_NOTES = {"strategy": "required with retries on"}
_REQUIRED = {"model"}


def _number(text):
    value = float(text)
    return int(value) if value.is_integer() and "." not in text and "e" not in text else value


def default_of(f):
    """The field's default as a Python value (inspect.Parameter.empty when the field is required)."""
    name, text, kind = f["name"], f["default"], f["kind"]
    if name in _REQUIRED:
        return inspect.Parameter.empty
    if name in _NOTES:
        return Unset(_NOTES[name])
    try:
        if kind == "on_off":
            return {"on": True, "off": False}[text]
        if kind == "choice":
            return text if text in f["choices"] else Unset(text)
        if kind == "number_or_none" and text == "none":
            return None
        if kind == "integer":
            return int(text)
        return _number(text)
    except (KeyError, ValueError):
        return Unset(text)  # e.g. horizon: "1e7 for a pure burst, required with rate > 0"


def annotation_of(f):
    kind = f["kind"]
    if kind == "choice":
        return typing.Literal[tuple(f["choices"])]
    if kind == "on_off":
        return bool
    if kind == "integer":
        return int
    if kind == "number_or_none":
        return typing.Optional[float]
    if kind == "text":
        return str
    return float


def _unit_words(f):
    return {"attempt-durations": "a time in `unit`", "per attempt-duration": "a rate per `unit`"}.get(f["unit"], "")


def field_doc(f):
    """Two numpydoc lines for one field: `name : type, default ...` and its meaning, unit and range."""
    d = default_of(f)
    if d is inspect.Parameter.empty:
        default = "required"
    elif isinstance(d, Unset):
        default = d.note
    else:
        default = f"default {d!r}"
    kind = {"choice": "str", "on_off": "bool", "integer": "int", "number": "float",
            "number_or_none": "float or None", "text": "str"}[f["kind"]]
    unit = _unit_words(f)
    unit = f"; {unit}" if unit else ""
    return f"{f['name']} : {kind}, {default}\n    {f['meaning']} (allowed: {f['allowed']}{unit})."


def text(name, value):
    """A field value as the command line would spell it (numpy scalars included)."""
    kind = BY_NAME[name]["kind"] if name in BY_NAME else None
    if isinstance(value, bool) or (hasattr(value, "dtype") and getattr(value.dtype, "kind", "") == "b"):
        return "on" if value else "off"
    if value is None:
        return "none"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        if math.isinf(value) and value > 0 and kind == "number_or_none":
            return "none"  # cap=math.inf is no cap; elsewhere inf is a number the field refuses (breaker=inf is no breaker name)
        if kind == "integer" and value.is_integer():
            return str(int(value))  # 100.0 clients is 100 clients (np.linspace gives floats)
        return repr(value)  # the shortest text that round-trips, as the CLI prints
    if isinstance(value, str):
        return utf8(name, value)
    raise TypeError(f"{name} must be a number, a string or a bool (got {type(value).__name__} {value!r})")


def utf8(name, value):
    """A string the core can take: one that encodes as UTF-8 (a lone surrogate does not: pybind11's
    refusal dumped every argument of the call), else a ValueError naming the keyword."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{name} must be text that is valid Unicode (got {value!r})") from None
    return value


def integer(name, value, lo, hi):
    """A run option (runs, seed, threads) as an int in [lo, hi], else TypeError/ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer (got {type(value).__name__} {value!r})")
    if not lo <= int(value) <= hi:
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}] (got {value})")
    return int(value)


def unknown(func_name, name, allowed, listed="retrylab.fields() lists the scenario fields"):
    """TypeError for a keyword that is not a parameter, naming the nearest one as it is written
    (`did you mean cap=?`, as the CLI's `did you mean --cap?`)."""
    near = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
    hint = f"; did you mean {near[0]}=?" if near else ""
    return TypeError(f"{func_name}() got an unexpected keyword argument '{name}'{hint} ({listed})")


def suggests_keywords(func):
    """func(**kwargs) refusing an unknown keyword with the nearest one, before Python's own TypeError
    (which names no alternative)."""
    own = inspect.signature(func)
    allowed = [p.name for p in own.parameters.values() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        for name in kwargs:
            if name not in allowed:
                raise unknown(func.__name__, name, allowed, f"help(retrylab.{func.__name__}) lists them")
        return func(*args, **kwargs)

    return wrapper


def takes_fields(func):
    """Gives `func(..., **fields)` one keyword-only parameter per scenario field (see the module)."""
    own = inspect.signature(func)
    params = [p for p in own.parameters.values() if p.kind != p.VAR_KEYWORD]
    taken = {p.name for p in params}
    leading = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    trailing = [p for p in params if p.kind == p.KEYWORD_ONLY]
    fields = [inspect.Parameter(f["name"], inspect.Parameter.KEYWORD_ONLY, default=default_of(f),
                                annotation=annotation_of(f)) for f in TABLE if f["name"] not in taken]
    allowed = [p.name for p in params] + [p.name for p in fields]

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        for name in kwargs:
            if name not in taken and name not in BY_NAME:
                raise unknown(func.__name__, name, allowed)
        return func(*args, **{k: v for k, v in kwargs.items() if not isinstance(v, Unset)})

    wrapper.__signature__ = own.replace(parameters=leading + fields + trailing)
    doc = inspect.cleandoc(func.__doc__ or "")
    wrapper.__doc__ = (doc + "\n\nScenario fields (retrylab.fields(); docs/scenario-fields.md)\n"
                       "-------------------------------------------------------------\n" +
                       "\n".join(field_doc(f) for f in TABLE if f["name"] not in taken))
    return wrapper

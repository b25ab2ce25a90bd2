"""Errors in Python's terms. The C++ core's messages are the CLI's, with the field it names already
spelled as the keyword (api::Spelling::keyword); a few rules between fields still mention another
field as its flag in the text ("clients must be > 0 when --rate is 0"). `python_terms()` rewrites
those to the keyword ("... when rate is 0", `unit="ms"`), for known names only, so a value as the
user gave it ("got --x") is never touched."""
import contextlib
import functools
import re

from . import _core
from ._fields import NAMES

# The keywords of the public functions that are not scenario fields.
_OPTIONS = {"runs", "seed", "threads", "unit", "attempt_duration", "server_engine", "series", "clients",
            "failed_attempts", "strategies", "probability", "drain_within", "base", "rate", "cases", "model",
            "objective", "weight"}
_ANALYTIC = {p["name"] for c in getattr(_core.analytic, "commands", list)() for p in c["params"]}
_KNOWN = set(NAMES) | _OPTIONS | _ANALYTIC
# A flag with its value ("--unit ms"): the option and the value as a keyword argument (unit="ms").
_VALUED = re.compile(r"--(unit (?:attempt|ms|s)|model (?:collision|free|shared|ps|none|brooker)|"
                     r"preset (?:aws-standard-timeout|aws-standard|grpc|finagle|custom))\b")
_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)")
_UNIT_PAIR = re.compile(r"--unit (ms|s|attempt) or (ms|s)\b")


def keyword_message(message):
    """`message` with every known flag spelled as its Python keyword."""
    message = _UNIT_PAIR.sub(r'unit="\1" or "\2"', message)
    message = _VALUED.sub(lambda m: '{}="{}"'.format(*m.group(1).split(" ")), message)

    def keyword(m):
        name = m.group(1).replace("-", "_")
        return name if name in _KNOWN else m.group(0)

    return _FLAG.sub(keyword, message)


def in_python_terms(func):
    """func (a closed form of _core.analytic) raising its ValueErrors in Python's terms."""

    @functools.wraps(func)
    def call(*args, **kwargs):
        with python_terms():
            return func(*args, **kwargs)

    return call


@contextlib.contextmanager
def python_terms():
    """Re-raises a ValueError from the core with its message in Python's terms."""
    try:
        yield
    except ValueError as e:
        message = keyword_message(str(e))
        if message == str(e):
            raise
        raise ValueError(message) from None

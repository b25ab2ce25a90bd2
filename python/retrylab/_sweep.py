"""retrylab.sweep: a grid of scenarios (a dict of lists, expanded as a cartesian product, the first
key outermost, as a study grid expands) run one by one with the same run options, as one table."""
import itertools
import math

import numpy as np

from ._fields import BY_NAME, unknown

MAX_POINTS = 100_000  # papers/spec.hpp max_sweep_points


def expand(grid, fixed, func_name, allowed):
    """The grid's keys and its points (tuples of values), checked: fields only, each a list of values."""
    if not isinstance(grid, dict) or not grid:
        raise TypeError(f"grid must be a non-empty dict of field name -> list of values (got {type(grid).__name__})")
    axes = []
    for name, values in grid.items():
        if name not in BY_NAME:
            raise unknown(func_name, name, allowed)
        if name in fixed:
            raise TypeError(f"{name} is given both in grid and as a keyword argument")
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise TypeError(f"grid[{name!r}] must be a list of values (got {type(values).__name__} {values!r})")
        values = list(values)
        if not values:
            raise ValueError(f"grid[{name!r}] must hold at least one value (got an empty list)")
        axes.append(values)
    # Bounded before a point is made or run, as a study spec's sweep is (papers/spec.hpp,
    # max_sweep_points): 200,000 points once grew to 3.3 GB.
    n = math.prod(len(a) for a in axes)
    if n > MAX_POINTS:
        raise ValueError(f"grid has {n} points ({' x '.join(str(len(a)) for a in axes)}), above the limit "
                         f"{MAX_POINTS} (a study sweep's limit): split it into smaller grids")
    return list(grid), list(itertools.product(*axes))


def _number(x):
    return math.nan if x is None else float(x)


def table(keys, points, results):
    """One row per point: the grid's values, the canonical scenario, and per metric its mean (or
    fraction, for a yes/no metric) with the 95% interval's ends KEY_lo, KEY_hi."""
    columns = {key: [p[i] for p in points] for i, key in enumerate(keys)}
    columns["canonical"] = [r["canonical"] for r in results]
    metrics = []
    for r in results:
        metrics += [m for m in r["metrics"] if m not in metrics]
    for m in metrics:
        for suffix in ("", "_lo", "_hi"):
            columns[m + suffix] = []
        for r in results:
            s = r["metrics"].get(m)
            value, (lo, hi) = (None, (None, None)) if s is None else (s.get("mean", s.get("fraction")), s["ci95"])
            columns[m].append(_number(value))
            columns[m + "_lo"].append(_number(lo))
            columns[m + "_hi"].append(_number(hi))
    try:
        import pandas as pd
    except ImportError:
        return {k: np.asarray(v) for k, v in columns.items()}
    return pd.DataFrame(columns)

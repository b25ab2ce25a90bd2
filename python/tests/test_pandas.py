"""The tables as pandas DataFrames, with the real pandas (Debian's python3-pandas, .ci/install-deps):
simulate(...).to_frame() per run, per metric and per bin, and sweep(); each frame holds exactly the
numbers of the dict it is made from."""
import math

import numpy as np
import pandas as pd
import pytest

import retrylab


@pytest.fixture(scope="module")
def result():
    return retrylab.simulate(model="collision", strategy="full", clients=30, rate=0.05, horizon=400, runs=5,
                             series=50.0)


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


def test_to_frame_has_a_row_per_run(result):
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 5
    for key, values in result["per_run"].items():
        assert np.array_equal(frame[key].to_numpy(), values, equal_nan=True)


def test_to_frame_metrics_is_the_summary(result):
    frame = result.to_frame("metrics")
    assert list(frame.index) == list(result["metrics"])
    for key, m in result["metrics"].items():
        value = m["mean"] if "mean" in m else m["fraction"]
        column = "mean" if "mean" in m else "fraction"
        assert same(frame.loc[key, column], math.nan if value is None else value)
        assert frame.loc[key, "n"] == m["n"]


def test_to_frame_series_is_the_series_frame(result):
    frame = result.to_frame("series")
    assert isinstance(frame, pd.DataFrame) and len(frame) == result["series"]["bins"]
    assert np.array_equal(frame["t"].to_numpy(), result["series"]["t"])
    q = result["series"]["quantities"]["attempts"]
    assert np.array_equal(frame["attempts"].to_numpy(), q["mean"], equal_nan=True)


def test_to_frame_refuses_what_it_cannot_make():
    r = retrylab.simulate(model="collision", strategy="full", clients=5, runs=2)
    with pytest.raises(ValueError, match="needs a series"):
        r.to_frame("series")
    with pytest.raises(ValueError, match='what must be "runs", "metrics" or "series"'):
        r.to_frame("table")


def test_sweep_is_a_dataframe():
    frame = retrylab.sweep({"cap": [10, 100]}, model="collision", strategy="full", clients=10, runs=2)
    assert isinstance(frame, pd.DataFrame)
    assert list(frame["cap"]) == [10, 100] and len(frame["drained"]) == 2
    one = retrylab.simulate(model="collision", strategy="full", clients=10, runs=2, cap=100)
    assert same(frame["attempts_per_client"].iloc[1], one["metrics"]["attempts_per_client"]["mean"])

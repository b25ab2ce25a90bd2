"""retrylab as Python expects it: named parameters from the field table, TypeError naming the
nearest name, errors naming Python arguments (never a flag), check() on columns giving the same
report as on the file, sweep() as a table of simulate()'s numbers, and current type stubs. Exact
comparisons of the same runs computed twice; no tolerance."""
import csv
import inspect
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import retrylab
from retrylab import _stub

EXE = os.environ["RETRYLAB_EXE"]
BASE = dict(model="collision", strategy="full", clients=20, runs=3)


def test_every_field_is_a_named_keyword():
    params = inspect.signature(retrylab.simulate).parameters
    for f in retrylab.fields():
        p = params[f["name"]]
        assert p.kind == p.KEYWORD_ONLY, f["name"]
        assert f["name"] in retrylab.simulate.__doc__
    assert params["model"].default is inspect.Parameter.empty  # required, as the CLI says
    for name in ("runs", "seed", "threads", "unit", "attempt_duration", "series"):
        assert name in params
    assert list(inspect.signature(retrylab.sweep).parameters)[0] == "grid"
    assert "[0, 100000000]" in retrylab.simulate.__doc__  # the range of clients, from the table


def test_defaults_shown_are_the_engines():
    # Giving a field its shown default changes nothing: same canonical scenario, same numbers.
    plain = retrylab.simulate(**BASE)
    params = inspect.signature(retrylab.simulate).parameters
    for f in retrylab.fields():
        d = params[f["name"]].default
        if d is inspect.Parameter.empty or f["name"] in BASE or type(d).__name__ == "Unset":
            continue
        given = retrylab.simulate(**BASE, **{f["name"]: d})
        assert given["canonical"] == plain["canonical"], f["name"]
        assert given["metrics"] == plain["metrics"], f["name"]


@pytest.mark.parametrize("func,kwargs,near", [
    (retrylab.simulate, dict(BASE, clientz=3), "clients"),
    (retrylab.simulate, dict(BASE, max_attempt=3), "max_attempts"),
    (retrylab.simulate, dict(BASE, run=3), "runs"),
    (lambda **k: retrylab.sweep({"cap": [10]}, **k), dict(BASE, jiter="x"), None),
    (retrylab.simulate, dict(BASE, capp=5), "cap"),
    (retrylab.advise, dict(clients=5, failed_attempts="collide", objectve="attempts"), "objective"),
    (retrylab.validate, dict(qiuck=True), "quick"),
    (retrylab.analytic.steady, dict(colapse=100), "collapse"),
    (retrylab.analytic.steady, dict(unti="ms"), "unit"),
])
def test_unknown_name_is_a_type_error_naming_the_nearest(func, kwargs, near):
    with pytest.raises(TypeError) as e:
        func(**kwargs)
    if near:
        assert f"did you mean {near}=?" in str(e.value)  # as it is written, as the CLI's "did you mean --cap?"
    else:
        assert "did you mean" not in str(e.value)


@pytest.mark.parametrize("kwargs,start", [
    (dict(model="collision", strategy="full", clients=0), "clients must be > 0 when rate is 0"),
    (dict(model="collision", strategy="full", clients=5, budget="finagle"), "attempt_ms must be > 0"),
    (dict(model="collision", strategy="full", clients=5, unit="ms"), 'attempt_duration is required with unit="ms"'),
    (dict(model="collision", strategy="full", clients=5, attempt_duration=3), "attempt_duration must be 1"),
    (dict(model="none", strategy="full", rate=0.1, horizon=100, outage_start=10, outage_end=5), "outage_end must be >"),
    (dict(model="collision", strategy="full", clients=5, seed=-1), "seed must be an integer"),
    (dict(model="collision", strategy="full", clients=5, runs=0), "runs must be an integer in [1, "),
    (dict(model="collision", strategy="full", clients="many"), "clients must be an integer"),
    (dict(model="brooker", clients=4, rows=3), "rows does not apply to model="),
])
def test_value_errors_name_python_arguments(kwargs, start):
    with pytest.raises(ValueError) as e:
        retrylab.simulate(**kwargs)
    assert str(e.value).startswith(start), str(e.value)
    assert "--" not in str(e.value), str(e.value)


@pytest.mark.parametrize("kwargs,start", [(dict(runs="x"), "runs must be an integer"),
                                          (dict(threads=1.5), "threads must be an integer"),
                                          (dict(clients=[3]), "clients must be a number")])
def test_type_errors_name_python_arguments(kwargs, start):
    with pytest.raises(TypeError) as e:
        retrylab.simulate(**dict(BASE, **kwargs))
    assert str(e.value).startswith(start), str(e.value)


def test_numpy_values_are_values():
    a = retrylab.simulate(**BASE, cap=100)
    b = retrylab.simulate(**dict(BASE, clients=np.int64(20)), cap=np.float64(100.0))
    c = retrylab.simulate(**dict(BASE, clients=20.0), cap=100)  # an integral float for an integer field
    assert a["metrics"] == b["metrics"] == c["metrics"]


def read_csv_trace(path):
    header, rows = {}, []
    with open(path) as f:
        lines = [line for line in f if not line.startswith("# run_end")]
    for line in lines:
        if line.startswith("#"):
            for kv in line[1:].split():
                if "=" in kv:
                    k, v = kv.split("=", 1)
                    header[k] = v
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    columns = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    for k in ("run", "client", "retry", "burst"):
        columns[k] = columns[k].astype(np.int64)
    for k in ("arrival", "start", "end"):
        columns[k] = columns[k].astype(float)
    columns["sleep"] = np.array([float(s) if s else np.nan for s in columns["sleep"]])
    header.pop("retrylab-trace", None)
    header.pop("version", None)
    return header, columns


@pytest.mark.parametrize("shuffle", [False, True])
def test_check_on_columns_is_check_on_the_file(tmp_path, shuffle):
    trace = tmp_path / "t.csv"
    subprocess.run([EXE, "simulate", "--model", "free", "--strategy", "full", "--clients", "30", "--runs", "12",
                    "--quiet", "--trace", str(trace)], check=True, capture_output=True)
    on_file = retrylab.check(trace)
    header, columns = read_csv_trace(trace)
    if shuffle:  # the order of the rows given does not matter: they are checked in trace order
        p = np.random.default_rng(1).permutation(len(columns["run"]))
        columns = {k: v[p] for k, v in columns.items()}
    on_columns = retrylab.check(columns, **header)
    assert on_columns["passed"] is True and on_columns["rows"] == on_file["rows"]
    for a, b in zip(on_columns["checks"], on_file["checks"]):
        assert (a["check"], a["verdict"], a["observed"]) == (b["check"], b["verdict"], b["observed"])


def test_check_on_columns_with_failure_kinds_is_check_on_the_file(tmp_path):
    # version 3: a failure's kind, empty on a success; fatal failures end requests (retry_on retryable)
    trace = tmp_path / "k.csv"
    subprocess.run([EXE, "simulate", "--model", "free", "--strategy", "full", "--rate", "0.3", "--horizon", "2000",
                    "--failure-prob", "0.3", "--failure-kind", "fatal", "--retry-on", "retryable", "--runs", "3",
                    "--quiet", "--trace", str(trace)], check=True, capture_output=True)
    on_file = retrylab.check(trace)
    assert on_file["passed"] is True
    header, columns = read_csv_trace(trace)
    assert set(columns["kind"]) == {"", "retryable", "fatal"}
    on_columns = retrylab.check(columns, **header)
    assert on_columns["passed"] is True
    for a, b in zip(on_columns["checks"], on_file["checks"]):
        assert (a["check"], a["verdict"], a["observed"]) == (b["check"], b["verdict"], b["observed"])
    verdicts = {c["check"]: c["verdict"] for c in on_columns["checks"]}
    assert verdicts["kind not retried"] == "pass" and verdicts["vanished clients"] != "n/a"
    # without the kind column the rows do not say which failures ended their requests: n/a, not FAIL
    no_kind = retrylab.check({k: v for k, v in columns.items() if k != "kind"}, **header)
    assert no_kind["passed"] is True
    verdicts = {c["check"]: c["verdict"] for c in no_kind["checks"]}
    assert verdicts["kind not retried"] == verdicts["vanished clients"] == "n/a"
    bad = dict(columns, kind=np.where(columns["kind"] == "fatal", "", columns["kind"]))
    with pytest.raises(ValueError) as e:
        retrylab.check(bad, **header)
    assert "kind must be retryable, throttled or fatal on a failure row" in str(e.value)


def test_check_on_columns_with_a_load_profile_is_check_on_the_file(tmp_path):
    # version 3 with the profile in the header: the arrivals are held to it; the kind column is required
    trace = tmp_path / "p.csv"
    subprocess.run([EXE, "simulate", "--model", "free", "--strategy", "full", "--load-profile",
                    "step:0:0.02,1000:0.5", "--horizon", "2000", "--runs", "4", "--quiet", "--trace", str(trace)],
                   check=True, capture_output=True)
    on_file = retrylab.check(trace)
    header, columns = read_csv_trace(trace)
    assert header["load_profile"] == "step:0:0.02,1000:0.5"
    ends = []  # the run_end records: the arrival statistics count the runs cut at the horizon
    for line in open(trace):
        if line.startswith("# run_end"):
            kv = dict(t.split("=", 1) for t in line[1:].split() if "=" in t)
            ends.append((int(kv["run"]), kv["stop"], float(kv["stop_time"])))
    on_columns = retrylab.check(columns, run_ends=ends, **header)
    assert on_file["passed"] is True and on_columns["passed"] is True
    for a, b in zip(on_columns["checks"], on_file["checks"]):
        assert (a["check"], a["verdict"], a["observed"]) == (b["check"], b["verdict"], b["observed"])
    assert {c["check"]: c["verdict"] for c in on_columns["checks"]}["arrival gaps"] == "pass"
    with pytest.raises(ValueError) as e:
        retrylab.check({k: v for k, v in columns.items() if k != "kind"}, run_ends=ends, **header)
    assert "give kind" in str(e.value)


def test_check_on_columns_names_the_row_given(tmp_path):
    columns = {"run": [0, 0], "client": [0, 1], "arrival": [0.0, 0.0], "start": [0.0, 0.0], "end": [1.0, 1.0],
               "outcome": ["success", "maybe"], "retry": [0, 0], "sleep": [None, None]}
    with pytest.raises(ValueError) as e:
        retrylab.check(columns, model="free", strategy="full", retries=True, clients=2)
    assert str(e.value).startswith("trace row 1: outcome"), str(e.value)
    with pytest.raises(ValueError) as e:
        retrylab.check({k: v for k, v in columns.items() if k != "end"}, model="free", strategy="full", retries=True)
    assert "needs the column end (" in str(e.value)
    with pytest.raises(TypeError):
        retrylab.check(tmp_path / "x.csv", model="free")


def test_sweep_is_simulate_per_point():
    grid = {"cap": [10, 100], "clients": np.array([10, 20])}
    t = retrylab.sweep(grid, model="collision", strategy="full", runs=4, seed=5)
    t = {k: np.asarray(t[k]) for k in t}  # a DataFrame or a dict of arrays
    assert list(t["cap"]) == [10, 10, 100, 100] and list(t["clients"]) == [10, 20, 10, 20]
    one = retrylab.simulate(model="collision", strategy="full", runs=4, seed=5, cap=100, clients=10)
    m = one["metrics"]["attempts_per_client"]
    assert t["canonical"][2] == one["canonical"]
    assert (t["attempts_per_client"][2], t["attempts_per_client_lo"][2], t["attempts_per_client_hi"][2]) == (
        m["mean"], m["ci95"][0], m["ci95"][1])
    assert t["drained"][2] == one["metrics"]["drained"]["fraction"]


@pytest.mark.parametrize("grid,error", [({"cap": 10}, TypeError), ({"cpa": [10]}, TypeError), ({"cap": []}, ValueError),
                                        ({}, TypeError)])
def test_sweep_refuses_a_bad_grid(grid, error):
    with pytest.raises(error):
        retrylab.sweep(grid, model="collision", strategy="full", clients=5, runs=1)


def test_sweep_bounds_its_points_before_running_any():
    # 200,000 points ran one by one and grew to 3.3 GB; refused before the first, as a study sweep is.
    with pytest.raises(ValueError, match=r"^grid has 200000 points \(200000\), above the limit 100000"):
        retrylab.sweep({"clients": list(range(2, 200002))}, model="collision", strategy="full", runs=1)


def test_stubs_are_current():
    here = pathlib.Path(_stub.__file__).parent
    for file, make in _stub.STUBS.items():
        committed = pathlib.Path(__file__).resolve().parents[1] / "retrylab" / file
        assert (here / file).read_text() == committed.read_text(), f"{file}: the build tree's copy is stale"
        assert committed.read_text() == make(), (
            f"python/retrylab/{file} is stale: PYTHONPATH=build/release/python python3 -m retrylab._stub python/retrylab")
    assert (here / "py.typed").exists()


def test_sweep_returns_a_dataframe_when_pandas_imports(monkeypatch):
    # A stand-in pandas: sweep hands it exactly its columns (test_pandas.py runs the real one).
    import sys
    import types

    fake = types.ModuleType("pandas")
    fake.DataFrame = lambda columns: ("DataFrame", columns)
    monkeypatch.setitem(sys.modules, "pandas", fake)
    kind, columns = retrylab.sweep({"cap": [10, 100]}, model="collision", strategy="full", clients=10, runs=2)
    assert kind == "DataFrame" and list(columns["cap"]) == [10, 100] and len(columns["drained"]) == 2


@pytest.mark.parametrize("name,kwargs,start", [("aloha", {}, "rate or goodput is required"),
                                               ("budget", dict(preset="custom"), 'capacity is required with preset="custom"')])
def test_closed_form_errors_name_python_arguments(name, kwargs, start):
    import retrylab.analytic  # importable as a module too

    with pytest.raises(ValueError) as e:
        getattr(retrylab.analytic, name)(**kwargs)
    assert str(e.value).startswith(start) and "--" not in str(e.value), str(e.value)


def test_sanity_warnings_and_the_collapse_note_are_user_warnings():
    # 50 per ms on a resource of 0.05 per ms: the CLI's stderr lines, as UserWarnings; the sanity
    # warning is also the document's "warnings", as in `retrylab simulate --json` (rate, not --rate).
    args = dict(model="collision", strategy="full", rate=50, unit="ms", attempt_duration=20, horizon=400, runs=2)
    with pytest.warns(UserWarning) as caught:
        r = retrylab.simulate(**args)
    lines = [str(w.message) for w in caught]
    assert r["warnings"] == [lines[0]] and "at or above the resource's capacity" in lines[0]
    assert lines[1].startswith("2 of 2 runs collapsed")
    cli = subprocess.run([os.environ["RETRYLAB_EXE"], "simulate", "--model", "collision", "--strategy", "full",
                          "--rate", "50", "--unit", "ms", "--attempt-duration", "20", "--horizon", "400", "--runs",
                          "2", "--quiet", "--json"], capture_output=True, text=True, check=True)
    assert json.loads(cli.stdout)["warnings"] == ["--" + r["warnings"][0]]  # the field as each front end spells it
    # The note names the collapse field as each front end spells it (--collapse, collapse).
    assert "a larger collapse count, collapse, lets them go on" in lines[1]
    assert cli.stderr.splitlines()[1] == "retrylab: note: " + lines[1].replace(", collapse,", ", --collapse,")

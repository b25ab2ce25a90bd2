"""retrylab from Python against the CLI it mirrors: same seed, same numbers, bit for bit; the CLI's
error messages; the field table; per-run arrays; the closed forms. Exact tests only (no tolerance):
every comparison is of the same runs computed twice."""
import json
import math
import os
import re
import subprocess
import warnings

import numpy as np
import pytest

import retrylab

EXE = os.environ["RETRYLAB_EXE"]


def cli_json(*args):
    quiet = ["--quiet"] if args[0] in ("simulate", "validate") else []
    out = subprocess.run([EXE, *args, "--json", *quiet], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def keywords(cli_message):
    """The CLI's message with every flag spelled as Python's keyword: --reject-cost 2 -> reject_cost 2,
    --unit ms -> unit="ms" (as --model and --preset)."""
    valued = re.sub(r"--(unit|model|preset) (ms|s|attempt|brooker|free|custom)\b", r'\1="\2"', cli_message)
    return re.sub(r"--(\w[\w-]*)", lambda m: m.group(1).replace("-", "_"), valued)


def cli_error(*args):
    out = subprocess.run([EXE, *args], capture_output=True, text=True)
    assert out.returncode == 2, out
    line = out.stderr.strip()
    assert line.startswith("retrylab: ") and "\n" not in line
    return line[len("retrylab: "):]


SCENARIOS = [
    (dict(model="collision", strategy="full", clients=100, runs=20), []),
    (dict(model="free", strategy="decorrelated", clients=50, rate=0.2, horizon=500, runs=7, seed=9), []),
    (dict(model="shared", strategy="equal", clients=30, cap=64, rows=4, lock=True, runs=5), []),
    (dict(model="collision", strategy="full", clients=300, base=20, cap=8000, runs=6, unit="ms", attempt_duration=20), []),
    (dict(model="ps", strategy="nojitter", rate=0.5, horizon=200.0, cap=None, runs=4, unit="s", attempt_duration=0.5), []),
    # The failing dependency: effects, recovery and the breaker's metrics shown as the CLI shows them.
    (dict(model="none", strategy="full", base=10, cap=1000, rate=0.1, horizon=3000, failure_prob=0.2, timeout=15,
          max_attempts=3, idempotency="per-attempt", settle=True, outage_start=1000, outage_end=1500,
          recovery_window=100, breaker="hystrix", runs=5, unit="ms", attempt_duration=10), []),
]


def flags(kwargs):
    args = []
    for k, v in kwargs.items():
        if k == "runs" or k == "seed" or k == "unit" or k == "attempt_duration":
            args += ["--" + k.replace("_", "-"), str(v)]
            continue
        text = "none" if v is None else ("on" if v is True else ("off" if v is False else repr(v) if isinstance(v, float) else str(v)))
        args += ["--" + k.replace("_", "-"), text]
    return args


@pytest.mark.parametrize("kwargs", [s[0] for s in SCENARIOS])
def test_same_numbers_as_the_cli(kwargs):
    py = retrylab.simulate(**kwargs)
    cli = cli_json("simulate", *flags(kwargs))
    for key in ("retrylab", "unit", "scenario", "runs", "metrics", "stop"):
        assert py[key] == cli[key], key  # floats compared exactly: both are the JSON of the same doubles
    assert py.get("attempt_duration") == cli.get("attempt_duration")


def test_threads_never_change_a_number():
    one = retrylab.simulate(model="collision", strategy="full", clients=80, runs=8, threads=1)
    two = retrylab.simulate(model="collision", strategy="full", clients=80, runs=8, threads=2)
    assert one["metrics"] == two["metrics"]
    assert np.array_equal(one["per_run"]["drain_time"], two["per_run"]["drain_time"])


def test_per_run_arrays_are_the_summary_inputs():
    r = retrylab.simulate(model="collision", strategy="full", clients=60, runs=12, seed=3)
    a = r["per_run"]["attempts_per_client"]
    assert isinstance(a, np.ndarray) and a.shape == (12,)
    assert r["metrics"]["attempts_per_client"]["mean"] == pytest.approx(float(np.mean(a)), rel=1e-12)
    assert int(r["per_run"]["drained"].sum()) == r["metrics"]["drained"]["count"]


def test_times_in_the_users_unit():
    plain = retrylab.simulate(model="collision", strategy="full", clients=50, cap=100, runs=5)
    ms = retrylab.simulate(model="collision", strategy="full", clients=50, base=20, cap=2000, runs=5, unit="ms",
                           attempt_duration=20)
    # The same scenario in attempt-durations (base 1, cap 100): same runs, times x 20.
    assert ms["canonical"] == plain["canonical"]
    assert np.array_equal(ms["per_run"]["drain_time"], plain["per_run"]["drain_time"] * 20)


@pytest.mark.parametrize("kwargs,args", [
    (dict(model="collision", strategy="full", clients=-1), ["--model", "collision", "--strategy", "full", "--clients", "-1"]),
    (dict(model="collision", strategy="full", base=2, cap=1), ["--model", "collision", "--strategy", "full", "--base", "2", "--cap", "1"]),
    (dict(model="collision", clients=5), ["--model", "collision", "--clients", "5"]),
    (dict(model="bogus", strategy="full"), ["--model", "bogus", "--strategy", "full"]),
    (dict(model="collision", strategy="full", unit="ms"), ["--model", "collision", "--strategy", "full", "--unit", "ms"]),
    (dict(model="collision", strategy="full", reject_cost=2), ["--model", "collision", "--strategy", "full", "--reject-cost", "2"]),
    # The work limit, before any run (Python ran it, for days, where the CLI refused).
    (dict(model="collision", strategy="full", clients=5, rate=1, horizon=1e12, runs=2),
     ["--model", "collision", "--strategy", "full", "--clients", "5", "--rate", "1", "--horizon", "1e12", "--runs", "2"]),
])
def test_errors_carry_the_cli_message(kwargs, args):
    # The same message, with every flag in it spelled as the keyword (clients, not --clients;
    # unit="ms", not --unit ms).
    with pytest.raises(ValueError) as e:
        retrylab.simulate(**kwargs)
    cli = cli_error("simulate", *args)
    assert cli.startswith("--")
    assert str(e.value) == keywords(cli)
    assert "--" not in str(e.value)


def test_memory_limit_before_any_run():
    # 10^9 run results are about 800 GB: refused at once, as the CLI refuses it, not allocated.
    # In the keywords' words: a Python caller has no --max-memory to raise (nor --runs to lower).
    with pytest.raises(ValueError, match="^memory is .* below the estimated") as e:
        retrylab.simulate(model="collision", strategy="full", clients=1, runs=10**9)
    assert "--" not in str(e.value) and "lower runs or collapse" in str(e.value)
    assert "half the machine's memory" in str(e.value)


def test_hostile_policy_files_are_value_errors_naming_policy(tmp_path):
    # A self-alias killed the interpreter (SIGSEGV); a non-UTF-8 byte raised UnicodeDecodeError; a FIFO
    # blocked for ever. Each is a ValueError naming the argument, the file and its line.
    sa = tmp_path / "sa.yaml"
    sa.write_bytes(b"a: &a [*a]\n")
    with pytest.raises(ValueError, match=r"^policy .*sa\.yaml:1: \(structure\) has an alias inside"):
        retrylab.simulate(clients=2, runs=1, policy=sa)
    ff = tmp_path / "ff.yaml"
    ff.write_bytes(b"retry_policy:\n  num_retries: \xff\n")
    with pytest.raises(ValueError, match=r"^policy .*ff\.yaml:2: \(encoding\) is not UTF-8"):
        retrylab.simulate(clients=2, runs=1, policy=ff)
    fifo = tmp_path / "p.json"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"^policy .*p\.json: file is a FIFO"):
        retrylab.simulate(clients=2, runs=1, policy=fifo)
    csv = tmp_path / "l.csv"
    os.mkfifo(csv)
    with pytest.raises(ValueError, match=r"^load_profile file .*l\.csv is a FIFO"):
        retrylab.simulate(model="none", strategy="none", clients=2, runs=1, horizon=10, load_profile=str(csv))


def test_a_file_quoting_bytes_that_are_not_utf8_is_still_a_value_error(tmp_path):
    # The profile's bad cell is quoted in the message: its bytes are escaped, not a UnicodeDecodeError.
    csv = tmp_path / "bad.csv"
    csv.write_bytes(b"0,1\n\xff\x1b,2\n")
    with pytest.raises(ValueError, match=r"got \\xFF\\x1B"):
        retrylab.simulate(model="none", strategy="none", clients=2, runs=1, horizon=10, load_profile=str(csv))


@pytest.mark.parametrize("only", [[""], [], ["  "], ["ok", ""]])
def test_validate_only_names_a_case(only):
    # [''] matched every case name and ran the whole suite.
    with pytest.raises(ValueError, match="^only must name at least one case"):
        retrylab.validate(only=only)


def test_advise_drain_within_zero_is_refused():
    # 0 was read as "not given" (the default): refused, as the CLI refuses --drain-within 0.
    with pytest.raises(ValueError, match="^drain_within must be"):
        retrylab.advise(clients=10, failed_attempts="free", drain_within=0)


def test_infinity_is_none_only_where_a_field_takes_none():
    # cap=inf is no cap; a choice or a plain number given inf is refused as the CLI refuses "inf" (it
    # was read as the choice "none": breaker=inf ran without a breaker, model=inf on the none model).
    assert retrylab.simulate(model="collision", strategy="full", clients=5, runs=2, cap=math.inf)["scenario"]["cap"] == "none"
    for name in ("breaker", "budget", "idempotency", "mix_strategy", "model"):
        kw = dict(model="collision", strategy="full", clients=5, runs=2)
        kw[name] = math.inf
        with pytest.raises(ValueError, match=f"^{name} must be .*got inf"):
            retrylab.simulate(**kw)
    with pytest.raises(ValueError, match=r"^horizon must be .*\(got inf\)"):
        retrylab.simulate(model="collision", strategy="full", clients=5, runs=2, horizon=math.inf)


def test_unknown_field_is_a_type_error():
    with pytest.raises(TypeError):
        retrylab.simulate(model="collision", strategy="full", clientz=3)


def test_fields_are_the_cli_table():
    cli = subprocess.run([EXE, "simulate", "--list-fields", "json"], check=True, capture_output=True, text=True)
    table = json.loads(cli.stdout)
    mine = retrylab.fields()
    assert [f["name"] for f in mine] == [f["name"] for f in table]
    for a, b in zip(mine, table):
        for key in ("flag", "unit", "default", "allowed", "meaning"):
            assert a[key] == b[key]


def test_advise_matches_the_cli():
    args = dict(clients=40, failed_attempts="collide", strategies="full", unit="ms", attempt_duration=20)
    py = retrylab.advise(**args)
    cli = cli_json("advise", "--clients", "40", "--failed-attempts", "collide", "--strategies", "full", "--unit", "ms",
                   "--attempt-duration", "20")
    # The same document; its notes and warnings name options as each front end spells them.
    assert "give --base to pin a shorter one" in cli["notes"][-1] and "give base to pin" in py["notes"][-1]
    cli["notes"] = [keywords(n) for n in cli["notes"]]
    cli["warnings"] = [keywords(w) for w in cli["warnings"]]
    assert py == cli
    assert py["recommended"]["cap"] >= 20


def test_advise_error():
    with pytest.raises(ValueError) as e:
        retrylab.advise(clients=1, failed_attempts="collide")
    assert "--" + str(e.value) == cli_error("advise", "--clients", "1", "--failed-attempts", "collide")
    assert str(e.value).startswith("clients must")  # the keyword, as Python spells it


def test_check_passes_the_engines_own_trace(tmp_path):
    trace = tmp_path / "t.csv"
    subprocess.run([EXE, "simulate", "--model", "free", "--strategy", "full", "--clients", "20", "--runs", "3", "--quiet",
                    "--trace", str(trace)], check=True, capture_output=True)
    r = retrylab.check(trace)
    assert r["passed"] is True and r["rows"] > 0
    with pytest.raises(ValueError):
        retrylab.check(tmp_path / "missing.csv")


# Every analytic command (several cases where it has branches), as keywords and as the CLI's flags
# (the same parameters, api/analytic.hpp): the two documents must be equal, key for key and bit for
# bit. A command added to the registry without a case here fails the coverage check.
ANALYTIC = [
    ("aloha", dict(rate=0.3)),
    ("aloha", dict(goodput=0.1)),
    ("occ", dict(rate=3)),
    ("ps", dict(load=0.75, service=2.0)),
    ("hedge", dict(delay=0.5, service=2.0, quantile=0.9)),
    ("sleep", dict(strategy="equal", retry=4, cap=10.0, quantile=0.25)),
    ("sleep", dict(strategy="decorrelated", retry=3, cap=None)),
    ("classic", dict(model="free", strategy="nojitter", clients=10, cap=100)),
    ("classic", dict(model="collision", strategy="none", clients=3)),
    ("growth", dict()),
    ("growth", dict(sleep=5.0, base=1.0, cap=100.0)),
    ("fluid_cap", dict(clients=300, rate=0.05, strategy="equal")),
    ("amplification", dict(layers=4, attempts=3, failure=0.5)),
    ("budget", dict(preset="grpc", successes=7)),
    ("budget", dict(preset="custom", capacity=10, cost=1, refund=0.5)),
    ("budget", dict(preset="finagle", requests=30)),
    ("markov", dict(model="free", clients=2)),
    ("steady", dict(rate=0.1, collapse=500)),
    ("burst", dict(clients=100, cap=500, find_cap=True)),
    # In the user's unit (--unit, --attempt-duration): a command with times.
    ("steady", dict(rate=0.005, collapse=500, unit="ms", attempt_duration=20)),
    ("fluid_cap", dict(clients=300, rate=0.1, unit="s", attempt_duration=0.5)),
    ("burst", dict(clients=100, cap=5000, unit="ms", attempt_duration=20)),
]


def analytic_flags(kwargs):
    args = []
    for k, v in kwargs.items():
        flag = "--" + k.replace("_", "-")
        if v is True:
            args.append(flag)
        else:
            args += [flag, "none" if v is None else repr(v) if isinstance(v, float) else str(v)]
    return args


@pytest.mark.parametrize("name,kwargs", ANALYTIC)
def test_analytic_same_document_as_the_cli(name, kwargs):
    py = getattr(retrylab.analytic, name)(**kwargs)
    cli = cli_json("analytic", name.replace("_", "-"), *analytic_flags(kwargs))
    assert py == cli  # floats compared exactly: both are the JSON of the same doubles


def test_analytic_covers_every_command():
    listed = retrylab.analytic.commands()
    assert {c["function"] for c in listed} == {name for name, _ in ANALYTIC}
    assert {c["function"] for c in listed if c["times"]} == {c["function"] for c in listed} - {"amplification", "budget"}
    for c in listed:
        assert callable(getattr(retrylab.analytic, c["function"])), c["name"]
        assert all(p["kind"] in ("a number", "an int", "a str", "a bool") for p in c["params"]), c["name"]


def test_analytic_errors_are_the_clis():
    for name, kwargs in [("aloha", dict(rate=-1.0)), ("aloha", dict(rate=0.1, goodput=0.1)),
                         ("sleep", dict(strategy="jitter", retry=2)), ("budget", dict(preset="custom")),
                         ("markov", dict(model="free", clients=9)),
                         # the refusals of work that could not finish (tests/cli/analytic_limits_test.cpp)
                         ("markov", dict(model="collision", clients=8, cap=2.0**39)), ("steady", dict(collapse=1e12)),
                         ("burst", dict(clients=10**9, cap=1, collapse=1e300, horizon=1e300))]:
        with pytest.raises(ValueError) as e:
            getattr(retrylab.analytic, name)(**kwargs)
        assert str(e.value) == keywords(cli_error("analytic", name, *analytic_flags(kwargs))), name
    with pytest.raises(ValueError, match="^strategy is required"):
        retrylab.analytic.sleep(retry=2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        retrylab.analytic.aloha(rate=0.1, bogus=3)
    with pytest.raises(TypeError, match="'retry': expected an int"):
        retrylab.analytic.sleep(strategy="full", retry=1.5)
    with pytest.raises(TypeError):
        retrylab.analytic.aloha(0.3)  # keywords only, as the flags


def test_validate_runs_the_suite_as_the_cli():
    # One case of the quick catalogue (the whole suite takes minutes; ctest runs it through the CLI).
    case = "sleep-decorrelated-c5-k6"
    py = retrylab.validate(quick=True, only=[case], threads=1)
    cli = cli_json("validate", "--cases", case, "--threads", "1")
    assert [c["case"] for c in py["cases"]] == [case]
    assert [c["verdict"] for c in py["cases"]] == [c["verdict"] for c in cli["cases"]]
    assert [c["observed"] for c in py["cases"]] == [c["observed"] for c in cli["cases"]]


def test_series_is_numpy_and_sums_to_the_totals():
    # One run: the series summed over its bins is that run's totals (the run finishes before the horizon).
    r = retrylab.simulate(model="collision", strategy="full", clients=40, horizon=2000, runs=1, seed=3,
                          series=10, unit="ms", attempt_duration=1)
    s = r["series"]
    assert s["bins"] == 200 and s["t"][1] == 10.0
    attempts = s["quantities"]["attempts"]["mean"]
    assert isinstance(attempts, np.ndarray) and attempts.shape == (200,)
    assert np.nansum(attempts) == r["per_run"]["attempts"][0]
    assert np.nansum(s["quantities"]["offered"]["mean"]) == 40
    if r["series_frame"] is not None:
        assert list(r["series_frame"].columns[:4]) == ["t", "offered", "offered_lo", "offered_hi"]


def test_load_profile_same_numbers_as_the_cli(tmp_path):
    # The same profile inline and as a CSV trace, and the CLI's --load-profile: the same runs.
    args = dict(model="none", strategy="full", horizon=60, runs=2, seed=4, unit="ms", attempt_duration=1)
    inline = retrylab.simulate(load_profile="0:0.5,30:1,60:0.5", series=10, **args)
    trace = tmp_path / "trace.csv"
    trace.write_text("time,rate\n0,0.5\n30,1\n60,0.5\n")
    from_file = retrylab.simulate(load_profile=trace, series=10, **args)
    assert inline["canonical"] == from_file["canonical"] and "load_profile=" in inline["canonical"]
    assert inline["per_run"]["attempts"].tolist() == from_file["per_run"]["attempts"].tolist()
    cli = cli_json("simulate", "--model", "none", "--strategy", "full", "--horizon", "60", "--runs", "2", "--seed",
                   "4", "--unit", "ms", "--attempt-duration", "1", "--load-profile", "0:0.5,30:1,60:0.5")
    assert cli["metrics"]["attempts_per_client"] == inline["metrics"]["attempts_per_client"]
    with pytest.raises(ValueError) as e:
        retrylab.simulate(load_profile="step:", **args)
    assert str(e.value).startswith("load_profile"), str(e.value)


def test_load_profile_is_a_text_field_sweep_takes(tmp_path):
    # A field of the table (kind text), so sweep() takes it as a keyword and as a grid axis: each
    # point is the simulate() of that profile, and its canonical string carries the profile.
    row = next(f for f in retrylab.fields() if f["name"] == "load_profile")
    assert row["kind"] == "text" and row["flag"] == "--load-profile" and row["default"] == "none"
    args = dict(model="none", retries="off", horizon=40, runs=2, seed=3)
    profiles = ["0:0.5,40:1", "step:0:1,20:0.25"]
    table = retrylab.sweep({"load_profile": profiles}, **args)
    canonical = list(table["canonical"])
    for profile, c in zip(profiles, canonical):
        alone = retrylab.simulate(load_profile=profile, **args)
        assert c == alone["canonical"] and c.endswith(" load_profile=" + profile), c
    fixed = retrylab.sweep({"warmup": [0, 5]}, load_profile=profiles[1], **args)
    assert all(c.endswith(" load_profile=" + profiles[1]) for c in fixed["canonical"])
    with pytest.raises(ValueError) as e:
        retrylab.sweep({"load_profile": ["0:1", "1;rm -rf /"]}, **args)
    assert str(e.value).startswith("load_profile"), str(e.value)


@pytest.mark.parametrize("series,needle", [(0, "series must be a bin width"), (0.001, "series makes 2000000 bins")])
def test_series_refusals_name_the_keyword(series, needle):
    with pytest.raises(ValueError) as e:
        retrylab.simulate(model="collision", strategy="full", clients=5, horizon=2000, series=series)
    assert str(e.value).startswith(needle), str(e.value)


POLICY_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "policy")


def test_policy_file_same_numbers_as_the_cli_and_warnings():
    path = os.path.join(POLICY_DIR, "envoy", "route-retry-budget.yaml")
    kwargs = dict(model="none", clients=50, failure_prob=0.3, runs=4, unit="ms", attempt_duration=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every key of the file is mapped: no warning
        py = retrylab.simulate(policy=path, **kwargs)
    cli = cli_json("simulate", *flags(kwargs), "--policy", path)
    for key in ("scenario", "metrics", "stop"):
        assert py[key] == cli[key], key
    assert py["scenario"]["max_attempts"] == 4
    assert py["scenario"]["retry_on"] == "retryable"
    assert py["scenario"]["retries_in_flight"] == 5  # the retry budget: min_retry_concurrency
    assert py["scenario"]["retries_in_flight_percent"] == 25  # and budget_percent
    # A keyword given wins over the file.
    with pytest.warns(UserWarning, match="max_attempts 2 overrides the policy's 4"):
        assert retrylab.simulate(policy=path, max_attempts=2, **kwargs)["scenario"]["max_attempts"] == 2


def test_policy_strict_and_errors_name_the_file():
    path = os.path.join(POLICY_DIR, "envoy", "retry-previous-hosts.yaml")  # its retry_policy has no retry_on
    with pytest.raises(ValueError, match=r"^policy .*:30: static_resources\.listeners\[0\].*\.retry_policy .*strict"):
        retrylab.simulate(model="none", clients=5, unit="ms", attempt_duration=10, policy=path, strict=True)
    with pytest.raises(ValueError, match="^strict needs policy=FILE"):
        retrylab.simulate(model="none", strategy="full", clients=5, strict=True)
    with pytest.raises(ValueError, match=r"^policy .*resilience4j.*application.yml: nope is not an instance"):
        retrylab.simulate(model="none", clients=5, unit="ms", attempt_duration=10,
                          policy=os.path.join(POLICY_DIR, "resilience4j", "application.yml"), policy_select="nope")


def test_policy_path_with_a_nul_is_refused_whole():
    # The C++ side would read the path only up to the NUL ("a" of "a\0b"); Python refuses it first.
    with pytest.raises(ValueError, match=r"^policy must be a path without NUL characters \(got 'a\\x00b'\)"):
        retrylab.simulate(model="none", strategy="full", clients=5, policy="a\0b")


def random_scenarios(n, seed):
    """n scenarios drawn from the field table's models and strategies and from ranges that keep each run
    small (a fixed seed: the same scenarios every time). Some are refused by design (rules between
    fields); the test holds both front ends to the same verdict."""
    rng = np.random.default_rng(seed)
    table = {f["name"]: f for f in retrylab.fields()}
    models, strategies = table["model"]["choices"], table["strategy"]["choices"]
    out = []
    for _ in range(n):
        base = float(rng.choice([0.5, 1.0, 2.0]))
        kw = dict(model=str(rng.choice(models)), strategy=str(rng.choice(strategies)), base=base,
                  cap=base * float(rng.choice([4, 16, 64])), runs=int(rng.integers(1, 4)),
                  seed=int(rng.integers(1, 10**6)))
        if rng.random() < 0.5:
            kw["clients"] = int(rng.integers(1, 60))
        else:
            kw.update(rate=round(float(rng.uniform(0.02, 0.3)), 3), horizon=float(rng.choice([100, 300])))
        if kw["model"] == "none":
            kw["failure_prob"] = round(float(rng.uniform(0.0, 0.5)), 3)
            kw["max_attempts"] = int(rng.integers(1, 6))
        if rng.random() < 0.3:
            kw["max_attempts"] = int(rng.integers(1, 6))
        out.append(kw)
    return out


@pytest.mark.parametrize("kwargs", random_scenarios(24, 2026))
def test_random_scenarios_same_numbers_or_same_refusal_as_the_cli(kwargs):
    cli = subprocess.run([EXE, "simulate", *flags(kwargs), "--json", "--quiet"], capture_output=True, text=True)
    assert cli.returncode in (0, 2), cli.stderr
    if cli.returncode == 2:
        with pytest.raises(ValueError) as refused:
            retrylab.simulate(**kwargs)
        assert str(refused.value) == keywords(cli.stderr.strip()[len("retrylab: "):])
        return
    py, doc = retrylab.simulate(**kwargs), json.loads(cli.stdout)
    for key in ("scenario", "runs", "metrics", "stop"):
        assert py[key] == doc[key], key


@pytest.mark.parametrize("call", [
    lambda: retrylab.simulate(model="none", strategy="none", clients=2, runs=1, horizon=10, load_profile="\udcff:1"),
    lambda: retrylab.simulate(model="none", strategy="none", clients=2, runs=1, policy_select="\ud800",
                              policy=os.path.join(os.path.dirname(__file__), "..", "..", "tests", "policy", "aws",
                                                  "config")),
    lambda: retrylab.simulate(model="\udcff", strategy="none", clients=2, runs=1),
    lambda: retrylab.simulate(model="none", strategy="none", clients=2, runs=1, unit="\udcff"),
    lambda: retrylab.advise(clients=10, failed_attempts="\udcff"),
])
def test_text_that_is_not_unicode_is_one_line_naming_the_keyword(call):
    # pybind11 refused the string with "incompatible function arguments ... Invoked with:" and every
    # argument of the call; now one line naming the keyword (or the core's own refusal of the value).
    with pytest.raises((ValueError, TypeError)) as e:
        call()
    assert "Invoked with" not in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_a_policy_path_that_is_not_utf8_is_read(tmp_path):
    # A file name of raw bytes (os.fsdecode's surrogates) names a real file: it is read, not refused.
    name = os.fsdecode(b"p\xff.toml")
    (tmp_path / name).write_text('[backoff]\nstrategy = "full"\n')
    r = retrylab.simulate(model="none", clients=2, runs=1, policy=tmp_path / name)
    assert r["scenario"]["strategy"] == "full"


def test_a_policy_files_field_is_named_by_its_key(tmp_path):
    # cap below base, both from the file: the error named the cap keyword the caller never gave.
    f = tmp_path / "p.toml"
    f.write_text('[backoff]\nstrategy = "full"\nbase = 10\ncap = 5\n')
    with pytest.raises(ValueError, match=r"^policy .*p\.toml:4: backoff\.cap must be >= base"):
        retrylab.simulate(model="collision", clients=5, runs=1, policy=f)

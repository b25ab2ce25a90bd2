"""bench/compare_results.py on small hand-made results files: same law passes, a shifted mean, an
unequal constant and a missing file are caught (ctest bench.compare_results)."""
import json
import os
import random
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare_results.py")


def write(path, points):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"retrylab_results": 1}) + "\n")
        for i, (canonical, summary) in enumerate(points):
            f.write(json.dumps({"sweep": "s", "point": i, "canonical": canonical, "summary": summary}) + "\n")


def summary(rng, mean, sd, n, burst=None):
    xs = [rng.gauss(mean, sd) for _ in range(n)]
    m = sum(xs) / n
    s = (sum((x - m) ** 2 for x in xs) / (n - 1)) ** 0.5
    out = {"goodput": {"mean": m, "sd": s, "n": n}}
    if burst is not None:
        out["makespan"] = {"mean": burst, "sd": 0.0, "n": n}  # a pure burst: the same on both sides
    return out


def run(tmp_path, old, new):
    write(tmp_path / "old.jsonl", old)
    write(tmp_path / "new.jsonl", new)
    return subprocess.run([sys.executable, SCRIPT, str(tmp_path / "old.jsonl"), str(tmp_path / "new.jsonl")],
                          capture_output=True, text=True, check=False)


def test_same_law_passes(tmp_path):
    rng = random.Random(20261203)
    old = [(f"rate={i}", summary(rng, 0.2, 0.05, 20, burst=7.0)) for i in range(50)]
    new = [(f"rate={i}", summary(rng, 0.2, 0.05, 20, burst=7.0)) for i in range(50)]
    r = run(tmp_path, old, new)
    # Fails falsely with probability <= 0.01 (the Bonferroni bound), and never with this fixed seed.
    assert r.returncode == 0, r.stdout + r.stderr
    assert "means: 50 compared, 50 identical" in r.stdout


def test_shifted_mean_is_caught(tmp_path):
    rng = random.Random(20261203)
    old = [(f"rate={i}", summary(rng, 0.2, 0.05, 20)) for i in range(50)]
    new = [(f"rate={i}", summary(rng, 0.2 if i else 0.3, 0.05, 20)) for i in range(50)]  # 6 standard errors
    r = run(tmp_path, old, new)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "rate=0  goodput" in r.stdout


def test_unequal_constant_is_caught(tmp_path):
    old = [("rate=1", {"sojourn": {"mean": 1.0, "sd": 0.0, "n": 20}})]
    new = [("rate=1", {"sojourn": {"mean": 2.0, "sd": 0.0, "n": 20}})]
    r = run(tmp_path, old, new)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "constant s: rate=1  sojourn" in r.stdout


def test_rounding_is_not_a_difference(tmp_path):
    # collision's sojourn is 1 = (t + 1) - t, exact but for the last bits: its sd is ~1e-16, so a
    # z test would call a 1e-17 change a difference.
    old = [("rate=1", {"sojourn": {"mean": 1.0, "sd": 1.6e-16, "n": 1000}})]
    new = [("rate=1", {"sojourn": {"mean": 1.0 + 2.2e-16, "sd": 1.6e-16, "n": 1000}})]
    r = run(tmp_path, old, new)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 compared, 1 identical" in r.stdout


def test_bad_input_exits_2(tmp_path):
    r = subprocess.run([sys.executable, SCRIPT, str(tmp_path / "missing.jsonl"), str(tmp_path / "missing.jsonl")],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 2
    assert r.stderr.startswith("compare_results: ")

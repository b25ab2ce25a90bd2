"""retrylab.advise() against `retrylab advise --json` on random requests: one code path (api/advise.hpp)
behind both front ends, so every option gives the same document, bit for bit (its notes and
warnings name options as each front end spells them: "give --base", "give base"), or the same
refusal (the CLI's line with its flags spelled as Python's keywords). Exact comparisons; the requests are
drawn from fixed seeds and kept small (2 to 12 clients, one or two strategies, short deadlines, few
collisions) so the 20 take about 30 s of CPU in all."""
import functools
import json
import os
import random
import re
import subprocess

import pytest

import retrylab

EXE = os.environ["RETRYLAB_EXE"]


def random_request(rng, i):
    """A request as Python keywords. Every fifth is made to be refused (a weight without the weighted
    objective, or a deadline below the base), and must be refused alike. Collisions cost the most to
    search (about 10 s of CPU even at 5 clients), so two requests in twenty collide."""
    failed = "collide" if i in (4, 13) else rng.choice(["free", "use-capacity"])
    kw = {"clients": rng.randint(2, 12), "failed_attempts": failed,
          "strategies": rng.sample(["nojitter", "full", "equal", "decorrelated", "memoryless"], rng.randint(1, 2)),
          "seed": rng.randint(0, 2**32), "probability": rng.choice([0.5, 0.8, 0.9])}
    if rng.random() < 0.25:
        kw["clients"] = (2, kw["clients"] + 2)
    d = 1.0
    if rng.random() < 0.5:
        kw["unit"], d = rng.choice([("ms", 20.0), ("s", 0.5)])
        kw["attempt_duration"] = d
    if rng.random() < 0.3:
        kw["base"] = rng.choice([1, 2, 4]) * d
    kw["drain_within"] = rng.choice([500, 2000, 4000]) * d
    if rng.random() < 0.3:
        kw["rate"] = rng.choice([0.01, 0.05]) / d
    kw["objective"] = rng.choice(["drain-time", "attempts", "weighted"])
    if kw["objective"] == "weighted":
        kw["weight"] = rng.choice([1, 10]) * d
    if i % 5 == 2:  # refused: a weight with another objective, or a deadline at the base
        if rng.random() < 0.5:
            kw["objective"], kw["weight"] = "drain-time", 5 * d
        else:
            kw["base"], kw["drain_within"] = 8 * d, 8 * d
    return kw


def cli_args(kw):
    args = ["advise", "--quiet"]
    for k, v in kw.items():
        if k == "clients" and isinstance(v, tuple):
            v = f"{v[0]}:{v[1]}"
        elif k == "strategies":
            v = ",".join(v)
        args += ["--" + k.replace("_", "-"), str(v)]
    return args


def keywords(cli_message):
    valued = re.sub(r"--(unit|objective|overflow|lock) ([a-z-]+)\b", r'\1="\2"', cli_message)
    valued = re.sub(r"--limit (\d+)", r"limit=\1", valued)
    return re.sub(r"--(\w[\w-]*)", lambda m: m.group(1).replace("-", "_"), valued)


def in_keywords(document):
    """The CLI's document with the options its notes and warnings name spelled as Python's keywords."""
    for key in ("notes", "warnings"):
        document[key] = [keywords(line) for line in document[key]]
    return document


REQUESTS = [random_request(random.Random(2024 + i), i) for i in range(20)]


@functools.lru_cache(maxsize=None)
def cli(i):
    return subprocess.run([EXE, *cli_args(REQUESTS[i]), "--json"], capture_output=True, text=True)


@pytest.mark.parametrize("i", range(len(REQUESTS)), ids=[f"request{i}" for i in range(len(REQUESTS))])
def test_python_advise_is_the_cli_advise(i):
    kw, out = REQUESTS[i], cli(i)
    if out.returncode == 0:
        assert retrylab.advise(**kw) == in_keywords(json.loads(out.stdout))
        return
    assert out.returncode == 2, out
    with pytest.raises(ValueError) as e:
        retrylab.advise(**kw)
    assert str(e.value) == keywords(out.stderr.strip()[len("retrylab: "):])


def test_some_requests_are_answered_and_some_refused():
    """The draw covers both paths (else the test above could pass without comparing documents)."""
    codes = [cli(i).returncode for i in range(len(REQUESTS))]
    assert codes.count(0) == 16 and codes.count(2) == 4

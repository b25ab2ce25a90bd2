"""The clients' request log: one JSON line per request, the calls still running at --max-seconds
named as unfinished (never dropped), in the form compare.py reads."""
import json


def write(path, done, arrivals):
    """done: the records of the calls that ended; arrivals: every (request id, arrival ms)."""
    ended = {r["request"] for r in done}
    done = list(done) + [{"request": rid, "arrival": t, "issued": None, "end": None, "outcome": "unfinished",
                          "status": "unfinished"} for rid, t in arrivals if rid not in ended]
    with open(path, "w") as f:
        for rec in done:
            f.write(json.dumps(rec) + "\n")

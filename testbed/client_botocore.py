#!/usr/bin/python3
"""Real AWS SDK client (Debian's python3-botocore) driven open-loop against the testbed server.

One botocore DynamoDB client (so one retry quota, and in adaptive mode one rate limiter, for every
call, as one process's client object holds them) pointed at http://127.0.0.1:PORT with dummy
credentials; the AWS settings file is botocore's own config file (AWS_CONFIG_FILE), so its
`retry_mode` and `max_attempts` are read by botocore as given. Each arrival is one DescribeLimits
call on its own thread, carrying the request's id in an x-request-id header (added by a
before-sign event handler: botocore's public hook, the library is not changed); botocore numbers
its attempts itself in the amz-sdk-request header the server reads.

Invariants: connects to 127.0.0.1 only; makes exactly the calls of the arrivals file; stops by
itself when every call has ended or --max-seconds has passed.
"""
import argparse
import json
import os
import threading
import time
from concurrent import futures

import request_log


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--aws-config", required=True, help="AWS settings file (retry_mode, max_attempts)")
    ap.add_argument("--profile", default="default")
    ap.add_argument("--arrivals", required=True)
    ap.add_argument("--epoch", type=float, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-seconds", type=float, default=120.0)
    args = ap.parse_args()
    # botocore reads these at session creation; nothing reaches beyond 127.0.0.1.
    os.environ["AWS_CONFIG_FILE"] = os.path.abspath(args.aws_config)
    os.environ["AWS_SHARED_CREDENTIALS_FILE"] = os.devnull
    os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
    for key in ("AWS_RETRY_MODE", "AWS_MAX_ATTEMPTS", "AWS_PROFILE", "AWS_DEFAULT_PROFILE"):
        os.environ.pop(key, None)
    import botocore.config
    import botocore.session

    with open(args.arrivals) as f:
        arrivals = json.load(f)
    session = botocore.session.Session(profile=args.profile if args.profile != "default" else None)
    client = session.create_client(
        "dynamodb", region_name="us-east-1", endpoint_url="http://127.0.0.1:%d" % args.port,
        aws_access_key_id="testbed", aws_secret_access_key="testbed",
        config=botocore.config.Config(max_pool_connections=256, connect_timeout=5, read_timeout=60,
                                      tcp_keepalive=False))
    local = threading.local()

    def add_request_id(request, **kwargs):
        request.headers["x-request-id"] = local.rid

    client.meta.events.register("before-sign.dynamodb.DescribeLimits", add_request_id)
    lock = threading.Lock()
    results = []

    def now_ms():
        return (time.time() - args.epoch) * 1000.0

    def one(rid, arrival):
        local.rid = rid
        issued = now_ms()
        try:
            client.describe_limits()
            outcome, status = "success", "OK"
        except client.exceptions.ClientError as e:
            outcome, status = "failure", e.response.get("Error", {}).get("Code", "?")
        except Exception as e:  # a connection error is an outcome too, named
            outcome, status = "failure", type(e).__name__
        rec = {"request": rid, "arrival": arrival, "issued": issued, "end": now_ms(),
               "outcome": outcome, "status": status}
        with lock:
            results.append(rec)

    pool = futures.ThreadPoolExecutor(max_workers=256)
    jobs = []
    for rid, t in arrivals:
        delay = t - now_ms()
        if delay > 0:
            time.sleep(delay / 1000.0)
        jobs.append(pool.submit(one, rid, t))
    futures.wait(jobs, timeout=max(0.0, args.max_seconds - now_ms() / 1000.0))
    with lock:
        done = list(results)
    request_log.write(args.out, done, arrivals)
    pool.shutdown(wait=False, cancel_futures=True)
    os._exit(0)  # calls still running past --max-seconds are abandoned, not waited for


if __name__ == "__main__":
    main()

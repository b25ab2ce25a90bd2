#!/usr/bin/python3
"""Real gRPC C-core client (Debian's python3-grpcio) driven open-loop against the testbed server.

The service config file is passed to the channel as given (channel argument grpc.service_config):
its retryPolicy and retryThrottling are C-core's to apply; this script only makes one call per
arrival, at the arrival's time, with the request's id in metadata (x-request-id), and records when
and how each call ended. C-core does not implement hedgingPolicy (retry_filter.cc: "TODO:
implement hedging"); grpc-js does (client_grpcjs.js).

Invariants: connects to 127.0.0.1 only; makes exactly the calls of the arrivals file; stops by
itself when every call has ended or --max-seconds has passed.
"""
import argparse
import json
import threading
import time

import grpc

import request_log

METHOD = "/retrylab.testbed.Dependency/Call"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--service-config", required=True)
    ap.add_argument("--arrivals", required=True, help="JSON list of [request id, arrival ms]")
    ap.add_argument("--epoch", type=float, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-seconds", type=float, default=120.0)
    args = ap.parse_args()
    with open(args.service_config) as f:
        service_config = f.read()
    json.loads(service_config)  # a malformed file fails here, with its own message
    with open(args.arrivals) as f:
        arrivals = json.load(f)

    channel = grpc.insecure_channel(
        "127.0.0.1:%d" % args.port,
        options=[("grpc.service_config", service_config), ("grpc.enable_retries", 1)])
    grpc.channel_ready_future(channel).result(timeout=10)
    call = channel.unary_unary(METHOD)  # no serializers: bytes in, bytes out
    lock = threading.Lock()
    results = []
    pending = [len(arrivals)]
    all_done = threading.Event()

    def now_ms():
        return (time.time() - args.epoch) * 1000.0

    def finish(rid, arrival, issued, fut):
        end = now_ms()
        code = fut.code()
        with lock:
            results.append({"request": rid, "arrival": arrival, "issued": issued, "end": end,
                            "outcome": "success" if code == grpc.StatusCode.OK else "failure",
                            "status": code.name})
            pending[0] -= 1
            if pending[0] == 0:
                all_done.set()

    for rid, t in arrivals:
        delay = t - now_ms()
        if delay > 0:
            time.sleep(delay / 1000.0)
        issued = now_ms()
        fut = call.future(b"x", metadata=[("x-request-id", rid)])
        fut.add_done_callback(lambda f, rid=rid, t=t, issued=issued: finish(rid, t, issued, f))
    if not arrivals:
        all_done.set()
    all_done.wait(max(0.0, args.max_seconds - now_ms() / 1000.0))
    with lock:
        done = list(results)
    request_log.write(args.out, done, arrivals)
    channel.close()


if __name__ == "__main__":
    main()

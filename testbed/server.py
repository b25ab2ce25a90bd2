#!/usr/bin/python3
"""The contended dependency the real clients are driven against (testbed/).

One process on 127.0.0.1 serving a gRPC method (/retrylab.testbed.Dependency/Call, bytes in and
out: a generic handler, no protoc) and an HTTP endpoint (POST /, answered as DynamoDB's JSON
protocol answers, so a botocore client reads its errors). Both share one dependency: at most
`limit` attempts admitted at once, the rest queued FIFO (`overflow = "queue"`) or failed at once
(`"reject"`); service fixed or exponential with mean `attempt_duration` ms; an attempt that would
succeed fails with `failure_prob`, or `outage_fraction` when its service ends inside
[outage_start, outage_end) (decided at service end, as retrylab's engine decides it, docs/models.md
§7). A failure has the scenario's kind: retryable (UNAVAILABLE / HTTP 503), throttled
(RESOURCE_EXHAUSTED / HTTP 400 ThrottlingException) or fatal (INVALID_ARGUMENT / HTTP 400
ValidationException).

Every attempt it receives is logged (request id from metadata or header, attempt number, arrival,
start of service, end, outcome); at the end it writes them as JSON Lines for testbed/compare.py.
Times are ms since the run's epoch (wall clock, shared with the client process).

Invariants: listens on 127.0.0.1 only; stops by itself after --max-seconds, or when its standard
input closes (the harness closes it when the client is done); serves at most --max-attempts
attempts and fails the rest at once.
"""
import argparse
import collections
import http.server
import json
import random
import socketserver
import sys
import threading
import time
from concurrent import futures

import grpc

METHOD = "/retrylab.testbed.Dependency/Call"

GRPC_CODES = {
    "retryable": grpc.StatusCode.UNAVAILABLE,
    "throttled": grpc.StatusCode.RESOURCE_EXHAUSTED,
    "fatal": grpc.StatusCode.INVALID_ARGUMENT,
}
# botocore/retries/standard.py: 503 is in _TRANSIENT_STATUS_CODES, "ThrottlingException" in
# _THROTTLED_ERROR_CODES; a 400 ValidationException is neither, so it is not retried.
HTTP_ERRORS = {
    "retryable": (503, "ServiceUnavailable"),
    "throttled": (400, "ThrottlingException"),
    "fatal": (400, "ValidationException"),
}


class Dependency:
    """At most `limit` attempts admitted; FIFO queue or rejection above it; outcome at service end."""

    def __init__(self, cfg, epoch, seed):
        self.limit = int(cfg.get("limit", 0))
        self.overflow = cfg.get("overflow", "reject")
        self.service = cfg.get("service", "deterministic")
        self.mean_ms = float(cfg["attempt_duration"])
        self.failure_prob = float(cfg.get("failure_prob", 0))
        self.outage = (float(cfg.get("outage_start", 0)), float(cfg.get("outage_end", 0)),
                       float(cfg.get("outage_fraction", 1)))
        self.kind = cfg.get("failure_kind", "retryable")
        self.epoch = epoch
        # one stream per purpose, as the engine keeps them (docs/models.md §6): with one stream for
        # both, which draw decided a failure followed the threads' timing, and the realised failure
        # fractions spread wider than a binomial's; now the k-th attempt to end takes the k-th
        # failure draw whatever the timing
        self.rng_service = random.Random("%d/service" % seed)
        self.rng_failure = random.Random("%d/failure" % seed)
        self.lock = threading.Lock()
        self.in_service = 0
        self.queue = collections.deque()  # threading.Event per waiting attempt, FIFO
        self.records = []
        self.max_attempts = int(cfg.get("max_server_attempts", 20000))

    def now(self):
        return (time.time() - self.epoch) * 1000.0

    def _admit(self, cancelled):
        """Waits for a slot; returns 'admitted', 'rejected' or 'cancelled'."""
        with self.lock:
            if self.limit == 0 or self.in_service < self.limit:
                self.in_service += 1
                return "admitted"
            if self.overflow == "reject":
                return "rejected"
            turn = threading.Event()
            self.queue.append(turn)
        while not turn.wait(0.005):
            if cancelled.is_set():
                with self.lock:
                    if turn.is_set():  # granted while we looked: hand the slot on
                        self._release_locked()
                    else:
                        self.queue.remove(turn)
                return "cancelled"
        return "admitted"

    def _release_locked(self):
        if self.queue:
            self.queue.popleft().set()  # the slot passes to the head of the queue
        else:
            self.in_service -= 1

    def _service_ms(self):
        with self.lock:
            if self.service == "exponential":
                return self.rng_service.expovariate(1.0 / self.mean_ms)
            return self.mean_ms

    def _fails(self, end_ms):
        start, stop, fraction = self.outage
        p = fraction if stop > start and start <= end_ms < stop else self.failure_prob
        with self.lock:
            return self.rng_failure.random() < p

    def serve(self, protocol, request_id, attempt, cancelled):
        """One attempt: admission, service, outcome. Returns its record (outcome: success,
        failure, rejected, cancelled or overload)."""
        rec = {"protocol": protocol, "request": request_id, "attempt": attempt,
               "arrival": self.now(), "start": None, "end": None, "outcome": None, "kind": None}
        with self.lock:
            over = len(self.records) >= self.max_attempts
            self.records.append(rec)
        if over:
            rec["end"], rec["outcome"], rec["kind"] = self.now(), "overload", "fatal"
            return rec
        admitted = self._admit(cancelled)
        if admitted != "admitted":
            rec["end"] = self.now()
            rec["outcome"] = "failure" if admitted == "rejected" else "cancelled"
            rec["kind"] = self.kind if admitted == "rejected" else None
            return rec
        rec["start"] = self.now()
        was_cancelled = cancelled.wait(self._service_ms() / 1000.0)
        end = self.now()
        with self.lock:
            self._release_locked()
        rec["end"] = end
        if was_cancelled:
            rec["outcome"] = "cancelled"
        elif self._fails(end):
            rec["outcome"], rec["kind"] = "failure", self.kind
        else:
            rec["outcome"] = "success"
        return rec


def grpc_handler(dep):
    def call(request, context):
        md = dict(context.invocation_metadata())
        cancelled = threading.Event()
        context.add_callback(cancelled.set)  # runs when the RPC ends, cancellation included
        previous = md.get("grpc-previous-rpc-attempts")
        rec = dep.serve("grpc", md.get("x-request-id", "?"),
                        int(previous) + 1 if previous is not None else 1, cancelled)
        rec["attempt_header"] = previous is not None
        if rec["outcome"] == "success":
            return request
        if rec["outcome"] == "cancelled":
            return b""
        context.abort(GRPC_CODES[rec["kind"]], "testbed: injected %s failure" % rec["kind"])

    handler = grpc.unary_unary_rpc_method_handler(call)  # bytes in, bytes out
    return grpc.method_handlers_generic_handler("retrylab.testbed.Dependency", {"Call": handler})


def http_handler_class(dep):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # quiet
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            self.rfile.read(length)
            attempt = 1
            for part in self.headers.get("amz-sdk-request", "").split(";"):
                key, _, value = part.strip().partition("=")
                if key == "attempt":
                    attempt = int(value)
            rid = self.headers.get("x-request-id") or self.headers.get("amz-sdk-invocation-id", "?")
            rec = dep.serve("http", rid, attempt, threading.Event())
            rec["attempt_header"] = "amz-sdk-request" in self.headers
            if rec["outcome"] == "success":
                status, body = 200, b"{}"
            else:
                status, code = HTTP_ERRORS[rec["kind"]]
                body = json.dumps({"__type": "com.amazonaws.dynamodb.v20120810#" + code,
                                   "message": "testbed: injected failure"}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/x-amz-json-1.0")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("x-amzn-RequestId", rid)
            self.end_headers()
            self.wfile.write(body)

    return Handler


class QuietThreadingHTTPServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", required=True, help="JSON: the dependency's fields (see Dependency)")
    ap.add_argument("--epoch", type=float, required=True, help="the run's t = 0, seconds since 1970")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log", required=True, help="attempt log to write (JSON Lines)")
    ap.add_argument("--max-seconds", type=float, default=120.0)
    args = ap.parse_args()
    if args.max_seconds <= 0 or args.max_seconds > 600:
        sys.exit("server: --max-seconds must be in (0, 600] (got %s)" % args.max_seconds)
    with open(args.config) as f:
        cfg = json.load(f)
    dep = Dependency(cfg, args.epoch, args.seed)

    gserver = grpc.server(futures.ThreadPoolExecutor(max_workers=512),
                          handlers=[grpc_handler(dep)], options=[("grpc.so_reuseport", 0)])
    gport = gserver.add_insecure_port("127.0.0.1:0")
    gserver.start()
    hserver = QuietThreadingHTTPServer(("127.0.0.1", 0), http_handler_class(dep))
    hthread = threading.Thread(target=hserver.serve_forever, daemon=True)
    hthread.start()
    print(json.dumps({"grpc_port": gport, "http_port": hserver.server_address[1]}), flush=True)

    done = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
    done.wait(args.max_seconds)
    hserver.shutdown()
    gserver.stop(grace=1.0).wait()
    with dep.lock:
        records = list(dep.records)
    with open(args.log, "w") as f:
        for rec in records:
            f.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env node
// Real gRPC client in Node (@grpc/grpc-js, npm, pinned by package-lock.json) driven open-loop
// against the testbed server. grpc-js implements retryPolicy, hedgingPolicy and retryThrottling
// (src/retrying-call.ts); the service config file goes to the channel as given
// (grpc.service_config). One call per arrival, at its time, with the request's id in metadata
// (x-request-id); a generic client (makeUnaryRequest, Buffers in and out), no .proto needed.
//
// Invariants: connects to 127.0.0.1 only; makes exactly the calls of the arrivals file; exits by
// itself when every call has ended or --max-seconds has passed.
'use strict';
const fs = require('fs');
const grpc = require('@grpc/grpc-js');

function parseArgs(argv) {
  const out = {};
  for (let i = 2; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) {
      console.error(`client_grpcjs: bad argument ${argv[i]}`);
      process.exit(2);
    }
    out[argv[i].slice(2)] = argv[i + 1];
  }
  for (const key of ['port', 'service-config', 'arrivals', 'epoch', 'out']) {
    if (!(key in out)) {
      console.error(`client_grpcjs: --${key} is required`);
      process.exit(2);
    }
  }
  return out;
}

const args = parseArgs(process.argv);
const epochMs = Number(args.epoch) * 1000;
const maxSeconds = Number(args['max-seconds'] || 120);
const serviceConfig = fs.readFileSync(args['service-config'], 'utf8');
JSON.parse(serviceConfig);  // a malformed file fails here, with its own message
const arrivals = JSON.parse(fs.readFileSync(args.arrivals, 'utf8'));
const client = new grpc.Client(`127.0.0.1:${args.port}`, grpc.credentials.createInsecure(), {
  'grpc.service_config': serviceConfig,
  'grpc.enable_retries': 1,
});
const nowMs = () => (performance.timeOrigin + performance.now()) - epochMs;
const results = [];
let pending = arrivals.length;

function write() {
  // calls still running at --max-seconds: named, not dropped
  const ended = new Set(results.map((r) => r.request));
  for (const [rid, t] of arrivals) {
    if (!ended.has(rid)) {
      results.push({request: rid, arrival: t, issued: null, end: null, outcome: 'unfinished',
                    status: 'unfinished'});
    }
  }
  fs.writeFileSync(args.out, results.map((r) => JSON.stringify(r)).join('\n') + (results.length ? '\n' : ''));
  client.close();
  process.exit(0);
}
const guard = setTimeout(write, Math.max(0, maxSeconds * 1000 - nowMs()));

function issue(rid, arrival) {
  const issued = nowMs();
  const md = new grpc.Metadata();
  md.set('x-request-id', rid);
  client.makeUnaryRequest('/retrylab.testbed.Dependency/Call', (b) => b, (b) => b,
                          Buffer.from('x'), md, {}, (err) => {
    results.push({request: rid, arrival, issued, end: nowMs(),
                  outcome: err ? 'failure' : 'success',
                  status: err ? grpc.status[err.code] : 'OK'});
    pending -= 1;
    if (pending === 0) {
      clearTimeout(guard);
      write();
    }
  });
}

client.waitForReady(Date.now() + 10000, (err) => {
  if (err) {
    console.error(`client_grpcjs: server not ready: ${err.message}`);
    process.exit(1);
  }
  if (arrivals.length === 0) write();
  for (const [rid, t] of arrivals) setTimeout(() => issue(rid, t), Math.max(0, t - nowMs()));
});

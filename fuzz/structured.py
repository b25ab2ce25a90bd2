#!/usr/bin/env python3
"""Structure-aware seed inputs for the libFuzzer targets (fuzz/run.sh): for every format a user hands
retrylab (policy files in five formats, load profiles, study specs, traces), documents built to
reach the readers' bounds rather than byte mutations of the examples: deep nesting (past each
reader's depth bound and near it), YAML aliases (recursive, nested "billion laughs", aliases of
deep nodes), duplicate keys, long keys above wide maps, and encodings (a UTF-8 BOM, UTF-16, a
stray 0xFF, overlong and surrogate UTF-8, NUL and ESC bytes). Every input is at most MAX_LEN bytes
(run.sh's -max_len), deterministic (no randomness), and named by what it exercises.

Usage: fuzz/structured.py OUT_DIR   (writes OUT_DIR/seed_<target>/structured_<name>)
"""
import os
import sys

MAX_LEN = 16384

# The policy target's first byte picks the format (fuzz/fuzz_policy.cpp).
TOML, GRPC, ENVOY, AWS, R4J = 0, 1, 2, 3, 4

ENCODINGS = {
    "bom": lambda t: b"\xef\xbb\xbf" + t,
    "utf16": lambda t: t.decode("utf-8", "replace").encode("utf-16"),
    "ff": lambda t: t.replace(b"\n", b"\xff\n", 1),
    "overlong": lambda t: t.replace(b"\n", b"\xc0\xaf\n", 1),
    "surrogate": lambda t: t.replace(b"\n", b"\xed\xa0\x80\n", 1),
    "cut": lambda t: t + b"\xe2\x88",
    "nul": lambda t: t.replace(b"\n", b"\x00\n", 1),
    "esc": lambda t: t.replace(b"\n", b"\x1b[2J\x1b]0;x\x07\n", 1),
    "crlf": lambda t: t.replace(b"\n", b"\r\n"),
}


def yaml_docs():
    """Envoy and resilience4j YAML: aliases, nesting, duplicates, width."""
    r4j = "resilience4j.retry:\n  instances:\n    backend:\n      maxAttempts: 3\n      waitDuration: 100ms\n"
    envoy = ("route_config:\n  virtual_hosts:\n  - routes:\n    - route:\n        timeout: 1s\n"
             "        retry_policy:\n          num_retries: 2\n          retry_on: 5xx\n")
    docs = {
        "self_alias": "a: &a [*a]\n",
        "self_alias_map": "a: &a {b: *a}\n",
        "alias_in_instance": "resilience4j.retry: &r\n  instances: {x: *r}\n",
        "undefined_alias": "a: *nope\n",
        "anchor_redefined": "a: &x [1]\nb: &x [*x, *x]\nc: *x\n",
        "alias_key": "a: &k key\n*k : 1\n",
        "merge_key": "base: &b {maxAttempts: 3}\nresilience4j.retry:\n  instances:\n    x:\n      <<: *b\n",
        "dup_top": "a: 1\na: 2\n",
        "dup_nested": r4j + "      maxAttempts: 4\n",
        "dup_relaxed": r4j + "      max-attempts: 4\n",
        "dup_envoy": envoy + "          num_retries: 3\n",
        "tags": "!!map {? !!str a : !!seq [!!int 1]}\n",
        "multi_doc": envoy + "---\n" + envoy,
        "long_key_wide": "%s:\n%s" % ("k" * 8000, "".join("  k%d: 1\n" % i for i in range(700))),
    }
    for levels, count in ((10, 10), (24, 4), (6, 30), (3, 3)):
        t = "l0: &l0 [x]\n"
        for i in range(1, levels + 1):
            t += "l%d: &l%d [%s]\n" % (i, i, ", ".join("*l%d" % (i - 1) for _ in range(count)))
        docs["laughs_%dx%d" % (levels, count)] = t
    for depth in (63, 64, 65, 100, 2500):
        docs["flow_seq_%d" % depth] = "a: " + "[" * depth + "]" * depth + "\n"
        docs["flow_map_%d" % depth] = "a: " + "{b: " * min(depth, 2000) + "1" + "}" * min(depth, 2000) + "\n"
    block = ""
    for i in range(70):
        block += "  " * i + "k%d:\n" % i
    docs["block_70"] = block + "  " * 70 + "v\n"
    docs["deep_alias"] = "a: &a %s%s\nb: %s*a%s\n" % ("[" * 40, "]" * 40, "[" * 40, "]" * 40)
    docs["wide_seq"] = "".join("- a\n" for _ in range(4000))
    docs["r4j_example"] = r4j
    docs["envoy_example"] = envoy
    return docs


def json_docs():
    rp = ('{"methodConfig": [{"name": [{"service": "s"}], "retryPolicy": {"maxAttempts": 3, '
          '"initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, '
          '"retryableStatusCodes": ["UNAVAILABLE"]}}]}')
    docs = {
        "dup_top": '{"a": 1, "a": 2}',
        "dup_retry": rp.replace('"maxAttempts": 3', '"maxAttempts": 3, "maxAttempts": 4'),
        "dup_case": rp.replace('"maxAttempts": 3', '"maxAttempts": 3, "MaxAttempts": 4'),
        "escaped_key": '{"a\\"b": {"a\\\\": 1}, "\\u0000": 2}',
        "long_key_wide": '{"%s": {%s}}' % ("k" * 8000, ",".join('"%d":0' % i for i in range(900))),
        "example": rp,
        "unbalanced": "]]]]{{{{" + rp,
        "number_range": '{"methodConfig": [{"retryPolicy": {"maxAttempts": 1e999}}]}',
    }
    for depth in (63, 64, 65, 100, 2500):
        docs["array_%d" % depth] = "[" * depth + "]" * depth
        docs["object_%d" % depth] = '{"a":' * depth + "1" + "}" * depth
        docs["open_%d" % depth] = "[" * depth
    return docs


def toml_docs():
    docs = {
        "dup_key": "[backoff]\nbase = 1\nbase = 2\n",
        "dup_table": "[backoff]\nbase = 1\n[backoff]\ncap = 2\n",
        "wrong_table": "[client]\nbase = 1\n",
        "dotted_dup": "backoff.base = 1\n[backoff]\nbase = 2\n",
        "example": 'unit = "ms"\n[backoff]\nstrategy = "full"\nbase = 100\ncap = 1000\n[client]\nmax_attempts = 3\n',
    }
    for depth in (63, 64, 65, 256, 257, 2500):
        docs["array_%d" % depth] = "a = " + "[" * depth + "]" * depth + "\n"
        docs["inline_%d" % depth] = "a = " + "{b = " * depth + "1" + "}" * min(depth, 2000) + "\n"
        docs["dotted_%d" % depth] = ".".join("k" for _ in range(depth)) + " = 1\n"
        docs["header_%d" % depth] = "[" + ".".join("k" for _ in range(depth)) + "]\n"
    return docs


def aws_docs():
    base = "[default]\nretry_mode = standard\nmax_attempts = 3\n"
    docs = {
        "dup_setting": base + "max_attempts = 4\n",
        "dup_case": base + "MAX_ATTEMPTS = 4\n",
        "dup_profile": base + "[default]\n",
        "dup_profile_alias": "[profile x]\nretry_mode = legacy\n[x]\n",
        "indented_chain": base + "s3 =\n" + "".join("  k%d = 1\n" % i for i in range(1300)),
        "indented_first": "[default]\n  k = 1\n",
        "env_lines": "export AWS_RETRY_MODE=adaptive\nAWS_MAX_ATTEMPTS=5\n",
        "brackets": "[[[[default]]]]\n",
        "wide_profiles": "".join("[profile p%d]\n" % i for i in range(1000)),
        "example": base,
    }
    return docs


def policy_inputs():
    out = {}
    for name, text in yaml_docs().items():
        out["envoy_" + name] = bytes([ENVOY]) + text.encode()
        out["r4j_" + name] = bytes([R4J]) + text.encode()
    for name, text in json_docs().items():
        out["grpc_" + name] = bytes([GRPC]) + text.encode()
    for name, text in toml_docs().items():
        out["toml_" + name] = bytes([TOML]) + text.encode()
    for name, text in aws_docs().items():
        out["aws_" + name] = bytes([AWS]) + text.encode()
    examples = {"envoy": (ENVOY, yaml_docs()["envoy_example"]), "r4j": (R4J, yaml_docs()["r4j_example"]),
                "grpc": (GRPC, json_docs()["example"]), "toml": (TOML, toml_docs()["example"]),
                "aws": (AWS, aws_docs()["example"])}
    for fmt, (byte, text) in examples.items():
        for enc, f in ENCODINGS.items():
            out["%s_enc_%s" % (fmt, enc)] = bytes([byte]) + f(text.encode())
    # Operation strings for fuzz_policy's structured mode (first byte >= 0x80, fuzz/structured.hpp):
    # 0 open a list, 1 a map (+0x40: anchored), 2 close, 3/4 scalars, 5 an alias, 6 the last key again.
    ops = {
        "deep_lists": b"\x00" * 200,
        "deep_maps": b"\x01" * 200,
        "anchored_aliases": b"\x40" + b"\x05" * 10 + b"\x02" + b"\x40" + b"\x05" * 10 + b"\x02" + b"\x05" * 10,
        "dup_keys": b"\x01\x03\x06\x06\x02",
        "raw_ff": b"\x01\x07\xff\x03\x02",
    }
    for fmt in range(5):
        for name, code in ops.items():
            out["ops%d_%s" % (fmt, name)] = bytes([0x80 + (fmt + 2) % 5]) + code  # byte % 5 == fmt
    return out


def profile_inputs():
    csv = b"time,rate\n0,1\n10,2\n20,0.5\n"
    out = {
        "csv_header_numeric_like": b"\x01" + b"1e,2\n0,1\n",
        "csv_two_headers": b"\x01" + b"t,r\nt,r\n0,1\n",
        "csv_wide": b"\x01" + b"".join(b"%d,1\n" % i for i in range(2400)),
        "csv_long_cell": b"\x01" + b"0," + b"9" * 8000 + b"\n",
        "csv_many_commas": b"\x01" + b"," * 8000 + b"\n",
        "csv_nan_inf": b"\x01" + b"0,nan\n1,inf\n2,-0\n",
        "inline_long": b"\x00" + b"t:" + b",".join(b"%d:1" % i for i in range(1000)),
        "inline_deep_step": b"\x00" + b"step:" + b":".join(b"1" for _ in range(3000)),
    }
    for enc, f in ENCODINGS.items():
        out["csv_enc_" + enc] = b"\x01" + f(csv)
    return out


def spec_inputs():
    spec = ('title = "t"\n[[sweep]]\nname = "a"\nmodel = "none"\nclients = [1, 2]\n'
            'strategy = "full"\nruns = 2\n')
    out = {
        "dup_key": spec + 'name = "b"\n',
        "dup_sweep_name": spec + spec[spec.index("[[sweep]]"):],
        "policy_abs": spec + 'policy = "/etc/passwd"\n',
        "policy_dotdot": spec + 'policy = "../../x.json"\n',
        "profile_dev": spec + 'load_profile = "/dev/zero"\n',
        "many_policies": 'title = "t"\n' + "".join(
            '[[sweep]]\nname = "s%d"\nmodel = "none"\nclients = 1\nstrategy = "full"\n' % i for i in range(230)),
        "wide_axis": spec.replace("[1, 2]", "[" + ", ".join(str(i + 1) for i in range(2800)) + "]"),
    }
    for depth in (64, 257, 2000):
        out["array_%d" % depth] = spec + "x = " + "[" * depth + "]" * depth + "\n"
        out["inline_%d" % depth] = spec + "x = " + "{a = " * depth + "1" + "}" * min(depth, 2000) + "\n"
    for enc, f in ENCODINGS.items():
        out["enc_" + enc] = f(spec.encode())
    return {k: v.encode() if isinstance(v, str) else v for k, v in out.items()}


def trace_inputs():
    head = b"# retrylab-trace v2\n"
    out = {
        "jsonl_deep": b'{"run": ' + b"[" * 5000 + b"]" * 5000 + b"}\n",
        "jsonl_dup": b'{"run": 0, "run": 1}\n',
        "jsonl_long_key": b'{"' + b"k" * 12000 + b'": 1}\n',
        "csv_wide_header": head + b",".join(b"c%d" % i for i in range(2000)) + b"\n",
        "csv_long_cell": head + b"run,client\n" + b"1" * 12000 + b",0\n",
    }
    for enc, f in ENCODINGS.items():
        out["csv_enc_" + enc] = f(head + b"run,client,retry,arrival,start,end,outcome\n0,0,0,0,0,1,success\n")
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    counts = {}
    for target, inputs in (("policy", policy_inputs()), ("profile", profile_inputs()), ("spec", spec_inputs()),
                           ("trace", trace_inputs())):
        folder = os.path.join(root, "seed_" + target)
        os.makedirs(folder, exist_ok=True)
        for name, data in inputs.items():
            if len(data) > MAX_LEN:
                sys.exit("structured.py: %s/%s is %d bytes, over %d" % (target, name, len(data), MAX_LEN))
            with open(os.path.join(folder, "structured_" + name), "wb") as f:
                f.write(data)
        counts[target] = len(inputs)
    print("structured seeds: " + ", ".join("%s %d" % kv for kv in counts.items()), file=sys.stderr)


if __name__ == "__main__":
    main()

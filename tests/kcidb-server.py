#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""kcidb-server.py: a loopback stand-in for KCIDB's REST daemon (kcidb-ng: POST /submit, bearer token).

Usage: tests/kcidb-server.py DIR --token TOKEN [--fail-first N] [--schema FILE]
Listens on 127.0.0.1 on a free port and writes it to DIR/port once listening. Each POST /submit:
  - the first N requests get 500 (a server failing for a while);
  - a missing or different bearer token gets 401;
  - a body that is not JSON gets 400;
  - a body that fails KCIDB's v5.3 schema (tests/kcidb-check.py's validator, formats checked; the
    schema from --schema, else $TAPBOOT_SHARED/kcidb, by default ../shared/kcidb) gets 400 with
    the first error. Without the schema (a plain clone has none) bodies are not checked against
    it: said on stderr and in DIR/schema ("none"; otherwise the schema's path);
  - otherwise the body is recorded as DIR/submission-K.json and the answer is 200 {"id": "K"}.
Every request is logged to DIR/requests.log as "STATUS METHOD PATH". Stops on SIGTERM.
"""
import http.server
import importlib.util
import json
import os
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load_checker(path):
    """The schema's validator; None when path is not given and the default does not exist."""
    spec = importlib.util.spec_from_file_location("kcidb_check", os.path.join(HERE, "kcidb-check.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if not path and not os.path.exists(mod.DEFAULT_SCHEMA):
        print("kcidb-server: no KCIDB schema at '%s' (set TAPBOOT_SHARED): bodies are not "
              "checked against it" % mod.DEFAULT_SCHEMA, file=sys.stderr)
        return None, "none"
    path = path or mod.DEFAULT_SCHEMA
    with open(path, encoding="utf-8") as f:
        schema = json.load(f)
    return mod.jsonschema.Draft7Validator(schema, format_checker=mod.format_checker()), path


class State:
    dir = None
    token = None
    fail_first = 0
    requests = 0
    accepted = 0
    validator = None


class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        with open(os.path.join(State.dir, "requests.log"), "a") as f:
            f.write("%d %s %s\n" % (status, self.command, self.path))

    def do_GET(self):
        self.answer(405, {"error": "only POST /submit"})

    def do_POST(self):
        State.requests += 1
        length = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(length)
        if self.path != "/submit":
            return self.answer(404, {"error": "no such endpoint: " + self.path})
        if State.requests <= State.fail_first:
            return self.answer(500, {"error": "failing on purpose (%d of %d)"
                                     % (State.requests, State.fail_first)})
        if self.headers.get("Authorization") != "Bearer " + State.token:
            return self.answer(401, {"error": "invalid token"})
        try:
            doc = json.loads(data)
        except ValueError as e:
            return self.answer(400, {"error": "not JSON: %s" % e})
        errors = []
        if State.validator:
            errors = sorted(State.validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors:
            where = "/".join(str(p) for p in errors[0].absolute_path)
            return self.answer(400, {"error": "schema v5.3: %s: %s" % (where, errors[0].message)})
        State.accepted += 1
        with open(os.path.join(State.dir, "submission-%d.json" % State.accepted), "wb") as f:
            f.write(data)
        self.answer(200, {"id": str(State.accepted)})

    def log_message(self, fmt, *args):
        pass


def main(argv):
    args = list(argv)
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    State.dir = args.pop(0)
    schema = None
    while args:
        a = args.pop(0)
        if a == "--token" and args:
            State.token = args.pop(0)
        elif a == "--fail-first" and args:
            State.fail_first = int(args.pop(0))
        elif a == "--schema" and args:
            schema = args.pop(0)
        else:
            print("kcidb-server: unknown argument %r" % a, file=sys.stderr)
            return 2
    if State.token is None:
        print("kcidb-server: --token is required", file=sys.stderr)
        return 2
    State.validator, used = load_checker(schema)
    with open(os.path.join(State.dir, "schema"), "w") as f:
        f.write(used + "\n")
    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    tmp = os.path.join(State.dir, "port.tmp")
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(tmp, os.path.join(State.dir, "port"))
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""kcidb-check.py: validates kcidb.json files against KCIDB's v5.3 JSON schema, with formats checked.

Usage: tests/kcidb-check.py [--schema FILE] [--distinct] FILE|DIR...
A DIR means DIR/kcidb.json. The schema is KCIDB's, read at run time (never copied) from
$TAPBOOT_SHARED/kcidb, by default ../shared/kcidb beside the source tree.
Beyond the schema: every id is unique within its file, a test's build_id and a build's
checkout_id name objects of the same file, and with --distinct no id appears in two files
(two runs' ids never collide). Exit 0 when all hold, 1 with one message per problem, 2 on
bad usage or an unreadable file.

Debian 12's python3-jsonschema (4.10) checks neither date-time nor uri unless optional modules
are installed (rfc3339-validator is not in bookworm), so both checkers are defined here.
"""
import datetime
import json
import os
import re
import sys

import jsonschema

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("TAPBOOT_SHARED") or os.path.join(TOP, "..", "shared")
DEFAULT_SCHEMA = os.path.join(SHARED, "kcidb", "kcidb-io.schema.v5.3.json")

# RFC 3339 section 5.6 date-time: full-date "T" full-time, the offset required.
DATE_TIME = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
# RFC 3986 section 3: scheme ":" hier-part, no spaces or characters outside the URI set.
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*$")


def format_checker():
    checker = jsonschema.FormatChecker()

    @checker.checks("date-time", raises=ValueError)
    def is_date_time(value):
        if not isinstance(value, str):
            return True
        m = DATE_TIME.match(value)
        if not m:
            raise ValueError("not an RFC 3339 date-time: %r" % value)
        y, mo, d, h, mi, s = (int(m.group(i)) for i in range(1, 7))
        datetime.datetime(y, mo, d, h, mi, min(s, 59))  # range checks (60: a leap second)
        if s > 60:
            raise ValueError("seconds out of range: %r" % value)
        return True

    @checker.checks("uri", raises=ValueError)
    def is_uri(value):
        if not isinstance(value, str):
            return True
        if not URI.match(value) or re.search(r"%(?![0-9A-Fa-f]{2})", value):
            raise ValueError("not an RFC 3986 URI: %r" % value)
        return True

    return checker


def check_file(path, validator, seen, problems):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print("kcidb-check: cannot read '%s': %s" % (path, e), file=sys.stderr)
        sys.exit(2)
    for err in sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in err.absolute_path)
        problems.append("%s: %s: %s" % (path, where or "(top)", err.message))
    ids = {}
    for kind in ("checkouts", "builds", "tests", "issues", "incidents"):
        for obj in data.get(kind, []) if isinstance(data, dict) else []:
            i = obj.get("id") if isinstance(obj, dict) else None
            if i is None:
                continue
            if (kind, i) in ids:
                problems.append("%s: %s id %r appears twice" % (path, kind, i))
            ids[(kind, i)] = True
            if (kind, i) in seen and seen[(kind, i)] != path:
                problems.append("%s: %s id %r is also in %s" % (path, kind, i, seen[(kind, i)]))
            seen[(kind, i)] = path
    if isinstance(data, dict):
        for b in data.get("builds", []):
            if ("checkouts", b.get("checkout_id")) not in ids:
                problems.append("%s: build %r: checkout %r is not in the file"
                                % (path, b.get("id"), b.get("checkout_id")))
        for t in data.get("tests", []):
            if ("builds", t.get("build_id")) not in ids:
                problems.append("%s: test %r: build %r is not in the file"
                                % (path, t.get("id"), t.get("build_id")))


def main(argv):
    schema_path = DEFAULT_SCHEMA
    distinct = False
    files = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--schema" and args:
            schema_path = args.pop(0)
        elif a == "--distinct":
            distinct = True
        elif a.startswith("-"):
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 2
        else:
            files.append(os.path.join(a, "kcidb.json") if os.path.isdir(a) else a)
    if not files:
        print("kcidb-check: no file given", file=sys.stderr)
        return 2
    try:
        with open(schema_path, encoding="utf-8") as f:
            schema = json.load(f)
    except (OSError, ValueError) as e:
        print("kcidb-check: cannot read the schema '%s': %s%s" % (
            schema_path, e, " (set TAPBOOT_SHARED)" if schema_path == DEFAULT_SCHEMA else ""),
            file=sys.stderr)
        return 2
    # kcidb-io validates with Draft 7 (kcidb_io/schema/abstract.py)
    validator = jsonschema.Draft7Validator(schema, format_checker=format_checker())
    problems = []
    seen = {}
    for path in files:
        check_file(path, validator, seen if distinct else {}, problems)
    for p in problems:
        print("kcidb-check: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

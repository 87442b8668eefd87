#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 60-kcidb.sh: kcidb.json against KCIDB's v5.3 schema (no boot: from captured consoles), the
# checker's own strictness, --kcidb-origin, and tapboot kcidb-submit against tests/kcidb-server.py
# on loopback: a normal submit, 500 twice then 200, a refused token, a rejected body, no server.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
"$PY" -c 'import jsonschema' 2>/dev/null || bail "python3-jsonschema is missing: apt-get install python3-jsonschema (or make deps)"
FX=$TOP/tests/fixtures
CHECK=$TOP/tests/kcidb-check.py
NO_SCHEMA=$(shared_missing "KCIDB schema" "$KCIDB_SCHEMA")

# Two runs of the same console (a panic) and a KUnit log with parameterised names.
for r in r1 r2; do
	mkdir -p "$WORK/$r"
	"$TAPBOOT" parse --format kcidb "$FX/tap/real-x86_64-run-panic.log" >"$WORK/$r/kcidb.json"
	is "$?" 3 "$r: parse of the panic console: exit 3"
done
mkdir -p "$WORK/kunit"
"$TAPBOOT" parse --format kcidb --suite kunit --kcidb-origin my_lab "$FX/tap/kunit-ktap.log" >"$WORK/kunit/kcidb.json"
if [ -f "$KCIDB_SCHEMA" ]; then
	"$PY" "$CHECK" --distinct "$WORK/r1" "$WORK/r2" "$WORK/kunit"
	is "$?" 0 "three kcidb.json validate against v5.3, ids distinct across runs"
else
	skip "three kcidb.json validate against v5.3, ids distinct across runs" "$NO_SCHEMA"
fi
is "$(jq -r '[.checkouts[].id, .builds[].id, .tests[].id] | map(startswith("my_lab:")) | all' "$WORK/kunit/kcidb.json")" \
	true "--kcidb-origin: every id starts with the origin"
is "$(jq -r '[.checkouts[], .builds[], .tests[]] | map(.origin) | unique | join(",")' "$WORK/kunit/kcidb.json")" \
	my_lab "--kcidb-origin: every object's origin"
is "$(jq -r '.tests[] | select(.path == "kunit.example.example_params_test.example_value_3") | .status' "$WORK/kunit/kcidb.json")" \
	SKIP "KUnit parameterised case: path in v5's charset"
is "$(jq -r '[.tests[] | select(.comment)] | map([.path, .status, .comment, (.log_excerpt | test("Kernel panic - not syncing"))] | tostring) | join(" ")' "$WORK/r1/kcidb.json")" \
	'["tapboot.panic","FAIL","kernel panic: sysrq triggered crash",true]' \
	"the crashed test carries the crash's syzkaller-style title (crash_sig) and its log as excerpt"
"$TAPBOOT" parse --format kcidb --kcidb-origin My-Lab "$FX/tap/kunit-ktap.log" >/dev/null 2>"$WORK/err-origin"
is "$?" 2 "a bad --kcidb-origin: exit 2"
like "$(cat "$WORK/err-origin")" "^tapboot: --kcidb-origin wants lower-case letters, digits and '_' \(KCIDB's origin\), got 'My-Lab'$" \
	"a bad --kcidb-origin: message"

# The checker is strict: formats, path charset, dangling build, repeated ids.
if [ -f "$KCIDB_SCHEMA" ]; then
	jq '.tests[0].start_time = "2026-12-04 15:13:49" | .tests[1].log_url = "not a uri"
		| .tests[2].path = "tapboot.len=16" | .tests[3].build_id = "tapboot:nosuch"' \
		"$WORK/r1/kcidb.json" >"$WORK/bad.json"
	out=$("$PY" "$CHECK" "$WORK/bad.json" 2>&1)
	is "$?" 1 "checker: a bad file exits 1"
	like "$out" "tests/0/start_time: '2026-12-04 15:13:49' is not a 'date-time'" "checker: date-time checked"
	like "$out" "tests/1/log_url: 'not a uri' is not a 'uri'" "checker: uri checked"
	like "$out" "tests/2/path: 'tapboot.len=16' does not match" "checker: path charset"
	like "$out" "build 'tapboot:nosuch' is not in the file" "checker: a test's build must be in the file"
	cp "$WORK/r1/kcidb.json" "$WORK/copy.json"
	out=$("$PY" "$CHECK" --distinct "$WORK/r1" "$WORK/copy.json" 2>&1)
	like "$out" "is also in" "checker: the same ids in two files are reported"
else
	skip "checker: strict about formats, path charset, dangling builds, repeated ids" "$NO_SCHEMA"
fi
rm -f "$WORK/bad.json" "$WORK/copy.json"
jq '.tests[0].path = "a..b"' "$WORK/r1/kcidb.json" >"$WORK/bad-schema.in"

# The loopback server: start_server DIR ARGS... sets PORT once it listens.
SERVER_PIDS=()
start_server() {
	local d=$1
	shift
	mkdir -p "$d"
	"$PY" "$TOP/tests/kcidb-server.py" "$d" "$@" >"$d/server.out" 2>"$d/server.err" &
	SERVER_PIDS+=($!)
	for _ in $(seq 100); do
		[ -f "$d/port" ] && break
		sleep 0.1
	done
	[ -f "$d/port" ] || bail "tests/kcidb-server.py did not start: $(cat "$d/server.err")"
	PORT=$(cat "$d/port")
}
stop_servers() {
	for p in "${SERVER_PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	SERVER_PIDS=()
}
trap 'stop_servers; rm -rf "$WORK"' EXIT

start_server "$WORK/srv1" --token s3cret; port=$PORT
KCIDB_TOKEN=s3cret "$TAPBOOT" kcidb-submit --url "http://127.0.0.1:$port" "$WORK/r1" "$WORK/r2" >"$WORK/out1" 2>"$WORK/err1"
is "$?" 0 "submit two results directories: exit 0"
cmp -s "$WORK/srv1/submission-1.json" "$WORK/r1/kcidb.json" && cmp -s "$WORK/srv1/submission-2.json" "$WORK/r2/kcidb.json"
ok $? "the server received both kcidb.json, byte for byte"
is "$(cat "$WORK/srv1/schema")" "$([ -f "$KCIDB_SCHEMA" ] && echo "$KCIDB_SCHEMA" || echo none)" \
	"the server checks bodies against the v5.3 schema when it is there"
is "$(cat "$WORK/out1")" "submitted $WORK/r1/kcidb.json: HTTP 200 {\"id\": \"1\"}
submitted $WORK/r2/kcidb.json: HTTP 200 {\"id\": \"2\"}" "submit: one line per file"
is "$(cat "$WORK/err1")" "" "submit: nothing on stderr"

start_server "$WORK/srv2" --token s3cret --fail-first 2; port=$PORT
KCIDB_TOKEN=s3cret "$TAPBOOT" kcidb-submit --url "http://127.0.0.1:$port/submit" "$WORK/r1" >/dev/null 2>"$WORK/err2"
is "$?" 0 "500 twice then 200: exit 0"
is "$(cut -d' ' -f1-3 "$WORK/srv2/requests.log" | tr '\n' ' ')" "500 POST /submit 500 POST /submit 200 POST /submit " \
	"500 twice then 200: three requests"
is "$(cat "$WORK/err2")" "tapboot: warning: submitting '$WORK/r1/kcidb.json': HTTP 500; again in 0.5 s
tapboot: warning: submitting '$WORK/r1/kcidb.json': HTTP 500; again in 1.0 s" "500 twice: the retries are said"

start_server "$WORK/srv3" --token s3cret; port=$PORT
KCIDB_TOKEN=wrong "$TAPBOOT" kcidb-submit --url "http://127.0.0.1:$port" "$WORK/r1" >/dev/null 2>"$WORK/err3"
is "$?" 2 "refused token: exit 2"
is "$(cat "$WORK/err3")" "tapboot: KCIDB refused the token from KCIDB_TOKEN (HTTP 401: {\"error\": \"invalid token\"}) for '$WORK/r1/kcidb.json'" \
	"refused token: message"
if [ -f "$KCIDB_SCHEMA" ]; then
	KCIDB_TOKEN=s3cret "$TAPBOOT" kcidb-submit --url "http://127.0.0.1:$port" "$WORK/bad-schema.in" >/dev/null 2>"$WORK/err4"
	is "$?" 2 "a report the schema rejects: exit 2"
	like "$(cat "$WORK/err4")" "^tapboot: KCIDB rejected '$WORK/bad-schema.in' \(HTTP 400: .*schema v5.3: tests/0/path: 'a..b' does not match" \
		"a report the schema rejects: the server's reason"
else
	skip "a report the schema rejects: exit 2 and the server's reason" "$NO_SCHEMA"
fi
is "$(ls "$WORK/srv3" | grep -c submission)" 0 "nothing recorded for a refused token or a bad report"
stop_servers

# No server at all: connection refused, retried, then exit 3.
KCIDB_TOKEN=s3cret "$TAPBOOT" kcidb-submit --retries 1 --url "http://127.0.0.1:$port" "$WORK/r1" >/dev/null 2>"$WORK/err5"
is "$?" 3 "no server: exit 3 after the retries"
like "$(tail -1 "$WORK/err5")" "^tapboot: cannot submit '$WORK/r1/kcidb.json': cannot connect to 127.0.0.1:$port: Connection refused, 2 attempts$" \
	"no server: message"
env -u KCIDB_TOKEN "$TAPBOOT" kcidb-submit --url "http://127.0.0.1:$port" "$WORK/r1" >/dev/null 2>"$WORK/err6"
is "$?:$(cat "$WORK/err6")" "2:tapboot: KCIDB_TOKEN is not set: kcidb-submit sends it as the bearer token" "no token: exit 2"
printf '{"version": ' >"$WORK/trunc.json"
KCIDB_TOKEN=x "$TAPBOOT" kcidb-submit --url "http://127.0.0.1:$port" "$WORK/trunc.json" >/dev/null 2>"$WORK/err7"
is "$?" 2 "a truncated kcidb.json: exit 2"
like "$(cat "$WORK/err7")" "^tapboot: $WORK/trunc.json:1: " "a truncated kcidb.json: the message names the file and line"
rm -f "$WORK/bad-schema.in" "$WORK/trunc.json"
done_testing

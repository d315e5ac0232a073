#!/usr/bin/env bash
# Load test of GET /orgs/c: the authenticated hot path (token hash lookup, member and role
# read, organization resolution, permission check, one row read, JSON encode).
#
# Builds the binary, starts `app serve` on a fresh database in a temporary directory, takes
# the bootstrap admin token from the first-start banner, and runs wrk (hey as a fallback)
# against 127.0.0.1 only. The server is stopped on exit, whatever happens.
#
#   bash bench/orgs.sh
#
# Environment (all optional):
#   BENCH_ADDR        listen address             (127.0.0.1:18089)
#   BENCH_DURATION    load duration              (10s)
#   BENCH_THREADS     wrk threads                (2)
#   BENCH_CONNS       concurrent connections     (32)
#   BENCH_LOG_LEVEL   server log.level           (info: the shipped default, one line per request)
set -euo pipefail

ADDR=${BENCH_ADDR:-127.0.0.1:18089}
DURATION=${BENCH_DURATION:-10s}
THREADS=${BENCH_THREADS:-2}
CONNS=${BENCH_CONNS:-32}
LOG_LEVEL=${BENCH_LOG_LEVEL:-info}
URL="http://$ADDR/orgs/c"

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

echo "building bench/out/app ..."
CGO_ENABLED=0 go build -o bench/out/app .

WORK=$(mktemp -d)
PID=""
cleanup() {
	if [[ -n "$PID" ]] && kill -0 "$PID" 2>/dev/null; then
		kill "$PID" 2>/dev/null || true
		wait "$PID" 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The rate limiter would answer 429 long before the load ends (500/min by default), so it is
# set out of reach: this measures the API, not the limiter's refusals.
(
	cd "$WORK"
	exec env APP_HTTP_ADDR="$ADDR" \
		APP_DB_PATH="$WORK/app.db" \
		APP_HTTP_RATE_LIMIT_PER_MINUTE=100000000 \
		APP_LOG_LEVEL="$LOG_LEVEL" \
		"$ROOT/bench/out/app" serve
) >"$WORK/stdout" 2>"$WORK/stderr" &
PID=$!

# The first-start banner shows the admin token once, on its own indented line.
TOKEN=""
for _ in $(seq 1 100); do
	TOKEN=$(grep -m1 -E '^[[:space:]]+sk_[0-9A-Za-z]+[[:space:]]*$' "$WORK/stderr" 2>/dev/null | tr -d '[:space:]' || true)
	[[ -n "$TOKEN" ]] && break
	if ! kill -0 "$PID" 2>/dev/null; then
		echo "server exited before printing its token:" >&2
		cat "$WORK/stderr" >&2
		exit 1
	fi
	sleep 0.1
done
if [[ -z "$TOKEN" ]]; then
	echo "no bootstrap token in the server's stderr after 10 s" >&2
	exit 1
fi

ready=""
for _ in $(seq 1 100); do
	if curl -fsS -o /dev/null "http://$ADDR/healthz" 2>/dev/null; then
		ready=1
		break
	fi
	sleep 0.1
done
if [[ -z "$ready" ]]; then
	echo "server did not answer /healthz within 10 s" >&2
	cat "$WORK/stderr" >&2
	exit 1
fi

# One call first: a wrong credential or route must fail loudly, not benchmark error pages.
status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$URL")
if [[ "$status" != 200 ]]; then
	echo "GET $URL answered $status, want 200" >&2
	exit 1
fi

echo "server pid $PID on $ADDR (log.level=$LOG_LEVEL); $(nproc) cores"
OUT="$WORK/load.txt"
if command -v wrk >/dev/null; then
	echo "wrk -t$THREADS -c$CONNS -d$DURATION --latency $URL"
	wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -H "Authorization: Bearer $TOKEN" "$URL" | tee "$OUT"
	rps=$(awk '/^Requests\/sec:/ {print $2}' "$OUT")
	p50=$(awk '$1 == "50%" {print $2}' "$OUT")
	p99=$(awk '$1 == "99%" {print $2}' "$OUT")
	bad=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' "$OUT")
	tool=wrk
elif command -v hey >/dev/null; then
	echo "hey -z $DURATION -c $CONNS $URL"
	hey -z "$DURATION" -c "$CONNS" -H "Authorization: Bearer $TOKEN" "$URL" | tee "$OUT"
	rps=$(awk '/Requests\/sec:/ {print $2}' "$OUT")
	p50=$(awk '$1 == "50%" && $2 == "in" {print $3 * 1000 "ms"}' "$OUT")
	p99=$(awk '$1 == "99%" && $2 == "in" {print $3 * 1000 "ms"}' "$OUT")
	bad=$(awk '/^ *\[[0-9]+\]/ && $1 != "[200]" {n += $2} END {if (n) print n}' "$OUT")
	tool=hey
else
	echo "neither wrk nor hey is installed: apt-get update && apt-get install -y wrk" >&2
	exit 1
fi

echo
echo "== GET /orgs/c ($tool, $CONNS connections, $DURATION)"
echo "req/s: $rps"
echo "p50:   $p50"
echo "p99:   $p99"
if [[ -n "${bad:-}" ]]; then
	echo "WARNING: $bad responses were not 200" >&2
	exit 1
fi

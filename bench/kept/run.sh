#!/usr/bin/env bash
# Kept answers under a realistic mix (issue 26, item 6): this project with kept answers on
# (http.kept_answers: true, the default) and off, and PocketBase v0.39.11, on the same
# machine in one run. Each is seeded with 10,000 contacts spread over several organizations
# (PocketBase: one collection, an indexed `org` field), then driven by wrk with bench/kept/mix.lua:
#
#   hot   GET of one contact again and again (what the kept answers were first measured on)
#   get   GET of a random contact among the 10,000
#   list  a random page of 20 (with its total) of a random organization
#   mix   45% get, 45% list, 10% creates spread over the organizations
#   mix1  45% get, 45% list, 10% creates, all in the first organization
#
# Servers pinned to CPU 0, wrk to CPU 1. Each run is short (DUR, 5s) and the three servers
# take turns within each scenario (the order reversed every other round), because the machine
# is shared: compare servers within one round, not across runs. Prints one table; raw wrk
# output and the servers' logs stay in $OUT.
#
#   bash bench/kept/run.sh [rounds]
#
# Environment: DUR (5s), CONNS (32), ORGS (4), CONTACTS (10000), SCENARIOS ("hot get list mix
# mix1"), PB_BIN (a built PocketBase example binary; else built into $OUT), OUT (a temp dir),
# ANY_REV (a git revision whose kept answers any commit retires, such as bc4ecdc, run as a
# fourth server "any" from the same checkout's history).
# Needs wrk (installed with apt-get when missing), go, curl, jq, python3.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${1:-2}
DUR=${DUR:-5s}
CONNS=${CONNS:-32}
ORGS=${ORGS:-4}
CONTACTS=${CONTACTS:-10000}
SCENARIOS=${SCENARIOS:-hot get list mix mix1}
PB=${PB_BIN:-}
OUT=${OUT:-$(mktemp -d /tmp/keptbench.XXXXXX)}
mkdir -p "$OUT"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; } >/dev/null
if [[ -z $PB ]]; then
	GOBIN="$OUT/pbbin" go install github.com/pocketbase/pocketbase/examples/base@v0.39.11
	PB="$OUT/pbbin/base"
fi

pids=()
cleanup() { for p in "${pids[@]+"${pids[@]}"}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
trap 'exit 130' INT TERM
wait_up() { for _ in $(seq 1 300); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }

# --- this project, twice: kept answers on (port 18611) and off (18612), and ANY_REV's build
# (18614); metrics on 1862x
(cd "$ROOT" && CGO_ENABLED=0 go build -o "$OUT/app" .)
declare -A PORT=([on]=18611 [off]=18612 [pb]=18613 [any]=18614) METRICS=([on]=18621 [off]=18622 [any]=18624) PID TOKEN BIN
APPS=(on off)
BIN[on]=$OUT/app BIN[off]=$OUT/app
if [[ -n ${ANY_REV:-} ]]; then
	mkdir -p "$OUT/any-src"
	git -C "$ROOT" archive "$ANY_REV" | tar -x -C "$OUT/any-src"
	(cd "$OUT/any-src" && CGO_ENABLED=0 go build -o "$OUT/app-any" .)
	APPS+=(any)
	BIN[any]=$OUT/app-any
fi
for v in "${APPS[@]}"; do
	mkdir -p "$OUT/$v"
	kept=true
	[[ $v == off ]] && kept=false
	(cd "$OUT/$v" && exec env APP_DB_PATH="$OUT/$v/app.db" APP_HTTP_ADDR=127.0.0.1:${PORT[$v]} \
		APP_METRICS_ADDR=127.0.0.1:${METRICS[$v]} APP_HTTP_KEPT_ANSWERS=$kept \
		APP_HTTP_RATE_LIMIT_PER_MINUTE=100000000 taskset -c 0 "${BIN[$v]}" serve >"$OUT/$v.out" 2>"$OUT/$v.err") &
	PID[$v]=$!
	pids+=("${PID[$v]}")
done
for v in "${APPS[@]}"; do
	wait_up "http://127.0.0.1:${PORT[$v]}/healthz"
	TOKEN[$v]=$(grep -m1 -oE 'sk_[0-9A-Za-z]+' "$OUT/$v.err")
done

# --- PocketBase, request logs off, a contacts collection with an indexed org field
mkdir -p "$OUT/pb"
"$PB" superuser upsert a@b.c passwordpassword --dir "$OUT/pb/data" >/dev/null 2>&1
(cd "$OUT/pb" && exec taskset -c 0 "$PB" serve --http=127.0.0.1:${PORT[pb]} --dir "$OUT/pb/data" --automigrate=false >"$OUT/pb.out" 2>&1) &
PID[pb]=$!
pids+=("${PID[pb]}")
wait_up "http://127.0.0.1:${PORT[pb]}/api/health"
PBTOK=$(curl -fs -X POST "http://127.0.0.1:${PORT[pb]}/api/collections/_superusers/auth-with-password" \
	-H 'Content-Type: application/json' -d '{"identity":"a@b.c","password":"passwordpassword"}' | jq -r .token)
curl -fs -X PATCH "http://127.0.0.1:${PORT[pb]}/api/settings" -H "Authorization: $PBTOK" -H 'Content-Type: application/json' \
	-d '{"logs":{"maxDays":0},"batch":{"enabled":true,"maxRequests":1000,"timeout":30,"maxBodySize":0}}' >/dev/null
curl -fs -X POST "http://127.0.0.1:${PORT[pb]}/api/collections" -H "Authorization: $PBTOK" -H 'Content-Type: application/json' \
	-d '{"name":"contacts","type":"base","listRule":"","viewRule":"","createRule":"","fields":[{"name":"name","type":"text"},{"name":"email","type":"email"},{"name":"org","type":"text"}],"indexes":["CREATE INDEX idx_contacts_org ON contacts (org)"]}' >/dev/null

# --- seed: ORGS organizations (sub-organizations of c; PocketBase: org values) of
# CONTACTS/ORGS contacts each, through the bulk routes; the ids go to Lua tables for wrk
apps=()
for v in "${APPS[@]}"; do apps+=("$v" "${TOKEN[$v]}" "${PORT[$v]}"); done
python3 - "$OUT" "$ORGS" "$CONTACTS" "${PORT[pb]}" "$PBTOK" "${apps[@]}" <<'EOF'
import sys, json, urllib.request
out, orgs, n, ppb, pbtok = sys.argv[1:6]
apps = sys.argv[6:]
orgs, n = int(orgs), int(n)
def call(url, body=None, hdr={}, method=None):
    r = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **hdr}, method=method or ("GET" if body is None else "POST"))
    return json.load(urllib.request.urlopen(r, timeout=600))
def lua(name, rows):
    with open(f"{out}/{name}", "w") as f:
        f.write("return {\n" + "".join('{"%s","%s"},\n' % r for r in rows) + "}\n")
per = n // orgs
for v, tok, port in zip(apps[0::3], apps[1::3], apps[2::3]):
    base, auth = f"http://127.0.0.1:{port}", {"Authorization": "Bearer " + tok}
    rows = []
    for k in range(orgs):
        org = call(f"{base}/orgs/c/sub-orgs", {"name": f"Bench {k}"}, auth)["id"]
        chans = [{"name": f"Seed {k}-{i}", "email": f"seed{k}-{i}@example.com"} for i in range(per)]
        call(f"{base}/orgs/{org}/contacts/bulk", {"channels": chans}, auth)
        page = 1
        while True:
            got = call(f"{base}/orgs/{org}/contacts?take=100&page={page}", None, auth)
            rows += [(org, c["id"]) for c in got]
            if len(got) < 100:
                break
            page += 1
    assert len(rows) == per * orgs, (v, len(rows))
    lua(f"ids_{v}.lua", rows)
base, rows = f"http://127.0.0.1:{ppb}", []
for k in range(orgs):
    for start in range(0, per, 500):
        reqs = [{"method": "POST", "url": "/api/collections/contacts/records",
                 "body": {"name": f"Seed {k}-{i}", "email": f"seed{k}-{i}@example.com", "org": f"o{k}"}}
                for i in range(start, min(per, start + 500))]
        for r in call(f"{base}/api/batch", {"requests": reqs}, {"Authorization": pbtok}):
            rows.append((f"o{k}", r["body"]["id"]))
assert len(rows) == per * orgs, ("pb", len(rows))
lua("ids_pb.lua", rows)
EOF

# scenario -> "PGET PCREATE WHERE" (mix.lua's arguments)
declare -A ARGS=([hot]="-1 0 all" [get]="1 0 all" [list]="0 0 all" [mix]="0.5 0.1 all" [mix1]="0.5 0.1 first")
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
kept() { curl -fs "http://127.0.0.1:${METRICS[$1]}/metrics" | awk '/^wsapi_http_kept_answers_total/ {print $2}'; }

run() { # server scenario round
	local v=$1 s=$2 r=$3 target=app ids=$OUT/ids_$1.lua tok=${TOKEN[$1]:-} url=http://127.0.0.1:${PORT[$1]}
	[[ $v == pb ]] && target=pb
	local wargs=(-t1 -c"$CONNS" -s "$ROOT/bench/kept/mix.lua" "$url" -- "$target" ${ARGS[$s]} "$ids" $tok)
	taskset -c 1 wrk -d1s "${wargs[@]}" >/dev/null 2>&1 || true # warm up (and fill what is kept)
	local c0 k0=0 k1=0
	c0=$(cpu "${PID[$v]}")
	[[ $v == pb ]] || k0=$(kept "$v")
	taskset -c 1 wrk -d"$DUR" --latency "${wargs[@]}" >"$OUT/$s.$v.$r.txt" 2>&1
	local c1 rps p99 total non2xx
	c1=$(cpu "${PID[$v]}")
	[[ $v == pb ]] || k1=$(kept "$v")
	rps=$(awk '/Requests\/sec/ {print $2}' "$OUT/$s.$v.$r.txt")
	p99=$(awk '$1=="99%" {print $2}' "$OUT/$s.$v.$r.txt")
	total=$(awk '/requests in/ {print $1}' "$OUT/$s.$v.$r.txt")
	non2xx=$(awk '/Non-2xx/ {print $4}' "$OUT/$s.$v.$r.txt")
	python3 - "$s" "$r" "$v" "$rps" "$p99" "$total" "$c0" "$c1" "$k0" "$k1" "${non2xx:-0}" "$(getconf CLK_TCK)" <<'EOF' | tee -a "$OUT/summary.txt"
import sys
s, r, v, rps, p99, total, c0, c1, k0, k1, bad, tck = sys.argv[1:]
total = int(total)
us = (float(c1) - float(c0)) / int(tck) / max(total, 1) * 1e6
share = "" if v == "pb" else f"{(float(k1) - float(k0)) / max(total, 1) * 100:5.1f}% kept"
print(f"{s:5} round {r}  {v:3}  {float(rps):9.0f} req/s  p99 {p99:>9}  {us:6.0f} us CPU/req  {share:11}  non-2xx {bad}")
EOF
}

echo "uptime: $(uptime)" | tee "$OUT/summary.txt"
for r in $(seq 1 "$ROUNDS"); do
	order=("${APPS[@]}" pb)
	((r % 2 == 0)) && order=(pb $(printf '%s\n' "${APPS[@]}" | tac))
	for s in $SCENARIOS; do
		for v in "${order[@]}"; do run "$v" "$s" "$r"; done
	done
done
for v in "${APPS[@]}" pb; do echo "rss $v $(ps -o rss= -p "${PID[$v]}") KB"; done | tee -a "$OUT/summary.txt"
echo "uptime: $(uptime)" | tee -a "$OUT/summary.txt"
echo "raw output: $OUT"

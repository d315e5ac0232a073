#!/usr/bin/env bash
# GET contact at 4 and 32 connections, server pinned to CPU 0, wrk to CPU 1; 1,000 contacts.
set -euo pipefail
OUT=$(mktemp -d /tmp/conns.XXXX)
cd "$(dirname "$0")/.." && CGO_ENABLED=0 go build -o $OUT/app .
cd $OUT
APP_DB_PATH=$OUT/app.db APP_HTTP_ADDR=127.0.0.1:18602 APP_HTTP_RATE_LIMIT_PER_MINUTE=100000000 taskset -c 0 ./app serve > app.out 2> app.err &
PID=$!
trap "kill $PID; rm -rf $OUT" EXIT
for i in $(seq 100); do curl -fs http://127.0.0.1:18602/healthz >/dev/null && break; sleep 0.1; done
TOKEN=$(grep -m1 -oE 'sk_[0-9A-Za-z]+' app.err)
python3 - "$TOKEN" > ids <<'PY'
import sys, json, urllib.request, concurrent.futures as cf
tok=sys.argv[1]
def post(i):
    r=urllib.request.Request("http://127.0.0.1:18602/orgs/c/contacts", data=json.dumps({"name":f"S {i}","channels":[{"type":"email","email":f"s{i}@example.com"}]}).encode(), headers={"Content-Type":"application/json","Authorization":"Bearer "+tok}, method="POST")
    return json.load(urllib.request.urlopen(r))["id"]
with cf.ThreadPoolExecutor(8) as ex: ids=list(ex.map(post, range(1000)))
print(ids[500])
PY
ID=$(cat ids)
for c in 4 32 4 32; do
  taskset -c 1 wrk -t1 -c$c -d2s -H "Authorization: Bearer $TOKEN" http://127.0.0.1:18602/orgs/c/contacts/$ID >/dev/null
  taskset -c 1 wrk -t1 -c$c -d10s --latency -H "Authorization: Bearer $TOKEN" http://127.0.0.1:18602/orgs/c/contacts/$ID > w.$c.txt
  echo "c=$c $(awk '/Requests\/sec/ {print $2}' w.$c.txt) req/s p50 $(awk '$1=="50%" {print $2}' w.$c.txt) p99 $(awk '$1=="99%" {print $2}' w.$c.txt)"
done
grep -E "VmHWM|VmRSS" /proc/$PID/status

#!/bin/bash
# What a live view costs the real-time path (docs/results.md "Live view next
# to a 1 kHz HIL run"): scenarios/two_mass_switch_hil.yaml (two couplet-target
# processes, master paced at 1 kHz) run for SECONDS without a live view and
# with `--live` and the page open in headless Chromium (the page's WebSocket
# client drawing the plots), in the order plain, live, live, plain on the same
# machine in the same window, so that a drift of the machine's load shows as a
# difference between the two runs of one kind. Reported: each run's overruns
# (later than the 0.5 ms tolerance) and p99 lateness, and the live runs' sums
# over the plain runs' sums.
#
# LIVE_CLIENT=websocket replaces the browser by a Python client that reads the
# WebSocket (/ws) and does nothing else, for machines without Chromium: the
# server's work is the same, the browser's own load on the machine is not there.
#
#   bench/live_view_overhead.sh [COUPLET_BINARY] [SECONDS] [OUTPUT_DIR]
set -euo pipefail
couplet=${1:-build/couplet}
seconds=${2:-60}
out=${3:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
client=${LIVE_CLIENT:-chromium}
chromium=${CHROMIUM:-$(command -v chromium || true)}
if [ "$client" = chromium ] && [ ! -x "$chromium" ]; then
  echo "chromium not found (Debian package chromium; or set CHROMIUM, or LIVE_CLIENT=websocket)" >&2
  exit 2
fi
mkdir -p "$out"
scenario="$here/scenarios/two_mass_switch_hil.yaml"

plain_run() {  # NAME
  "$couplet" run "$scenario" -o "$out/$1" --quiet --set "time.end=$seconds" >"$out/$1.txt" 2>&1 || true
}

# The page open in Chromium for the whole run; /status is asked once the page
# has connected, to record that a WebSocket client was there.
live_run() {  # NAME
  local name=$1 port="" browser
  "$couplet" run "$scenario" -o "$out/$name" --quiet --set "time.end=$seconds" \
      --live 0 --live-linger 1 >"$out/$name.txt" 2>&1 &
  local run=$!
  for _ in $(seq 200); do
    port=$(grep -o 'live view at http://127.0.0.1:[0-9]*' "$out/$name.txt" | grep -o '[0-9]*$' || true)
    [ -n "$port" ] && break
    sleep 0.05
  done
  if [ -z "$port" ]; then
    wait "$run" || true
    echo "no live URL from couplet run:" >&2
    cat "$out/$name.txt" >&2
    exit 1
  fi
  if [ "$client" = chromium ]; then
    "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --user-data-dir="$out/$name-profile" --remote-debugging-port=0 \
        "http://127.0.0.1:$port/" >/dev/null 2>&1 &
  else
    python3 - "$port" >/dev/null 2>&1 <<'PY' &
import base64, os, socket, sys
connection = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
key = base64.b64encode(os.urandom(16)).decode()
connection.sendall(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                    "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                    f"Sec-WebSocket-Key: {key}\r\n\r\n").encode())
while connection.recv(65536):  # the handshake's answer, then the frames, read and dropped
    pass
PY
  fi
  browser=$!
  python3 - "$port" "$out/$name-clients.txt" <<'PY' || true
import json, sys, time, urllib.request
port, path = sys.argv[1], sys.argv[2]
clients = 0
for _ in range(100):  # up to 10 s for the page to connect
    try:
        status = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=1))
        clients = max(clients, status["clients"])
        if clients > 0 or status["state"] != "running":
            break
    except OSError:
        pass
    time.sleep(0.1)
open(path, "w").write(str(clients))
PY
  wait "$run" || true
  kill "$browser" 2>/dev/null || true
  wait "$browser" 2>/dev/null || true
}

plain_run plain-1
live_run live-1
live_run live-2
plain_run plain-2

python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
runs = {}
for name in ("plain-1", "live-1", "live-2", "plain-2"):
    path = f"{out}/{name}/summary.json"
    if not os.path.exists(path):
        sys.exit(f"couplet run wrote no summary for {name}:\n" + open(f"{out}/{name}.txt").read())
    realtime = json.load(open(path))["realtime"]
    runs[name] = {"cycles": realtime["cycles"], "overruns": realtime["overruns"],
                  "p99_us": realtime["lateness_us"]["p99"], "max_us": realtime["lateness_us"]["max"]}
    if name.startswith("live"):
        runs[name]["clients"] = int(open(f"{out}/{name}-clients.txt").read() or 0)
def total(kind, key):
    return sum(run[key] for name, run in runs.items() if name.startswith(kind))
result = {
    "seconds": runs["plain-1"]["cycles"] / 1000.0,
    "runs": runs,
    "overruns_live_over_plain": total("live", "overruns") / max(total("plain", "overruns"), 1),
    "p99_live_over_plain": total("live", "p99_us") / max(total("plain", "p99_us"), 1e-9),
}
json.dump(result, open(f"{out}/comparison.json", "w"), indent=1)
print(json.dumps(result, indent=1))
PY

#!/bin/bash
# repeat.sh - run the real-BlueZ suite N times in a row and print how it went:
# "N of M passed", every retry, and the spread of the recovery times (what
# `make e2e-repeat N=10` runs). Run as root, like run-e2e.sh.
#
# Usage: repeat.sh N --bin-dir DIR [run-e2e.sh options]
# Each run's summary and logs are kept in $E2E_DIR/repeat-<time>/ (run-I.json,
# run-I.tar.gz). Exit 0 when every run passed, 1 otherwise.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
N=${1:?usage: repeat.sh N --bin-dir DIR [run-e2e.sh options]}
shift
W=${E2E_DIR:-/tmp/blectl-e2e}
KEEP=$W/repeat-$(date +%Y%m%d-%H%M%S)
mkdir -p "$KEEP"
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "e2e-repeat: $N runs; load average $(load); summaries and logs in $KEEP"
for i in $(seq 1 "$N"); do
  before=$(load)
  "$HERE/run-e2e.sh" --quiet "$@" > "$KEEP/run-$i.log" 2>&1
  rc=$?
  cp "$W/last-summary.json" "$KEEP/run-$i.json" 2>/dev/null || echo '{"code": 2}' > "$KEEP/run-$i.json"
  cp "$W/last-run.tar.gz" "$KEEP/run-$i.tar.gz" 2>/dev/null
  echo "  run $i: rc=$rc, load average before $before: $(tail -1 "$KEEP/run-$i.log")"
done
echo "load average at the end $(load)"
/usr/bin/python3 - "$KEEP" "$N" <<'EOF'
import json, statistics, sys
keep, n = sys.argv[1], int(sys.argv[2])
runs = []
for i in range(1, n + 1):
    try:
        runs.append(json.load(open("%s/run-%d.json" % (keep, i))))
    except (OSError, ValueError):
        runs.append({"code": 2})
passed = sum(1 for r in runs if r.get("code") == 0)
retries = {}
for r in runs:
    for k, v in r.get("retries", {}).items():
        retries[k] = retries.get(k, 0) + v
print("%d of %d passed (%d failed on the daemon, %d on the rig); retries over all runs: %s"
      % (passed, n, sum(1 for r in runs if r.get("code") == 1),
         sum(1 for r in runs if r.get("code") not in (0, 1)),
         ", ".join("%s %d" % kv for kv in retries.items()) or "none"))
series = {}
for r in runs:
    for x in r.get("results", []):
        for key in ("recovery_s", "both_s"):
            if key in x and x.get("status") == "PASS":
                series.setdefault((x["name"], key), []).append(x[key])
for (name, key), values in series.items():
    what = "recovery" if key == "recovery_s" else "both read after"
    print("  %-32s %s: median %.2f s, min %.2f, max %.2f (%d runs): %s"
          % (name, what, statistics.median(values), min(values), max(values), len(values),
             " ".join("%.2f" % v for v in values)))
sys.exit(0 if passed == n else 1)
EOF

#!/usr/bin/env bash
# End-to-end `invoicedrop run` against the built-in (in-process) sandbox, no rate limit.
#   scripts/bench_run.sh [ROWS]        default 500000 rows (about 100,000 documents)
# Builds the release binary, writes a Xero-layout export with scripts/gen_xero.py (once), runs
# `invoicedrop run` in a fresh folder (fresh ledger and sandbox state), and prints wall time,
# documents per second and peak memory (GNU time; `apt-get install -y time` if missing).
set -euo pipefail
rows=${1:-500000}
here=$(cd "$(dirname "$0")/.." && pwd)
work=${BENCH_DIR:-/tmp/invoicedrop-bench}
mkdir -p "$work"
(cd "$here" && cargo build --release --quiet)
data="$work/xero_$rows.csv"
[ -f "$data" ] || python3 "$here/scripts/gen_xero.py" "$rows" "$data"
command -v /usr/bin/time >/dev/null || { echo "needs GNU time: apt-get install -y time" >&2; exit 2; }
run_dir=$(mktemp -d "$work/run.XXXXXX")
cd "$run_dir"
/usr/bin/time -v "$here/target/release/invoicedrop" -q --json run "$data" --concurrency "${CONCURRENCY:-32}" \
  > summary.json 2> time.txt || true
python3 - "$run_dir" <<'PY'
import json, re, sys, os
d = sys.argv[1]
s = json.load(open(os.path.join(d, "summary.json")))
t = open(os.path.join(d, "time.txt")).read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1)
parts = [float(p) for p in wall.split(":")]
secs = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
docs = s["documents"]
sent = docs["accepted"] + docs["rejected"] + docs["failed"]
print(f"rows {s['rows']}, documents {docs}")
print(f"wall {secs:.1f} s, {sent / secs:.0f} documents/s sent and answered, {s['rows'] / secs:.0f} rows/s, peak RSS {rss / 1024:.1f} MB")
PY

#!/usr/bin/env bash
# The sandbox authority alone: signed documents per second, issue() alone per core and over
# HTTP on loopback with concurrent clients, with peak memory. Release build.
#
#   scripts/bench_sandbox.sh                 # 20,000 documents, 32 clients, 4 devices
#   DOCS=5000 CLIENTS=8 DEVICES=1 scripts/bench_sandbox.sh
#   STATE=0 scripts/bench_sandbox.sh        # without a state folder (answers kept in memory)
#
# Figures and their history: BENCHMARKS.md.
source "$(dirname "$0")/bench_lib.sh"
DOCS="${DOCS:-20000}"
CLIENTS="${CLIENTS:-32}"
DEVICES="${DEVICES:-4}"
need_time
(cd "$ROOT" && cargo build --release --quiet --example bench_sandbox)
echo "$(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
# With a state folder by default, as `invoicedrop run` starts it (journal synced per document).
STATE_ARGS=()
if [ "${STATE:-1}" != 0 ]; then
    rm -rf "$BENCH_DIR/sandbox-state"
    STATE_ARGS=(--state "$BENCH_DIR/sandbox-state")
fi
timed "bench_sandbox $DOCS $CLIENTS $DEVICES ${STATE_ARGS[*]} (whole run)" \
    "$ROOT/target/release/examples/bench_sandbox" "$DOCS" "$CLIENTS" "$DEVICES" "${STATE_ARGS[@]}"
rm -rf "$BENCH_DIR/sandbox-state"
cat "$BENCH_DIR/last.out"

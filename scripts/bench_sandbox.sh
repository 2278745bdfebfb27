#!/usr/bin/env bash
# The sandbox authority alone: signed documents per second, issue() alone per core and over
# HTTP on loopback with concurrent clients, with peak memory. Release build.
#
#   scripts/bench_sandbox.sh                 # 20,000 documents, 32 clients, 4 devices
#   DOCS=5000 CLIENTS=8 DEVICES=1 scripts/bench_sandbox.sh
#
# Figures and their history: BENCHMARKS.md.
source "$(dirname "$0")/bench_lib.sh"
DOCS="${DOCS:-20000}"
CLIENTS="${CLIENTS:-32}"
DEVICES="${DEVICES:-4}"
need_time
(cd "$ROOT" && cargo build --release --quiet --example bench_sandbox)
echo "$(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
timed "bench_sandbox $DOCS $CLIENTS $DEVICES (whole run)" \
    "$ROOT/target/release/examples/bench_sandbox" "$DOCS" "$CLIENTS" "$DEVICES"
cat "$BENCH_DIR/last.out"

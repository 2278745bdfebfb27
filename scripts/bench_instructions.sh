#!/usr/bin/env bash
# Instructions `invoicedrop check` executes on a 20,000-row Xero CSV export, counted by
# callgrind: the same count on every run, whatever else the machine is doing, so changes worth a
# few per cent (below this VM's ±30 % drift in wall time) can be compared. Cycles are not
# counted (no hardware counters in this VM): a change that saves cache misses or contention
# rather than instructions shows only in wall and CPU time (scripts/bench_check.sh).
# The reverse happens too: a change that saved 1.1 % of the instructions cost 7 % more CPU
# (ten short memcmp calls a row; BENCHMARKS.md, 2026-11-25 night), so time a change as well.
#
#   scripts/bench_instructions.sh             # the release build of this tree
#   BIN_UNDER_TEST=/path/to/invoicedrop scripts/bench_instructions.sh   # another build, same data
#
# Needs valgrind (apt-get install -y valgrind). Figures and their history: BENCHMARKS.md.
#
# One thread (RAYON_NUM_THREADS=1, unless set): with two, how the batches fall between the
# threads changes from run to run and so does the count, by up to 0.5 % (counts before
# 2026-11-25 evening were taken with two threads).
export RAYON_NUM_THREADS="${RAYON_NUM_THREADS:-1}"
source "$(dirname "$0")/bench_lib.sh"
ROWS="${ROWS:-20000}"
if ! command -v valgrind >/dev/null; then
    echo "valgrind is needed: apt-get install -y valgrind" >&2
    exit 2
fi
GIVEN_BIN="${BIN_UNDER_TEST:-}" # a build to count instead of this tree's
build_release
TARGET="${GIVEN_BIN:-$BIN}"
DIR="$BENCH_DIR/instructions_$ROWS"
FILE="$DIR/xero_$ROWS.csv"
if [ ! -f "$FILE" ]; then
    mkdir -p "$DIR"
    # generate writes the buyers' lookup table (customers.csv) beside the export.
    "$BIN" generate --layout xero --rows "$ROWS" --seed 42 --today "$TODAY" --out "$FILE" -q
fi
OUT="$DIR/out.callgrind"
rm -rf "$DIR/results"
valgrind --tool=callgrind --callgrind-out-file="$OUT" \
    "$TARGET" check "$FILE" --now "$NOW" --results "$DIR/results" -q 2>"$DIR/valgrind.log" || {
    rc=$?
    if [ "$rc" -ne 1 ]; then # check exits 1 when a document is invalid: still a count
        cat "$DIR/valgrind.log" >&2
        exit "$rc"
    fi
}
total=$(awk '/Collected :/ {print $NF}' "$DIR/valgrind.log")
rm -rf "$DIR/results"
echo "$TARGET: $total instructions for $ROWS rows ($(awk -v t="$total" -v r="$ROWS" 'BEGIN{printf "%.0f", t/r}') a row)"
echo "per function: callgrind_annotate $OUT | head -40"

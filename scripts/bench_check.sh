#!/usr/bin/env bash
# `invoicedrop check` on a large Xero CSV export, beside its floor (the csv crate alone reading
# the same file), with peak memory. Release build; the data is generated once into $BENCH_DIR.
#
#   scripts/bench_check.sh            # 1,000,000 rows
#   ROWS=200000 scripts/bench_check.sh
#
# Figures and their history: BENCHMARKS.md.
source "$(dirname "$0")/bench_lib.sh"
ROWS="${ROWS:-1000000}"
need_time
build_release
FILE="$BENCH_DIR/xero_${ROWS}.csv"
if [ ! -f "$FILE" ]; then
    echo "generating $FILE ..."
    "$BIN" generate --layout xero --rows "$ROWS" --seed 42 --today "$TODAY" --out "$FILE" -q
fi
cat "$FILE" >/dev/null # warm the page cache for both readers
echo "$FILE: $ROWS rows, $(du -m "$FILE" | cut -f1) MB; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
timed "floor: csv crate ByteRecord loop" "$FLOOR" csv "$FILE"
FLOOR_S="$LAST_WALL"
timed "floor: csv crate StringRecord loop" "$FLOOR" csv-str "$FILE"
# Not the issue's floor: reading and writing a result file's worth of CSV (see BENCHMARKS.md).
timed "csv crate read + write back, 10 columns more" "$FLOOR" csv-copy "$FILE" "$BENCH_DIR/copy.csv"
COPY_S="$LAST_WALL"
rm -f "$BENCH_DIR/copy.csv"
rm -rf "$BENCH_DIR/res-csv"
timed "invoicedrop check (result file written)" "$BIN" check "$FILE" --now "$NOW" --results "$BENCH_DIR/res-csv" -q
CHECK_S="$LAST_WALL"
CHECK_RSS="$LAST_RSS"
CHECK_CPU="$LAST_CPU"
lines=$(($(wc -l <"$BENCH_DIR/res-csv/xero_${ROWS}.result.csv") - 1))
echo
echo "check: $(rate "$ROWS" "$CHECK_S") rows/s, $(awk -v c="$CHECK_S" -v f="$FLOOR_S" 'BEGIN{printf "%.1f", c/f}')x the bare csv read ($(awk -v c="$CHECK_S" -v f="$COPY_S" 'BEGIN{printf "%.1f", c/f}')x the read + write back), peak $CHECK_RSS MB, $CHECK_CPU s CPU; result rows: $lines"
rm -rf "$BENCH_DIR/res-csv" # about 1.3x the input: do not leave it on the disk

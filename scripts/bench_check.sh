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
timed "floor: csv crate StringRecord loop" "$FLOOR" csv-str "$FILE"
# Not the issue's floor: reading and writing a result file's worth of CSV (see BENCHMARKS.md).
timed "csv crate read + write back, 10 columns more" "$FLOOR" csv-copy "$FILE" "$BENCH_DIR/copy.csv"
COPY_S="$LAST_WALL"
rm -f "$BENCH_DIR/copy.csv"
FLOORS=()
CHECKS=()
CPUS=()
RSSS=()
for round in $(seq 1 "$RUNS"); do
    echo "round $round of $RUNS"
    timed "floor: csv crate ByteRecord loop" "$FLOOR" csv "$FILE"
    FLOORS+=("$LAST_WALL")
    rm -rf "$BENCH_DIR/res-csv"
    timed "invoicedrop check (result file written)" "$BIN" check "$FILE" --now "$NOW" --results "$BENCH_DIR/res-csv" -q
    CHECKS+=("$LAST_WALL")
    CPUS+=("$LAST_CPU")
    RSSS+=("$LAST_RSS")
done
FLOOR_S=$(median "${FLOORS[@]}")
CHECK_S=$(median "${CHECKS[@]}")
lines=$(($(wc -l <"$BENCH_DIR/res-csv/xero_${ROWS}.result.csv") - 1))
echo
echo "check, median of $RUNS: $(rate "$ROWS" "$CHECK_S") rows/s (each round: $(for c in "${CHECKS[@]}"; do rate "$ROWS" "$c"; echo; done | paste -sd' ')), $(ratios "$CHECK_S" "$FLOOR_S" | cut -c1-4)x the bare csv read (median $FLOOR_S s; each round: $(ratios "${CHECKS[*]}" "${FLOORS[*]}")x; $(awk -v c="$CHECK_S" -v f="$COPY_S" 'BEGIN{printf "%.1f", c/f}')x the read + write back), peak $(median "${RSSS[@]}") MB (highest $(printf '%s\n' "${RSSS[@]}" | sort -g | tail -1)), $(median "${CPUS[@]}") s CPU; result rows: $lines"
rm -rf "$BENCH_DIR/res-csv" # about 1.3x the input: do not leave it on the disk

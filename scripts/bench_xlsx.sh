#!/usr/bin/env bash
# `invoicedrop check` on a large xlsx export (Xero layout), beside its floors (calamine alone
# opening the workbook and walking every cell: through worksheet_range, and through its streaming
# cell reader; check is compared with the faster), with peak memory. Release build; the data is
# generated once into $BENCH_DIR.
#
#   scripts/bench_xlsx.sh             # 200,000 rows
#   ROWS=50000 scripts/bench_xlsx.sh
#
# Figures and their history: BENCHMARKS.md.
source "$(dirname "$0")/bench_lib.sh"
ROWS="${ROWS:-200000}"
need_time
build_release
FILE="$BENCH_DIR/xero_${ROWS}.xlsx"
if [ ! -f "$FILE" ]; then
    echo "generating $FILE ..."
    timed "generate (xlsx, constant memory)" "$BIN" generate --layout xero --rows "$ROWS" --seed 42 --today "$TODAY" --out "$FILE" -q
fi
cat "$FILE" >/dev/null
echo "$FILE: $ROWS rows, $(du -m "$FILE" | cut -f1) MB; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
STREAMS=()
CHECKS=()
CPUS=()
RSSS=()
for round in $(seq 1 "$RUNS"); do
    echo "round $round of $RUNS"
    timed "floor: calamine cell reader (streamed)" "$FLOOR" xlsx-cells "$FILE"
    STREAMS+=("$LAST_WALL")
    rm -rf "$BENCH_DIR/res-xlsx"
    timed "invoicedrop check (result file written)" "$BIN" check "$FILE" --now "$NOW" --results "$BENCH_DIR/res-xlsx" -q
    CHECKS+=("$LAST_WALL")
    CPUS+=("$LAST_CPU")
    RSSS+=("$LAST_RSS")
done
STREAM_S=$(median "${STREAMS[@]}")
CHECK_S=$(median "${CHECKS[@]}")
# The loaded read runs last: a process started right after it (518 MB given back to the kernel)
# ran 6-12 % slower, with twice the system time, in three rounds of 2026-11-25.
timed "floor: calamine worksheet_range + walk" "$FLOOR" xlsx "$FILE"
RANGE_S="$LAST_WALL"
# The stricter floor of the two is the one check is compared with.
FLOOR_S=$(awk -v a="$RANGE_S" -v b="$STREAM_S" 'BEGIN{print (a < b) ? a : b}')
echo
echo "check, median of $RUNS: $(rate "$ROWS" "$CHECK_S") rows/s, $(awk -v c="$CHECK_S" -v f="$FLOOR_S" 'BEGIN{printf "%.2f", c/f}')x calamine's bare read (the faster floor's median, $FLOOR_S s); each round: $(ratios "${CHECKS[*]}" "${STREAMS[*]}")x; peak $(median "${RSSS[@]}") MB (highest $(printf '%s\n' "${RSSS[@]}" | sort -g | tail -1)), $(median "${CPUS[@]}") s CPU"
rm -rf "$BENCH_DIR/res-xlsx"

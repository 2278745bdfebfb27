# Shared by scripts/bench_*.sh (sourced): release build, /usr/bin/time -v, figures.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-/tmp/invoicedrop-bench}"
# Fixed dates: the generated file and the check agree on "now" whatever day the benchmark runs.
TODAY=2026-11-21
NOW=2026-11-21T09:00:00Z
BIN="$ROOT/target/release/invoicedrop"
FLOOR="$ROOT/target/release/examples/bench_floor"
mkdir -p "$BENCH_DIR"

need_time() {
    if [ ! -x /usr/bin/time ]; then
        echo "GNU time is needed for peak memory: apt-get install -y time" >&2
        exit 2
    fi
}

build_release() {
    (cd "$ROOT" && cargo build --release --quiet --bin invoicedrop --example bench_floor)
}

# timed LABEL CMD...: runs CMD under /usr/bin/time -v; prints "LABEL wall_s rss_mb cpu%" and
# keeps the command's stdout in $BENCH_DIR/last.out.
timed() {
    local label="$1"
    shift
    local log="$BENCH_DIR/time.log"
    /usr/bin/time -v "$@" >"$BENCH_DIR/last.out" 2>"$log" || {
        local rc=$?
        # check exits 1 when a document is invalid: still a measurement; anything else is not.
        if [ "$rc" -ne 1 ]; then
            cat "$log" >&2
            exit "$rc"
        fi
    }
    local wall rss cpu
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log" |
        awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$log")
    cpu=$(awk -F': ' '/(User|System) time \(seconds\)/ {s += $2} END {printf "%.2f", s}' "$log")
    printf '%-44s %8.2f s wall %8.2f s CPU %9.1f MB peak\n' "$label" "$wall" "$cpu" "$rss"
    LAST_WALL="$wall"
    LAST_CPU="$cpu"
    LAST_RSS="$rss"
}

rate() { # rows seconds
    awk -v r="$1" -v s="$2" 'BEGIN { printf "%.0f", r / s }'
}

# Rounds of a floor and the command measured against it, alternated (RUNS, default 3): the VM's
# speed drifts by ±15 % over minutes, and a single pair can land on both sides of a target.
RUNS="${RUNS:-3}"

median() { # numbers...: their median
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

ratios() { # "a1 a2 ..." "b1 b2 ...": a_i / b_i, each to two decimals
    paste <(printf '%s\n' $1) <(printf '%s\n' $2) | awk '{ printf "%s", (NR > 1 ? " " : ""); if ($2 > 0) printf "%.2f", $1 / $2; else printf "-" } END { print "" }'
}

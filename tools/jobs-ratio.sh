# Sourced by the parallelism figure scripts (from the repository root).

# The CLI to time: $HEARTH_BIN, else a release build of it.
hearth_binary() {
    if [ -n "${HEARTH_BIN:-}" ]; then
        echo "$HEARTH_BIN"
    else
        cargo build --release --features cli --bin hearth >&2
        echo "${CARGO_TARGET_DIR:-target}/release/hearth"
    fi
}

# `jobs_ratio BIN MANIFEST OUT RUNS` bakes MANIFEST
# cold (--no-cache, OUT removed first) with -j 1 and -j 2, RUNS times each, interleaved;
# prints each time and the -j 2 / -j 1 ratio of the medians.
jobs_ratio() {
    local bin=$1 manifest=$2 out=$3 runs=$4
    local -a one=() two=()
    local run jobs start end seconds
    for run in $(seq "$runs"); do
        for jobs in 1 2; do
            rm -rf "$out"
            start=$(date +%s.%N)
            "$bin" bake "$manifest" -o "$out" --no-cache --quiet -j "$jobs" >/dev/null 2>&1
            end=$(date +%s.%N)
            seconds=$(echo "$end - $start" | bc)
            echo "run $run -j $jobs: ${seconds} s"
            if [ "$jobs" = 1 ]; then one+=("$seconds"); else two+=("$seconds"); fi
        done
    done
    # The median; for an even count, the lower middle value.
    median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    local m1 m2
    m1=$(median "${one[@]}")
    m2=$(median "${two[@]}")
    echo "median -j 1: $m1 s, -j 2: $m2 s, ratio -j 2 / -j 1: $(echo "scale=3; $m2 / $m1" | bc)"
}

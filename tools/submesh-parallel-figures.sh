#!/usr/bin/env bash
# Per-submesh parallelism figures (performance issue, item 1): one generated OBJ of 400
# objects with a material each (400 submeshes, 460,800 triangles, 3 LOD levels) baked cold
# with -j 1 and -j 2, RUNS times each, interleaved; prints each time and the -j 2 / -j 1
# ratio of the medians. A model's submeshes build their vertices, cache order, meshlets and
# LODs on the bake's worker pool, so one model keeps both cores busy.
#
# Usage: tools/submesh-parallel-figures.sh [RUNS]   (default 3; HEARTH_BIN=path to use a
# built binary, else a release build of the CLI). Run on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
target=${CARGO_TARGET_DIR:-target}
if [ -n "${HEARTH_BIN:-}" ]; then
    bin=$HEARTH_BIN
else
    cargo build --release --features cli --bin hearth >&2
    bin="$target/release/hearth"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/content"
python3 - "$work/content" <<'PY'
import math, sys
root = sys.argv[1]
objects, side = 400, 24  # each object a side x side grid of quads (2 side² triangles)
lines, mtl, first = ["mtllib grid.mtl"], [], 1
for o in range(objects):
    ox, oy = (o % 20) * 30, (o // 20) * 30
    lines += [f"o object{o}", f"usemtl material{o}"]
    mtl.append(f"newmtl material{o}\nKd {o % 7 / 7:.3f} 0.5 0.5\n")
    for y in range(side + 1):
        for x in range(side + 1):
            lines.append(f"v {ox + x} {oy + y} {math.sin((x + o) * 0.5) * math.cos(y * 0.4):.4f}")
    for y in range(side):
        for x in range(side):
            a = first + y * (side + 1) + x
            b, c = a + 1, a + side + 1
            lines += [f"f {a} {b} {c + 1}", f"f {a} {c + 1} {c}"]
    first += (side + 1) ** 2
open(f"{root}/grid.obj", "w").write("\n".join(lines) + "\n")
open(f"{root}/grid.mtl", "w").write("\n".join(mtl))
PY
cat >"$work/content/hearth.toml" <<'TOML'
[content]
name = "submeshes"
[[content.group]]
assets = ["*.obj"]
mesh = { lod = { levels = 3 } }
TOML
declare -a one two
for run in $(seq "$runs"); do
    for jobs in 1 2; do
        rm -rf "$work/out"
        start=$(date +%s.%N)
        "$bin" bake "$work/content/hearth.toml" -o "$work/out" --no-cache --quiet -j "$jobs" >/dev/null 2>&1
        end=$(date +%s.%N)
        seconds=$(echo "$end - $start" | bc)
        echo "run $run -j $jobs: ${seconds} s"
        if [ "$jobs" = 1 ]; then one+=("$seconds"); else two+=("$seconds"); fi
    done
done
# The median; for an even count, the lower middle value.
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
m1=$(median "${one[@]}")
m2=$(median "${two[@]}")
echo "median -j 1: $m1 s, -j 2: $m2 s, ratio -j 2 / -j 1: $(echo "scale=3; $m2 / $m1" | bc)"

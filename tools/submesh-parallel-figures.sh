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
# shellcheck source=tools/jobs-ratio.sh
source tools/jobs-ratio.sh # the script runs from the repository root
bin=$(hearth_binary)
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
jobs_ratio "$bin" "$work/content/hearth.toml" "$work/out" "$runs"

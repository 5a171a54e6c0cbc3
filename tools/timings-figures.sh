#!/usr/bin/env bash
# Parallel slack figures (scaling issue 29, items 2-3): bakes the test corpus's models and
# images plus COUNT generated 2048² PNGs cold (--no-cache) with --timings, and prints the
# bake's wall and task seconds, the longest task and the slack: sum(task seconds) / longest
# task, the most a bake of these tasks can gain from more cores (Amdahl's bound, every task
# counted as independent).
#
# Usage: tools/timings-figures.sh [JOBS] [COUNT]   (default -j 2, 3 images; a release build
# of the CLI, or HEARTH_BIN=path to use a built binary). KEEP=DIR keeps the timings files.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-2}
count=${2:-3}
# shellcheck source=tools/jobs-ratio.sh
source tools/jobs-ratio.sh # the script runs from the repository root
bin=$(hearth_binary)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/content/generated"
cp -r tests/corpus/gltf "$work/content/gltf"
cp -r tests/corpus/obj "$work/content/obj"
cp -r tests/corpus/images "$work/content/images"
# The two files hearth refuses by design (Draco, meshopt compression).
rm -rf "$work/content/gltf/Box_draco" "$work/content/gltf/BoxMeshopt"
# COUNT 2048² RGBA PNGs of smooth gradients and noise (deterministic), so the encoder has work.
python3 - "$work/content/generated" "$count" <<'PY'
import random, struct, sys, zlib
folder, count = sys.argv[1], int(sys.argv[2])
def png(path, size, seed):
    rng = random.Random(seed)
    noise = bytes(rng.getrandbits(8) for _ in range(size * 4))
    rows = []
    for y in range(size):
        row = bytearray(size * 4)
        row[0::4] = bytes((x + y + seed * 40) & 255 for x in range(size))
        row[1::4] = bytes(((x * y) >> 8) & 255 for x in range(size))
        row[2::4] = noise[(y * 7) % size * 4:][:size] .ljust(size, b"\0")
        row[3::4] = b"\xff" * size
        rows.append(b"\0" + bytes(row))
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b""))
for i in range(count):
    png(f"{folder}/big{i}.png", 2048, i)
PY
cat >"$work/content/hearth.toml" <<'TOML'
[content]
name = "corpus"
[[content.group]]
assets = ["gltf/**/*.gltf", "gltf/**/*.glb", "obj/**/*.obj", "images/**/*.png", "images/**/*.jpg", "images/**/*.tga", "generated/*.png"]
TOML
"$bin" bake "$work/content/hearth.toml" -o "$work/out" --no-cache --quiet -j "$jobs" \
    --timings "$work/timings.json" 2>/dev/null
python3 - "$work/timings.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
tasks = t["tasks"]
longest = max(tasks, key=lambda task: task["seconds"])
total = sum(task["seconds"] for task in tasks)
print(f"{len(tasks)} tasks, wall {t['wall_seconds']:.2f} s, task seconds {total:.2f}, "
      f"longest {longest['seconds']:.3f} s ({longest['name']}), slack {total / longest['seconds']:.1f}")
PY
if [ -n "${KEEP:-}" ]; then cp "$work/timings.json" "$KEEP/timings-j$jobs.json"; fi

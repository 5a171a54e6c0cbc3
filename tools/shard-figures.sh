#!/usr/bin/env bash
# Shard balance figures (issue 39): for the test corpus (models and images) and COUNT generated
# textures, bakes each twice cold with --timings (the first run's file is the --balance input,
# the second run's seconds are the "truth" the partitions are judged by), then for N = 4, 8, 16
# prints the largest shard's task seconds over the mean, by the estimate (source bytes) and
# with --balance; then shards the generated content at N = 4 into a local folder cache and
# times the assemble step (--require-hits).
#
# Usage: tools/shard-figures.sh [COUNT] [JOBS]   (default 2000 textures, -j 2; a release build
# of the CLI, or HEARTH_BIN=path to use a built binary).
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-2000}
jobs=${2:-2}
# shellcheck source=tools/jobs-ratio.sh
source tools/jobs-ratio.sh
bin=$(hearth_binary)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HEARTH_CACHE_MODE=off

# The corpus: every model and image hearth bakes (less the two files it refuses by design).
mkdir -p "$work/corpus"
cp -r tests/corpus/gltf tests/corpus/obj tests/corpus/images "$work/corpus/"
rm -rf "$work/corpus/gltf/Box_draco" "$work/corpus/gltf/BoxMeshopt"
cat >"$work/corpus/hearth.toml" <<'TOML'
[content]
name = "corpus"
[[content.group]]
assets = ["gltf/**/*.gltf", "gltf/**/*.glb", "obj/**/*.obj", "images/**/*.png", "images/**/*.jpg", "images/**/*.tga"]
TOML

# COUNT textures, 16² to 256² (deterministic sizes and pixels).
mkdir -p "$work/textures/t"
python3 - "$work/textures/t" "$count" <<'PY'
import random, struct, sys, zlib
folder, count = sys.argv[1], int(sys.argv[2])
rng = random.Random(39)
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
for i in range(count):
    size = rng.choice([16, 32, 64, 64, 128, 128, 256])
    rows = b"".join(
        b"\0" + bytes(((x * (i % 7 + 1) + y * 3 + rng.getrandbits(4)) & 255) for x in range(size * 4))
        for y in range(size))
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    with open(f"{folder}/{i:05}.png", "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))
PY
cat >"$work/textures/hearth.toml" <<'TOML'
[content]
name = "textures"
[[content.group]]
assets = ["t/*.png"]
TOML

for content in corpus textures; do
    manifest="$work/$content/hearth.toml"
    for run in 1 2; do
        start=$(date +%s.%N)
        "$bin" bake "$manifest" -o "$work/out-$content" --no-cache --quiet -j "$jobs" \
            --timings "$work/$content-$run.json" 2>/dev/null
        end=$(date +%s.%N)
        echo "$content run $run: $(echo "$end - $start" | bc) s wall"
    done
    for n in 4 8 16; do
        for k in $(seq "$n"); do
            "$bin" bake "$manifest" --shard "$k/$n" --list --json >"$work/est-$content-$n-$k.json"
            "$bin" bake "$manifest" --shard "$k/$n" --list --json \
                --balance "$work/$content-1.json" >"$work/bal-$content-$n-$k.json"
        done
    done
    python3 - "$work" "$content" <<'PY'
import json, sys
work, content = sys.argv[1], sys.argv[2]
truth = {}
for task in json.load(open(f"{work}/{content}-2.json"))["tasks"]:
    truth[task["asset"]] = truth.get(task["asset"], 0.0) + task["seconds"]
total = sum(truth.values())
print(f"{content}: {len(truth)} assets, {total:.1f} task seconds (run 2), longest asset "
      f"{max(truth.values()):.2f} s")
for n in (4, 8, 16):
    row = []
    for mode in ("est", "bal"):
        loads = []
        for k in range(1, n + 1):
            listed = json.load(open(f"{work}/{mode}-{content}-{n}-{k}.json"))
            loads.append(sum(truth.get(a["path"], 0.0) for a in listed["assets"]))
        mean = sum(loads) / n
        row.append(f"{mode} max {max(loads):.1f} s = {max(loads) / mean:.2f}x mean")
    print(f"  N = {n:2}: " + "; ".join(row))
PY
done

# Four shards of the generated textures into one folder cache, one after another, then the
# assemble step from that cache alone.
manifest="$work/textures/hearth.toml"
export HEARTH_CACHE_MODE=read-write HEARTH_CACHE_DIR="$work/shared"
for k in 1 2 3 4; do
    "$bin" bake "$manifest" --shard "$k/4" -j "$jobs" --json --balance "$work/textures-1.json" \
        2>/dev/null | python3 -c 'import json,sys; d=json.loads(sys.stdin.read().splitlines()[-1]); print("shard %s: %d assets, baked %d, %.1f s wall" % (d["shard"], d["assets"], d["baked"], d["seconds"]))'
done
rm -rf "$work/assembled"
"$bin" bake "$manifest" -o "$work/assembled" -j "$jobs" --require-hits --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.loads(sys.stdin.read().splitlines()[-1]); print("assemble: %d assets, baked %d, %.1f s wall" % (d["assets"], d["baked"], d["seconds"]))'

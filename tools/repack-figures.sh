#!/usr/bin/env bash
# Re-pack figures (issue 40, item 1): what a one-asset edit costs against a cold bake, in one
# run. Three contents:
#   text19  50 generated text files of 1 MB, compression = "zstd", compression_level = 19
#   text3   200 generated text files of 1 MB at the default zstd level, against `cp` of the
#           pack (the floor: the re-bake must at least write the pack)
#   images  the corpus's images plus COUNT generated 1024² PNGs (a texture-heavy content)
# For each: a cold bake, then one byte appended to one file and the re-bake timed, RUNS
# times (medians), with the entries the re-bake copied from the previous pack.
#
# Usage: tools/repack-figures.sh [RUNS] [COUNT]   (default 3 runs, 12 images; a release build
# of the CLI, or HEARTH_BIN=path to use a built binary). Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
count=${2:-12}
# shellcheck source=tools/jobs-ratio.sh
source tools/jobs-ratio.sh
bin=$(hearth_binary)
# Cold means cold: no shared cache (the user cache folder would serve earlier runs).
export HEARTH_CACHE_MODE=off
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# text DIR COUNT: COUNT files of 1 MB of deterministic, word-like text (compressible, not trivially).
text() {
    python3 - "$1" "$2" <<'PY'
import random, sys
folder, count = sys.argv[1], int(sys.argv[2])
words = [''.join(random.Random(i).choice('abcdefghijklmnopqrstuvwxyz') for _ in range(3 + i % 7)) for i in range(4096)]
for n in range(count):
    rng = random.Random(n)
    out, size = [], 0
    while size < 1 << 20:
        w = words[rng.randrange(4096)] + (' ' if rng.random() < 0.9 else '\n')
        out.append(w); size += len(w)
    open(f"{folder}/t{n:03}.txt", "w").write(''.join(out)[: 1 << 20])
PY
}

seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>&1; end=$(date +%s.%N); echo "$end - $start" | bc; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# figure NAME CONTENT_DIR EDITED_FILE: cold and one-edit times, and cp of the pack.
figure() {
    local name=$1 content=$2 edited=$3 out=$work/out-$1
    local -a cold=() edit=() copy=()
    local run copied
    for run in $(seq "$runs"); do
        rm -rf "$out"
        cold+=("$(seconds "$bin" bake "$content/hearth.toml" -o "$out" --quiet)")
        printf '!' >>"$edited"
        edit+=("$(seconds "$bin" bake "$content/hearth.toml" -o "$out" --quiet)")
        copied=$("$bin" bake "$content/hearth.toml" -o "$out" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin).get("pack_entries_copied", "?"))' || echo "?")
        copy+=("$(seconds cp "$out"/*.hpack "$work/pack-copy")")
    done
    local c e p
    c=$(median "${cold[@]}"); e=$(median "${edit[@]}"); p=$(median "${copy[@]}")
    printf '| %s | %.2f s | %.3f s | %.1f %% | %.3f s | %.1fx |\n' "$name" "$c" "$e" \
        "$(echo "100 * $e / $c" | bc -l)" "$p" "$(echo "$e / $p" | bc -l)"
}

mkdir -p "$work/text19/t" "$work/text3/t" "$work/images/generated"
text "$work/text19/t" 50
printf '[content]\ncompression = "zstd"\ncompression_level = 19\n[[content.group]]\nassets = ["t/*.txt"]\n' >"$work/text19/hearth.toml"
text "$work/text3/t" 200
printf '[content]\ncompression = "zstd"\n[[content.group]]\nassets = ["t/*.txt"]\n' >"$work/text3/hearth.toml"
cp -r tests/corpus/images "$work/images/images"
python3 - "$work/images/generated" "$count" <<'PY'
import random, struct, sys, zlib
folder, count = sys.argv[1], int(sys.argv[2])
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
for n in range(count):
    rng, size = random.Random(n), 1024
    rows = b''.join(b'\0' + bytes((x * 255 // size + rng.randrange(16)) % 256 for x in range(size * 3)) for _ in range(size))
    png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows, 6)) + chunk(b'IEND', b'')
    open(f"{folder}/g{n:02}.png", "wb").write(png)
PY
printf '[[content.group]]\nassets = ["images/**/*.png", "images/**/*.jpg", "generated/*.png"]\n' >"$work/images/hearth.toml"

echo "| content | cold bake | one-asset edit | edit / cold | cp of the pack | edit / cp |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
figure "50 x 1 MB text, zstd 19" "$work/text19" "$work/text19/t/t007.txt"
figure "200 x 1 MB text, zstd 3" "$work/text3" "$work/text3/t/t007.txt"
# Appending to a PNG leaves the image the same (bytes after IEND) but changes the file: it is
# baked again, which is what an edit costs.
figure "images: corpus + $count generated 1024²" "$work/images" "$work/images/generated/g03.png"

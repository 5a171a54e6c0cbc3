#!/usr/bin/env bash
# Shared bake cache figures (issue 12): the same content baked into a fresh output folder
#   cold         no shared cache (HEARTH_CACHE_MODE=off): every asset encoded
#   upload       machine A: empty local tier, empty bucket: encodes and uploads
#   warm remote  machine B: empty local tier, the bucket warm: every asset downloaded
#   warm local   machine B again: the local tier warm (filled by the remote hits)
# Content: the corpus's textured models and images plus the example content (default texture
# settings: UASTC at the default `faster` level). The remote is a moto S3 server on loopback,
# so "remote" here measures the protocol and the object handling, not a real network.
#
# Usage: tools/shared-cache-figures.sh [RUNS]     (RUNS of each warm case, default 3)
# Needs: python3 with moto[server] (as .ci/run installs), ../shared/corpus, a release build
# (PROFILE=debug for a debug one; HEARTH_BIN=path to use a built binary as it is).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
profile=${PROFILE:-release}
target=${CARGO_TARGET_DIR:-target}
if [ -n "${HEARTH_BIN:-}" ]; then
    bin=$HEARTH_BIN
elif [ "$profile" = release ]; then
    cargo build --release --features full --bin hearth >&2
    bin="$target/release/hearth"
else
    cargo build --features full --bin hearth >&2
    bin="$target/debug/hearth"
fi
corpus=../shared/corpus
[ -d "$corpus" ] || { echo "missing $corpus" >&2; exit 1; }

work=$(mktemp -d)
moto_pid=
cleanup() {
    [ -n "$moto_pid" ] && kill "$moto_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# The content.
content="$work/content"
mkdir -p "$content"
cp -r examples/content/. "$content/"
for model in DamagedHelmet FlightHelmet CesiumMan BoxTextured; do
    cp -r "$corpus/gltf/$model" "$content/models/"
done
cp -r "$corpus/obj/spot" "$content/models/spot-corpus"
mkdir -p "$content/textures/corpus"
cp "$corpus"/images/*.jpg "$corpus"/images/*.png "$content/textures/corpus/"
cat >>"$content/hearth.toml" <<'EOF'

[[content.group]]
assets = ["models/**/*.gltf", "models/**/*.glb", "textures/corpus/*"]
EOF
sources=$(find "$content" -type f | wc -l)
bytes=$(du -sb "$content" | cut -f1)

# The server.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m moto.server -H 127.0.0.1 -p "$port" >"$work/moto.log" 2>&1 &
moto_pid=$!
for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port" && break
    sleep 0.1
done
curl -s -o /dev/null -X PUT "http://127.0.0.1:$port/figures"
export AWS_ENDPOINT_URL="http://127.0.0.1:$port" AWS_ALLOW_HTTP=true AWS_REGION=us-east-1
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing
url="s3://figures/run"

# bake NAME MODE LOCAL_DIR: one bake into a fresh output folder (out-NAME); prints seconds.
bake() {
    local out="$work/out-${1// /-}" start end
    start=$(date +%s.%N)
    HEARTH_CACHE_MODE=$2 HEARTH_CACHE_URL=$url HEARTH_CACHE_DIR=$3 \
        "$bin" bake "$content/hearth.toml" -o "$out" -q
    end=$(date +%s.%N)
    echo "$1: $(python3 -c "print(f'{$end - $start:.3f}')") s; $(find "$out" -type f ! -name '.*' | wc -l) files" >&2
    if [ -n "${reference:-}" ]; then
        diff -r -x '.hearth-*' "$reference" "$out" >/dev/null || { echo "$1: output differs" >&2; exit 1; }
    fi
    python3 -c "print($end - $start)"
}
median() { python3 -c 'import statistics, sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

echo "content: $sources files, $bytes bytes; $runs runs of each warm case; $bin" >&2
cold=$(bake cold off "$work/unused")
reference="$work/out-cold"
upload=$(bake upload read-write "$work/cache-a")
remote=()
local_=()
for i in $(seq "$runs"); do
    remote+=("$(bake "warm remote $i" read-write "$work/cache-b-$i")")
    local_+=("$(bake "warm local $i" read-write "$work/cache-b-$i")")
done
remote=$(median "${remote[@]}")
local_=$(median "${local_[@]}")
python3 - "$cold" "$upload" "$remote" "$local_" <<'EOF'
import sys
cold, upload, remote, local = map(float, sys.argv[1:])
print(f"| cold (no shared cache) | {cold:.2f} s | 100 % |")
print(f"| machine A: bake + upload | {upload:.2f} s | {100 * upload / cold:.1f} % |")
print(f"| warm remote tier (median) | {remote:.3f} s | {100 * remote / cold:.2f} % |")
print(f"| warm local tier (median) | {local:.3f} s | {100 * local / cold:.2f} % |")
EOF

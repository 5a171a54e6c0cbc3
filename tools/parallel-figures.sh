#!/usr/bin/env bash
# Nested parallelism figures (performance issue, item 1): the corpus's models baked cold
# (--no-cache, fresh output folder) with -j 1 and -j 2, RUNS times each, interleaved; prints
# each time and the -j 2 / -j 1 ratio of the medians. A model's textures encode on the same
# worker pool as the other assets, so two workers should stay busy while one model's
# textures (DamagedHelmet's five 2048² JPEGs) dominate.
#
# Usage: tools/parallel-figures.sh [RUNS]       (default 3; a release build of the CLI, or
# HEARTH_BIN=path to use a built binary). Run on a quiet machine: the target is about both
# cores.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
# shellcheck source=tools/jobs-ratio.sh
source tools/jobs-ratio.sh # the script runs from the repository root
bin=$(hearth_binary)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/content"
cp -r tests/corpus/gltf "$work/content/gltf"
cp -r tests/corpus/obj "$work/content/obj"
# The two files hearth refuses by design (Draco, meshopt compression).
rm -rf "$work/content/gltf/Box_draco" "$work/content/gltf/BoxMeshopt"
cat >"$work/content/hearth.toml" <<'TOML'
[content]
name = "corpus"
[[content.group]]
assets = ["gltf/**/*.gltf", "gltf/**/*.glb", "obj/**/*.obj"]
TOML
jobs_ratio "$bin" "$work/content/hearth.toml" "$work/out" "$runs"

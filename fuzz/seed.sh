#!/usr/bin/env bash
# Seeds every fuzz target's corpus (fuzz/corpus/<target>/seed-*) from real baked outputs: bakes
# a few small files of tests/corpus (a textured and a skinned, animated glTF, an OBJ with its
# MTL, a cube map, a raw texture, a LUT) with the hearth CLI into packs v2, v3, v4 and a v5
# signed with the tests' fixture key, and copies each kind of file to the targets that parse
# it. A few small files per target: libFuzzer grows the rest as it runs (git ignores that).
#
# Usage, from anywhere:  fuzz/seed.sh        (honours CARGO_TARGET_DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
corpus=$root/tests/corpus
seeds=$root/fuzz/corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --quiet --features cli --bin hearth
hearth=${CARGO_TARGET_DIR:-$root/target}/debug/hearth

content=$work/content
mkdir -p "$content/raw" "$content/sky.env"
cp -r "$corpus/gltf/BoxTextured" "$corpus/gltf/RiggedSimple" "$content/"
cp -r "$corpus/obj/cornell_box" "$content/"
for face in px nx py ny pz nz; do
    cp "$corpus/cubemaps/Ryfjallet/$face.png" "$content/sky.env/$face.png"
done
cp "$corpus/images/tga/sponza_thorn_ddn.tga" "$content/raw/thorn.tga"
cp "$corpus/luts/ocio__iridas_3d.cube" "$content/grade.lut.cube"

# The tests' fixture signing key (secret seed 32 x 0x07): fuzz/fuzz_targets/pack_v5.rs
# verifies with its public key.
key=$work/fixture.key
printf 'hearth-secret-key-v1 %s\n' "$(printf '07%.0s' $(seq 32))" >"$key"

# bake NAME CONTENT_LINES [CLI FLAGS…]: bakes the content into $work/NAME.
bake() {
    local name=$1 lines=$2
    shift 2
    cat >"$content/hearth.toml" <<EOF
[content]
name = "seed"
$lines
[[content.group]]
assets = ["**/*"]
exclude = ["*.toml"]
[default]
texture = { quality = "fastest", max_size = 16 }
[[default.rules]]
match = "raw/*"
texture = { compress = false }
EOF
    "$hearth" bake "$content/hearth.toml" -o "$work/$name" --no-cache --quiet "$@" >/dev/null
}
bake v2 $'pack_version = 2\ncompression = "none"'
bake v3 $'pack_version = 3\ncompression = "zstd"'
bake v4 'compression = "brotli"'
bake v5 'compression = "snap"' --sign "$key"

# put TARGET FILE…: copies each file to the target's corpus as seed-<its name>.
put() {
    local target=$1
    shift
    mkdir -p "$seeds/$target"
    for file in "$@"; do
        cp "$file" "$seeds/$target/seed-$(basename "$file")"
    done
}
pack() { find "$work/$1" -maxdepth 1 -name '*.hpack' | head -n 1; }
put pack_v2 "$(pack v2)"
put pack_v3 "$(pack v3)"
put pack_v4 "$(pack v4)"
put pack_v5 "$(pack v5)" "$root/tests/fixtures/tiny-v5.hpack"
put hman "$work/v4/assets.hman"
put mesh_view "$work/v4/BoxTextured/BoxTextured.hmesh" "$work/v4/RiggedSimple/RiggedSimple.hmesh" \
    "$work/v4/cornell_box/cornell_box.hmesh"
put material_table "$work/v4/BoxTextured/BoxTextured.hmat" "$work/v4/cornell_box/cornell_box.hmat"
# anim_clips reads the skeleton's joint count from the first byte: 255 admits every joint.
mkdir -p "$seeds/anim_clips"
{ printf '\377'; cat "$work/v4/RiggedSimple/RiggedSimple.hanim"; } >"$seeds/anim_clips/seed-RiggedSimple.hanim"
put ktx2 "$work/v4/raw/thorn.ktx2" "$work/v4/sky.env.ktx2" "$work/v4/grade.lut.ktx2" \
    "$(find "$work/v4/BoxTextured" -name '*.ktx2' | sort | head -n 1)"
put cube_lut "$corpus/luts/ocio__iridas_3d.cube" "$corpus/luts/iridas_cube__Demo.cube" \
    "$corpus/luts/resolve_cube__Three_Dimensional_Table_With_Shaper.cube"
cp "$content/hearth.toml" "$work/seed.toml"
cp "$root/examples/content/hearth.toml" "$work/example.toml"
cp "$root/tests/fixtures/tiny/hearth.toml" "$work/tiny.toml"
put manifest "$work/seed.toml" "$work/example.toml" "$work/tiny.toml"

# Fonts, scenes and SPIR-V from the tests' fixtures (a BMFont, a scene in pak's shape,
# glslang's modules), and pak-style asset files (a skinned [mesh] with shadow geometry, a
# material with v2 properties), baked once.
fonts=$work/fonts
mkdir -p "$fonts/src/fonts" "$fonts/src/levels" "$fonts/src/models" "$fonts/src/materials"
cp -r "$corpus/gltf/RiggedSimple" "$fonts/src/models/"
printf "[mesh]\nsrc = 'RiggedSimple/RiggedSimple.glb'\nshadow = true\n" >"$fonts/src/models/rig.toml"
printf "color = '#808080'\nheight = 0.2\ntransmission = 0.5\n" >"$fonts/src/materials/glass.mat"
cp "$root"/tests/fixtures/fonts/dejavu.png "$root"/tests/fixtures/fonts/dejavu.txt.fnt "$fonts/src/fonts/"
cat >"$fonts/src/levels/dungeon.toml" <<'EOF'
[scene]
[[scene.ref]]
id = 'door'
translation = [1.0, 0.0, -2.0]
rotation = [0.0, 90.0, 0.0]
tags = ['door']
data = { require = 'red-key', hp = 30, open = false, hinges = [[0.0, 1.0], [0.0, 2.0]] }
[[scene.geometry]]
id = 'nav'
vertices = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]
indices = [0, 1, 2]
tags = ['nav-mesh']
EOF
printf '[content]\nname = "fonts"\n[[content.group]]\nassets = ["fonts/*.fnt", "levels/*.toml", "models/*.toml", "materials/*.mat"]\n' >"$fonts/src/hearth.toml"
"$hearth" bake "$fonts/src/hearth.toml" -o "$fonts/out" --no-cache --quiet >/dev/null
put hfont "$fonts/out/fonts/dejavu.txt.hfont"
put hscene "$fonts/out/levels/dungeon.hscene"
put mesh_view "$fonts/out/models/rig.hmesh"
put material_table "$fonts/out/materials/glass.hmat"
put spirv "$root"/tests/fixtures/shaders/*.spv

# The usd target's first byte picks the reader (0 usda, 1 usdc, 2 usdz): the corpus' small
# self-contained layers of each encoding, that byte in front.
mkdir -p "$seeds/usd"
usd_seed() { { printf "$1"; cat "$2"; } >"$seeds/usd/seed-$(basename "$2")"; }
usd_seed '\x00' "$corpus/usd/primvar_interpolation/primvar_interpolation.usda"
usd_seed '\x00' "$corpus/usd/point_instancer/pi_basic.usda"
usd_seed '\x00' "$corpus/usd/blendshape_anim/blendshape-and-animation-test-001.usda"
usd_seed '\x01' "$corpus/usd/skintest_usdc/skintest.usdc"
usd_seed '\x01' "$corpus/usd/table_crate07/Table.maya.usd"
usd_seed '\x02' "$corpus/usd/rigged_figure/RiggedFigure.usdz"

for target in "$seeds"/*/; do
    printf '%-16s %s\n' "$(basename "$target")" "$(ls "$target" | grep -c '^seed-\|^tiny')"
done

#!/usr/bin/env python3
"""Writes TextureTransformBoard: hearth's own board of KHR_texture_transform and TEXCOORD_1
cells, in the spirit of Khronos' TextureTransformMultiTest (not in the corpus: its binaries are
not in the repositories we may read). Standard library only; run it from anywhere, it writes
beside itself. Deterministic: the committed files are its output.

Every texture is red ("wrong") except one square, u 0.6-0.9, v 0.1-0.4 (v down from the
image's top), which holds the "right" value. Each cell's transform maps the cell's UVs onto
that square exactly, so a cell drawn right is uniformly "right"; a drawer that ignores the
transform or samples the other UV set draws "wrong" (the set it should not read is offset by
2, which the transform sends outside the square).

Rows, top to bottom: base colour, emissive, normal, metallic-roughness, occlusion (one textured
slot each), then "mixed": one material whose slots use two different transforms on two
different UV sets. Columns: 0 the slot on TEXCOORD_0 with the transform, 1 the slot on
TEXCOORD_1 with the transform, 2 the slot with no transform on TEXCOORD_0 offset by 2 ("not
applied", the negative reference: what an ignoring drawer shows). The mixed row's column 1 is
its positive reference instead: factors only, equal to the square's values; column 2 the mixed
material with its transforms left out.
"""
import base64, json, math, os, struct, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SIZE = 80  # the square is texels 48..72 x 8..32: whole texels, no blending inside it


def png(path, pixel):
    rows = b"".join(
        b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(SIZE)) for y in range(SIZE)
    )
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    with open(os.path.join(HERE, path), "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(rows, 9)))
        f.write(chunk(b"IEND", b""))


def in_square(x, y):
    return 48 <= x < 72 and 8 <= y < 32


RIGHT_COLOR, WRONG_COLOR = (40, 200, 60, 255), (200, 30, 30, 255)
RIGHT_NORMAL, WRONG_NORMAL = (128, 128, 255, 255), (232, 128, 200, 255)
# occlusion R, roughness G, metallic B
RIGHT_ORM, WRONG_ORM = (255, 255, 0, 255), (0, 40, 255, 255)

png("color.png", lambda x, y: RIGHT_COLOR if in_square(x, y) else WRONG_COLOR)
png("normal.png", lambda x, y: RIGHT_NORMAL if in_square(x, y) else WRONG_NORMAL)
png("orm.png", lambda x, y: RIGHT_ORM if in_square(x, y) else WRONG_ORM)

# T: the board's transform, with a rotation: u' = 0.6 + 0.3 v, v' = 0.4 - 0.3 u.
T = {"offset": [0.6, 0.4], "rotation": math.pi / 2, "scale": [0.3, 0.3]}
# B: the mixed row's second transform, for UVs offset by 2: u' = 0.3 u, v' = 0.3 v - 0.5.
B = {"offset": [0.0, -0.5], "scale": [0.3, 0.3]}


def srgb_to_linear(c):
    c /= 255.0
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


SLOT_TEXTURE = {"base": 0, "emissive": 0, "normal": 1, "mr": 2, "occlusion": 2}
ROWS = ["base", "emissive", "normal", "mr", "occlusion"]


def slot_material(name, slot, info):
    m = {"name": name, "pbrMetallicRoughness": {"metallicFactor": 0.0, "roughnessFactor": 0.6}}
    pbr = m["pbrMetallicRoughness"]
    if slot == "base":
        pbr["baseColorTexture"] = info
    elif slot == "emissive":
        pbr["baseColorFactor"] = [0.02, 0.02, 0.02, 1.0]
        m["emissiveFactor"] = [1.0, 1.0, 1.0]
        m["emissiveTexture"] = info
    elif slot == "normal":
        pbr["baseColorFactor"] = [0.8, 0.8, 0.8, 1.0]
        pbr["roughnessFactor"] = 0.3
        m["normalTexture"] = info
    elif slot == "mr":
        pbr["baseColorFactor"] = [0.8, 0.8, 0.8, 1.0]
        pbr["metallicFactor"] = 1.0
        pbr["roughnessFactor"] = 1.0
        pbr["metallicRoughnessTexture"] = info
    else:
        pbr["baseColorFactor"] = [0.8, 0.8, 0.8, 1.0]
        pbr["roughnessFactor"] = 1.0
        m["occlusionTexture"] = info
    return m


def info(texture, set_, transform):
    i = {"index": texture}
    if set_:
        i["texCoord"] = set_
    if transform:
        i["extensions"] = {"KHR_texture_transform": transform}
    return i


materials, cells = [], []  # cells: (row, column, material, uv0 offset, uv1 offset)
for row, slot in enumerate(ROWS):
    tex = SLOT_TEXTURE[slot]
    for column, (set_, transform, uv0, uv1) in enumerate(
        [(0, T, 0, 2), (1, T, 2, 0), (0, None, 2, 0)]
    ):
        materials.append(slot_material(f"{slot}_{['uv0', 'uv1', 'not_applied'][column]}", slot, info(tex, set_, transform)))
        cells.append((row, column, len(materials) - 1, uv0, uv1))

right_color = [srgb_to_linear(c) for c in RIGHT_COLOR[:3]]
mixed = lambda name, a, b: {
    "name": name,
    "pbrMetallicRoughness": {
        "baseColorTexture": info(0, 0, a),
        "metallicRoughnessTexture": info(2, 1, b),
        "metallicFactor": 1.0,
        "roughnessFactor": 1.0,
    },
    "emissiveTexture": info(0, 1, b),
    "emissiveFactor": [0.3, 0.3, 0.3],
    "normalTexture": info(1, 0, a),
    "occlusionTexture": info(2, 0, a),
}
materials.append(mixed("mixed", T, B))
cells.append((5, 0, len(materials) - 1, 0, 2))
materials.append({
    "name": "mixed_reference",
    "pbrMetallicRoughness": {
        "baseColorFactor": right_color + [1.0],
        "metallicFactor": 0.0,
        "roughnessFactor": 1.0,
    },
    "emissiveFactor": [0.3 * c for c in right_color],
})
cells.append((5, 1, len(materials) - 1, 0, 2))
materials.append(mixed("mixed_not_applied", None, None))
cells.append((5, 2, len(materials) - 1, 0, 2))
materials.append({"name": "board", "doubleSided": True, "pbrMetallicRoughness": {
    "baseColorFactor": [0.0074, 0.0749, 0.464, 1.0], "metallicFactor": 0.0}})

CELL, PITCH = 0.2, 0.26
buffer, views, accessors, meshes, nodes = bytearray(), [], [], [], []


def add(data, fmt, kind, count, minmax=None, target=34962):
    offset = len(buffer)
    buffer.extend(struct.pack("<" + fmt * (len(data) // len(fmt)), *data))
    while len(buffer) % 4:
        buffer.append(0)
    views.append({"buffer": 0, "byteOffset": offset, "byteLength": len(buffer) - offset, "target": target})
    a = {"bufferView": len(views) - 1, "componentType": 5123 if fmt == "H" else 5126, "count": count, "type": kind}
    if minmax:
        a["min"], a["max"] = minmax
    accessors.append(a)
    return len(accessors) - 1


def quad(half, z, uv_offsets, material):
    """A quad in the XY plane facing +Z: u along +X, v down (-Y), as glTF's UVs run."""
    corners = [(-half, -half), (half, -half), (half, half), (-half, half)]
    positions = [c for x, y in corners for c in (x, y, z)]
    attributes = {
        "POSITION": add(positions, "f", "VEC3", 4, ([-half, -half, z], [half, half, z])),
        "NORMAL": add([0.0, 0.0, 1.0] * 4, "f", "VEC3", 4),
        "TANGENT": add([1.0, 0.0, 0.0, 1.0] * 4, "f", "VEC4", 4),
    }
    for set_, offset in enumerate(uv_offsets):
        uvs = [c for x, y in corners for c in ((x + half) / (2 * half) + offset, (half - y) / (2 * half) + offset)]
        attributes[f"TEXCOORD_{set_}"] = add(uvs, "f", "VEC2", 4)
    indices = add([0, 1, 2, 0, 2, 3], "H", "SCALAR", 6, target=34963)
    meshes.append({"primitives": [{"attributes": attributes, "indices": indices, "material": material}]})
    return len(meshes) - 1


for row, column, material, uv0, uv1 in cells:
    mesh = quad(CELL / 2, 0.0, [uv0, uv1], material)
    x = (column - 1) * PITCH
    y = (2.5 - row) * PITCH
    nodes.append({"name": f"cell_{row}_{column}", "mesh": mesh, "translation": [x, y, 0.0]})
board = quad(0.9, -0.02, [], len(materials) - 1)
meshes[board]["primitives"][0]["attributes"].pop("TANGENT")
nodes.append({"name": "board", "mesh": board, "scale": [0.5, 0.9, 1.0]})

gltf = {
    "asset": {"version": "2.0", "generator": "hearth tests/corpus/gltf/TextureTransformBoard/generate.py",
              "copyright": "hearth contributors, CC0-1.0"},
    "extensionsUsed": ["KHR_texture_transform"],
    "scene": 0,
    "scenes": [{"nodes": list(range(len(nodes)))}],
    "nodes": nodes,
    "meshes": meshes,
    "materials": materials,
    "textures": [{"source": i, "sampler": 0} for i in range(3)],
    "samplers": [{"wrapS": 10497, "wrapT": 10497}],
    "images": [{"uri": "color.png"}, {"uri": "normal.png"}, {"uri": "orm.png"}],
    "accessors": accessors,
    "bufferViews": views,
    "buffers": [{"byteLength": len(buffer),
                 "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(buffer)).decode()}],
}
with open(os.path.join(HERE, "TextureTransformBoard.gltf"), "w") as f:
    json.dump(gltf, f, indent=1)
    f.write("\n")

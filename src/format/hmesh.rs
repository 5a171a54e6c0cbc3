//! `.hmesh` v2: assetc's tagged-chunk mesh container, byte for byte.
//!
//! ```text
//! FileHeader (32 B): magic "HMSH" | version u32 = 2 | chunkCount u32 | flags u32 = 0
//!                    | reserved u64 | reserved u64
//! ChunkEntry (24 B) x chunkCount: fourcc u32 | flags u32 | offset u64 | size u64
//! Chunk payloads, each at a 16-aligned offset, zero-padded between.
//! ```
//!
//! DESC is the single source of truth for counts, the vertex stride and the index width; every
//! other chunk is a bare array. Struct layouts follow the reference implementation (see the
//! README's format section); all little-endian and packed.

use crate::format::error::{ReadBytes, ReadError};
use bytemuck::{Pod, Zeroable};

/// Magic bytes of an `.hmesh`.
pub const MAGIC: [u8; 4] = *b"HMSH";
/// The version hearth writes and reads.
pub const VERSION: u32 = 2;
/// File header size.
pub const HEADER_SIZE: usize = 32;
/// Chunk table row size.
pub const CHUNK_ENTRY_SIZE: usize = 24;
/// `SubMesh::material_slot` of a submesh without a material.
pub const NO_MATERIAL: u32 = u32::MAX;
/// `MeshDesc::flags` bit: the mesh carries real tangents.
pub const FLAG_HAS_TANGENTS: u8 = 1;

/// A chunk's four-character code as the `u32` stored in the file.
pub const fn fourcc(code: &[u8; 4]) -> u32 {
    u32::from_le_bytes(*code)
}

/// Chunk ids.
pub mod chunk {
    use super::fourcc;
    /// Mesh descriptor.
    pub const DESC: u32 = fourcc(b"DESC");
    /// Mesh bounds.
    pub const BNDS: u32 = fourcc(b"BNDS");
    /// Vertices.
    pub const VTXS: u32 = fourcc(b"VTXS");
    /// Indices.
    pub const IDXS: u32 = fourcc(b"IDXS");
    /// Meshlets.
    pub const MLET: u32 = fourcc(b"MLET");
    /// Meshlet vertex remap.
    pub const MLVR: u32 = fourcc(b"MLVR");
    /// Meshlet triangles.
    pub const MLTR: u32 = fourcc(b"MLTR");
    /// Meshlet bounds.
    pub const MLBN: u32 = fourcc(b"MLBN");
    /// Material refs.
    pub const MTRL: u32 = fourcc(b"MTRL");
    /// Submeshes.
    pub const SUBM: u32 = fourcc(b"SUBM");
    /// Skinning.
    pub const SKIN: u32 = fourcc(b"SKIN");
    /// Skeleton.
    pub const SKEL: u32 = fourcc(b"SKEL");
    /// LOD indices.
    pub const LODI: u32 = fourcc(b"LODI");
    /// LOD table.
    pub const LODT: u32 = fourcc(b"LODT");
    /// Position-only shadow geometry (hearth's extension; see [`ShadowDesc`](super::ShadowDesc)).
    pub const SHDW: u32 = fourcc(b"SHDW");
    /// A second UV set (hearth's extension, glTF `TEXCOORD_1`): `[f32; 2]` per vertex,
    /// parallel to VTXS (zeros for submeshes without one).
    pub const UVS1: u32 = fourcc(b"UVS1");
    /// Vertex colors (hearth's extension, glTF `COLOR_0`): linear RGBA, `[u16; 4]` unorm per
    /// vertex, parallel to VTXS (white for submeshes without colors).
    pub const COLR: u32 = fourcc(b"COLR");
    /// Morph targets (hearth's extension, glTF `targets`): per-vertex position, normal and
    /// tangent deltas; see [`MorphDesc`](super::MorphDesc).
    pub const MRPH: u32 = fourcc(b"MRPH");
}

/// `.hmesh` file header.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Eq)]
pub struct FileHeader {
    /// `"HMSH"`.
    pub magic: [u8; 4],
    /// 2.
    pub version: u32,
    /// Rows in the chunk table.
    pub chunk_count: u32,
    /// Reserved, 0.
    pub flags: u32,
    /// Reserved, 0.
    pub reserved1: u64,
    /// Reserved, 0.
    pub reserved2: u64,
}
const _: () = assert!(std::mem::size_of::<FileHeader>() == HEADER_SIZE);

/// Chunk table row.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Eq)]
pub struct ChunkEntry {
    /// Chunk id ([`chunk`]).
    pub fourcc: u32,
    /// Per-chunk flags (compression hint; 0).
    pub flags: u32,
    /// Payload offset from the file start (16-aligned).
    pub offset: u64,
    /// Payload bytes.
    pub size: u64,
}
const _: () = assert!(std::mem::size_of::<ChunkEntry>() == CHUNK_ENTRY_SIZE);

/// DESC: the mesh descriptor (32 B).
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let mesh: hearth::Mesh = pak.load("models/chair.hmesh")?;
/// let view = mesh.view();
/// let desc: hearth::MeshDesc = view.desc;
/// let tangents = desc.flags & 1 != 0;
/// println!("{} vertices, {}-byte indices, tangents: {tangents}", desc.vertex_count, desc.index_width);
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Eq, Default)]
pub struct MeshDesc {
    /// Vertices in VTXS (and SKIN).
    pub vertex_count: u32,
    /// Indices in IDXS.
    pub index_count: u32,
    /// Meshlets in MLET and MLBN.
    pub meshlet_count: u32,
    /// Rows in SUBM.
    pub submesh_count: u32,
    /// Refs in MTRL.
    pub material_count: u32,
    /// Bytes per vertex (28).
    pub vertex_stride: u16,
    /// 2 or 4.
    pub index_width: u8,
    /// Bit 0: has tangents.
    pub flags: u8,
    /// Meshlet build limit: vertices.
    pub meshlet_max_verts: u32,
    /// Meshlet build limit: triangles.
    pub meshlet_max_tris: u32,
}
const _: () = assert!(std::mem::size_of::<MeshDesc>() == 32);

/// BNDS and per-submesh bounds (40 B).
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let mesh: hearth::Mesh = pak.load("models/chair.hmesh")?;
/// let view = mesh.view();
/// let bounds: hearth::MeshBounds = view.bounds;
/// println!("box {:?} to {:?}, sphere radius {}", bounds.aabb_min, bounds.aabb_max, bounds.sphere_radius);
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Default)]
pub struct MeshBounds {
    /// AABB minimum.
    pub aabb_min: [f32; 3],
    /// AABB maximum.
    pub aabb_max: [f32; 3],
    /// Bounding sphere center.
    pub sphere_center: [f32; 3],
    /// Bounding sphere radius.
    pub sphere_radius: f32,
}
const _: () = assert!(std::mem::size_of::<MeshBounds>() == 40);

/// VTXS element (28 B).
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let mesh: hearth::Mesh = pak.load("models/chair.hmesh")?;
/// let view = mesh.view();
/// // 28 bytes each, in the layout a vertex buffer takes as is.
/// let vertices: &[hearth::GpuVertex] = &view.vertices;
/// println!("first at {:?}, uv {:?}", vertices[0].position, vertices[0].uv);
/// // The normals and tangents decoded (they are stored octahedral).
/// let normal: Option<[f32; 3]> = view.normals().next();
/// # let _ = normal;
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Default)]
pub struct GpuVertex {
    /// Object-space position.
    pub position: [f32; 3],
    /// Octahedral normal, SNORM16.
    pub normal: [i16; 2],
    /// Octahedral tangent; bit 0 of x is set when the handedness is negative.
    pub tangent: [i16; 2],
    /// UV0, top-left origin.
    pub uv: [f32; 2],
}
const _: () = assert!(std::mem::size_of::<GpuVertex>() == 28);

/// MLET element (16 B).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Eq, Default)]
pub struct Meshlet {
    /// First entry in MLVR.
    pub vertex_offset: u32,
    /// Entries in MLVR.
    pub vertex_count: u32,
    /// First triangle in MLTR (in triangles).
    pub triangle_offset: u32,
    /// Triangles in MLTR.
    pub triangle_count: u32,
}
const _: () = assert!(std::mem::size_of::<Meshlet>() == 16);

/// MLBN element (32 B).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Default)]
pub struct MeshletBounds {
    /// Sphere center.
    pub center: [f32; 3],
    /// Sphere radius.
    pub radius: f32,
    /// Normal cone axis.
    pub cone_axis: [f32; 3],
    /// Normal cone cutoff (cos of the half angle, offset as meshoptimizer defines it).
    pub cone_cutoff: f32,
}
const _: () = assert!(std::mem::size_of::<MeshletBounds>() == 32);

/// MLTR element: three meshlet-local vertex indices.
pub type MeshletTriangle = [u8; 3];

/// SUBM element (64 B).
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let mesh: hearth::Mesh = pak.load("models/chair.hmesh")?;
/// let view = mesh.view();
/// for part in view.submeshes.iter() {
///     // One draw per submesh: its range of the index buffer and its material slot.
///     let end = part.first_index + part.index_count;
///     println!("indices {}..{end}, material slot {}", part.first_index, part.material_slot);
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Default)]
pub struct SubMesh {
    /// First index in IDXS.
    pub first_index: u32,
    /// Indices.
    pub index_count: u32,
    /// First meshlet in MLET.
    pub first_meshlet: u32,
    /// Meshlets.
    pub meshlet_count: u32,
    /// Index into MTRL / the `.hmat` rows, or [`NO_MATERIAL`].
    pub material_slot: u32,
    /// Always 0: indices are global.
    pub base_vertex: u32,
    /// The submesh's bounds.
    pub bounds: MeshBounds,
}
const _: () = assert!(std::mem::size_of::<SubMesh>() == 64);

/// SKIN element (24 B).
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let mesh: hearth::Mesh = pak.load("models/fox.hmesh")?;
/// // Parallel to the vertices, for skinned meshes only.
/// if let Some(skin) = mesh.view().skin() {
///     let first: &hearth::GpuSkinVertex = &skin[0];
///     println!("joints {:?}, weights {:?}", first.joints, first.weights);
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Default)]
pub struct GpuSkinVertex {
    /// Joint indices into SKEL.
    pub joints: [u16; 4],
    /// Weights, summing to 1.
    pub weights: [f32; 4],
}
const _: () = assert!(std::mem::size_of::<GpuSkinVertex>() == 24);

/// SKEL element (112 B).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Default)]
pub struct GpuJoint {
    /// Inverse bind matrix, column-major.
    pub inverse_bind: [f32; 16],
    /// Bind-pose translation.
    pub bind_t: [f32; 3],
    /// Bind-pose rotation, xyzw.
    pub bind_r: [f32; 4],
    /// Bind-pose scale.
    pub bind_s: [f32; 3],
    /// Parent joint, -1 for a root.
    pub parent: i32,
    /// Padding, 0.
    pub pad: u32,
}
const _: () = assert!(std::mem::size_of::<GpuJoint>() == 112);

/// LODT header (8 B), followed by `MeshLod[submesh_count][lod_count]`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Eq, Default)]
pub struct LodTableHeader {
    /// Reduced levels per submesh.
    pub lod_count: u32,
    /// Submeshes.
    pub submesh_count: u32,
}

/// LODT row (8 B): a range of LODI; `index_count == 0` means the level stalled.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Eq, Default)]
pub struct MeshLod {
    /// First index in LODI.
    pub first_index: u32,
    /// Indices.
    pub index_count: u32,
}

/// Octahedral encoding of a unit vector into two SNORM16 values (zero vectors become +Z).
pub fn oct_encode(v: [f32; 3]) -> [i16; 2] {
    let l1 = v[0].abs() + v[1].abs() + v[2].abs();
    let (mut x, mut y) = if l1 > 0.0 && l1.is_finite() {
        (v[0] / l1, v[1] / l1)
    } else {
        (0.0, 0.0)
    };
    if l1 > 0.0 && v[2] / l1 < 0.0 {
        let sign = |s: f32| if s >= 0.0 { 1.0 } else { -1.0 };
        (x, y) = ((1.0 - y.abs()) * sign(x), (1.0 - x.abs()) * sign(y));
    }
    let q = |s: f32| (s.clamp(-1.0, 1.0) * 32767.0).round() as i16;
    [q(x), q(y)]
}

/// Decodes an octahedral SNORM16 pair back to a unit vector.
pub fn oct_decode(e: [i16; 2]) -> [f32; 3] {
    let (x, y) = (
        (e[0] as f32 / 32767.0).max(-1.0),
        (e[1] as f32 / 32767.0).max(-1.0),
    );
    let z = 1.0 - x.abs() - y.abs();
    let t = (-z).max(0.0);
    let (x, y) = (
        x + if x >= 0.0 { -t } else { t },
        y + if y >= 0.0 { -t } else { t },
    );
    let len = (x * x + y * y + z * z).sqrt();
    [x / len, y / len, z / len]
}

/// Octahedral tangent: the tangent's encoding with bit 0 of x holding the handedness (set when
/// `w < 0`).
pub fn oct_encode_tangent(t: [f32; 3], w: f32) -> [i16; 2] {
    let [x, y] = oct_encode(t);
    let x = (x & !1) | (w < 0.0) as i16;
    [x, y]
}

/// Decodes an octahedral tangent: (direction, handedness ±1).
pub fn oct_decode_tangent(e: [i16; 2]) -> ([f32; 3], f32) {
    let w = if e[0] & 1 == 1 { -1.0 } else { 1.0 };
    (oct_decode([e[0] & !1, e[1]]), w)
}

/// Writes an `.hmesh` from `(fourcc, payload)` chunks, in the order given.
pub fn write(chunks: &[(u32, &[u8])]) -> Vec<u8> {
    let table_end = HEADER_SIZE + CHUNK_ENTRY_SIZE * chunks.len();
    let mut offset = table_end.next_multiple_of(16);
    let mut entries = Vec::with_capacity(chunks.len());
    for (id, payload) in chunks {
        entries.push(ChunkEntry {
            fourcc: *id,
            flags: 0,
            offset: offset as u64,
            size: payload.len() as u64,
        });
        offset = (offset + payload.len()).next_multiple_of(16);
    }
    let header = FileHeader {
        magic: MAGIC,
        version: VERSION,
        chunk_count: chunks.len() as u32,
        flags: 0,
        reserved1: 0,
        reserved2: 0,
    };
    let mut out = Vec::with_capacity(offset);
    out.extend_from_slice(bytemuck::bytes_of(&header));
    out.extend_from_slice(bytemuck::cast_slice(&entries));
    for (entry, (_, payload)) in entries.iter().zip(chunks) {
        out.resize(entry.offset as usize, 0);
        out.extend_from_slice(payload);
    }
    out.resize(out.len().next_multiple_of(16), 0);
    out
}

/// Parses the header and chunk table, validating every chunk's range and alignment.
pub fn parse_chunks(bytes: &[u8]) -> Result<Vec<ChunkEntry>, ReadError> {
    let header: FileHeader =
        bytemuck::pod_read_unaligned(bytes.slice_at(0, HEADER_SIZE, ".hmesh header")?);
    if header.magic != MAGIC {
        return Err(ReadError::BadMagic { format: ".hmesh" });
    }
    if header.version != VERSION {
        return Err(ReadError::UnsupportedVersion {
            format: ".hmesh",
            version: header.version,
        });
    }
    let count = header.chunk_count as usize;
    let table = bytes.slice_at(
        HEADER_SIZE,
        count
            .checked_mul(CHUNK_ENTRY_SIZE)
            .ok_or(ReadError::Truncated {
                what: ".hmesh chunk table",
            })?,
        ".hmesh chunk table",
    )?;
    let entries: Vec<ChunkEntry> = table
        .chunks_exact(CHUNK_ENTRY_SIZE)
        .map(bytemuck::pod_read_unaligned)
        .collect();
    for entry in &entries {
        if !entry.offset.is_multiple_of(16) {
            return Err(ReadError::Misaligned {
                what: ".hmesh chunk offset",
            });
        }
        if entry
            .offset
            .checked_add(entry.size)
            .is_none_or(|end| end > bytes.len() as u64)
        {
            return Err(ReadError::OutOfBounds {
                what: ".hmesh chunk range",
            });
        }
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octahedral_round_trips_within_1e3() {
        let mut worst = 0.0f32;
        for i in 0..2000 {
            // Points spread over the sphere (golden spiral), plus the axes.
            let z = 1.0 - 2.0 * (i as f32 + 0.5) / 2000.0;
            let r = (1.0 - z * z).sqrt();
            let phi = i as f32 * 2.399_963;
            for v in [
                [r * phi.cos(), r * phi.sin(), z],
                [0.0, 0.0, -1.0],
                [1.0, 0.0, 0.0],
                [0.0, -1.0, 0.0],
            ] {
                let d = oct_decode(oct_encode(v));
                let err =
                    ((d[0] - v[0]).powi(2) + (d[1] - v[1]).powi(2) + (d[2] - v[2]).powi(2)).sqrt();
                worst = worst.max(err);
                let (t, w) = oct_decode_tangent(oct_encode_tangent(v, -1.0));
                assert_eq!(w, -1.0);
                let terr =
                    ((t[0] - v[0]).powi(2) + (t[1] - v[1]).powi(2) + (t[2] - v[2]).powi(2)).sqrt();
                worst = worst.max(terr);
                assert_eq!(oct_decode_tangent(oct_encode_tangent(v, 1.0)).1, 1.0);
            }
        }
        assert!(worst < 1e-3, "worst error {worst}");
        // Zero and non-finite vectors do not produce NaN.
        assert_eq!(oct_encode([0.0; 3]), [0, 0]);
        assert!(oct_decode(oct_encode([f32::NAN, 0.0, 0.0]))
            .iter()
            .all(|c| c.is_finite()));
    }

    #[test]
    fn spec_rule_for_the_fold() {
        // z < 0: ((1 - |y|) * sign(x), (1 - |x|) * sign(y)), sign(0) = +1.
        assert_eq!(oct_encode([0.0, 0.0, -1.0]), [32767, 32767]);
        assert_eq!(oct_encode([0.0, 0.0, 1.0]), [0, 0]);
        assert_eq!(oct_encode([-1.0, 0.0, 0.0]), [-32767, 0]);
    }

    #[test]
    fn chunks_are_16_aligned_and_validated() {
        let bytes = write(&[
            (chunk::DESC, &[1u8; 32][..]),
            (chunk::IDXS, &[2u8; 6][..]),
            (chunk::MTRL, &[][..]),
        ]);
        let entries = parse_chunks(&bytes).unwrap();
        assert_eq!(entries.len(), 3);
        assert!(entries.iter().all(|e| e.offset % 16 == 0));
        assert_eq!(entries[0].offset, 112, "32 + 3 * 24 = 104, aligned to 112");
        assert_eq!(&bytes[entries[1].offset as usize..][..6], &[2u8; 6]);
        assert!(bytes[104..112].iter().all(|b| *b == 0));
        for len in 0..entries[1].offset as usize + 6 {
            assert!(parse_chunks(&bytes[..len]).is_err(), "prefix {len}");
        }
    }
}

/// `ShadowDesc::flags` bit: a [`GpuSkinVertex`] follows each shadow position.
pub const SHADOW_SKINNED: u32 = 1;

/// Head of the optional `SHDW` chunk (16 B): position-only geometry for shadow and depth
/// passes, written when a mesh's `shadow` setting is on. hearth's extension of `.hmesh` v2:
/// readers that do not know the chunk skip it, as the chunk table allows.
///
/// ```text
/// ShadowDesc (16 B)
/// MeshLod x submeshCount      each submesh's range of the shadow indices (SUBM order)
/// [f32; 3] x vertexCount      positions, welded: VTXS corners differing only in normal,
///                             tangent or UV are one vertex here
/// GpuSkinVertex x vertexCount only with SHADOW_SKINNED: joints and weights, as SKIN
/// u32 x indexCount            triangle list, vertex-cache and fetch optimized
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Eq, Default)]
pub struct ShadowDesc {
    /// Welded vertices.
    pub vertex_count: u32,
    /// Indices (a multiple of 3).
    pub index_count: u32,
    /// Equal to DESC's submesh count.
    pub submesh_count: u32,
    /// [`SHADOW_SKINNED`] or 0.
    pub flags: u32,
}
const _: () = assert!(std::mem::size_of::<ShadowDesc>() == 16);

/// Serializes a `SHDW` chunk (see [`ShadowDesc`]); `skin` is parallel to `positions` when
/// present.
pub fn write_shadow(
    ranges: &[MeshLod],
    positions: &[[f32; 3]],
    skin: Option<&[GpuSkinVertex]>,
    indices: &[u32],
) -> Vec<u8> {
    let desc = ShadowDesc {
        vertex_count: positions.len() as u32,
        index_count: indices.len() as u32,
        submesh_count: ranges.len() as u32,
        flags: if skin.is_some() { SHADOW_SKINNED } else { 0 },
    };
    let mut out = bytemuck::bytes_of(&desc).to_vec();
    out.extend_from_slice(bytemuck::cast_slice(ranges));
    out.extend_from_slice(bytemuck::cast_slice(positions));
    if let Some(skin) = skin {
        out.extend_from_slice(bytemuck::cast_slice(skin));
    }
    out.extend_from_slice(bytemuck::cast_slice(indices));
    out
}

/// `MorphDesc::flags` bit: normal deltas follow each target's position deltas.
pub const MORPH_NORMALS: u32 = 1;
/// `MorphDesc::flags` bit: tangent deltas follow (after the normal deltas, when present).
pub const MORPH_TANGENTS: u32 = 2;

/// Head of the optional `MRPH` chunk (16 B): glTF morph targets as deltas on the VTXS
/// vertices. hearth's extension of `.hmesh` v2: readers that do not know it skip it.
///
/// ```text
/// MorphDesc (16 B)
/// f32 x targetCount                 default weights (the glTF mesh's `weights`, else 0)
/// per target, in order:
///   [f32; 3] x vertexCount          position deltas, exact
///   [i16; 4] x vertexCount          normal deltas (MORPH_NORMALS): snorm16 of delta / 2, w = 0
///   [i16; 4] x vertexCount          tangent deltas (MORPH_TANGENTS): the same
/// ```
///
/// A vertex is `base + Σ weight_t · delta_t`; normals and tangents are renormalized after
/// (the octahedral VTXS normal decoded first). Normal and tangent deltas of unit vectors lie in
/// [-2, 2]: halved and stored as snorm16 they keep 3.1e-5 of precision
/// ([`quantize_morph_delta`]). Vertices of submeshes without targets have zero deltas.
/// Several glTF meshes merged into one `.hmesh` have their targets one after another; a
/// `.hanim` weight channel names its mesh's first target and count.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Eq, Default)]
pub struct MorphDesc {
    /// Targets.
    pub target_count: u32,
    /// [`MORPH_NORMALS`] | [`MORPH_TANGENTS`].
    pub flags: u32,
    /// Equal to DESC's vertex count.
    pub vertex_count: u32,
    /// 0.
    pub reserved: u32,
}
const _: () = assert!(std::mem::size_of::<MorphDesc>() == 16);

/// A normal or tangent delta component (in [-2, 2]) as MRPH stores it.
pub fn quantize_morph_delta(d: f32) -> i16 {
    ((d * 0.5).clamp(-1.0, 1.0) * 32767.0).round() as i16
}

/// The inverse of [`quantize_morph_delta`].
pub fn dequantize_morph_delta(q: i16) -> f32 {
    (q.max(-32767) as f32 / 32767.0) * 2.0
}

/// Morph targets to write: `positions[t]` (and `normals[t]`, `tangents[t]` when present)
/// hold target `t`'s delta for every vertex.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MorphTargetData {
    /// Default weights, one per target.
    pub weights: Vec<f32>,
    /// Position deltas per target.
    pub positions: Vec<Vec<[f32; 3]>>,
    /// Normal deltas per target.
    pub normals: Option<Vec<Vec<[f32; 3]>>>,
    /// Tangent deltas per target.
    pub tangents: Option<Vec<Vec<[f32; 3]>>>,
}

/// Serializes an `MRPH` chunk (see [`MorphDesc`]) for `vertex_count` vertices.
///
/// # Panics
/// When a target's delta count is not `vertex_count`, or the per-target lists disagree in
/// length (caller bugs).
pub fn write_morph(data: &MorphTargetData, vertex_count: usize) -> Vec<u8> {
    let targets = data.weights.len();
    assert_eq!(data.positions.len(), targets, "morph position targets");
    let flags = if data.normals.is_some() {
        MORPH_NORMALS
    } else {
        0
    } | if data.tangents.is_some() {
        MORPH_TANGENTS
    } else {
        0
    };
    let desc = MorphDesc {
        target_count: targets as u32,
        flags,
        vertex_count: vertex_count as u32,
        reserved: 0,
    };
    let mut out = bytemuck::bytes_of(&desc).to_vec();
    out.extend_from_slice(bytemuck::cast_slice(&data.weights));
    let quantized = |deltas: &[[f32; 3]], out: &mut Vec<u8>| {
        assert_eq!(deltas.len(), vertex_count, "morph deltas per vertex");
        for d in deltas {
            let q = [
                quantize_morph_delta(d[0]),
                quantize_morph_delta(d[1]),
                quantize_morph_delta(d[2]),
                0,
            ];
            out.extend_from_slice(bytemuck::bytes_of(&q));
        }
    };
    for t in 0..targets {
        assert_eq!(
            data.positions[t].len(),
            vertex_count,
            "morph deltas per vertex"
        );
        out.extend_from_slice(bytemuck::cast_slice(&data.positions[t]));
        if let Some(normals) = &data.normals {
            quantized(&normals[t], &mut out);
        }
        if let Some(tangents) = &data.tangents {
            quantized(&tangents[t], &mut out);
        }
    }
    out
}

//! Zero-copy views of `.hmesh`, `.hmat` and `.hanim` data: typed slices borrowed straight
//! from the bytes when they are aligned (pack payloads are 16-aligned), copied otherwise.
//! Everything is validated before use; a corrupt file is an error.

use crate::format::hmesh::{
    chunk, oct_decode, oct_decode_tangent, parse_chunks, GpuJoint, GpuSkinVertex, GpuVertex,
    LodTableHeader, MeshBounds, MeshDesc, MeshLod, Meshlet, MeshletBounds, MorphDesc, ShadowDesc,
    SubMesh, FLAG_HAS_TANGENTS, MORPH_NORMALS, MORPH_TANGENTS, NO_MATERIAL, SHADOW_SKINNED,
};
use crate::read::error::ReadError;
use bytemuck::Pod;
use std::borrow::Cow;

/// `count` values of `T` from `bytes` (which must hold exactly that many): borrowed when
/// aligned, copied otherwise.
pub(crate) fn typed<'a, T: Pod>(
    bytes: &'a [u8],
    count: usize,
    what: &'static str,
) -> Result<Cow<'a, [T]>, ReadError> {
    let size = std::mem::size_of::<T>();
    if count.checked_mul(size) != Some(bytes.len()) {
        return Err(ReadError::Invalid { what });
    }
    Ok(match bytemuck::try_cast_slice(bytes) {
        Ok(slice) => Cow::Borrowed(slice),
        Err(_) => Cow::Owned(
            bytes
                .chunks_exact(size)
                .map(bytemuck::pod_read_unaligned)
                .collect(),
        ),
    })
}

/// The index buffer, 16- or 32-bit as DESC says.
#[derive(Debug, Clone)]
pub enum Indices<'a> {
    /// 16-bit indices.
    U16(Cow<'a, [u16]>),
    /// 32-bit indices.
    U32(Cow<'a, [u32]>),
}

impl Indices<'_> {
    /// Number of indices.
    pub fn len(&self) -> usize {
        match self {
            Indices::U16(i) => i.len(),
            Indices::U32(i) => i.len(),
        }
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Index `i` widened to `u32`.
    pub fn get(&self, i: usize) -> Option<u32> {
        match self {
            Indices::U16(v) => v.get(i).map(|x| *x as u32),
            Indices::U32(v) => v.get(i).copied(),
        }
    }
    /// All indices widened to `u32`.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// Reduced levels of detail: per submesh and level, a range of [`lod_indices`](Self::lod_indices).
#[derive(Debug, Clone)]
pub struct Lods<'a> {
    /// Table header.
    pub header: LodTableHeader,
    /// `MeshLod[submesh][lod]`, row-major.
    pub table: Cow<'a, [MeshLod]>,
    /// LODI: global vertex indices.
    pub lod_indices: Cow<'a, [u32]>,
}

impl Lods<'_> {
    /// The range of level `lod` (0-based among the reduced levels) of `submesh`.
    pub fn range(&self, submesh: usize, lod: usize) -> Option<MeshLod> {
        if lod >= self.header.lod_count as usize {
            return None;
        }
        let row = submesh
            .checked_mul(self.header.lod_count as usize)?
            .checked_add(lod)?;
        self.table.get(row).copied()
    }
}

/// A validated `.hmesh`.
///
/// [`parse`](Self::parse) checks every count, range and index once; the chunks are then typed
/// slices borrowed from the bytes when they are aligned (stored pack entries are 16-aligned),
/// copied otherwise.
///
/// ```no_run
/// use hearth::{MeshView, PakReader};
/// let pak = PakReader::open("assets.hpack")?;
/// let bytes = pak.get("models/chair.hmesh")?.expect("baked");
/// let mesh = MeshView::parse(&bytes)?;
/// // One vertex and one index buffer for the whole mesh, ready to upload.
/// let vertices: &[hearth::format::hmesh::GpuVertex] = &mesh.vertices;
/// let indices: Vec<u32> = mesh.indices.iter().collect();
/// // One draw per submesh, with the material of its slot (`MaterialTable` row).
/// for (i, submesh) in mesh.submeshes.iter().enumerate() {
///     let (first, count) = (submesh.first_index, submesh.index_count);
///     // A simpler level of detail, when baked: a range of its own index buffer.
///     let lod1 = mesh.lods.as_ref().and_then(|lods| lods.range(i, 1));
///     println!("submesh {i}: indices {first}+{count}, slot {}, LOD 1 {lod1:?}", submesh.material_slot);
/// }
/// println!("{} vertices, {} meshlets", vertices.len(), mesh.meshlets.len());
/// # let _ = indices;
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone)]
pub struct MeshView<'a> {
    /// DESC.
    pub desc: MeshDesc,
    /// BNDS.
    pub bounds: MeshBounds,
    /// VTXS.
    pub vertices: Cow<'a, [GpuVertex]>,
    /// IDXS.
    pub indices: Indices<'a>,
    /// SUBM.
    pub submeshes: Cow<'a, [SubMesh]>,
    /// MTRL: material ref hashes, in slot order.
    pub materials: Cow<'a, [u64]>,
    /// MLET.
    pub meshlets: Cow<'a, [Meshlet]>,
    /// MLVR.
    pub meshlet_vertices: Cow<'a, [u32]>,
    /// MLTR.
    pub meshlet_triangles: &'a [[u8; 3]],
    /// MLBN.
    pub meshlet_bounds: Cow<'a, [MeshletBounds]>,
    /// SKIN, parallel to the vertices.
    pub skin: Option<Cow<'a, [GpuSkinVertex]>>,
    /// SKEL.
    pub skeleton: Option<Cow<'a, [GpuJoint]>>,
    /// LODT + LODI.
    pub lods: Option<Lods<'a>>,
    /// SHDW: position-only geometry for shadow and depth passes, when baked with `shadow`.
    pub shadow: Option<ShadowGeometry<'a>>,
    /// UVS1: a second UV set, parallel to the vertices, when the source has one.
    pub uvs1: Option<Cow<'a, [[f32; 2]]>>,
    /// COLR: linear RGBA vertex colors (`u16` unorm), parallel to the vertices, when the
    /// source has them.
    pub colors: Option<Cow<'a, [[u16; 4]]>>,
    /// MRPH: morph targets, when the source has them.
    pub morph_targets: Option<MorphTargets<'a>>,
}

/// The `MRPH` chunk: morph targets as per-vertex deltas (see [`MorphDesc`]).
#[derive(Debug, Clone)]
pub struct MorphTargets<'a> {
    /// Default weights, one per target.
    pub weights: Cow<'a, [f32]>,
    /// The targets, in order.
    pub targets: Vec<MorphTarget<'a>>,
}

/// One morph target's deltas, parallel to the vertices.
#[derive(Debug, Clone)]
pub struct MorphTarget<'a> {
    /// Position deltas, exact.
    pub positions: Cow<'a, [[f32; 3]]>,
    /// Normal deltas, quantized ([`MorphTarget::normal`] decodes one).
    pub normals: Option<Cow<'a, [[i16; 4]]>>,
    /// Tangent deltas, quantized ([`MorphTarget::tangent`] decodes one).
    pub tangents: Option<Cow<'a, [[i16; 4]]>>,
}

impl MorphTarget<'_> {
    /// Vertex `v`'s normal delta (zero when the target has none or `v` is out of range).
    pub fn normal(&self, v: usize) -> [f32; 3] {
        Self::decode(self.normals.as_deref(), v)
    }

    /// Vertex `v`'s tangent delta (zero when the target has none or `v` is out of range).
    pub fn tangent(&self, v: usize) -> [f32; 3] {
        Self::decode(self.tangents.as_deref(), v)
    }

    fn decode(deltas: Option<&[[i16; 4]]>, v: usize) -> [f32; 3] {
        match deltas.and_then(|d| d.get(v)) {
            Some(q) => std::array::from_fn(|i| crate::format::hmesh::dequantize_morph_delta(q[i])),
            None => [0.0; 3],
        }
    }
}

impl<'a> MorphTargets<'a> {
    fn parse(bytes: &'a [u8], vertices: usize) -> Result<Self, ReadError> {
        let desc: MorphDesc =
            bytemuck::pod_read_unaligned(bytes.get(..16).ok_or(ReadError::Truncated {
                what: ".hmesh MRPH header",
            })?);
        if desc.vertex_count as usize != vertices
            || desc.reserved != 0
            || desc.flags & !(MORPH_NORMALS | MORPH_TANGENTS) != 0
        {
            return Err(ReadError::Invalid {
                what: ".hmesh MRPH header (vertex count, flags)",
            });
        }
        let targets = desc.target_count as usize;
        let quantized = [MORPH_NORMALS, MORPH_TANGENTS]
            .iter()
            .filter(|bit| desc.flags & **bit != 0)
            .count();
        let per_target = vertices.checked_mul(12 + 8 * quantized);
        let expected = per_target
            .and_then(|p| p.checked_mul(targets))
            .and_then(|t| t.checked_add(16 + 4 * targets));
        if expected != Some(bytes.len()) {
            return Err(ReadError::Invalid {
                what: ".hmesh MRPH size",
            });
        }
        let weights_end = 16 + 4 * targets;
        let weights = typed::<f32>(&bytes[16..weights_end], targets, ".hmesh MRPH weights")?;
        let mut at = weights_end;
        let mut take = |size: usize| {
            let slice = &bytes[at..at + vertices * size];
            at += vertices * size;
            slice
        };
        let mut list = Vec::with_capacity(targets);
        for _ in 0..targets {
            let positions = typed::<[f32; 3]>(take(12), vertices, ".hmesh MRPH positions")?;
            let normals = (desc.flags & MORPH_NORMALS != 0)
                .then(|| typed::<[i16; 4]>(take(8), vertices, ".hmesh MRPH normals"))
                .transpose()?;
            let tangents = (desc.flags & MORPH_TANGENTS != 0)
                .then(|| typed::<[i16; 4]>(take(8), vertices, ".hmesh MRPH tangents"))
                .transpose()?;
            list.push(MorphTarget {
                positions,
                normals,
                tangents,
            });
        }
        Ok(Self {
            weights,
            targets: list,
        })
    }
}

/// The `SHDW` chunk: welded positions (and skinning) with their own triangle list; see
/// [`ShadowDesc`].
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let mesh: hearth::Mesh = pak.load("models/chair.hmesh")?;
/// let view = mesh.view();
/// if let Some(shadow) = &view.shadow {
///     // The shadow pass draws welded positions alone: fewer vertices than the colour pass.
///     println!("{} shadow vertices (of {})", shadow.positions.len(), view.vertex_count());
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ShadowGeometry<'a> {
    /// Each submesh's range of [`indices`](Self::indices), in SUBM order.
    pub ranges: Cow<'a, [MeshLod]>,
    /// Positions.
    pub positions: Cow<'a, [[f32; 3]]>,
    /// Joints and weights, parallel to the positions, for skinned meshes.
    pub skin: Option<Cow<'a, [GpuSkinVertex]>>,
    /// Triangle list into the positions.
    pub indices: Cow<'a, [u32]>,
}

impl<'a> ShadowGeometry<'a> {
    /// Parses and validates a `SHDW` payload against the mesh's submesh count and skeleton.
    fn parse(
        bytes: &'a [u8],
        submesh_count: u32,
        joint_count: Option<usize>,
    ) -> Result<Self, ReadError> {
        let size = |what: &'static str| ReadError::Invalid { what };
        let head = bytes.get(..16).ok_or(ReadError::Truncated {
            what: ".hmesh SHDW header",
        })?;
        let desc: ShadowDesc = bytemuck::pod_read_unaligned(head);
        if desc.submesh_count != submesh_count || desc.flags & !SHADOW_SKINNED != 0 {
            return Err(size(".hmesh SHDW submesh count or flags"));
        }
        let skinned = desc.flags & SHADOW_SKINNED != 0;
        let (n_vertices, n_indices) = (desc.vertex_count as usize, desc.index_count as usize);
        // Section lengths in u64: no overflow from any u32 counts.
        let lengths = [
            submesh_count as u64 * 8,
            n_vertices as u64 * 12,
            if skinned { n_vertices as u64 * 24 } else { 0 },
            n_indices as u64 * 4,
        ];
        if 16 + lengths.iter().sum::<u64>() != bytes.len() as u64 {
            return Err(size(".hmesh SHDW size"));
        }
        let mut at = 16usize;
        let mut section = |len: u64| {
            let part = &bytes[at..at + len as usize];
            at += len as usize;
            part
        };
        let ranges = typed::<MeshLod>(
            section(lengths[0]),
            submesh_count as usize,
            ".hmesh SHDW ranges",
        )?;
        let positions =
            typed::<[f32; 3]>(section(lengths[1]), n_vertices, ".hmesh SHDW positions")?;
        let skin_bytes = section(lengths[2]);
        let indices = typed::<u32>(section(lengths[3]), n_indices, ".hmesh SHDW indices")?;
        let skin = if skinned {
            let skin = typed::<GpuSkinVertex>(skin_bytes, n_vertices, ".hmesh SHDW skin")?;
            let joints = joint_count.ok_or(size(".hmesh SHDW skin without SKEL"))?;
            if skin
                .iter()
                .flat_map(|s| s.joints)
                .any(|j| j as usize >= joints)
            {
                return Err(ReadError::OutOfBounds {
                    what: ".hmesh SHDW skin joint (beyond the skeleton)",
                });
            }
            Some(skin)
        } else {
            None
        };
        if n_indices % 3 != 0 || indices.iter().any(|i| *i as usize >= n_vertices) {
            return Err(ReadError::OutOfBounds {
                what: ".hmesh SHDW index (beyond the vertices, or not triangles)",
            });
        }
        for range in ranges.iter() {
            let end = range.first_index.checked_add(range.index_count);
            if end.is_none_or(|e| e as usize > n_indices) || range.index_count % 3 != 0 {
                return Err(ReadError::OutOfBounds {
                    what: ".hmesh SHDW submesh range",
                });
            }
        }
        Ok(Self {
            ranges,
            positions,
            skin,
            indices,
        })
    }
}

/// Decoded vertex streams: what a renderer or a physics engine wants, in plain arrays.
impl MeshView<'_> {
    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.vertices.len()
    }

    /// Number of indices (three per triangle).
    pub fn index_count(&self) -> usize {
        self.indices.len()
    }

    /// Positions, in vertex order.
    pub fn positions(&self) -> impl ExactSizeIterator<Item = [f32; 3]> + '_ {
        self.vertices.iter().map(|v| v.position)
    }

    /// Unit normals, decoded from their octahedral encoding.
    pub fn normals(&self) -> impl ExactSizeIterator<Item = [f32; 3]> + '_ {
        self.vertices.iter().map(|v| oct_decode(v.normal))
    }

    /// Tangents as glTF gives them: unit xyz and the bitangent sign in w (±1). Meaningful
    /// when [`has_tangents`](Self::has_tangents); otherwise the baker's placeholder frame.
    pub fn tangents(&self) -> impl ExactSizeIterator<Item = [f32; 4]> + '_ {
        self.vertices.iter().map(|v| {
            let ([x, y, z], w) = oct_decode_tangent(v.tangent);
            [x, y, z, w]
        })
    }

    /// Whether the mesh carries real tangents (baked or generated with MikkTSpace).
    pub fn has_tangents(&self) -> bool {
        self.desc.flags & FLAG_HAS_TANGENTS != 0
    }

    /// First UV set.
    pub fn uvs(&self) -> impl ExactSizeIterator<Item = [f32; 2]> + '_ {
        self.vertices.iter().map(|v| v.uv)
    }

    /// Second UV set, when the source has one.
    pub fn uvs1(&self) -> Option<&[[f32; 2]]> {
        self.uvs1.as_deref()
    }

    /// Vertex colours as linear RGBA floats, when the source has them.
    pub fn colors_f32(&self) -> Option<impl ExactSizeIterator<Item = [f32; 4]> + '_> {
        self.colors
            .as_deref()
            .map(|colors| colors.iter().map(|c| c.map(|v| v as f32 / 65535.0)))
    }

    /// Skin joints and weights per vertex, when skinned.
    pub fn skin(&self) -> Option<&[GpuSkinVertex]> {
        self.skin.as_deref()
    }

    /// Indices widened to `u32`.
    pub fn indices_u32(&self) -> Vec<u32> {
        self.indices.iter().collect()
    }
}

impl<'a> MeshView<'a> {
    /// Parses and validates everything the spec's check asks: chunk ranges and sizes against
    /// DESC, every index and meshlet-local index in range, submesh and meshlet ranges, material
    /// slots, skin joints against the skeleton, LOD ranges inside LODI.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ReadError> {
        let entries = parse_chunks(bytes)?;
        let find = |id: u32, what: &'static str| -> Result<Option<&'a [u8]>, ReadError> {
            let mut found = entries.iter().filter(|e| e.fourcc == id);
            let first = found.next();
            if found.next().is_some() {
                return Err(ReadError::Invalid { what });
            }
            // Ranges validated by `parse_chunks`.
            Ok(first.map(|e| &bytes[e.offset as usize..(e.offset + e.size) as usize]))
        };
        let need = |id: u32, what: &'static str| find(id, what)?.ok_or(ReadError::Invalid { what });
        let desc: MeshDesc = single(need(chunk::DESC, ".hmesh DESC chunk")?, ".hmesh DESC size")?;
        let bounds: MeshBounds =
            single(need(chunk::BNDS, ".hmesh BNDS chunk")?, ".hmesh BNDS size")?;
        if desc.vertex_stride as usize != std::mem::size_of::<GpuVertex>() {
            return Err(ReadError::Invalid {
                what: ".hmesh vertex stride (must be 28)",
            });
        }
        let (vertices, n_indices) = (desc.vertex_count as usize, desc.index_count as usize);
        let vtxs = typed::<GpuVertex>(
            need(chunk::VTXS, ".hmesh VTXS chunk")?,
            vertices,
            ".hmesh VTXS size",
        )?;
        let idxs = need(chunk::IDXS, ".hmesh IDXS chunk")?;
        let indices = match desc.index_width {
            2 => Indices::U16(typed(idxs, n_indices, ".hmesh IDXS size")?),
            4 => Indices::U32(typed(idxs, n_indices, ".hmesh IDXS size")?),
            _ => {
                return Err(ReadError::Invalid {
                    what: ".hmesh index width (must be 2 or 4)",
                })
            }
        };
        if n_indices % 3 != 0 || indices.iter().any(|i| i as usize >= vertices) {
            return Err(ReadError::OutOfBounds {
                what: ".hmesh index (beyond the vertices, or not triangles)",
            });
        }
        let submeshes = typed::<SubMesh>(
            need(chunk::SUBM, ".hmesh SUBM chunk")?,
            desc.submesh_count as usize,
            ".hmesh SUBM size",
        )?;
        let materials = typed::<u64>(
            need(chunk::MTRL, ".hmesh MTRL chunk")?,
            desc.material_count as usize,
            ".hmesh MTRL size",
        )?;
        let meshlet_count = desc.meshlet_count as usize;
        let meshlets = typed::<Meshlet>(
            need(chunk::MLET, ".hmesh MLET chunk")?,
            meshlet_count,
            ".hmesh MLET size",
        )?;
        let meshlet_bounds = typed::<MeshletBounds>(
            need(chunk::MLBN, ".hmesh MLBN chunk")?,
            meshlet_count,
            ".hmesh MLBN size",
        )?;
        let mlvr = need(chunk::MLVR, ".hmesh MLVR chunk")?;
        let meshlet_vertices = typed::<u32>(mlvr, mlvr.len() / 4, ".hmesh MLVR size")?;
        let mltr = need(chunk::MLTR, ".hmesh MLTR chunk")?;
        let meshlet_triangles: &[[u8; 3]] =
            bytemuck::try_cast_slice(mltr).map_err(|_| ReadError::Invalid {
                what: ".hmesh MLTR size (not whole triangles)",
            })?;

        check_submeshes(&submeshes, &desc)?;
        check_meshlets(&meshlets, &meshlet_vertices, meshlet_triangles, &desc)?;

        let (skeleton, skin) = parse_skin(
            find(chunk::SKEL, ".hmesh SKEL chunk")?,
            find(chunk::SKIN, ".hmesh SKIN chunk")?,
            vertices,
        )?;

        let lods = parse_lods(
            find(chunk::LODT, ".hmesh LODT chunk")?,
            find(chunk::LODI, ".hmesh LODI chunk")?,
            &desc,
        )?;
        let shadow = find(chunk::SHDW, ".hmesh SHDW chunk")?
            .map(|b| {
                ShadowGeometry::parse(b, desc.submesh_count, skeleton.as_ref().map(|s| s.len()))
            })
            .transpose()?;
        let uvs1 = find(chunk::UVS1, ".hmesh UVS1 chunk")?
            .map(|b| typed::<[f32; 2]>(b, vertices, ".hmesh UVS1 size"))
            .transpose()?;
        let colors = find(chunk::COLR, ".hmesh COLR chunk")?
            .map(|b| typed::<[u16; 4]>(b, vertices, ".hmesh COLR size"))
            .transpose()?;
        let morph_targets = find(chunk::MRPH, ".hmesh MRPH chunk")?
            .map(|b| MorphTargets::parse(b, vertices))
            .transpose()?;
        Ok(Self {
            desc,
            bounds,
            vertices: vtxs,
            indices,
            submeshes,
            materials,
            meshlets,
            meshlet_vertices,
            meshlet_triangles,
            meshlet_bounds,
            skin,
            skeleton,
            lods,
            shadow,
            uvs1,
            colors,
            morph_targets,
        })
    }
}

/// The one `T` a fixed-size chunk (DESC, BNDS) holds.
fn single<T: Pod>(chunk: &[u8], what: &'static str) -> Result<T, ReadError> {
    typed::<T>(chunk, 1, what)?
        .first()
        .copied()
        .ok_or(ReadError::Invalid {
            what: ".hmesh DESC or BNDS size",
        })
}

/// Every submesh's index and meshlet range inside the mesh's, whole triangles, a material slot
/// that exists, base vertex 0.
fn check_submeshes(submeshes: &[SubMesh], desc: &MeshDesc) -> Result<(), ReadError> {
    for s in submeshes.iter() {
        let index_end = s.first_index.checked_add(s.index_count);
        let meshlet_end = s.first_meshlet.checked_add(s.meshlet_count);
        if index_end.is_none_or(|e| e > desc.index_count)
            || meshlet_end.is_none_or(|e| e > desc.meshlet_count)
            || s.index_count % 3 != 0
        {
            return Err(ReadError::OutOfBounds {
                what: ".hmesh submesh range",
            });
        }
        if s.material_slot != NO_MATERIAL && s.material_slot >= desc.material_count {
            return Err(ReadError::OutOfBounds {
                what: ".hmesh submesh material slot",
            });
        }
        if s.base_vertex != 0 {
            return Err(ReadError::Invalid {
                what: ".hmesh submesh base vertex (must be 0)",
            });
        }
    }
    Ok(())
}

/// Every meshlet's vertex and triangle range inside MLVR and MLTR, its size within DESC's
/// limits, its local indices inside its vertices and its vertices inside the mesh's.
fn check_meshlets(
    meshlets: &[Meshlet],
    meshlet_vertices: &[u32],
    meshlet_triangles: &[[u8; 3]],
    desc: &MeshDesc,
) -> Result<(), ReadError> {
    let vertices = desc.vertex_count as usize;
    if meshlet_vertices.iter().any(|v| *v as usize >= vertices) {
        return Err(ReadError::OutOfBounds {
            what: ".hmesh meshlet vertex (beyond the vertices)",
        });
    }
    for m in meshlets.iter() {
        let v_end = m
            .vertex_offset
            .checked_add(m.vertex_count)
            .map(|e| e as usize);
        let t_end = m
            .triangle_offset
            .checked_add(m.triangle_count)
            .map(|e| e as usize);
        if v_end.is_none_or(|e| e > meshlet_vertices.len())
            || t_end.is_none_or(|e| e > meshlet_triangles.len())
        {
            return Err(ReadError::OutOfBounds {
                what: ".hmesh meshlet range",
            });
        }
        if m.vertex_count > desc.meshlet_max_verts || m.triangle_count > desc.meshlet_max_tris {
            return Err(ReadError::Invalid {
                what: ".hmesh meshlet size (over DESC's limits)",
            });
        }
        let tris = t_end
            .and_then(|end| meshlet_triangles.get(m.triangle_offset as usize..end))
            .ok_or(ReadError::OutOfBounds {
                what: ".hmesh meshlet range",
            })?;
        if tris
            .iter()
            .flatten()
            .any(|local| *local as u32 >= m.vertex_count)
        {
            return Err(ReadError::OutOfBounds {
                what: ".hmesh meshlet-local index",
            });
        }
    }
    Ok(())
}

/// A mesh's skeleton (SKEL) and per-vertex skin (SKIN), each present or not.
type Skinning<'a> = (
    Option<Cow<'a, [GpuJoint]>>,
    Option<Cow<'a, [GpuSkinVertex]>>,
);

/// The skeleton (SKEL) and per-vertex skin (SKIN): a skin needs a skeleton, its joints lie
/// inside it, and each joint's parent is another joint of it (or none).
fn parse_skin<'a>(
    skeleton: Option<&'a [u8]>,
    skin: Option<&'a [u8]>,
    vertices: usize,
) -> Result<Skinning<'a>, ReadError> {
    let skeleton = skeleton
        .map(|b| typed::<GpuJoint>(b, b.len() / 112, ".hmesh SKEL size"))
        .transpose()?;
    let skin = skin
        .map(|b| typed::<GpuSkinVertex>(b, vertices, ".hmesh SKIN size"))
        .transpose()?;
    if let Some(skin) = &skin {
        let joints = skeleton
            .as_ref()
            .map(|s| s.len())
            .ok_or(ReadError::Invalid {
                what: ".hmesh SKIN without SKEL",
            })?;
        if skin
            .iter()
            .flat_map(|s| s.joints)
            .any(|j| j as usize >= joints)
        {
            return Err(ReadError::OutOfBounds {
                what: ".hmesh skin joint (beyond the skeleton)",
            });
        }
    }
    if let Some(skeleton) = &skeleton {
        for (i, joint) in skeleton.iter().enumerate() {
            if joint.parent < -1
                || joint.parent as i64 >= skeleton.len() as i64
                || joint.parent as i64 == i as i64
            {
                return Err(ReadError::OutOfBounds {
                    what: ".hmesh joint parent",
                });
            }
        }
    }
    Ok((skeleton, skin))
}

/// The LOD table (LODT) and its indices (LODI), which come together: one row per submesh and
/// level, each range inside LODI, every index inside the vertices.
fn parse_lods<'a>(
    lodt: Option<&'a [u8]>,
    lodi: Option<&'a [u8]>,
    desc: &MeshDesc,
) -> Result<Option<Lods<'a>>, ReadError> {
    let vertices = desc.vertex_count as usize;
    Ok(match (lodt, lodi) {
        (None, None) => None,
        (Some(lodt), Some(lodi)) => {
            let header: LodTableHeader =
                bytemuck::pod_read_unaligned(lodt.get(..8).ok_or(ReadError::Truncated {
                    what: ".hmesh LODT header",
                })?);
            if header.submesh_count != desc.submesh_count {
                return Err(ReadError::Invalid {
                    what: ".hmesh LODT submesh count",
                });
            }
            let rows = (header.lod_count as usize)
                .checked_mul(header.submesh_count as usize)
                .ok_or(ReadError::Invalid {
                    what: ".hmesh LODT size",
                })?;
            let table = typed::<MeshLod>(&lodt[8..], rows, ".hmesh LODT size")?;
            let lod_indices = typed::<u32>(lodi, lodi.len() / 4, ".hmesh LODI size")?;
            for row in table.iter() {
                let end = row.first_index.checked_add(row.index_count);
                if end.is_none_or(|e| e as usize > lod_indices.len()) || row.index_count % 3 != 0 {
                    return Err(ReadError::OutOfBounds {
                        what: ".hmesh LOD range",
                    });
                }
            }
            if lod_indices.iter().any(|i| *i as usize >= vertices) {
                return Err(ReadError::OutOfBounds {
                    what: ".hmesh LOD index (beyond the vertices)",
                });
            }
            Some(Lods {
                header,
                table,
                lod_indices,
            })
        }
        _ => {
            return Err(ReadError::Invalid {
                what: ".hmesh LODT and LODI must come together",
            })
        }
    })
}

crate::read::asset::owned_view!(
    /// An owned `.hmesh`: [`view`](Self::view) gives its [`MeshView`].
    ///
    /// ```no_run
    /// let pak = hearth::PakReader::open("game.hpack")?;
    /// let mesh: hearth::Mesh = pak.load("models/fox.hmesh")?;
    /// println!("{} vertices", mesh.view().vertex_count());
    /// # Ok::<(), hearth::ReadError>(())
    /// ```
    Mesh,
    MeshHeld,
    MeshView,
    MeshView::parse,
    crate::AssetKind::MESH
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::hmesh::{oct_encode, write};

    /// A quad: 4 vertices, 2 triangles, 1 meshlet, 1 submesh, 1 material, 1 LOD level.
    fn quad(patch: impl Fn(&mut Vec<(u32, Vec<u8>)>)) -> Vec<u8> {
        let n = oct_encode([0.0, 0.0, 1.0]);
        let vertices: Vec<GpuVertex> = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
            .iter()
            .map(|p| GpuVertex {
                position: [p[0], p[1], 0.0],
                normal: n,
                tangent: [0, 0],
                uv: *p,
            })
            .collect();
        let desc = MeshDesc {
            vertex_count: 4,
            index_count: 6,
            meshlet_count: 1,
            submesh_count: 1,
            material_count: 1,
            vertex_stride: 28,
            index_width: 2,
            flags: 0,
            meshlet_max_verts: 64,
            meshlet_max_tris: 124,
        };
        let bounds = MeshBounds {
            aabb_min: [0.0; 3],
            aabb_max: [1.0, 1.0, 0.0],
            sphere_center: [0.5, 0.5, 0.0],
            sphere_radius: 0.7072,
        };
        let submesh = SubMesh {
            first_index: 0,
            index_count: 6,
            first_meshlet: 0,
            meshlet_count: 1,
            material_slot: 0,
            base_vertex: 0,
            bounds,
        };
        let meshlet = Meshlet {
            vertex_offset: 0,
            vertex_count: 4,
            triangle_offset: 0,
            triangle_count: 2,
        };
        let lod = (
            LodTableHeader {
                lod_count: 1,
                submesh_count: 1,
            },
            MeshLod {
                first_index: 0,
                index_count: 3,
            },
        );
        let mut lodt = bytemuck::bytes_of(&lod.0).to_vec();
        lodt.extend_from_slice(bytemuck::bytes_of(&lod.1));
        let mut chunks: Vec<(u32, Vec<u8>)> = vec![
            (chunk::DESC, bytemuck::bytes_of(&desc).to_vec()),
            (chunk::BNDS, bytemuck::bytes_of(&bounds).to_vec()),
            (chunk::VTXS, bytemuck::cast_slice(&vertices).to_vec()),
            (
                chunk::IDXS,
                bytemuck::cast_slice(&[0u16, 1, 2, 0, 2, 3]).to_vec(),
            ),
            (chunk::MLET, bytemuck::bytes_of(&meshlet).to_vec()),
            (chunk::MLVR, bytemuck::cast_slice(&[0u32, 1, 2, 3]).to_vec()),
            (chunk::MLTR, vec![0, 1, 2, 0, 2, 3]),
            (
                chunk::MLBN,
                bytemuck::bytes_of(&MeshletBounds::default()).to_vec(),
            ),
            (chunk::MTRL, 42u64.to_le_bytes().to_vec()),
            (chunk::SUBM, bytemuck::bytes_of(&submesh).to_vec()),
            (chunk::LODT, lodt),
            (chunk::LODI, bytemuck::cast_slice(&[0u32, 1, 2]).to_vec()),
        ];
        patch(&mut chunks);
        let refs: Vec<(u32, &[u8])> = chunks.iter().map(|(id, b)| (*id, b.as_slice())).collect();
        write(&refs)
    }

    fn set(chunks: &mut [(u32, Vec<u8>)], id: u32, bytes: Vec<u8>) {
        chunks.iter_mut().find(|(c, _)| *c == id).expect("chunk").1 = bytes;
    }

    #[test]
    fn reads_a_valid_mesh_zero_copy() {
        let bytes = crate::read::aligned::AlignedBytes::copy_from(&quad(|_| {}));
        let mesh = MeshView::parse(bytes.as_slice()).unwrap();
        assert!(
            matches!(mesh.vertices, Cow::Borrowed(_)),
            "aligned data is borrowed"
        );
        assert_eq!(
            (mesh.vertices.len(), mesh.indices.len(), mesh.meshlets.len()),
            (4, 6, 1)
        );
        assert_eq!(mesh.materials[0], 42);
        assert_eq!(
            mesh.lods.as_ref().unwrap().range(0, 0),
            Some(MeshLod {
                first_index: 0,
                index_count: 3
            })
        );
        // Misaligned bytes are copied, not rejected.
        let mut shifted = vec![0u8];
        shifted.extend_from_slice(bytes.as_slice());
        let mesh = MeshView::parse(&shifted[1..]).unwrap();
        assert_eq!(mesh.vertices.len(), 4);
    }

    #[test]
    fn corrupt_meshes_are_errors() {
        type Patch = Box<dyn Fn(&mut Vec<(u32, Vec<u8>)>)>;
        let cases: Vec<(&str, Patch)> = vec![
            (
                "index beyond vertices",
                Box::new(|c| {
                    set(
                        c,
                        chunk::IDXS,
                        bytemuck::cast_slice(&[0u16, 1, 9, 0, 2, 3]).to_vec(),
                    )
                }),
            ),
            (
                "meshlet-local index",
                Box::new(|c| set(c, chunk::MLTR, vec![0, 1, 7, 0, 2, 3])),
            ),
            (
                "meshlet vertex",
                Box::new(|c| {
                    set(
                        c,
                        chunk::MLVR,
                        bytemuck::cast_slice(&[0u32, 1, 2, 99]).to_vec(),
                    )
                }),
            ),
            (
                "LOD range",
                Box::new(|c| set(c, chunk::LODI, bytemuck::cast_slice(&[0u32]).to_vec())),
            ),
            (
                "missing SUBM",
                Box::new(|c| c.retain(|(id, _)| *id != chunk::SUBM)),
            ),
            (
                "short VTXS",
                Box::new(|c| set(c, chunk::VTXS, vec![0; 28 * 3])),
            ),
            (
                "skin without skeleton",
                Box::new(|c| c.push((chunk::SKIN, vec![0; 24 * 4]))),
            ),
        ];
        for (what, patch) in cases {
            assert!(
                MeshView::parse(&quad(patch)).is_err(),
                "{what} went unnoticed"
            );
        }
        let bytes = quad(|_| {});
        // Cutting anything but the trailing padding fails.
        let payload_end = parse_chunks(&bytes)
            .unwrap()
            .iter()
            .map(|e| e.offset + e.size)
            .max()
            .unwrap() as usize;
        for len in 0..payload_end {
            assert!(MeshView::parse(&bytes[..len]).is_err(), "prefix {len}");
        }
        for byte in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[byte] ^= 0xff;
            let _ = MeshView::parse(&flipped); // must not panic
        }
    }
}

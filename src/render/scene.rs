//! What the renderer draws, built from a baked model (`.hmesh`, `.hmat`, KTX2 textures) or,
//! with the `bake` feature, from the source model itself (glTF/GLB/OBJ decoded by the `gltf`,
//! `tobj` and `image` crates, no processing, no compression).

use super::RenderError;
use crate::format::hmat::{ALPHA_BLEND, ALPHA_OPAQUE};
use crate::format::hmesh::{GpuVertex, FLAG_HAS_TANGENTS, NO_MATERIAL};
use crate::format::ktx2::{self as ktx2_format, vk};
use crate::read::ktx2::Ktx2;
use crate::read::material::{MaterialTable, TextureUv};
use crate::read::mesh::{Indices, MeshView};
use crate::read::transcode::{rgba8_image, transcode, TranscodeTarget};

/// A vertex decoded from a source model: what `vs_source` reads.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SourceVertex {
    /// Position.
    pub position: [f32; 3],
    /// Unit normal.
    pub normal: [f32; 3],
    /// Unit tangent and handedness (zero when the model has none).
    pub tangent: [f32; 4],
    /// TEXCOORD_0.
    pub uv: [f32; 2],
}

/// The vertex buffer, as the baked file stores it or as decoded from the source.
#[derive(Debug, Clone)]
pub enum Vertices {
    /// `.hmesh` VTXS, decoded in the shader.
    Baked(Vec<GpuVertex>),
    /// Source attributes.
    Source(Vec<SourceVertex>),
}

impl Vertices {
    /// How many vertices.
    pub fn len(&self) -> usize {
        match self {
            Self::Baked(v) => v.len(),
            Self::Source(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every vertex's position.
    pub fn positions(&self) -> Vec<[f32; 3]> {
        match self {
            Self::Baked(v) => v.iter().map(|v| v.position).collect(),
            Self::Source(v) => v.iter().map(|v| v.position).collect(),
        }
    }
}

/// Pixel formats the renderer uploads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextureFormat {
    /// RGBA8, sRGB or linear.
    Rgba8 {
        /// sRGB-encoded color.
        srgb: bool,
    },
    /// 4x4 blocks of a GPU format, uploaded as they are.
    Blocks {
        /// The KTX2 `vkFormat`.
        vk_format: u32,
    },
}

/// One texture with all its mip levels.
#[derive(Debug, Clone)]
pub struct RenderTexture {
    /// Level 0 width.
    pub width: u32,
    /// Level 0 height.
    pub height: u32,
    /// Format.
    pub format: TextureFormat,
    /// Level 0 first.
    pub levels: Vec<Vec<u8>>,
}

/// glTF metallic-roughness material parameters, with texture indices into
/// [`RenderScene::textures`].
#[derive(Debug, Clone, PartialEq)]
pub struct RenderMaterial {
    /// Linear RGBA factor.
    pub base_color: [f32; 4],
    /// Linear RGB.
    pub emissive: [f32; 3],
    /// Metallic factor.
    pub metallic: f32,
    /// Roughness factor.
    pub roughness: f32,
    /// Normal map scale.
    pub normal_scale: f32,
    /// Occlusion strength.
    pub occlusion_strength: f32,
    /// MASK cutoff.
    pub alpha_cutoff: f32,
    /// 0 opaque, 1 mask, 2 blend.
    pub alpha_mode: u32,
    /// Drawn without back-face culling.
    pub double_sided: bool,
    /// Base color, metallic-roughness, normal, occlusion, emissive.
    pub textures: [Option<usize>; 5],
    /// How each of the five slots reads its UVs: which set, through which transform.
    pub uvs: [TextureUv; 5],
}

impl Default for RenderMaterial {
    fn default() -> Self {
        Self {
            base_color: [1.0; 4],
            emissive: [0.0; 3],
            metallic: 1.0,
            roughness: 1.0,
            normal_scale: 1.0,
            occlusion_strength: 1.0,
            alpha_cutoff: 0.5,
            alpha_mode: ALPHA_OPAQUE,
            double_sided: false,
            textures: [None; 5],
            uvs: [TextureUv::IDENTITY; 5],
        }
    }
}

/// One draw: a range of indices with one material.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Draw {
    /// First index.
    pub first_index: u32,
    /// Index count.
    pub index_count: u32,
    /// Index into [`RenderScene::materials`]; `None` draws glTF's default material.
    pub material: Option<usize>,
}

/// Everything one image needs.
#[derive(Debug, Clone)]
pub struct RenderScene {
    /// Vertices.
    pub vertices: Vertices,
    /// Triangle list.
    pub indices: Vec<u32>,
    /// Draws, in order (blended ones are drawn after the others).
    pub draws: Vec<Draw>,
    /// Materials.
    pub materials: Vec<RenderMaterial>,
    /// Textures.
    pub textures: Vec<RenderTexture>,
    /// The second UV set (`TEXCOORD_1`), parallel to the vertices; empty when the model has
    /// none (it reads as 0, 0).
    pub uvs1: Vec<[f32; 2]>,
    /// The vertices carry real tangents (else the shader derives a frame per pixel).
    pub has_tangents: bool,
}

impl RenderScene {
    /// The bounding sphere the camera frames: the center of the positions' box and the
    /// largest distance from it (radius 1 around the point for a degenerate model, 1 around
    /// the origin for an empty one).
    pub fn bounds(&self) -> ([f32; 3], f32) {
        let positions = self.vertices.positions();
        let Some(first) = positions.first() else {
            return ([0.0; 3], 1.0);
        };
        let (mut lo, mut hi) = (*first, *first);
        for p in &positions {
            for i in 0..3 {
                lo[i] = lo[i].min(p[i]);
                hi[i] = hi[i].max(p[i]);
            }
        }
        let center: [f32; 3] = std::array::from_fn(|i| (lo[i] + hi[i]) * 0.5);
        let radius = positions
            .iter()
            .map(|p| {
                ((p[0] - center[0]).powi(2)
                    + (p[1] - center[1]).powi(2)
                    + (p[2] - center[2]).powi(2))
                .sqrt()
            })
            .fold(0.0f32, f32::max);
        (center, if radius > 1e-6 { radius } else { 1.0 })
    }

    /// A baked model: its `.hmesh` and `.hmat` bytes, and `texture` returning a KTX2 file by
    /// its asset hash (the `.hmat` refs). UASTC is transcoded to BC7 when `bc7` is true (the
    /// adapter samples BC; level 0 a multiple of 4), else to RGBA8; raw textures are widened to
    /// RGBA8; GPU block formats are uploaded as they are.
    pub fn from_baked(
        mesh: &[u8],
        materials: &[u8],
        texture: &mut dyn FnMut(u64) -> Option<Vec<u8>>,
        bc7: bool,
    ) -> Result<Self, RenderError> {
        let mesh = MeshView::parse(mesh).map_err(|e| RenderError::Input(format!(".hmesh: {e}")))?;
        let table = MaterialTable::parse(materials)
            .map_err(|e| RenderError::Input(format!(".hmat: {e}")))?;
        let mut textures = Vec::new();
        let mut by_hash: std::collections::HashMap<u64, usize> = Default::default();
        let mut render_materials = Vec::with_capacity(table.rows.len());
        for (row_index, row) in table.rows.iter().enumerate() {
            let mut slot = |hash: u64| -> Result<Option<usize>, RenderError> {
                if hash == 0 {
                    return Ok(None);
                }
                if let Some(&index) = by_hash.get(&hash) {
                    return Ok(Some(index));
                }
                let bytes = texture(hash).ok_or_else(|| {
                    RenderError::Input(format!("texture {hash:016x} is not in the bake"))
                })?;
                let decoded = decode_ktx2(&bytes, bc7)
                    .map_err(|e| RenderError::Input(format!("texture {hash:016x}: {e}")))?;
                textures.push(decoded);
                by_hash.insert(hash, textures.len() - 1);
                Ok(Some(textures.len() - 1))
            };
            render_materials.push(RenderMaterial {
                base_color: row.base_color_factor,
                emissive: row.emissive_factor,
                metallic: row.metallic_factor,
                roughness: row.roughness_factor,
                normal_scale: row.normal_scale,
                occlusion_strength: row.occlusion_strength,
                alpha_cutoff: row.alpha_cutoff,
                alpha_mode: row.alpha_mode(),
                double_sided: row.double_sided(),
                textures: [
                    slot(row.base_color_tex)?,
                    slot(row.metallic_roughness_tex)?,
                    slot(row.normal_tex)?,
                    slot(row.occlusion_tex)?,
                    slot(row.emissive_tex)?,
                ],
                uvs: std::array::from_fn(|s| table.texture_uv(row_index as u32, s)),
            });
        }
        let indices: Vec<u32> = match &mesh.indices {
            Indices::U16(i) => i.iter().map(|&i| i as u32).collect(),
            Indices::U32(i) => i.to_vec(),
        };
        let draws = mesh
            .submeshes
            .iter()
            .map(|s| Draw {
                first_index: s.first_index,
                index_count: s.index_count,
                material: (s.material_slot != NO_MATERIAL)
                    .then_some(s.material_slot as usize)
                    .filter(|m| *m < render_materials.len()),
            })
            .collect();
        Ok(Self {
            has_tangents: mesh.desc.flags & FLAG_HAS_TANGENTS != 0,
            vertices: Vertices::Baked(mesh.vertices.to_vec()),
            uvs1: mesh.uvs1().map(<[_]>::to_vec).unwrap_or_default(),
            indices,
            draws,
            materials: render_materials,
            textures,
        })
    }

    /// Blended draws last (in their order), the others first.
    pub(crate) fn draw_order(&self) -> Vec<Draw> {
        let blended = |d: &Draw| {
            d.material
                .and_then(|m| self.materials.get(m))
                .is_some_and(|m| m.alpha_mode == ALPHA_BLEND)
        };
        let mut order: Vec<Draw> = self.draws.iter().filter(|d| !blended(d)).copied().collect();
        order.extend(self.draws.iter().filter(|d| blended(d)).copied());
        order
    }
}

/// A baked KTX2 (level 0 of face 0, layer 0, with its mips) as the renderer uploads it: UASTC
/// as BC7 blocks when `bc7` (and level 0 is whole blocks), GPU block formats as they are,
/// everything else as RGBA8 ([`rgba8_image`]).
fn decode_ktx2(bytes: &[u8], bc7: bool) -> Result<RenderTexture, String> {
    let ktx = Ktx2::parse(bytes).map_err(|e| e.to_string())?;
    if ktx.depth() > 1 || ktx.faces() != 1 || ktx.is_array() {
        return Err("a cubemap, array or 3D texture on a material slot".into());
    }
    let (width, height) = (ktx.width(), ktx.height());
    let levels = 0..ktx.level_count();
    let blocks = ktx2_format::block_bytes(ktx.vk_format());
    let (format, levels) =
        if ktx.is_uastc() && bc7 && width.is_multiple_of(4) && height.is_multiple_of(4) {
            let vk_format = if ktx.is_srgb() {
                vk::BC7_SRGB_BLOCK
            } else {
                vk::BC7_UNORM_BLOCK
            };
            let levels = levels
                .map(|level| transcode(&ktx, level, 0, 0, TranscodeTarget::Bc7))
                .collect::<Result<Vec<_>, _>>();
            (TextureFormat::Blocks { vk_format }, levels)
        } else if let Some(block) = blocks {
            let levels = levels
                .map(|level| {
                    let (w, h, _) = ktx.level_dimensions(level);
                    let image = (w.div_ceil(4) * h.div_ceil(4) * block) as usize;
                    let data = ktx.level(level)?;
                    data.get(..image)
                        .map(<[u8]>::to_vec)
                        .ok_or(crate::ReadError::OutOfBounds {
                            what: "KTX2 level data (shorter than one image)",
                        })
                })
                .collect::<Result<Vec<_>, _>>();
            let vk_format = ktx.vk_format();
            (TextureFormat::Blocks { vk_format }, levels)
        } else {
            let levels = levels
                .map(|level| rgba8_image(&ktx, level))
                .collect::<Result<Vec<_>, _>>();
            let srgb = ktx.is_srgb();
            (TextureFormat::Rgba8 { srgb }, levels)
        };
    Ok(RenderTexture {
        width,
        height,
        format,
        levels: levels.map_err(|e| e.to_string())?,
    })
}

/// A full mip chain of an RGBA8 image (2x2 box filter, odd edges clamped), for source images,
/// which have only level 0.
pub fn rgba8_mips(width: u32, height: u32, level0: Vec<u8>) -> Vec<Vec<u8>> {
    let mut levels = vec![level0];
    let (mut w, mut h) = (width, height);
    while w > 1 || h > 1 {
        let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
        let above = levels.last().expect("level 0");
        let mut next = Vec::with_capacity((nw * nh * 4) as usize);
        for y in 0..nh {
            for x in 0..nw {
                for c in 0..4 {
                    let at = |xx: u32, yy: u32| {
                        above[((yy.min(h - 1) * w + xx.min(w - 1)) * 4 + c) as usize] as u32
                    };
                    let sum = at(2 * x, 2 * y)
                        + at(2 * x + 1, 2 * y)
                        + at(2 * x, 2 * y + 1)
                        + at(2 * x + 1, 2 * y + 1);
                    next.push(((sum + 2) / 4) as u8);
                }
            }
        }
        levels.push(next);
        (w, h) = (nw, nh);
    }
    levels
}

#[cfg(feature = "bake")]
mod source {
    use super::*;
    use crate::bake::mesh::gltf::{self, Material, Primitive, TextureRef};

    impl RenderScene {
        /// A source model (`.gltf`, `.glb` or `.obj`) as its own files say it, with node
        /// transforms applied as the baker's default `merge` does (so both images frame the same
        /// shape); skinned meshes in bind pose. Side files (buffers, images, MTL) are read from
        /// the model's folder.
        pub fn from_source(path: &std::path::Path) -> Result<Self, RenderError> {
            let bytes = std::fs::read(path)
                .map_err(|e| RenderError::Input(format!("{}: {e}", path.display())))?;
            let dir = path.parent().unwrap_or(std::path::Path::new("."));
            let mut read = |rel: &str| {
                std::fs::read(dir.join(gltf::percent_decode(rel))).map_err(|e| e.to_string())
            };
            let is_obj = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("obj"));
            let scene = if is_obj {
                crate::bake::mesh::obj::import(&bytes, &mut read)
            } else {
                gltf::import(
                    &bytes,
                    &mut read,
                    &gltf::ImportOptions {
                        merge: true,
                        skins: true,
                        user: gltf::Mat4::IDENTITY,
                        scene_name: None,
                        mesh_name: None,
                    },
                )
            }
            .map_err(|e| RenderError::Input(format!("{}: {e}", path.display())))?;
            Self::from_imported(scene)
        }

        fn from_imported(scene: gltf::Scene) -> Result<Self, RenderError> {
            let mut textures = Vec::new();
            let mut by_image: std::collections::HashMap<(usize, bool), usize> = Default::default();
            let mut texture = |r: Option<TextureRef>, srgb: bool| -> Option<usize> {
                let image = r?.image;
                if let Some(&index) = by_image.get(&(image, srgb)) {
                    return Some(index);
                }
                let bytes = scene.images.get(image)?.as_ref()?;
                let decoded = image::load_from_memory(bytes).ok()?.to_rgba8();
                let (width, height) = decoded.dimensions();
                textures.push(RenderTexture {
                    width,
                    height,
                    format: TextureFormat::Rgba8 { srgb },
                    levels: rgba8_mips(width, height, decoded.into_raw()),
                });
                by_image.insert((image, srgb), textures.len() - 1);
                Some(textures.len() - 1)
            };
            let materials: Vec<RenderMaterial> = scene
                .materials
                .iter()
                .map(|m: &Material| RenderMaterial {
                    base_color: m.base_color,
                    emissive: m.emissive,
                    metallic: m.metallic,
                    roughness: m.roughness,
                    normal_scale: m.normal_scale,
                    occlusion_strength: m.occlusion_strength,
                    alpha_cutoff: m.alpha_cutoff,
                    alpha_mode: m.alpha_mode,
                    double_sided: m.double_sided,
                    textures: [
                        texture(m.base_color_tex, true),
                        texture(m.metallic_roughness_tex, false),
                        texture(m.normal_tex, false),
                        texture(m.occlusion_tex, false),
                        texture(m.emissive_tex, true),
                    ],
                    uvs: std::array::from_fn(|slot| source_uv(m, slot)),
                })
                .collect();
            let has_tangents = !scene.primitives.is_empty()
                && scene.primitives.iter().all(|p| p.tangents.is_some());
            let (mut vertices, mut indices, mut draws) = (Vec::new(), Vec::new(), Vec::new());
            let mut uvs1 = Vec::new();
            let any_uvs1 = scene.primitives.iter().any(|p| p.uvs1.is_some());
            for primitive in &scene.primitives {
                let first_index = indices.len() as u32;
                let first_vertex = vertices.len();
                append_primitive(primitive, &mut vertices, &mut indices);
                if any_uvs1 {
                    append_uvs1(primitive, &vertices[first_vertex..], &mut uvs1);
                }
                draws.push(Draw {
                    first_index,
                    index_count: indices.len() as u32 - first_index,
                    material: primitive.material.filter(|m| *m < materials.len()),
                });
            }
            Ok(Self {
                vertices: Vertices::Source(vertices),
                uvs1,
                indices,
                draws,
                materials,
                textures,
                has_tangents,
            })
        }
    }

    /// How a source material's slot reads its UVs: the importer keeps a transform per slot only
    /// when the slots' differ (a shared one is already in the UVs), as the bake stores it.
    fn source_uv(m: &Material, slot: usize) -> TextureUv {
        let set = u8::from(m.second_uv_set[slot]);
        match m.texture_transforms[slot] {
            Some(t) => TextureUv::from_parts(set, t.offset, t.rotation, t.scale),
            None => TextureUv {
                set,
                ..TextureUv::IDENTITY
            },
        }
    }

    /// The second UV set of the vertices `append_primitive` just appended for `p` (which,
    /// without source normals, unshares corners: matched by position in the triangle list).
    fn append_uvs1(p: &Primitive, appended: &[SourceVertex], uvs1: &mut Vec<[f32; 2]>) {
        let at = |v: usize| p.uvs1.as_ref().and_then(|uv| uv.get(v)).copied();
        if p.normals.is_some() {
            uvs1.extend((0..appended.len()).map(|v| at(v).unwrap_or_default()));
        } else {
            uvs1.extend(
                p.indices
                    .iter()
                    .map(|&i| at(i as usize).unwrap_or_default()),
            );
        }
    }

    /// A primitive's vertices and triangles; without source normals each triangle gets its
    /// face normal (its corners unshared).
    fn append_primitive(p: &Primitive, vertices: &mut Vec<SourceVertex>, indices: &mut Vec<u32>) {
        let vertex = |v: usize, normal: [f32; 3]| SourceVertex {
            position: p.positions[v],
            normal,
            tangent: p.tangents.as_ref().map_or([0.0; 4], |t| t[v]),
            uv: p.uvs.as_ref().map_or([0.0; 2], |uv| uv[v]),
        };
        match &p.normals {
            Some(normals) => {
                let base = vertices.len() as u32;
                vertices.extend((0..p.positions.len()).map(|v| vertex(v, normals[v])));
                indices.extend(p.indices.iter().map(|i| i + base));
            }
            None => {
                for triangle in p.indices.chunks_exact(3) {
                    let [a, b, c] = [0, 1, 2].map(|k| p.positions[triangle[k] as usize]);
                    let (u, w) = (
                        [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
                        [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
                    );
                    let n = [
                        u[1] * w[2] - u[2] * w[1],
                        u[2] * w[0] - u[0] * w[2],
                        u[0] * w[1] - u[1] * w[0],
                    ];
                    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                    let n = if len > 0.0 {
                        n.map(|c| c / len)
                    } else {
                        [0.0, 0.0, 1.0]
                    };
                    for &i in triangle {
                        indices.push(vertices.len() as u32);
                        vertices.push(vertex(i as usize, n));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mips_go_down_to_one_pixel() {
        let levels = rgba8_mips(5, 2, vec![100; 5 * 2 * 4]);
        let sizes: Vec<usize> = levels.iter().map(Vec::len).collect();
        assert_eq!(sizes, [40, 2 * 4, 4]);
        assert!(levels.iter().flatten().all(|&c| c == 100));
    }

    #[test]
    fn degenerate_bounds_get_a_unit_radius() {
        let scene = RenderScene {
            vertices: Vertices::Source(vec![SourceVertex::default(); 3]),
            indices: vec![0, 1, 2],
            draws: vec![],
            materials: vec![],
            textures: vec![],
            uvs1: vec![],
            has_tangents: false,
        };
        assert_eq!(scene.bounds(), ([0.0; 3], 1.0));
    }
}

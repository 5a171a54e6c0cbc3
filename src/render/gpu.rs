//! The wgpu side: adapter and device, pipelines, uploads, one offscreen frame, readback.

use super::scene::{RenderMaterial, RenderScene, RenderTexture, TextureFormat, Vertices};
use super::{Image, RenderError};
use crate::format::ktx2::vk;
use crate::read::material::TextureUv;
use glam::{Mat4, Vec3};
use std::collections::HashMap;
use wgpu::util::DeviceExt;

/// The color target: 8-bit sRGB, so the PNG holds what a display would show.
const COLOR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// 4x MSAA: every Vulkan, Metal and D3D12 device has it for these formats.
const SAMPLES: u32 = 4;
/// The largest side an image may have (wgpu's default texture limit).
pub const MAX_SIDE: u32 = 8192;
/// Vertical field of view, degrees.
const FOV_Y: f32 = 35.0;
/// Where the camera looks from, relative to the model's center (front, right, above: glTF
/// models face +Z with +Y up).
const VIEW_DIRECTION: [f32; 3] = [0.55, 0.42, 1.0];
/// The background, linear RGB.
const CLEAR: wgpu::Color = wgpu::Color {
    r: 0.035,
    g: 0.04,
    b: 0.05,
    a: 1.0,
};

/// A GPU device that renders [`RenderScene`]s offscreen.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter: wgpu::AdapterInfo,
    shader: wgpu::ShaderModule,
    camera_layout: wgpu::BindGroupLayout,
    material_layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    sampler: wgpu::Sampler,
}

/// Per-material uniform block (the shader's `Material`).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct MaterialUniform {
    base_color: [f32; 4],
    emissive: [f32; 4],
    params: [f32; 4],
    modes: [u32; 4],
    /// Per texture slot, the two rows of its UV matrix; the first row's `w` is the UV set.
    uv_rows: [[f32; 4]; 10],
}

/// The camera uniform block (the shader's `Camera`).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct CameraUniform {
    view_proj: [[f32; 4]; 4],
    eye: [f32; 4],
}

impl Renderer {
    /// Opens the first GPU adapter wgpu finds (any backend; `WGPU_BACKEND` picks one, e.g.
    /// `vulkan`), preferring a discrete GPU. A machine without a GPU can use Mesa's software
    /// Vulkan driver, lavapipe (Debian: `mesa-vulkan-drivers`).
    pub fn new() -> Result<Self, RenderError> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
        let instance = wgpu::Instance::new(desc);
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            ..Default::default()
        }))
        .map_err(|e| {
            RenderError::NoAdapter(format!(
                "{e}: no GPU adapter (Vulkan, Metal, D3D12 or GL) on this machine; without a \
                 GPU, install Mesa's software Vulkan driver, lavapipe (Debian: \
                 mesa-vulkan-drivers)"
            ))
        })?;
        let compression = wgpu::Features::TEXTURE_COMPRESSION_BC
            | wgpu::Features::TEXTURE_COMPRESSION_ETC2
            | wgpu::Features::TEXTURE_COMPRESSION_ASTC;
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("hearth render"),
            required_features: adapter.features() & compression,
            required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .map_err(|e| RenderError::Device(e.to_string()))?;
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("hearth preview shader"),
            source: wgpu::ShaderSource::Wgsl(include_str!("shader.wgsl").into()),
        });
        let uniform = |binding, visibility| wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let camera_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("camera"),
            entries: &[uniform(
                0,
                wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
            )],
        });
        let mut entries = vec![
            uniform(0, wgpu::ShaderStages::FRAGMENT),
            wgpu::BindGroupLayoutEntry {
                binding: 1,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
        ];
        entries.extend((2..7).map(|binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        }));
        let material_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material"),
            entries: &entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("preview"),
            bind_group_layouts: &[Some(&camera_layout), Some(&material_layout)],
            immediate_size: 0,
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("trilinear, repeat"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        Ok(Self {
            adapter: adapter.get_info(),
            device,
            queue,
            shader,
            camera_layout,
            material_layout,
            pipeline_layout,
            sampler,
        })
    }

    /// The adapter's name and backend, e.g. `llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan)`.
    pub fn adapter_name(&self) -> String {
        format!("{} ({:?})", self.adapter.name, self.adapter.backend)
    }

    /// Whether the device samples BC textures (UASTC is then transcoded to BC7).
    pub fn samples_bc(&self) -> bool {
        self.device
            .features()
            .contains(wgpu::Features::TEXTURE_COMPRESSION_BC)
    }

    /// Draws `scene` into a `width` x `height` RGBA8 (sRGB) image, the camera framing its
    /// bounds from the front right, above ([`View::default`]).
    pub fn render(
        &self,
        scene: &RenderScene,
        width: u32,
        height: u32,
    ) -> Result<Image, RenderError> {
        check_size(width, height)?;
        let prepared = self.prepare(scene)?;
        self.draw(&prepared, width, height, &View::default())
    }

    /// Uploads `scene` (buffers, textures, materials, pipelines) to draw it as often as wanted
    /// ([`draw`](Self::draw)), e.g. from other views.
    pub fn prepare(&self, scene: &RenderScene) -> Result<Prepared, RenderError> {
        self.scoped(|| self.prepare_unscoped(scene))
    }

    /// Runs `f` with the device's validation and out-of-memory errors caught (wgpu's default
    /// handler panics on them): any is returned as [`RenderError::Device`].
    fn scoped<T>(&self, f: impl FnOnce() -> Result<T, RenderError>) -> Result<T, RenderError> {
        let out_of_memory = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let result = f();
        let caught = pollster::block_on(validation.pop())
            .or_else(|| pollster::block_on(out_of_memory.pop()));
        match caught {
            Some(error) => Err(RenderError::Device(error.to_string())),
            None => result,
        }
    }

    /// The scene's vertex, second-UV-set and index buffers (checked against each other and
    /// the adapter's limits), and whether the vertices are baked ones.
    fn geometry_buffers(
        &self,
        scene: &RenderScene,
    ) -> Result<([wgpu::Buffer; 3], bool), RenderError> {
        if let Some(bad) = scene
            .indices
            .iter()
            .find(|&&i| i as usize >= scene.vertices.len())
        {
            return Err(RenderError::Input(format!(
                "index {bad} beyond the {} vertices",
                scene.vertices.len()
            )));
        }
        if let Some(draw) = scene
            .draws
            .iter()
            .find(|d| d.first_index as u64 + d.index_count as u64 > scene.indices.len() as u64)
        {
            return Err(RenderError::Input(format!(
                "a draw of indices {}..{} beyond the {} indices",
                draw.first_index,
                draw.first_index as u64 + draw.index_count as u64,
                scene.indices.len()
            )));
        }
        let device = &self.device;
        let (vertex_bytes, baked): (&[u8], bool) = match &scene.vertices {
            Vertices::Baked(v) => (bytemuck::cast_slice(v), true),
            Vertices::Source(v) => (bytemuck::cast_slice(v), false),
        };
        let largest = device.limits().max_buffer_size;
        for (what, bytes) in [
            ("vertices", vertex_bytes.len() as u64),
            ("indices", scene.indices.len() as u64 * 4),
        ] {
            if bytes > largest {
                return Err(RenderError::Unsupported(format!(
                    "the model's {what} take {bytes} bytes; the adapter's largest buffer is \
                     {largest} bytes"
                )));
            }
        }
        // Empty buffers are not allowed: a model without triangles draws nothing.
        let vertex_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("vertices"),
            contents: if vertex_bytes.is_empty() {
                &[0; 64]
            } else {
                vertex_bytes
            },
            usage: wgpu::BufferUsages::VERTEX,
        });
        let uvs1 = if scene.uvs1.len() == scene.vertices.len() {
            std::borrow::Cow::Borrowed(&scene.uvs1[..])
        } else {
            std::borrow::Cow::Owned(vec![[0.0f32; 2]; scene.vertices.len().max(8)])
        };
        let uv1_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("second UV set"),
            contents: if uvs1.is_empty() {
                &[0; 64]
            } else {
                bytemuck::cast_slice(&uvs1)
            },
            usage: wgpu::BufferUsages::VERTEX,
        });
        let index_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("indices"),
            contents: if scene.indices.is_empty() {
                &[0; 12]
            } else {
                bytemuck::cast_slice(&scene.indices)
            },
            usage: wgpu::BufferUsages::INDEX,
        });
        Ok(([vertex_buffer, uv1_buffer, index_buffer], baked))
    }

    fn prepare_unscoped(&self, scene: &RenderScene) -> Result<Prepared, RenderError> {
        let ([vertex_buffer, uv1_buffer, index_buffer], baked) = self.geometry_buffers(scene)?;
        let textures = scene
            .textures
            .iter()
            .enumerate()
            .map(|(i, t)| {
                self.upload(t).map_err(|e| match e {
                    RenderError::Unsupported(m) => {
                        RenderError::Unsupported(format!("texture {i}: {m}"))
                    }
                    RenderError::Input(m) => RenderError::Input(format!("texture {i}: {m}")),
                    other => other,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let white = self.upload(&solid([255, 255, 255, 255]))?;
        let flat_normal = self.upload(&solid([128, 128, 255, 255]))?;
        let default_material = RenderMaterial::default();
        let groups: Vec<wgpu::BindGroup> = scene
            .materials
            .iter()
            .chain(std::iter::once(&default_material))
            .map(|m| self.material_group(m, &textures, &white, &flat_normal, scene.has_tangents))
            .collect();

        let mut pipelines: HashMap<(bool, bool), wgpu::RenderPipeline> = HashMap::new();
        let mut draws = Vec::new();
        for draw in scene.draw_order() {
            if draw.index_count == 0 {
                continue;
            }
            let m = draw
                .material
                .and_then(|m| scene.materials.get(m))
                .unwrap_or(&default_material);
            let key = (
                m.alpha_mode == crate::format::hmat::ALPHA_BLEND,
                m.double_sided,
            );
            pipelines
                .entry(key)
                .or_insert_with(|| self.pipeline(baked, key.0, key.1));
            let group = draw
                .material
                .filter(|m| *m < scene.materials.len())
                .unwrap_or(scene.materials.len());
            draws.push((
                draw.first_index..draw.first_index + draw.index_count,
                group,
                key,
            ));
        }
        Ok(Prepared {
            vertex_buffer,
            uv1_buffer,
            index_buffer,
            groups,
            pipelines,
            draws,
            bounds: scene.bounds(),
        })
    }

    /// Draws a [`prepare`](Self::prepare)d scene from `view` into a `width` x `height` RGBA8
    /// (sRGB) image.
    pub fn draw(
        &self,
        prepared: &Prepared,
        width: u32,
        height: u32,
        view: &View,
    ) -> Result<Image, RenderError> {
        check_size(width, height)?;
        let side = self.device.limits().max_texture_dimension_2d;
        if width > side || height > side {
            return Err(RenderError::Unsupported(format!(
                "a {width}x{height} image: the adapter's textures are at most {side} a side"
            )));
        }
        self.scoped(|| self.draw_unscoped(prepared, width, height, view))
    }

    fn draw_unscoped(
        &self,
        prepared: &Prepared,
        width: u32,
        height: u32,
        view: &View,
    ) -> Result<Image, RenderError> {
        let device = &self.device;
        let (center, radius) = prepared.bounds;
        let camera = camera(center, radius, width as f32 / height as f32, view);
        let camera_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("camera"),
            contents: bytemuck::bytes_of(&camera),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let camera_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("camera"),
            layout: &self.camera_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: camera_buffer.as_entire_binding(),
            }],
        });
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let [msaa, resolved, depth] = render_targets(device, size);
        let (msaa_view, resolved_view, depth_view) = (
            msaa.create_view(&Default::default()),
            resolved.create_view(&Default::default()),
            depth.create_view(&Default::default()),
        );

        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("preview"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &msaa_view,
                    depth_slice: None,
                    resolve_target: Some(&resolved_view),
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(CLEAR),
                        store: wgpu::StoreOp::Discard,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &camera_group, &[]);
            pass.set_vertex_buffer(0, prepared.vertex_buffer.slice(..));
            pass.set_vertex_buffer(1, prepared.uv1_buffer.slice(..));
            pass.set_index_buffer(prepared.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
            for (indices, group, key) in &prepared.draws {
                pass.set_pipeline(&prepared.pipelines[key]);
                pass.set_bind_group(1, &prepared.groups[*group], &[]);
                pass.draw_indexed(indices.clone(), 0, 0..1);
            }
        }
        self.read_back(encoder, &resolved, size)
    }

    /// Copies `texture` (RGBA8, one level) out through `encoder`, submits it and waits for
    /// the bytes.
    fn read_back(
        &self,
        mut encoder: wgpu::CommandEncoder,
        texture: &wgpu::Texture,
        size: wgpu::Extent3d,
    ) -> Result<Image, RenderError> {
        let device = &self.device;
        let (width, height) = (size.width, size.height);
        let bytes_per_row = (width * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: bytes_per_row as u64 * height as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(bytes_per_row),
                    rows_per_image: Some(height),
                },
            },
            size,
        );
        self.queue.submit([encoder.finish()]);
        let (sender, receiver) = std::sync::mpsc::channel();
        readback
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |result| {
                let _ = sender.send(result);
            });
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::Device(e.to_string()))?;
        receiver
            .recv()
            .map_err(|e| RenderError::Device(e.to_string()))?
            .map_err(|e| RenderError::Device(e.to_string()))?;
        let mapped = readback
            .slice(..)
            .get_mapped_range()
            .map_err(|e| RenderError::Device(e.to_string()))?;
        let mut rgba = Vec::with_capacity((width * height * 4) as usize);
        for row in mapped.chunks_exact(bytes_per_row as usize) {
            rgba.extend_from_slice(&row[..(width * 4) as usize]);
        }
        Ok(Image {
            width,
            height,
            rgba,
        })
    }

    fn pipeline(&self, baked: bool, blend: bool, double_sided: bool) -> wgpu::RenderPipeline {
        let attributes: &[wgpu::VertexAttribute] = if baked {
            &wgpu::vertex_attr_array![0 => Float32x3, 1 => Sint16x2, 2 => Sint16x2, 3 => Float32x2]
        } else {
            &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x4, 3 => Float32x2]
        };
        let stride = if baked {
            std::mem::size_of::<crate::format::hmesh::GpuVertex>()
        } else {
            std::mem::size_of::<super::scene::SourceVertex>()
        } as u64;
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("preview"),
                layout: Some(&self.pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &self.shader,
                    entry_point: Some(if baked { "vs_baked" } else { "vs_source" }),
                    compilation_options: Default::default(),
                    buffers: &[
                        Some(wgpu::VertexBufferLayout {
                            array_stride: stride,
                            step_mode: wgpu::VertexStepMode::Vertex,
                            attributes,
                        }),
                        Some(wgpu::VertexBufferLayout {
                            array_stride: 8,
                            step_mode: wgpu::VertexStepMode::Vertex,
                            attributes: &wgpu::vertex_attr_array![4 => Float32x2],
                        }),
                    ],
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    front_face: wgpu::FrontFace::Ccw,
                    cull_mode: (!double_sided).then_some(wgpu::Face::Back),
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH,
                    depth_write_enabled: Some(!blend),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: wgpu::MultisampleState {
                    count: SAMPLES,
                    ..Default::default()
                },
                fragment: Some(wgpu::FragmentState {
                    module: &self.shader,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: COLOR,
                        blend: blend.then_some(wgpu::BlendState::ALPHA_BLENDING),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
    }

    fn material_group(
        &self,
        m: &RenderMaterial,
        textures: &[wgpu::Texture],
        white: &wgpu::Texture,
        flat_normal: &wgpu::Texture,
        has_tangents: bool,
    ) -> wgpu::BindGroup {
        let uniform = MaterialUniform {
            base_color: m.base_color,
            emissive: [m.emissive[0], m.emissive[1], m.emissive[2], m.normal_scale],
            params: [
                m.metallic,
                m.roughness,
                m.occlusion_strength,
                m.alpha_cutoff,
            ],
            modes: [
                m.alpha_mode,
                u32::from(has_tangents),
                u32::from(m.textures[2].is_some()),
                0,
            ],
            uv_rows: uv_rows(&m.uvs),
        };
        let buffer = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("material"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let views: Vec<wgpu::TextureView> = m
            .textures
            .iter()
            .enumerate()
            .map(|(slot, t)| {
                let fallback = if slot == 2 { flat_normal } else { white };
                t.and_then(|t| textures.get(t))
                    .unwrap_or(fallback)
                    .create_view(&Default::default())
            })
            .collect();
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Sampler(&self.sampler),
            },
        ];
        entries.extend(
            views
                .iter()
                .enumerate()
                .map(|(i, view)| wgpu::BindGroupEntry {
                    binding: 2 + i as u32,
                    resource: wgpu::BindingResource::TextureView(view),
                }),
        );
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("material"),
            layout: &self.material_layout,
            entries: &entries,
        })
    }

    /// Uploads every level of `t`; an error when the device cannot sample its format.
    fn upload(&self, t: &RenderTexture) -> Result<wgpu::Texture, RenderError> {
        let (format, block) = match t.format {
            TextureFormat::Rgba8 { srgb: true } => (wgpu::TextureFormat::Rgba8UnormSrgb, None),
            TextureFormat::Rgba8 { srgb: false } => (wgpu::TextureFormat::Rgba8Unorm, None),
            TextureFormat::Blocks { vk_format } => {
                let (format, bytes) = block_format(vk_format)
                    .ok_or_else(|| RenderError::Unsupported(format!("vkFormat {vk_format}")))?;
                (format, Some(bytes))
            }
        };
        let needed = format.required_features();
        if !self.device.features().contains(needed) {
            let family = if needed.contains(wgpu::Features::TEXTURE_COMPRESSION_BC) {
                "BC"
            } else if needed.contains(wgpu::Features::TEXTURE_COMPRESSION_ETC2) {
                "ETC2/EAC"
            } else {
                "ASTC"
            };
            return Err(RenderError::Unsupported(format!(
                "{format:?}: {} does not sample {family} textures (bake this preview with \
                 another texture.format, e.g. uastc)",
                self.adapter_name()
            )));
        }
        if t.width == 0 || t.height == 0 || t.levels.is_empty() {
            return Err(RenderError::Input("an empty texture".into()));
        }
        // Larger than the device allows: start from the first mip level that fits (a preview
        // loses nothing it can show).
        let side = self.device.limits().max_texture_dimension_2d.min(MAX_SIDE);
        let first = (0..t.levels.len())
            .find(|&l| (t.width >> l).max(1) <= side && (t.height >> l).max(1) <= side)
            .ok_or_else(|| {
                RenderError::Unsupported(format!(
                    "a {}x{} texture without a mip level within {side} a side",
                    t.width, t.height
                ))
            })?;
        let (width, height) = ((t.width >> first).max(1), (t.height >> first).max(1));
        if block.is_some() && !(width.is_multiple_of(4) && height.is_multiple_of(4)) {
            return Err(RenderError::Unsupported(format!(
                "{format:?} at {width}x{height}: a block-compressed texture's size must be a \
                 multiple of 4"
            )));
        }
        let texture = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("material texture"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: (t.levels.len() - first) as u32,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        for (level, data) in t.levels.iter().enumerate().skip(first) {
            let (w, h) = ((t.width >> level).max(1), (t.height >> level).max(1));
            // Block formats copy whole blocks: the level's physical size.
            let (copy_w, copy_h, bytes_per_row, rows) = match block {
                Some(bytes) => (
                    w.next_multiple_of(4),
                    h.next_multiple_of(4),
                    w.div_ceil(4) * bytes,
                    h.div_ceil(4),
                ),
                None => (w, h, w * 4, h),
            };
            if data.len() != (bytes_per_row * rows) as usize {
                return Err(RenderError::Input(format!(
                    "level {level}: {} bytes, expected {}",
                    data.len(),
                    bytes_per_row * rows
                )));
            }
            self.queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &texture,
                    mip_level: (level - first) as u32,
                    origin: wgpu::Origin3d::ZERO,
                    aspect: wgpu::TextureAspect::All,
                },
                data,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(bytes_per_row),
                    rows_per_image: Some(rows),
                },
                wgpu::Extent3d {
                    width: copy_w,
                    height: copy_h,
                    depth_or_array_layers: 1,
                },
            );
        }
        Ok(texture)
    }
}

/// A scene on the device (see [`Renderer::prepare`]).
pub struct Prepared {
    vertex_buffer: wgpu::Buffer,
    /// The second UV set (zeros when the model has none).
    uv1_buffer: wgpu::Buffer,
    index_buffer: wgpu::Buffer,
    /// One per material, then the default material's.
    groups: Vec<wgpu::BindGroup>,
    pipelines: HashMap<(bool, bool), wgpu::RenderPipeline>,
    /// (index range, material group, pipeline key), blended draws last.
    draws: Vec<(std::ops::Range<u32>, usize, (bool, bool))>,
    bounds: ([f32; 3], f32),
}

/// Where the camera looks from. The default frames the model's bounding sphere from the front
/// right, above; `yaw` (about +Y) and `pitch` (up), in radians, orbit it around the center and
/// `zoom` scales the distance (below 1 comes closer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// Turn about the vertical axis, radians.
    pub yaw: f32,
    /// Tilt up (positive) or down, radians; kept short of the poles.
    pub pitch: f32,
    /// Distance factor, from 0.05 to 20.
    pub zoom: f32,
}

impl Default for View {
    fn default() -> Self {
        Self {
            yaw: 0.0,
            pitch: 0.0,
            zoom: 1.0,
        }
    }
}

impl View {
    /// Where `point` (model space) lands in a `width` x `height` image of a scene with these
    /// [`bounds`](super::RenderScene::bounds) drawn from this view: pixel coordinates, x right
    /// and y down from the top left corner; `None` behind the camera.
    ///
    /// ```
    /// use hearth::render::View;
    /// // The center of the bounds lands in the middle of the image.
    /// let [x, y] = View::default().project(([0.0; 3], 1.0), 200, 100, [0.0; 3]).unwrap();
    /// assert!((x - 100.0).abs() < 1e-3 && (y - 50.0).abs() < 1e-3);
    /// ```
    pub fn project(
        &self,
        bounds: ([f32; 3], f32),
        width: u32,
        height: u32,
        point: [f32; 3],
    ) -> Option<[f32; 2]> {
        let (center, radius) = bounds;
        let camera = camera(center, radius, width as f32 / height.max(1) as f32, self);
        let clip = Mat4::from_cols_array_2d(&camera.view_proj) * Vec3::from(point).extend(1.0);
        if clip.w <= 0.0 {
            return None;
        }
        let (x, y) = (clip.x / clip.w, clip.y / clip.w);
        Some([
            (x + 1.0) * 0.5 * width as f32,
            (1.0 - y) * 0.5 * height as f32,
        ])
    }
}

fn check_size(width: u32, height: u32) -> Result<(), RenderError> {
    if !(1..=MAX_SIDE).contains(&width) || !(1..=MAX_SIDE).contains(&height) {
        return Err(RenderError::Input(format!(
            "image size {width}x{height}: each side must be 1 to {MAX_SIDE}"
        )));
    }
    Ok(())
}

/// The material uniform's UV rows: per slot, its matrix's two rows, the set in the first's `w`.
fn uv_rows(uvs: &[TextureUv; 5]) -> [[f32; 4]; 10] {
    std::array::from_fn(|i| {
        let uv = &uvs[i / 2];
        let [a, b, c] = uv.matrix[i % 2];
        [a, b, c, if i % 2 == 0 { f32::from(uv.set) } else { 0.0 }]
    })
}

/// A 1x1 linear RGBA8 texture.
fn solid(rgba: [u8; 4]) -> RenderTexture {
    RenderTexture {
        width: 1,
        height: 1,
        format: TextureFormat::Rgba8 { srgb: false },
        levels: vec![rgba.to_vec()],
    }
}

/// The wgpu format of a KTX2 block `vkFormat`, and its bytes per 4x4 block.
fn block_format(vk_format: u32) -> Option<(wgpu::TextureFormat, u32)> {
    use wgpu::{AstcBlock, AstcChannel, TextureFormat as F};
    Some(match vk_format {
        // BC1 "RGB" blocks read as RGBA are opaque but where a 3-color block marks black.
        vk::BC1_RGB_UNORM_BLOCK => (F::Bc1RgbaUnorm, 8),
        vk::BC1_RGB_SRGB_BLOCK => (F::Bc1RgbaUnormSrgb, 8),
        vk::BC3_UNORM_BLOCK => (F::Bc3RgbaUnorm, 16),
        vk::BC3_SRGB_BLOCK => (F::Bc3RgbaUnormSrgb, 16),
        vk::BC4_UNORM_BLOCK => (F::Bc4RUnorm, 8),
        vk::BC5_UNORM_BLOCK => (F::Bc5RgUnorm, 16),
        vk::BC7_UNORM_BLOCK => (F::Bc7RgbaUnorm, 16),
        vk::BC7_SRGB_BLOCK => (F::Bc7RgbaUnormSrgb, 16),
        vk::ETC2_R8G8B8_UNORM_BLOCK => (F::Etc2Rgb8Unorm, 8),
        vk::ETC2_R8G8B8_SRGB_BLOCK => (F::Etc2Rgb8UnormSrgb, 8),
        vk::ETC2_R8G8B8A8_UNORM_BLOCK => (F::Etc2Rgba8Unorm, 16),
        vk::ETC2_R8G8B8A8_SRGB_BLOCK => (F::Etc2Rgba8UnormSrgb, 16),
        vk::EAC_R11_UNORM_BLOCK => (F::EacR11Unorm, 8),
        vk::EAC_R11G11_UNORM_BLOCK => (F::EacRg11Unorm, 16),
        vk::ASTC_4X4_UNORM_BLOCK => (
            F::Astc {
                block: AstcBlock::B4x4,
                channel: AstcChannel::Unorm,
            },
            16,
        ),
        vk::ASTC_4X4_SRGB_BLOCK => (
            F::Astc {
                block: AstcBlock::B4x4,
                channel: AstcChannel::UnormSrgb,
            },
            16,
        ),
        _ => return None,
    })
}

/// The camera: looking at `center` from [`VIEW_DIRECTION`] turned by `view`, far enough that a
/// sphere of `radius` fits the narrower field of view (times `view.zoom`), near and far planes
/// hugging it.
fn camera(center: [f32; 3], radius: f32, aspect: f32, view: &View) -> CameraUniform {
    let fov_y = FOV_Y.to_radians();
    let fov_x = 2.0 * ((fov_y * 0.5).tan() * aspect).atan();
    let distance = radius / (fov_y.min(fov_x) * 0.5).sin() * 1.02 * view.zoom.clamp(0.05, 20.0);
    let [dx, dy, dz] = VIEW_DIRECTION;
    let azimuth = dx.atan2(dz) + view.yaw;
    let elevation = (dy.atan2((dx * dx + dz * dz).sqrt()) + view.pitch).clamp(-1.5, 1.5);
    let direction = [
        elevation.cos() * azimuth.sin(),
        elevation.sin(),
        elevation.cos() * azimuth.cos(),
    ];
    let eye: [f32; 3] = std::array::from_fn(|i| center[i] + direction[i] * distance);
    let (near, far) = (
        (distance - radius * 1.1).max(distance * 1e-3),
        distance + radius * 1.1,
    );
    let view = Mat4::look_at_rh(Vec3::from(eye), Vec3::from(center), Vec3::Y);
    let projection = Mat4::perspective_rh(fov_y, aspect, near, far);
    CameraUniform {
        view_proj: (projection * view).to_cols_array_2d(),
        eye: [eye[0], eye[1], eye[2], 1.0],
    }
}

/// The color target (multisampled), the single-sampled color it resolves into (copied out),
/// and the depth target (multisampled), each `size`.
fn render_targets(device: &wgpu::Device, size: wgpu::Extent3d) -> [wgpu::Texture; 3] {
    let target = |label, format, samples, usage| {
        device.create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size,
            mip_level_count: 1,
            sample_count: samples,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage,
            view_formats: &[],
        })
    };
    let msaa = target(
        "color (MSAA)",
        COLOR,
        SAMPLES,
        wgpu::TextureUsages::RENDER_ATTACHMENT,
    );
    let resolved = target(
        "color",
        COLOR,
        1,
        wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
    );
    let depth = target(
        "depth",
        DEPTH,
        SAMPLES,
        wgpu::TextureUsages::RENDER_ATTACHMENT,
    );
    [msaa, resolved, depth]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The camera puts the center in the middle of the image and the sphere inside it.
    #[test]
    fn the_camera_frames_the_bounds() {
        let (center, radius) = ([1.0, 2.0, 3.0], 2.0);
        let camera = camera(center, radius, 1.5, &View::default());
        let project = |p: [f32; 3]| {
            Mat4::from_cols_array_2d(&camera.view_proj)
                .project_point3(Vec3::from(p))
                .to_array()
        };
        let c = project(center);
        assert!(c[0].abs() < 1e-5 && c[1].abs() < 1e-5 && (0.0..1.0).contains(&c[2]));
        for axis in 0..3 {
            for sign in [-1.0, 1.0] {
                let mut p = center;
                p[axis] += sign * radius;
                let q = project(p);
                assert!(
                    q.iter().take(2).all(|v| v.abs() <= 1.0) && (0.0..=1.0).contains(&q[2]),
                    "{p:?} -> {q:?}"
                );
            }
        }
    }
}

// hearth's preview renderer: metallic-roughness PBR with one fixed light rig.
//
// Two vertex entry points feed one fragment shader: `vs_baked` reads `.hmesh` VTXS as stored
// (octahedral SNORM16 normal and tangent, handedness in bit 0 of the tangent's x, decoded
// here), `vs_source` reads plain f32 attributes decoded from the source model. A wrong decode
// shows as a difference between the two images.

struct Camera {
    view_proj: mat4x4<f32>,
    eye: vec4<f32>,
};

struct Material {
    base_color: vec4<f32>,
    // rgb emissive, a: normal scale
    emissive: vec4<f32>,
    // metallic, roughness, occlusion strength, alpha cutoff
    params: vec4<f32>,
    // x: alpha mode (0 opaque, 1 mask, 2 blend); y: the mesh has tangents (1) or not (0);
    // z: the material has a normal map (1) or not (0)
    modes: vec4<u32>,
    // Per texture slot (base color, metallic-roughness, normal, occlusion, emissive), the two
    // rows of its UV matrix (KHR_texture_transform); the first row's w picks the UV set.
    uv_rows: array<vec4<f32>, 10>,
};

@group(0) @binding(0) var<uniform> camera: Camera;
@group(1) @binding(0) var<uniform> material: Material;
@group(1) @binding(1) var tex_sampler: sampler;
@group(1) @binding(2) var base_color_tex: texture_2d<f32>;
@group(1) @binding(3) var metallic_roughness_tex: texture_2d<f32>;
@group(1) @binding(4) var normal_tex: texture_2d<f32>;
@group(1) @binding(5) var occlusion_tex: texture_2d<f32>;
@group(1) @binding(6) var emissive_tex: texture_2d<f32>;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) tangent: vec4<f32>,
    @location(3) uv: vec2<f32>,
    @location(4) uv1: vec2<f32>,
};

fn sign_not_zero(v: f32) -> f32 {
    return select(-1.0, 1.0, v >= 0.0);
}

// The inverse of the baker's octahedral encoding (README, "Formats").
fn oct_decode(e: vec2<i32>) -> vec3<f32> {
    let v = max(vec2<f32>(e) / 32767.0, vec2<f32>(-1.0));
    let z = 1.0 - abs(v.x) - abs(v.y);
    let t = max(-z, 0.0);
    let xy = vec2<f32>(v.x - sign_not_zero(v.x) * t, v.y - sign_not_zero(v.y) * t);
    return normalize(vec3<f32>(xy, z));
}

fn finish(position: vec3<f32>, normal: vec3<f32>, tangent: vec4<f32>, uv: vec2<f32>, uv1: vec2<f32>) -> VertexOut {
    var out: VertexOut;
    out.clip = camera.view_proj * vec4<f32>(position, 1.0);
    out.world = position;
    out.normal = normal;
    out.tangent = tangent;
    out.uv = uv;
    out.uv1 = uv1;
    return out;
}

@vertex
fn vs_baked(
    @location(0) position: vec3<f32>,
    @location(1) normal: vec2<i32>,
    @location(2) tangent: vec2<i32>,
    @location(3) uv: vec2<f32>,
    @location(4) uv1: vec2<f32>,
) -> VertexOut {
    let handedness = select(1.0, -1.0, (tangent.x & 1) == 1);
    let t = oct_decode(vec2<i32>(tangent.x & ~1, tangent.y));
    return finish(position, oct_decode(normal), vec4<f32>(t, handedness), uv, uv1);
}

@vertex
fn vs_source(
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) tangent: vec4<f32>,
    @location(3) uv: vec2<f32>,
    @location(4) uv1: vec2<f32>,
) -> VertexOut {
    return finish(position, normal, tangent, uv, uv1);
}

const PI: f32 = 3.14159265;

fn ggx(n_dot_h: f32, alpha: f32) -> f32 {
    let a2 = alpha * alpha;
    let d = n_dot_h * n_dot_h * (a2 - 1.0) + 1.0;
    return a2 / (PI * d * d);
}

fn smith(n_dot_v: f32, n_dot_l: f32, alpha: f32) -> f32 {
    let k = alpha * 0.5;
    return (n_dot_v / (n_dot_v * (1.0 - k) + k)) * (n_dot_l / (n_dot_l * (1.0 - k) + k));
}

fn light(n: vec3<f32>, v: vec3<f32>, l: vec3<f32>, albedo: vec3<f32>, metallic: f32, roughness: f32) -> vec3<f32> {
    let h = normalize(v + l);
    let n_dot_l = max(dot(n, l), 0.0);
    let n_dot_v = max(dot(n, v), 1e-4);
    let n_dot_h = max(dot(n, h), 0.0);
    let alpha = max(roughness * roughness, 0.002);
    let f0 = mix(vec3<f32>(0.04), albedo, metallic);
    let fresnel = f0 + (1.0 - f0) * pow(1.0 - max(dot(h, v), 0.0), 5.0);
    let specular = fresnel * ggx(n_dot_h, alpha) * smith(n_dot_v, n_dot_l, alpha) / (4.0 * n_dot_v * max(n_dot_l, 1e-4));
    let diffuse = (1.0 - fresnel) * (1.0 - metallic) * albedo / PI;
    return (diffuse + specular) * n_dot_l;
}

// Texture slot `slot`'s UVs: its set, through its matrix.
fn slot_uv(in: VertexOut, slot: u32) -> vec2<f32> {
    let row0 = material.uv_rows[slot * 2u];
    let row1 = material.uv_rows[slot * 2u + 1u];
    let uv = vec3<f32>(select(in.uv, in.uv1, row0.w > 0.5), 1.0);
    return vec2<f32>(dot(row0.xyz, uv), dot(row1.xyz, uv));
}

// The surface normal `n` perturbed by the normal map at `normal_uv` and turned to the viewer (a
// back face flips the whole frame), in the mesh's tangent frame, or in one from screen-space
// derivatives when the mesh has no tangents or a degenerate one here.
fn normal_mapped(in: VertexOut, n: vec3<f32>, normal_uv: vec2<f32>, front: bool) -> vec3<f32> {
    let dp1 = dpdx(in.world);
    let dp2 = dpdy(in.world);
    // The frame of the normal map's own UVs (its set, through its transform).
    let duv1 = dpdx(normal_uv);
    let duv2 = dpdy(normal_uv);
    let dp2perp = cross(dp2, n);
    let dp1perp = cross(n, dp1);
    let tt = dp2perp * duv1.x + dp1perp * duv2.x;
    let bb = dp2perp * duv1.y + dp1perp * duv2.y;
    // tt and bb are dP/du and dP/dv times the frame's determinant, whose sign depends on how
    // the screen axes turn around n (framebuffer Y points down): take it out. Then the
    // bitangent is -dP/dv: glTF's V points down the image, a normal map's +Y up it (as the
    // tangents glTF ships, and the bake generates, have it).
    let orient = select(1.0, -1.0, dot(dp1, dp2perp) < 0.0);
    let scale = orient * inverseSqrt(max(max(dot(tt, tt), dot(bb, bb)), 1e-20));
    var t = tt * scale;
    var b = -bb * scale;
    let along = in.tangent.xyz - n * dot(n, in.tangent.xyz);
    if material.modes.y == 1u && dot(along, along) > 1e-8 {
        t = normalize(along);
        b = cross(n, t) * in.tangent.w;
    }
    let facing = select(-1.0, 1.0, front);
    // Normal maps carry X and Y (R, G); Z is rebuilt.
    let xy = (textureSample(normal_tex, tex_sampler, normal_uv).rg * 2.0 - 1.0) * material.emissive.a;
    let z = sqrt(max(1.0 - dot(xy, xy), 0.0));
    return normalize(t * xy.x + b * xy.y + n * z) * facing;
}

@fragment
fn fs_main(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let base_uv = slot_uv(in, 0u);
    let orm_uv = slot_uv(in, 1u);
    let normal_uv = slot_uv(in, 2u);
    let occlusion_uv = slot_uv(in, 3u);
    let emissive_uv = slot_uv(in, 4u);
    let base = material.base_color * textureSample(base_color_tex, tex_sampler, base_uv);
    if material.modes.x == 1u && base.a < material.params.w {
        discard;
    }
    let orm = textureSample(metallic_roughness_tex, tex_sampler, orm_uv);
    let metallic = clamp(material.params.x * orm.b, 0.0, 1.0);
    let roughness = clamp(material.params.y * orm.g, 0.04, 1.0);
    let occlusion = 1.0 + material.params.z * (textureSample(occlusion_tex, tex_sampler, occlusion_uv).r - 1.0);
    let emissive = material.emissive.rgb * textureSample(emissive_tex, tex_sampler, emissive_uv).rgb;

    // Only a normal-mapped material needs a tangent frame (a mesh's tangents may be
    // placeholders where its material has no normal map).
    var n = normalize(in.normal);
    if material.modes.z == 1u {
        n = normal_mapped(in, n, normal_uv, front);
    } else if !front {
        n = -n;
    }

    let v = normalize(camera.eye.xyz - in.world);
    let albedo = base.rgb;
    // The fixed rig: a key light from the upper left front, a cooler fill from the right, and
    // a sky/ground ambient term.
    var color = light(n, v, normalize(vec3<f32>(-0.5, 0.8, 0.6)), albedo, metallic, roughness) * vec3<f32>(3.0, 2.9, 2.7);
    color += light(n, v, normalize(vec3<f32>(0.8, 0.2, -0.4)), albedo, metallic, roughness) * vec3<f32>(0.6, 0.7, 0.9);
    let sky = mix(vec3<f32>(0.12, 0.11, 0.10), vec3<f32>(0.25, 0.28, 0.33), n.y * 0.5 + 0.5);
    color += sky * albedo * (1.0 - metallic * 0.5) * occlusion;
    color += emissive;
    // Reinhard, per channel.
    color = color / (1.0 + color);
    let alpha = select(1.0, base.a, material.modes.x == 2u);
    return vec4<f32>(color, alpha);
}

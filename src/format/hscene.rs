//! `.hscene` v1: a scene (pak's `[scene]` asset files): placed references to meshes and
//! materials, custom geometry, tags and typed data, with one deduplicated string table.
//!
//! ```text
//! header, 48 bytes: magic "HSCN" | version u32 = 1 | refCount u32 | geometryCount u32
//!   | hashCount u32 | tagCount u32 | valueCount u32 | floatCount u32 | indexCount u32
//!   | stringBytes u32 | reserved u32 = 0 | reserved u32 = 0
//! refs:      refCount x 80 B: id Str [0] | mesh u64 [8] (asset hash, 0 none)
//!            | materialFirst u32 [16] | materialCount u32 [20] (into hashes)
//!            | translation f32x3 [24] | rotation f32x4 [36] (quaternion xyzw) | scale f32x3 [52]
//!            | tagFirst u32 [64] | tagCount u32 [68] | data u32 [72] (value, NONE = none)
//!            | reserved u32 = 0 [76]
//! geometry:  geometryCount x 72 B: id Str [0] | floatFirst u32 [8] | vertexCount u32 [12]
//!            | components u32 [16] (2 or 3) | indexFirst u32 [20] | indexCount u32 [24]
//!            | translation f32x3 [28] | rotation f32x4 [40] | tagFirst u32 [56]
//!            | tagCount u32 [60] | data u32 [64] | reserved u32 = 0 [68]
//! hashes:    hashCount x u64 (material asset hashes)
//! values:    valueCount x 24 B: kind u8 [0] (0 string, 1 integer, 2 float, 3 bool, 4 array,
//!            5 table) | 3 zero bytes | key Str [4] (a table member's key; else 0, 0)
//!            | reserved u32 = 0 [12] | payload 8 B [16]: string Str; integer i64; float f64;
//!            bool u64 (0 or 1); array and table: first u32, count u32 (children: values
//!            first..first+count, each after its parent; a table's sorted by key, unique)
//! tags:      tagCount x Str
//! floats:    floatCount x f32 (geometry vertices, `components` per vertex)
//! indices:   indexCount x u32 (each < its geometry's vertexCount)
//! strings:   stringBytes bytes of UTF-8
//! Str = offset u32 | length u32, into the strings; (0, 0) is the empty string (an absent id)
//! NONE = 0xFFFFFFFF
//! ```
//!
//! Little-endian, exactly as long as its tables. [`SceneView::parse`](crate::read::scene::SceneView::parse) checks every range,
//! string, child link and index once; accessors then read in place.

/// Magic bytes.
pub const MAGIC: [u8; 4] = *b"HSCN";
/// Version.
pub const VERSION: u32 = 1;
/// Header size.
pub const HEADER_SIZE: usize = 48;
/// One reference record.
pub const REF_SIZE: usize = 80;
/// One geometry record.
pub const GEOMETRY_SIZE: usize = 72;
/// One value record.
pub const VALUE_SIZE: usize = 24;
/// "No value".
pub const NONE: u32 = u32::MAX;

/// A value's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ValueKind {
    /// UTF-8 text.
    String = 0,
    /// A signed 64-bit integer.
    Integer = 1,
    /// A 64-bit float.
    Float = 2,
    /// A boolean.
    Bool = 3,
    /// An ordered list of values.
    Array = 4,
    /// Values by key, sorted by key.
    Table = 5,
}

/// A typed value to write.
#[derive(Debug, Clone, PartialEq)]
pub enum SceneValue {
    /// Text.
    String(String),
    /// Integer.
    Integer(i64),
    /// Float.
    Float(f64),
    /// Boolean.
    Bool(bool),
    /// List.
    Array(Vec<SceneValue>),
    /// Members by key (written sorted).
    Table(Vec<(String, SceneValue)>),
}

/// A placed reference to write.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RefData {
    /// Its id (empty: none).
    pub id: String,
    /// Mesh asset hash (0: none).
    pub mesh: u64,
    /// Material asset hashes.
    pub materials: Vec<u64>,
    /// Translation.
    pub translation: [f32; 3],
    /// Rotation quaternion, xyzw.
    pub rotation: [f32; 4],
    /// Scale.
    pub scale: [f32; 3],
    /// Tags.
    pub tags: Vec<String>,
    /// Custom data.
    pub data: Option<SceneValue>,
}

/// Custom geometry to write.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GeometryData {
    /// Its id (empty: none).
    pub id: String,
    /// 2 or 3 floats per vertex.
    pub components: u32,
    /// Vertex floats.
    pub vertices: Vec<f32>,
    /// Triangle (or any) indices into the vertices.
    pub indices: Vec<u32>,
    /// Translation.
    pub translation: [f32; 3],
    /// Rotation quaternion, xyzw.
    pub rotation: [f32; 4],
    /// Tags.
    pub tags: Vec<String>,
    /// Custom data.
    pub data: Option<SceneValue>,
}

/// A scene to write.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SceneData {
    /// References, in file order.
    pub refs: Vec<RefData>,
    /// Geometry, in file order.
    pub geometry: Vec<GeometryData>,
}

/// Collects the tables while writing.
#[derive(Default)]
struct Tables {
    hashes: Vec<u64>,
    values: Vec<[u8; VALUE_SIZE]>,
    tags: Vec<(u32, u32)>,
    floats: Vec<f32>,
    indices: Vec<u32>,
    strings: Vec<u8>,
    string_at: std::collections::HashMap<String, (u32, u32)>,
}

impl Tables {
    fn string(&mut self, text: &str) -> (u32, u32) {
        if text.is_empty() {
            return (0, 0);
        }
        if let Some(&at) = self.string_at.get(text) {
            return at;
        }
        let at = (self.strings.len() as u32, text.len() as u32);
        self.strings.extend_from_slice(text.as_bytes());
        self.string_at.insert(text.to_owned(), at);
        at
    }

    fn tags(&mut self, tags: &[String]) -> (u32, u32) {
        let first = self.tags.len() as u32;
        for tag in tags {
            let s = self.string(tag);
            self.tags.push(s);
        }
        (first, tags.len() as u32)
    }

    fn data(&mut self, value: Option<&SceneValue>) -> u32 {
        match value {
            None => NONE,
            Some(value) => {
                let index = self.values.len();
                self.values.push([0; VALUE_SIZE]);
                self.fill(index, (0, 0), value);
                index as u32
            }
        }
    }

    /// Writes `value` into slot `index` (reserved), its children after everything so far.
    fn fill(&mut self, index: usize, key: (u32, u32), value: &SceneValue) {
        let mut record = [0u8; VALUE_SIZE];
        record[4..8].copy_from_slice(&key.0.to_le_bytes());
        record[8..12].copy_from_slice(&key.1.to_le_bytes());
        let (kind, payload): (ValueKind, [u8; 8]) = match value {
            SceneValue::String(text) => {
                let (offset, len) = self.string(text);
                (ValueKind::String, pair(offset, len))
            }
            SceneValue::Integer(v) => (ValueKind::Integer, v.to_le_bytes()),
            SceneValue::Float(v) => (ValueKind::Float, v.to_le_bytes()),
            SceneValue::Bool(v) => (ValueKind::Bool, u64::from(*v).to_le_bytes()),
            SceneValue::Array(items) => {
                let first = self.reserve(items.len());
                for (i, item) in items.iter().enumerate() {
                    self.fill(first + i, (0, 0), item);
                }
                (ValueKind::Array, pair(first as u32, items.len() as u32))
            }
            SceneValue::Table(members) => {
                let mut members: Vec<&(String, SceneValue)> = members.iter().collect();
                members.sort_by(|a, b| a.0.cmp(&b.0));
                let first = self.reserve(members.len());
                for (i, (key, member)) in members.iter().enumerate() {
                    let key = self.string(key);
                    self.fill(first + i, key, member);
                }
                (ValueKind::Table, pair(first as u32, members.len() as u32))
            }
        };
        record[0] = kind as u8;
        record[16..24].copy_from_slice(&payload);
        self.values[index] = record;
    }

    fn reserve(&mut self, count: usize) -> usize {
        let first = self.values.len();
        self.values.resize(first + count, [0; VALUE_SIZE]);
        first
    }
}

fn pair(a: u32, b: u32) -> [u8; 8] {
    let mut out = [0u8; 8];
    out[..4].copy_from_slice(&a.to_le_bytes());
    out[4..].copy_from_slice(&b.to_le_bytes());
    out
}

fn put_f32s(out: &mut Vec<u8>, values: &[f32]) {
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Writes `scene`. Table keys must be unique (the caller's TOML guarantees it).
pub fn write(scene: &SceneData) -> Vec<u8> {
    let mut t = Tables::default();
    let mut refs = Vec::with_capacity(scene.refs.len() * REF_SIZE);
    for r in &scene.refs {
        let id = t.string(&r.id);
        let materials = (t.hashes.len() as u32, r.materials.len() as u32);
        t.hashes.extend_from_slice(&r.materials);
        let tags = t.tags(&r.tags);
        let data = t.data(r.data.as_ref());
        refs.extend_from_slice(&pair(id.0, id.1));
        refs.extend_from_slice(&r.mesh.to_le_bytes());
        refs.extend_from_slice(&pair(materials.0, materials.1));
        put_f32s(&mut refs, &r.translation);
        put_f32s(&mut refs, &r.rotation);
        put_f32s(&mut refs, &r.scale);
        refs.extend_from_slice(&pair(tags.0, tags.1));
        refs.extend_from_slice(&pair(data, 0));
    }
    let mut geometry = Vec::with_capacity(scene.geometry.len() * GEOMETRY_SIZE);
    for g in &scene.geometry {
        let id = t.string(&g.id);
        let floats = t.floats.len() as u32;
        t.floats.extend_from_slice(&g.vertices);
        let vertex_count = g.vertices.len() as u32 / g.components.max(1);
        let indices = t.indices.len() as u32;
        t.indices.extend_from_slice(&g.indices);
        let tags = t.tags(&g.tags);
        let data = t.data(g.data.as_ref());
        geometry.extend_from_slice(&pair(id.0, id.1));
        geometry.extend_from_slice(&pair(floats, vertex_count));
        geometry.extend_from_slice(&pair(g.components, indices));
        geometry.extend_from_slice(&(g.indices.len() as u32).to_le_bytes());
        put_f32s(&mut geometry, &g.translation);
        put_f32s(&mut geometry, &g.rotation);
        geometry.extend_from_slice(&pair(tags.0, tags.1));
        geometry.extend_from_slice(&pair(data, 0));
    }
    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC);
    for value in [
        VERSION,
        scene.refs.len() as u32,
        scene.geometry.len() as u32,
        t.hashes.len() as u32,
        t.tags.len() as u32,
        t.values.len() as u32,
        t.floats.len() as u32,
        t.indices.len() as u32,
        t.strings.len() as u32,
        0,
        0,
    ] {
        out.extend_from_slice(&value.to_le_bytes());
    }
    out.extend_from_slice(&refs);
    out.extend_from_slice(&geometry);
    for hash in &t.hashes {
        out.extend_from_slice(&hash.to_le_bytes());
    }
    for value in &t.values {
        out.extend_from_slice(value);
    }
    for tag in &t.tags {
        out.extend_from_slice(&pair(tag.0, tag.1));
    }
    put_f32s(&mut out, &t.floats);
    for index in &t.indices {
        out.extend_from_slice(&index.to_le_bytes());
    }
    out.extend_from_slice(&t.strings);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::scene::SceneView;

    fn sample() -> SceneData {
        SceneData {
            refs: vec![RefData {
                id: "red-door".into(),
                mesh: 0xabc,
                materials: vec![1, 2],
                translation: [-0.9, 0.0, -12.0],
                rotation: [0.0, 0.0, 0.0, 1.0],
                scale: [1.0; 3],
                tags: vec!["shared".into()],
                data: Some(SceneValue::Table(vec![
                    ("require".into(), SceneValue::String("red-key".into())),
                    (
                        "joins".into(),
                        SceneValue::Array(vec![SceneValue::Integer(1), SceneValue::Float(2.5)]),
                    ),
                    ("locked".into(), SceneValue::Bool(true)),
                ])),
            }],
            geometry: vec![GeometryData {
                id: "a".into(),
                components: 3,
                vertices: vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0],
                indices: vec![0, 1, 2],
                translation: [1.0, 0.1, 0.0],
                rotation: [0.0, 0.0, 0.0, 1.0],
                tags: vec!["nav-mesh".into(), "shared".into()],
                data: None,
            }],
        }
    }

    #[test]
    fn round_trips_with_typed_data() {
        let bytes = write(&sample());
        let scene = SceneView::parse(&bytes).unwrap();
        let door = scene.find_ref("red-door").unwrap();
        assert_eq!(door.mesh(), Some(0xabc));
        assert_eq!(door.materials().collect::<Vec<_>>(), [1, 2]);
        assert_eq!(door.translation(), [-0.9, 0.0, -12.0]);
        assert_eq!(door.tags(), ["shared"]);
        let data = door.data().unwrap();
        assert_eq!(data.kind(), ValueKind::Table);
        assert_eq!(data.get("require").unwrap().as_str(), Some("red-key"));
        assert_eq!(data.get("locked").unwrap().as_bool(), Some(true));
        let joins = data.get("joins").unwrap();
        assert_eq!((joins.len(), joins.at(0).unwrap().as_i64()), (2, Some(1)));
        assert_eq!(joins.at(1).unwrap().as_f64(), Some(2.5));
        assert!(data.get("missing").is_none());
        let geometry = scene.geometry().next().unwrap();
        assert_eq!(geometry.vertices().nth(1), Some([1.0, 0.0, 0.0]));
        assert_eq!(geometry.indices().collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(geometry.tags(), ["nav-mesh", "shared"]);
        // A string used twice is stored once.
        assert_eq!(bytes.windows(6).filter(|w| w == b"shared").count(), 1);
    }

    #[test]
    fn damage_is_refused_never_a_panic() {
        let good = write(&sample());
        for len in 0..good.len() {
            assert!(SceneView::parse(&good[..len]).is_err());
        }
        for i in HEADER_SIZE..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0xff;
            if let Ok(scene) = SceneView::parse(&bad) {
                // Whatever parses reads without panicking.
                for r in scene.refs() {
                    let _ = (r.id(), r.tags(), r.materials().count());
                    if let Some(data) = r.data() {
                        for member in data.iter() {
                            let _ = (member.key(), member.as_str(), member.len());
                        }
                    }
                }
                for g in scene.geometry() {
                    let _ = (g.vertices().count(), g.indices().count(), g.tags());
                }
            }
        }
    }
}

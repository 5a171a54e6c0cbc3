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
//! Little-endian, exactly as long as its tables. [`SceneView::parse`] checks every range,
//! string, child link and index once; accessors then read in place.

use crate::format::error::{ReadBytes, ReadError};

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

fn u32_le(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_le(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

fn f32_le(b: &[u8], at: usize) -> f32 {
    f32::from_bits(u32_le(b, at))
}

fn f32s<const N: usize>(b: &[u8], at: usize) -> [f32; N] {
    std::array::from_fn(|i| f32_le(b, at + 4 * i))
}

/// A validated `.hscene`, read in place.
#[derive(Debug, Clone, Copy)]
pub struct SceneView<'a> {
    refs: &'a [u8],
    geometry: &'a [u8],
    hashes: &'a [u8],
    values: &'a [u8],
    tags: &'a [u8],
    floats: &'a [u8],
    indices: &'a [u8],
    strings: &'a [u8],
}

const fn invalid(what: &'static str) -> ReadError {
    ReadError::Invalid { what }
}

impl<'a> SceneView<'a> {
    /// Parses and checks `bytes` (see the module's layout).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ReadError> {
        if bytes.slice_at(0, 4, "hscene magic")? != MAGIC {
            return Err(ReadError::BadMagic { format: "hscene" });
        }
        let version = bytes.u32_at(4, "hscene version")?;
        if version != VERSION {
            return Err(ReadError::UnsupportedVersion {
                format: "hscene",
                version,
            });
        }
        let header = bytes.slice_at(0, HEADER_SIZE, "hscene header")?;
        if u32_le(header, 40) != 0 || u32_le(header, 44) != 0 {
            return Err(invalid("hscene reserved header field"));
        }
        let count = |i: usize| u64::from(u32_le(header, 8 + 4 * i));
        let sizes = [
            count(0) * REF_SIZE as u64,
            count(1) * GEOMETRY_SIZE as u64,
            count(2) * 8,
            count(4) * VALUE_SIZE as u64,
            count(3) * 8,
            count(5) * 4,
            count(6) * 4,
            count(7),
        ];
        let total = HEADER_SIZE as u64 + sizes.iter().sum::<u64>();
        if total != bytes.len() as u64 {
            return Err(if total > bytes.len() as u64 {
                ReadError::Truncated {
                    what: "hscene tables",
                }
            } else {
                invalid("hscene size (bytes after the tables)")
            });
        }
        // The sizes sum to the slice's length, so each fits.
        let mut at = HEADER_SIZE;
        let mut next = |size: u64| {
            let part = &bytes[at..at + size as usize];
            at += size as usize;
            part
        };
        let view = Self {
            refs: next(sizes[0]),
            geometry: next(sizes[1]),
            hashes: next(sizes[2]),
            values: next(sizes[3]),
            tags: next(sizes[4]),
            floats: next(sizes[5]),
            indices: next(sizes[6]),
            strings: next(sizes[7]),
        };
        view.check()?;
        Ok(view)
    }

    fn str_at(&self, table: &'a [u8], at: usize) -> Result<&'a str, ReadError> {
        let (offset, len) = (u32_le(table, at) as usize, u32_le(table, at + 4) as usize);
        let bytes = offset
            .checked_add(len)
            .and_then(|end| self.strings.get(offset..end))
            .ok_or(ReadError::OutOfBounds {
                what: "hscene string",
            })?;
        std::str::from_utf8(bytes).map_err(|_| invalid("hscene string (not UTF-8)"))
    }

    fn range(first: u32, count: u32, len: usize, what: &'static str) -> Result<(), ReadError> {
        match (first as usize).checked_add(count as usize) {
            Some(end) if end <= len => Ok(()),
            _ => Err(ReadError::OutOfBounds { what }),
        }
    }

    fn check(&self) -> Result<(), ReadError> {
        let value_count = self.values.len() / VALUE_SIZE;
        let tag_count = self.tags.len() / 8;
        for i in 0..tag_count {
            self.str_at(self.tags, i * 8)?;
        }
        let check_data = |data: u32| match data {
            NONE => Ok(()),
            d if (d as usize) < value_count => Ok(()),
            _ => Err(ReadError::OutOfBounds {
                what: "hscene data value",
            }),
        };
        for r in self.refs.chunks_exact(REF_SIZE) {
            self.str_at(r, 0)?;
            Self::range(
                u32_le(r, 16),
                u32_le(r, 20),
                self.hashes.len() / 8,
                "hscene materials",
            )?;
            Self::range(u32_le(r, 64), u32_le(r, 68), tag_count, "hscene ref tags")?;
            check_data(u32_le(r, 72))?;
            if u32_le(r, 76) != 0 {
                return Err(invalid("hscene ref reserved field"));
            }
        }
        for g in self.geometry.chunks_exact(GEOMETRY_SIZE) {
            self.str_at(g, 0)?;
            let components = u32_le(g, 16);
            if !matches!(components, 2 | 3) {
                return Err(invalid("hscene geometry components (2 or 3)"));
            }
            let vertex_count = u32_le(g, 12);
            let floats = u64::from(vertex_count) * u64::from(components);
            let floats = u32::try_from(floats).map_err(|_| ReadError::OutOfBounds {
                what: "hscene geometry vertices",
            })?;
            Self::range(
                u32_le(g, 8),
                floats,
                self.floats.len() / 4,
                "hscene geometry vertices",
            )?;
            let (first, count) = (u32_le(g, 20), u32_le(g, 24));
            Self::range(
                first,
                count,
                self.indices.len() / 4,
                "hscene geometry indices",
            )?;
            for i in first as usize..first as usize + count as usize {
                if u32_le(self.indices, i * 4) >= vertex_count {
                    return Err(ReadError::OutOfBounds {
                        what: "hscene geometry index (past its vertices)",
                    });
                }
            }
            Self::range(
                u32_le(g, 56),
                u32_le(g, 60),
                tag_count,
                "hscene geometry tags",
            )?;
            check_data(u32_le(g, 64))?;
            if u32_le(g, 68) != 0 {
                return Err(invalid("hscene geometry reserved field"));
            }
        }
        for (index, v) in self.values.chunks_exact(VALUE_SIZE).enumerate() {
            if v[1..4] != [0, 0, 0] || u32_le(v, 12) != 0 {
                return Err(invalid("hscene value padding"));
            }
            self.str_at(v, 4)?;
            match v[0] {
                0 => {
                    self.str_at(v, 16)?;
                }
                1 | 2 => {}
                3 if u64_le(v, 16) <= 1 => {}
                4 | 5 => {
                    let (first, count) = (u32_le(v, 16), u32_le(v, 20));
                    // Children come after their parent: no cycles, every walk ends.
                    if count > 0 && first as usize <= index {
                        return Err(invalid("hscene value child before its parent"));
                    }
                    Self::range(first, count, value_count, "hscene value children")?;
                    if v[0] == 5 {
                        let mut previous: Option<&str> = None;
                        for child in first as usize..first as usize + count as usize {
                            let key = self.str_at(self.values, child * VALUE_SIZE + 4)?;
                            if previous.is_some_and(|p| p >= key) {
                                return Err(invalid("hscene table keys (sorted, unique)"));
                            }
                            previous = Some(key);
                        }
                    }
                }
                _ => return Err(invalid("hscene value kind")),
            }
        }
        Ok(())
    }

    /// Number of references.
    pub fn ref_count(&self) -> usize {
        self.refs.len() / REF_SIZE
    }

    /// Every reference, in file order.
    pub fn refs(&self) -> impl ExactSizeIterator<Item = SceneRef<'a>> + '_ {
        self.refs.chunks_exact(REF_SIZE).map(|r| SceneRef {
            scene: *self,
            record: r,
        })
    }

    /// The first reference whose id is `id`.
    pub fn find_ref(&self, id: &str) -> Option<SceneRef<'a>> {
        self.refs().find(|r| r.id() == id)
    }

    /// Number of geometry records.
    pub fn geometry_count(&self) -> usize {
        self.geometry.len() / GEOMETRY_SIZE
    }

    /// Every geometry record, in file order.
    pub fn geometry(&self) -> impl ExactSizeIterator<Item = SceneGeometry<'a>> + '_ {
        self.geometry
            .chunks_exact(GEOMETRY_SIZE)
            .map(|g| SceneGeometry {
                scene: *self,
                record: g,
            })
    }

    fn value(&self, index: u32) -> Option<Value<'a>> {
        let at = (index as usize).checked_mul(VALUE_SIZE)?;
        self.values.get(at..at + VALUE_SIZE).map(|record| Value {
            scene: *self,
            record,
        })
    }

    fn tag_list(&self, first: u32, count: u32) -> impl ExactSizeIterator<Item = &'a str> + '_ {
        (first..first + count).map(|i| self.str_at(self.tags, i as usize * 8).unwrap_or_default())
    }

    fn string(&self, table: &'a [u8], at: usize) -> &'a str {
        // Checked at parse.
        self.str_at(table, at).unwrap_or_default()
    }
}

/// One placed reference.
#[derive(Debug, Clone, Copy)]
pub struct SceneRef<'a> {
    scene: SceneView<'a>,
    record: &'a [u8],
}

impl<'a> SceneRef<'a> {
    /// Its id (empty: none).
    pub fn id(&self) -> &'a str {
        self.scene.string(self.record, 0)
    }
    /// The mesh's asset hash, if it places one.
    pub fn mesh(&self) -> Option<u64> {
        Some(u64_le(self.record, 8)).filter(|&h| h != 0)
    }
    /// Material asset hashes.
    pub fn materials(&self) -> impl ExactSizeIterator<Item = u64> + 'a {
        let (first, count) = (
            u32_le(self.record, 16) as usize,
            u32_le(self.record, 20) as usize,
        );
        let hashes = self.scene.hashes;
        (first..first + count).map(move |i| u64_le(hashes, i * 8))
    }
    /// Translation.
    pub fn translation(&self) -> [f32; 3] {
        f32s(self.record, 24)
    }
    /// Rotation quaternion, xyzw.
    pub fn rotation(&self) -> [f32; 4] {
        f32s(self.record, 36)
    }
    /// Scale.
    pub fn scale(&self) -> [f32; 3] {
        f32s(self.record, 52)
    }
    /// Tags.
    pub fn tags(&self) -> Vec<&'a str> {
        self.scene
            .tag_list(u32_le(self.record, 64), u32_le(self.record, 68))
            .collect()
    }
    /// Custom data.
    pub fn data(&self) -> Option<Value<'a>> {
        match u32_le(self.record, 72) {
            NONE => None,
            index => self.scene.value(index),
        }
    }
}

/// One custom geometry record.
#[derive(Debug, Clone, Copy)]
pub struct SceneGeometry<'a> {
    scene: SceneView<'a>,
    record: &'a [u8],
}

impl<'a> SceneGeometry<'a> {
    /// Its id (empty: none).
    pub fn id(&self) -> &'a str {
        self.scene.string(self.record, 0)
    }
    /// Floats per vertex: 2 or 3.
    pub fn components(&self) -> u32 {
        u32_le(self.record, 16)
    }
    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        u32_le(self.record, 12) as usize
    }
    /// Vertex `i` (a 2-component vertex has z = 0).
    pub fn vertex(&self, i: usize) -> Option<[f32; 3]> {
        if i >= self.vertex_count() {
            return None;
        }
        let components = self.components() as usize;
        let at = (u32_le(self.record, 8) as usize + i * components) * 4;
        let z = if components == 3 {
            f32_le(self.scene.floats, at + 8)
        } else {
            0.0
        };
        Some([
            f32_le(self.scene.floats, at),
            f32_le(self.scene.floats, at + 4),
            z,
        ])
    }
    /// Every vertex.
    pub fn vertices(&self) -> impl ExactSizeIterator<Item = [f32; 3]> + '_ {
        (0..self.vertex_count()).map(|i| self.vertex(i).unwrap_or_default())
    }
    /// The indices.
    pub fn indices(&self) -> impl ExactSizeIterator<Item = u32> + 'a {
        let (first, count) = (
            u32_le(self.record, 20) as usize,
            u32_le(self.record, 24) as usize,
        );
        let indices = self.scene.indices;
        (first..first + count).map(move |i| u32_le(indices, i * 4))
    }
    /// Translation.
    pub fn translation(&self) -> [f32; 3] {
        f32s(self.record, 28)
    }
    /// Rotation quaternion, xyzw.
    pub fn rotation(&self) -> [f32; 4] {
        f32s(self.record, 40)
    }
    /// Tags.
    pub fn tags(&self) -> Vec<&'a str> {
        self.scene
            .tag_list(u32_le(self.record, 56), u32_le(self.record, 60))
            .collect()
    }
    /// Custom data.
    pub fn data(&self) -> Option<Value<'a>> {
        match u32_le(self.record, 64) {
            NONE => None,
            index => self.scene.value(index),
        }
    }
}

/// A typed data value, read in place.
#[derive(Debug, Clone, Copy)]
pub struct Value<'a> {
    scene: SceneView<'a>,
    record: &'a [u8],
}

impl<'a> Value<'a> {
    /// Its type.
    pub fn kind(&self) -> ValueKind {
        match self.record[0] {
            0 => ValueKind::String,
            1 => ValueKind::Integer,
            2 => ValueKind::Float,
            3 => ValueKind::Bool,
            4 => ValueKind::Array,
            _ => ValueKind::Table, // checked at parse: 5
        }
    }
    /// The text of a string.
    pub fn as_str(&self) -> Option<&'a str> {
        (self.kind() == ValueKind::String).then(|| self.scene.string(self.record, 16))
    }
    /// An integer.
    pub fn as_i64(&self) -> Option<i64> {
        (self.kind() == ValueKind::Integer).then(|| u64_le(self.record, 16) as i64)
    }
    /// A float (an integer converts).
    pub fn as_f64(&self) -> Option<f64> {
        match self.kind() {
            ValueKind::Float => Some(f64::from_bits(u64_le(self.record, 16))),
            ValueKind::Integer => Some(u64_le(self.record, 16) as i64 as f64),
            _ => None,
        }
    }
    /// A boolean.
    pub fn as_bool(&self) -> Option<bool> {
        (self.kind() == ValueKind::Bool).then(|| u64_le(self.record, 16) == 1)
    }
    /// Children of an array or table (0 otherwise).
    pub fn len(&self) -> usize {
        match self.kind() {
            ValueKind::Array | ValueKind::Table => u32_le(self.record, 20) as usize,
            _ => 0,
        }
    }
    /// Whether it has no children.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Item `i` of an array (or member `i` of a table, in key order).
    pub fn at(&self, i: usize) -> Option<Value<'a>> {
        if i >= self.len() {
            return None;
        }
        self.scene.value(u32_le(self.record, 16) + i as u32)
    }
    /// A table member's key (empty for anything else).
    pub fn key(&self) -> &'a str {
        self.scene.string(self.record, 4)
    }
    /// The member `key` of a table (a binary search).
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        if self.kind() != ValueKind::Table {
            return None;
        }
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            let member = self.at(mid)?;
            match member.key().cmp(key) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Some(member),
            }
        }
        None
    }
    /// Items of an array, members of a table (in key order).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Value<'a>> + '_ {
        (0..self.len())
            .filter_map(|i| self.at(i))
            .collect::<Vec<_>>()
            .into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

//! `.hscene` on the read side: [`SceneView`] (with its [`SceneRef`]s, [`SceneGeometry`] and
//! data [`Value`]s), validated and read in place, and [`Scene`], its owned form. The byte
//! layout and the writer are in [`crate::format::hscene`]; the checks `hearth check` runs are
//! in `read::inspect::scene` (feature `inspect`).

use crate::format::error::{ReadBytes, ReadError};
use crate::format::hscene::*;

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
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let bytes = pak.get("levels/one.hscene")?.expect("baked");
/// let scene = hearth::SceneView::parse(&bytes)?;
/// for node in scene.refs() {
///     // A reference's mesh is an asset hash, resolved through `assets.hman`.
///     let mesh = match node.mesh() {
///         Some(hash) => pak.resolve(hash)?.map(|row| row.path.clone()),
///         None => None,
///     };
///     println!("{} at {:?}: {mesh:?}", node.id(), node.translation());
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
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

crate::read::asset::owned_view!(
    /// An owned `.hscene`: [`view`](Self::view) gives its [`SceneView`].
    ///
    /// ```no_run
    /// let pak = hearth::PakReader::open("game.hpack")?;
    /// let level: hearth::Scene = pak.load("levels/one.hscene")?;
    /// for node in level.view().refs() {
    ///     println!("{} at {:?}", node.id(), node.translation());
    /// }
    /// # Ok::<(), hearth::ReadError>(())
    /// ```
    Scene,
    SceneHeld,
    SceneView,
    SceneView::parse,
    crate::AssetKind::SCENE
);

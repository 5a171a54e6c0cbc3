//! [`AssetKind`]: what kind of asset a manifest row or pack entry is, and [`KINDS`], the one
//! table of each built-in kind's name and file extensions.

/// What kind of asset an entry is: one table for `assets.hman` and the `.hpack` v4 entry
/// kind byte.
///
/// Values 0–127 are hearth's, 128–255 are the game's own kinds (see
/// [`AssetKind::game`]). Every value is valid in a file: an entry of a kind a reader does not
/// know is an opaque, readable entry, so a new kind never makes an older reader reject a whole
/// manifest or pack.
///
/// ```
/// use hearth::AssetKind;
/// assert_eq!(AssetKind::from_path("models/chair.hmesh"), AssetKind::MESH);
/// assert_eq!(AssetKind::TEXTURE.to_string(), "texture");
/// // The game's own kinds (a pipeline of its own) are 128..=255.
/// let level = AssetKind::game(140).expect("in the game's range");
/// assert!(level.is_game() && AssetKind::game(3).is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct AssetKind(pub u8);

impl AssetKind {
    /// A `.ktx2` texture.
    pub const TEXTURE: Self = Self(0);
    /// An `.hmesh`.
    pub const MESH: Self = Self(1);
    /// An `.hmat` material table.
    pub const MATERIAL: Self = Self(2);
    /// A 3D LUT `.ktx2`.
    pub const LUT: Self = Self(3);
    /// A shader.
    pub const SHADER: Self = Self(4);
    /// An opaque file, packed as it is.
    pub const BLOB: Self = Self(5);
    /// An `.hanim`.
    pub const ANIMATION: Self = Self(6);
    /// A font.
    pub const FONT: Self = Self(7);
    /// The `assets.hman` manifest itself (a pack entry; never a manifest row).
    pub const MANIFEST: Self = Self(8);
    /// An `.hscene` (pak's `[scene]` asset files).
    pub const SCENE: Self = Self(9);
    /// The `assets.hnames` name table (a pack entry; never a manifest row).
    pub const NAMES: Self = Self(10);
    /// The first value of the game's range.
    pub const FIRST_GAME: u8 = 128;

    /// A game-defined kind: `value` must be in 128..=255 (hearth's own range is 0..=127).
    pub const fn game(value: u8) -> Option<Self> {
        if value >= Self::FIRST_GAME {
            Some(Self(value))
        } else {
            None
        }
    }

    /// Whether the value is in the game's range (128..=255).
    pub const fn is_game(self) -> bool {
        self.0 >= Self::FIRST_GAME
    }

    /// The stored byte.
    pub const fn value(self) -> u8 {
        self.0
    }

    /// A short lowercase name for hearth's known kinds; `None` for game kinds and for hearth
    /// kinds newer than this reader.
    pub fn name(self) -> Option<&'static str> {
        self.facts().map(|facts| facts.name)
    }

    /// The extensions of this kind's runtime files, lowercase, without the leading dot, the
    /// usual one first (`["ktx2"]`, `["lut.ktx2"]`, `["hfont", "ttf", "otf", "fnt"]`); empty
    /// for blob, game kinds and kinds newer than this reader. Loaders register these (as
    /// `bevy_hearth` does).
    ///
    /// ```
    /// use hearth::AssetKind;
    /// assert_eq!(AssetKind::MESH.extensions(), ["hmesh"]);
    /// assert_eq!(AssetKind::from_path("court/floor.KTX2"), AssetKind::TEXTURE);
    /// assert_eq!(AssetKind::from_path("grade.lut.ktx2"), AssetKind::LUT);
    /// ```
    pub fn extensions(self) -> &'static [&'static str] {
        self.facts().map_or(&[], |facts| facts.extensions)
    }

    /// The runtime path of this kind's file for `stem`: `stem` and the kind's usual extension
    /// (`models/chair` → `models/chair.hmesh`); `stem` itself for a kind without one.
    pub fn file_name(self, stem: &str) -> String {
        match self.extensions().first() {
            Some(extension) => format!("{stem}.{extension}"),
            None => stem.to_owned(),
        }
    }

    /// `path` without this kind's usual extension (`models/chair.hmesh` → `models/chair`);
    /// `None` when it does not end with it.
    pub fn strip_extension(self, path: &str) -> Option<&str> {
        let extension = self.extensions().first()?;
        path.strip_suffix(extension)?.strip_suffix('.')
    }

    /// The kind whose extension ends `path` (the longest that matches, so `x.lut.ktx2` is a
    /// LUT, not a texture), case-insensitively; blob for any other path. What tools take a
    /// file's kind to be when no `assets.hman` row names it.
    pub fn from_path(path: &str) -> Self {
        let lower = path.to_ascii_lowercase();
        KINDS
            .iter()
            .flat_map(|facts| facts.extensions.iter().map(move |ext| (facts.kind, *ext)))
            .filter(|(_, ext)| {
                lower.len() > ext.len()
                    && lower.ends_with(ext)
                    && lower.as_bytes()[lower.len() - ext.len() - 1] == b'.'
            })
            .max_by_key(|(_, ext)| ext.len())
            .map_or(Self::BLOB, |(kind, _)| kind)
    }

    /// The kind of a file copied as it is (the blob pipeline, pak's asset files): the kind
    /// that takes files of its extension unchanged (shaders' `.spv`/`.wgsl`/…, fonts'
    /// `.ttf`/`.otf`/`.fnt`), else blob.
    pub fn of_opaque_file(path: &str) -> Self {
        let extension = path
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        KINDS
            .iter()
            .find(|facts| facts.opaque_extensions.contains(&extension.as_str()))
            .map_or(Self::BLOB, |facts| facts.kind)
    }

    /// This kind's row of [`KINDS`].
    fn facts(self) -> Option<&'static KindFacts> {
        KINDS.iter().find(|facts| facts.kind == self)
    }
}

/// What every part of hearth knows of one built-in kind: its name and its files' extensions.
/// [`KINDS`] is the one table of them; the baker, the readers, the tools and `bevy_hearth`
/// read it rather than naming extensions themselves.
#[derive(Debug, Clone, Copy)]
pub struct KindFacts {
    /// The kind.
    pub kind: AssetKind,
    /// Its short lowercase name (`texture`, `mesh`, …), as tools print it.
    pub name: &'static str,
    /// The extensions of its runtime files, lowercase, without the dot, the usual one first.
    pub extensions: &'static [&'static str],
    /// The extensions among them that a file copied as it is keeps (see
    /// [`AssetKind::of_opaque_file`]).
    pub opaque_extensions: &'static [&'static str],
}

/// hearth's built-in kinds, in value order.
pub const KINDS: [KindFacts; 11] = [
    facts(AssetKind::TEXTURE, "texture", &["ktx2"], &[]),
    facts(AssetKind::MESH, "mesh", &["hmesh"], &[]),
    facts(AssetKind::MATERIAL, "material", &["hmat"], &[]),
    facts(AssetKind::LUT, "lut", &["lut.ktx2"], &[]),
    facts(AssetKind::SHADER, "shader", SHADER_FILES, SHADER_FILES),
    facts(AssetKind::BLOB, "blob", &[], &[]),
    facts(AssetKind::ANIMATION, "animation", &["hanim"], &[]),
    facts(
        AssetKind::FONT,
        "font",
        &["hfont", "ttf", "otf", "fnt"],
        &["ttf", "otf", "fnt"],
    ),
    facts(AssetKind::MANIFEST, "manifest", &["hman"], &[]),
    facts(AssetKind::SCENE, "scene", &["hscene"], &[]),
    facts(AssetKind::NAMES, "names", &["hnames"], &[]),
];

/// A shader's files: SPIR-V and the text languages, copied as they are.
const SHADER_FILES: &[&str] = &["spv", "wgsl", "glsl", "hlsl"];

const fn facts(
    kind: AssetKind,
    name: &'static str,
    extensions: &'static [&'static str],
    opaque_extensions: &'static [&'static str],
) -> KindFacts {
    KindFacts {
        kind,
        name,
        extensions,
        opaque_extensions,
    }
}

impl std::fmt::Display for AssetKind {
    /// The kind's name, or `game(N)` / `kind(N)` for values this reader does not name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None if self.is_game() => write!(f, "game({})", self.0),
            None => write!(f, "kind({})", self.0),
        }
    }
}

//! Deterministic content for the benches: JSON-like text, mesh-like binary and incompressible
//! noise, in sizes from a few hundred bytes to a few hundred KiB. Nothing here touches the disk
//! except [`write_tree`].
#![allow(dead_code)] // each bench target uses a different part

use std::path::Path;

/// splitmix64: tiny, fast, and the same on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    pub fn f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
}

const WORDS: &[&str] = &[
    "goblin",
    "archer",
    "knight",
    "forest",
    "castle",
    "dungeon",
    "torch",
    "shield",
    "sword",
    "potion",
    "health",
    "mana",
    "stamina",
    "quest",
    "reward",
    "village",
    "merchant",
    "dragon",
    "scroll",
    "arrow",
    "bridge",
    "river",
    "mountain",
    "cave",
    "spider",
    "skeleton",
    "ghost",
    "treasure",
    "chest",
    "key",
    "door",
    "lever",
    "trap",
    "spike",
    "fire",
    "ice",
    "poison",
    "lightning",
    "armor",
    "helmet",
    "boots",
    "gloves",
    "ring",
    "amulet",
    "gold",
    "silver",
    "bronze",
    "iron",
    "steel",
    "wood",
    "stone",
    "crystal",
    "shadow",
    "light",
    "dark",
    "ancient",
    "cursed",
    "blessed",
    "hidden",
    "broken",
    "rusty",
    "shiny",
    "heavy",
    "swift",
    "silent",
    "the",
    "a",
    "of",
    "and",
    "to",
    "in",
    "with",
    "from",
    "at",
    "by",
    "on",
    "is",
    "was",
];

/// JSON-like game data (entity definitions): compresses roughly 4-8x, like real level data.
pub fn json_text(rng: &mut Rng, size: usize) -> Vec<u8> {
    let mut out = String::with_capacity(size + 512);
    out.push_str("{\"entities\":[\n");
    let mut id = rng.below(100_000);
    while out.len() < size {
        id += 1 + rng.below(3);
        let w = |rng: &mut Rng| WORDS[rng.below(WORDS.len() as u64) as usize];
        let name = format!("{}_{}", w(rng), w(rng));
        let desc: Vec<&str> = (0..4 + rng.below(12)).map(|_| w(rng)).collect();
        out.push_str(&format!(
            "  {{\"id\": {id}, \"name\": \"{name}\", \"pos\": [{:.2}, {:.2}, {:.2}], \"hp\": {}, \
             \"tags\": [\"{}\", \"{}\"], \"visible\": {}, \"desc\": \"{}\"}},\n",
            rng.f32() * 512.0 - 256.0,
            rng.f32() * 64.0,
            rng.f32() * 512.0 - 256.0,
            10 * (1 + rng.below(50)),
            w(rng),
            w(rng),
            rng.below(4) != 0,
            desc.join(" "),
        ));
    }
    out.push_str("]}\n");
    let mut bytes = out.into_bytes();
    bytes.truncate(size);
    bytes
}

/// Mesh-like binary: interleaved f32 position/normal/uv of a smooth surface, then u16 indices.
/// Compresses about 1.3-2x, like real vertex data.
pub fn mesh_binary(rng: &mut Rng, size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + 64);
    let vertex_bytes = size * 3 / 4;
    let mut t = 0.0f32;
    let step = 0.001 + rng.f32() * 0.01;
    while out.len() < vertex_bytes {
        t += step;
        let (x, y, z) = (t.cos() * 3.0, (t * 0.37).sin() * 2.0, t.sin() * 3.0);
        // Positions quantized to 1/1024 so the low mantissa bits repeat, as exported meshes do.
        let q = |v: f32| (v * 1024.0).round() / 1024.0;
        for v in [
            q(x),
            q(y),
            q(z),
            t.cos(),
            0.0,
            t.sin(),
            q(t.fract()),
            q((t * 0.5).fract()),
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    let mut i = 0u16;
    while out.len() < size {
        for d in [0u16, 1, 2, 2, 1, 3] {
            out.extend_from_slice(&i.wrapping_add(d).to_le_bytes());
        }
        i = i.wrapping_add(2);
    }
    out.truncate(size);
    out
}

/// Incompressible bytes (stands in for already-compressed audio or textures).
pub fn noise(rng: &mut Rng, size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + 8);
    while out.len() < size {
        out.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    out.truncate(size);
    out
}

/// A size between `min` and `max`, log-uniform (many small files, a few big ones).
pub fn log_size(rng: &mut Rng, min: usize, max: usize) -> usize {
    let (lo, hi) = ((min as f64).ln(), (max as f64).ln());
    (lo + (hi - lo) * rng.f32() as f64).exp() as usize
}

/// A mixed set of files, sorted by path, until `total` bytes or `count` files, whichever comes
/// first: about 55% JSON text, 35% mesh binary and 10% noise by count. Extensions avoid the
/// ones either baker treats specially (images, `.toml`, already-compressed containers).
pub fn mixed_files(
    seed: u64,
    total: usize,
    count: usize,
    min: usize,
    max: usize,
) -> Vec<(String, Vec<u8>)> {
    let mut rng = Rng::new(seed);
    let mut files = Vec::new();
    let mut sum = 0;
    let mut index = 0;
    while sum < total && index < count {
        let size = log_size(&mut rng, min, max).min(total - sum).max(1);
        let roll = rng.below(100);
        let (dir, ext, bytes) = if roll < 55 {
            ("levels", "json", json_text(&mut rng, size))
        } else if roll < 90 {
            ("meshes", "vtx", mesh_binary(&mut rng, size))
        } else {
            ("sounds", "dat", noise(&mut rng, size))
        };
        let path = format!("data/{dir}/{:02}/{dir}_{index:05}.{ext}", index % 16);
        sum += bytes.len();
        files.push((path, bytes));
        index += 1;
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

/// `count` tiny entries with a realistic tree shape (for open and lookup costs, not I/O).
pub fn many_paths(count: usize) -> Vec<String> {
    let mut paths: Vec<String> = (0..count)
        .map(|i| {
            format!(
                "world/region_{:03}/cell_{:02}/prop_{i:07}.hmesh",
                i / 1000,
                (i / 50) % 20
            )
        })
        .collect();
    paths.sort();
    paths
}

/// Writes `files` under `root`, creating folders.
pub fn write_tree(root: &Path, files: &[(String, Vec<u8>)]) {
    for (path, bytes) in files {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
    }
}

/// Sum of the files' sizes.
pub fn total_bytes(files: &[(String, Vec<u8>)]) -> u64 {
    files.iter().map(|(_, b)| b.len() as u64).sum()
}

//! The example game's own asset kind: a level, baked from `*.level.toml` by the pipeline in
//! build.rs and read by the game at run time. This file is shared by both (build.rs includes
//! it with `#[path]`), so the writer and the reader cannot drift apart.
//!
//! Layout (little-endian): magic `LVL1` | name length u32 | name UTF-8 | spawn f32x3 |
//! ground texture hash u64 | prop count u32 | props: mesh hash u64, position f32x3, scale f32.
//! Hashes are hearth asset hashes, resolved at run time through the pack's manifest.

/// The level kind's value in `assets.hman` and the pack (128..=255 are the game's).
#[allow(dead_code)] // used by build.rs only
pub const KIND: u8 = 130;
const MAGIC: &[u8; 4] = b"LVL1";

/// A decoded level.
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    pub name: String,
    pub spawn: [f32; 3],
    pub ground: u64,
    pub props: Vec<Prop>,
}

/// A mesh placed in a level.
#[derive(Debug, Clone, PartialEq)]
pub struct Prop {
    pub mesh: u64,
    pub position: [f32; 3],
    pub scale: f32,
}

#[allow(dead_code)] // used by build.rs only
pub fn encode(level: &Level) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend((level.name.len() as u32).to_le_bytes());
    out.extend(level.name.as_bytes());
    level.spawn.iter().for_each(|v| out.extend(v.to_le_bytes()));
    out.extend(level.ground.to_le_bytes());
    out.extend((level.props.len() as u32).to_le_bytes());
    for prop in &level.props {
        out.extend(prop.mesh.to_le_bytes());
        prop.position
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes()));
        out.extend(prop.scale.to_le_bytes());
    }
    out
}

/// Decodes a level, checking every length against the bytes.
#[allow(dead_code)] // used by the game only
pub fn decode(bytes: &[u8]) -> Result<Level, String> {
    let mut at: usize = 0;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let slice = at
            .checked_add(n)
            .and_then(|end| bytes.get(at..end))
            .ok_or("level truncated")?;
        at += n;
        Ok(slice)
    };
    if take(4)? != MAGIC {
        return Err("not a level (bad magic)".into());
    }
    let u32_of = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap());
    let f32_of = |b: &[u8]| f32::from_le_bytes(b.try_into().unwrap());
    let u64_of = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap());
    let name_len = u32_of(take(4)?) as usize;
    let name = String::from_utf8(take(name_len)?.to_vec()).map_err(|_| "level name not UTF-8")?;
    let mut spawn = [0.0; 3];
    for v in &mut spawn {
        *v = f32_of(take(4)?);
    }
    let ground = u64_of(take(8)?);
    let count = u32_of(take(4)?) as usize;
    let mut props = Vec::new();
    for _ in 0..count {
        let mesh = u64_of(take(8)?);
        let mut position = [0.0; 3];
        for v in &mut position {
            *v = f32_of(take(4)?);
        }
        let scale = f32_of(take(4)?);
        props.push(Prop {
            mesh,
            position,
            scale,
        });
    }
    if at != bytes.len() {
        return Err("trailing bytes after the level".into());
    }
    Ok(Level {
        name,
        spawn,
        ground,
        props,
    })
}

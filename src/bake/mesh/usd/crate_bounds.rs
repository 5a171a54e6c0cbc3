//! Bounds on a crate (`.usdc`) file's counts, checked before openusd reads it.
//!
//! openusd 0.6's crate reader allocates what a count in the file asks for before it reads
//! the bytes behind it (`vec![0; count]`), so a damaged or hostile file can ask for hundreds
//! of gigabytes, and a failed allocation aborts the process (no error, no unwind). This walk
//! reads every count the reader allocates by, the sections' and the arrays', and refuses the
//! file when one is more than the bytes behind it can hold (at most LZ4's expansion for
//! compressed data) or more than [`MAX_ELEMENTS`]. Dictionaries, list ops and time-sample maps
//! are left to the reader: their counts allocate per element read.

/// The most elements (tokens, fields, paths, specs, array values) one count may ask for.
const MAX_ELEMENTS: u64 = 1 << 26;

/// The most bytes a compressed block may expand to.
const MAX_EXPANDED_BYTES: u64 = 1 << 30;

/// How far one compressed byte may expand: LZ4's bound, and integer coding's 2 bits per value.
const EXPANSION: u64 = 1024;

const ARRAY_BIT: u64 = 1 << 63;
const INLINED_BIT: u64 = 1 << 62;
const COMPRESSED_BIT: u64 = 1 << 61;
const PAYLOAD_MASK: u64 = (1 << 48) - 1;

struct Crate<'a> {
    bytes: &'a [u8],
    version: (u8, u8),
}

impl Crate<'_> {
    fn u64_at(&self, at: u64) -> Result<u64, String> {
        let at = usize::try_from(at).map_err(|_| "an offset past the file".to_string())?;
        let bytes = self
            .bytes
            .get(at..at.saturating_add(8))
            .ok_or_else(|| format!("offset {at} is past the file's {} bytes", self.bytes.len()))?;
        Ok(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
    }

    fn u32_at(&self, at: u64) -> Result<u64, String> {
        let at = usize::try_from(at).map_err(|_| "an offset past the file".to_string())?;
        let bytes = self
            .bytes
            .get(at..at.saturating_add(4))
            .ok_or_else(|| format!("offset {at} is past the file"))?;
        Ok(u32::from_le_bytes(bytes.try_into().expect("4 bytes")) as u64)
    }

    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// A compressed block at `at` (a u64 size, then the bytes) inside `end`: its data's range
    /// and the position after it.
    fn block(&self, at: u64, end: u64) -> Result<(u64, u64, u64), String> {
        let size = self.u64_at(at)?;
        let start = at + 8;
        if size > end.saturating_sub(start) {
            return Err(format!(
                "a compressed block of {size} bytes at {at} runs past its section"
            ));
        }
        Ok((start, size, start + size))
    }

    /// A section's element count, bounded by its size.
    fn count(&self, at: u64, section_size: u64, what: &str) -> Result<u64, String> {
        let count = self.u64_at(at)?;
        let bound = MAX_ELEMENTS.min(section_size.saturating_mul(EXPANSION) + 16);
        if count > bound {
            return Err(format!(
                "{what}: {count} in a {section_size}-byte section (at most {bound})"
            ));
        }
        Ok(count)
    }
}

/// Refuses a crate file whose counts ask for more than it can hold (see the module docs).
pub fn check(bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < 88 {
        return Err("a crate file shorter than its 88-byte bootstrap".into());
    }
    let file = Crate {
        bytes,
        version: (bytes[8], bytes[9]),
    };
    let toc = file.u64_at(16)?;
    let sections = file.u64_at(toc)?;
    if sections == 0 || sections >= 64 {
        return Err(format!("{sections} sections"));
    }
    let mut reps = Vec::new();
    for i in 0..sections {
        let at = toc + 8 + i * 32;
        let name = bytes
            .get(at as usize..at as usize + 16)
            .ok_or("the table of contents runs past the file")?;
        let name: Vec<u8> = name.iter().copied().take_while(|&b| b != 0).collect();
        let (start, size) = (file.u64_at(at + 16)?, file.u64_at(at + 24)?);
        if start.checked_add(size).is_none_or(|end| end > file.len()) {
            return Err(format!(
                "section {:?} runs past the file",
                String::from_utf8_lossy(&name)
            ));
        }
        check_section(&file, &name, start, size, &mut reps)
            .map_err(|e| format!("section {}: {e}", String::from_utf8_lossy(&name)))?;
    }
    for rep in reps {
        check_value(&file, rep)?;
    }
    Ok(())
}

fn check_section(
    file: &Crate<'_>,
    name: &[u8],
    start: u64,
    size: u64,
    reps: &mut Vec<u64>,
) -> Result<(), String> {
    let end = start + size;
    match name {
        b"TOKENS" => {
            let count = file.count(start, size, "tokens")?;
            let expanded = file.u64_at(start + 8)?;
            let (_, compressed, _) = file.block(start + 16, end)?;
            if expanded > MAX_EXPANDED_BYTES.min(compressed.saturating_mul(EXPANSION) + 64)
                || count > expanded + 1
            {
                return Err(format!(
                    "{count} tokens in {expanded} bytes from {compressed} compressed"
                ));
            }
        }
        b"STRINGS" => {
            let count = file.u64_at(start)?;
            if count.saturating_mul(4) > size {
                return Err(format!("{count} strings in {size} bytes"));
            }
        }
        b"FIELDS" => {
            let count = file.count(start, size, "fields")?;
            let (_, _, next) = file.block(start + 8, end)?;
            let (data, length, _) = file.block(next, end)?;
            reps.extend(value_reps(file, data, length, count)?);
        }
        b"FIELDSETS" => {
            file.count(start, size, "field sets")?;
            file.block(start + 8, end)?;
        }
        b"PATHS" | b"SPECS" => {
            file.count(start, size, "paths or specs")?;
            let mut at = start + 8;
            if name == b"PATHS" {
                file.count(at, size, "encoded paths")?;
                at += 8;
            }
            for _ in 0..3 {
                at = file.block(at, end)?.2;
            }
        }
        _ => {}
    }
    Ok(())
}

/// The FIELDS section's value representations (LZ4, OpenUSD's one-chunk framing).
fn value_reps(file: &Crate<'_>, data: u64, length: u64, count: u64) -> Result<Vec<u64>, String> {
    let block = &file.bytes[data as usize..(data + length) as usize];
    let Some((&0, lz4)) = block.split_first() else {
        return Err("value representations in a chunked or empty block".into());
    };
    let mut out = vec![0u8; count as usize * 8];
    let written = lz4_flex::block::decompress_into(lz4, &mut out)
        .map_err(|e| format!("value representations: {e}"))?;
    Ok(out[..written - written % 8]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}

/// Types whose value starts with a count of elements of at least 4 bytes each: dictionaries,
/// path, token, string and layer-offset vectors, variant selections, relocates.
const COUNTED: [u64; 7] = [31, 40, 41, 45, 49, 50, 58];

/// List ops: a header byte, then its first list's count.
const LIST_OPS: [u64; 10] = [32, 33, 34, 35, 36, 37, 38, 39, 54, 55];

/// A value's count (an array's, or the first count of a counted type) against the bytes behind
/// it.
fn check_value(file: &Crate<'_>, rep: u64) -> Result<(), String> {
    let payload = rep & PAYLOAD_MASK;
    if rep & INLINED_BIT != 0 || payload == 0 {
        return Ok(());
    }
    let ty = (rep >> 48) & 0xFF;
    if rep & ARRAY_BIT == 0 {
        let at = match ty {
            t if COUNTED.contains(&t) => payload,
            t if LIST_OPS.contains(&t) => payload + 1,
            _ => return Ok(()),
        };
        let count = file.u64_at(at)?;
        let behind = file.len().saturating_sub(at + 8);
        if count > behind / 4 {
            return Err(format!(
                "a value of type {ty} with {count} elements and {behind} bytes behind it"
            ));
        }
        return Ok(());
    }
    let mut at = payload;
    if file.version < (0, 5) {
        at += 4;
    }
    let count = if file.version < (0, 7) {
        let count = file.u32_at(at)?;
        at += 4;
        count
    } else {
        let count = file.u64_at(at)?;
        at += 8;
        count
    };
    let behind = file.len().saturating_sub(at);
    let compressed = rep & COMPRESSED_BIT != 0 && count >= 4;
    let bound = if compressed {
        MAX_ELEMENTS.min(behind.saturating_mul(EXPANSION))
    } else {
        behind
    };
    if count > bound {
        return Err(format!(
            "an array of {count} values at {payload} with {behind} bytes behind it"
        ));
    }
    if !compressed {
        return Ok(());
    }
    // A compressed array's coded integers: a block whose size the reader allocates by. Float
    // arrays first say how they are coded: `i` (as integers) or `t` (a lookup table, then
    // integer indices into it).
    let block_at = match ty {
        3..=6 => at,
        7..=9 => {
            let width = [2, 4, 8][(ty - 7) as usize];
            match file.bytes.get(at as usize) {
                Some(b'i') => at + 1,
                Some(b't') => {
                    let table = file.u32_at(at + 1)?;
                    if table > count || table.saturating_mul(width) > behind {
                        return Err(format!(
                            "a lookup table of {table} values for {count} at {payload}"
                        ));
                    }
                    at + 5 + table * width
                }
                _ => return Ok(()),
            }
        }
        _ => return Ok(()),
    };
    file.block(block_at, file.len())?;
    Ok(())
}

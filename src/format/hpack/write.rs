//! Writing packs: v2, and the v3 layout at versions 3, 4 and 5 (signed), as a [`PackLayout`]
//! (the tables, then each entry's stored bytes in place) that is written out piece by piece,
//! or joined.

use super::*;

/// One file to be written into a pack.
#[derive(Debug, Clone, Copy)]
pub struct PackInput<'a> {
    /// Runtime path, `/`-separated, relative to the runtime root.
    pub path: &'a str,
    /// The entry's kind: stored as is in v4; v2 and v3 store assetc's [`PackKind`] of the
    /// path's extension instead.
    pub kind: AssetKind,
    /// How `stored` is encoded (v2 allows only [`Codec::None`]).
    pub codec: Codec,
    /// The payload as stored.
    pub stored: &'a [u8],
    /// The payload's uncompressed size.
    pub size: u64,
}

fn pad_to_alignment(out: &mut Vec<u8>) {
    out.resize(align_up(out.len() as u64) as usize, 0);
}

fn check_inputs(inputs: &[PackInput<'_>]) {
    assert!(
        inputs.windows(2).all(|w| w[0].path < w[1].path),
        "pack inputs must be sorted by path and unique"
    );
}

/// Writes a v2 pack (entry kinds from the paths' extensions, as [`PackKind`]). Inputs must be
/// sorted by path, unique and uncompressed.
///
/// # Panics
/// On unsorted or compressed inputs, or a path over 65535 bytes (caller bugs; the baker checks).
pub fn write_v2(inputs: &[PackInput<'_>]) -> Vec<u8> {
    check_inputs(inputs);
    assert!(
        inputs.iter().all(|i| i.codec == Codec::None),
        "pack v2 cannot hold compressed entries"
    );
    let toc_bytes: usize = inputs.iter().map(|i| 19 + i.path.len()).sum();
    let mut offset = align_up((V2_HEADER_SIZE + toc_bytes) as u64);
    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(inputs.len() as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(toc_bytes as u64).to_le_bytes());
    for input in inputs {
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&(input.stored.len() as u64).to_le_bytes());
        out.push(PackKind::from_path(input.path) as u8);
        out.extend_from_slice(
            &u16::try_from(input.path.len())
                .expect("path over 65535 bytes")
                .to_le_bytes(),
        );
        out.extend_from_slice(input.path.as_bytes());
        offset = align_up(offset + input.stored.len() as u64);
    }
    for input in inputs {
        pad_to_alignment(&mut out);
        out.extend_from_slice(input.stored);
    }
    pad_to_alignment(&mut out);
    out
}

/// Writes a v3 pack (entry kinds from the paths' extensions, as [`PackKind`]). Inputs must be
/// sorted by path and unique.
///
/// # Panics
/// On unsorted inputs, or a file name over 65535 bytes (caller bugs; the baker checks).
pub fn write_v3(inputs: &[PackInput<'_>]) -> Vec<u8> {
    layout_v3(inputs, &checksums(inputs)).to_vec()
}

/// [`write_v3`]'s pack, laid out but not joined, with the inputs' `checksums` given (see
/// [`layout_v4`]).
///
/// # Panics
/// As [`write_v3`], and on a checksum count that is not the input count.
pub fn layout_v3<'a>(inputs: &[PackInput<'a>], checksums: &[u64]) -> PackLayout<'a> {
    layout_tables(inputs, checksums, 3, None)
}

/// Each input's entry checksum (xxh3-64 of its stored bytes), as v3 and later record it.
pub fn checksums(inputs: &[PackInput<'_>]) -> Vec<u64> {
    inputs
        .iter()
        .map(|input| xxhash_rust::xxh3::xxh3_64(input.stored))
        .collect()
}

/// Writes a v4 pack: v3's layout with each input's [`AssetKind`] in the kind byte. Inputs must
/// be sorted by path and unique.
///
/// # Panics
/// On unsorted inputs, or a file name over 65535 bytes (caller bugs; the baker checks).
pub fn write_v4(inputs: &[PackInput<'_>]) -> Vec<u8> {
    layout_v4(inputs, &checksums(inputs)).to_vec()
}

/// [`write_v4`]'s pack, laid out but not joined: its parts borrow the inputs' stored bytes.
/// `checksums` are the inputs' [`checksums`], which a caller may know already (an entry
/// copied from an earlier pack) or compute in parallel.
///
/// # Panics
/// As [`write_v4`], and on a checksum count that is not the input count.
pub fn layout_v4<'a>(inputs: &[PackInput<'a>], checksums: &[u64]) -> PackLayout<'a> {
    layout_tables(inputs, checksums, 4, None)
}

/// Signs v5 packs. The cryptography lives with the caller (the baker's Ed25519 key): this
/// module only lays out bytes.
pub trait PackSigner {
    /// The Ed25519 public key stored in the signature block.
    fn public_key(&self) -> [u8; 32];
    /// The Ed25519 signature of `message` ([`V5_SIGNATURE_CONTEXT`] + bytes `[0, data_offset)`).
    fn sign(&self, message: &[u8]) -> [u8; 64];
}

/// Writes a signed v5 pack: v4's layout, then after the string table a BLAKE3 digest per entry
/// (`digests[i]` of `inputs[i].stored`, computed by the caller), and at the end the signature
/// block. Inputs must be sorted by path and unique.
///
/// # Panics
/// On unsorted inputs, a digest count that is not the input count, or a file name over 65535
/// bytes (caller bugs; the baker checks).
pub fn write_v5(
    inputs: &[PackInput<'_>],
    digests: &[[u8; V5_DIGEST_SIZE]],
    signer: &dyn PackSigner,
) -> Vec<u8> {
    layout_v5(inputs, &checksums(inputs), digests, signer).to_vec()
}

/// [`write_v5`]'s pack, laid out but not joined, with the inputs' `checksums` given (see
/// [`layout_v4`]).
///
/// # Panics
/// As [`write_v5`], and on a checksum count that is not the input count.
pub fn layout_v5<'a>(
    inputs: &[PackInput<'a>],
    checksums: &[u64],
    digests: &[[u8; V5_DIGEST_SIZE]],
    signer: &dyn PackSigner,
) -> PackLayout<'a> {
    assert_eq!(inputs.len(), digests.len(), "one digest per entry");
    layout_tables(inputs, checksums, 5, Some((digests, signer)))
}

/// A pack laid out: its tables (`head`: header, entries, folders, hash index, strings and a v5
/// pack's digests, padded), each entry's stored bytes (borrowed, each padded to [`ALIGN`]),
/// and a v5 pack's signature block (`tail`), in file order. [`parts`](Self::parts) gives them
/// as slices to write one after another, so a pack is written without being joined in
/// memory; [`to_vec`](Self::to_vec) joins them.
#[derive(Debug, Clone)]
pub struct PackLayout<'a> {
    head: Vec<u8>,
    data: Vec<&'a [u8]>,
    tail: Vec<u8>,
}

/// Padding after an entry: never more than `ALIGN - 1` zero bytes.
static ZEROS: [u8; ALIGN as usize] = [0; ALIGN as usize];

impl<'a> PackLayout<'a> {
    /// A pack already joined (v2's writer) as a layout of one part.
    pub fn joined(bytes: Vec<u8>) -> Self {
        Self {
            head: bytes,
            data: Vec::new(),
            tail: Vec::new(),
        }
    }

    /// The pack's size in bytes.
    pub fn len(&self) -> u64 {
        self.parts().map(|part| part.len() as u64).sum()
    }

    /// Whether the pack has no bytes (never, for a laid-out pack: it has a header).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pack's bytes in order, as slices: the tables, each entry's stored bytes and its
    /// padding, the signature block. Empty slices are left out.
    pub fn parts(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let data = self.data.iter().flat_map(|stored| {
            let padding = (align_up(stored.len() as u64) - stored.len() as u64) as usize;
            [*stored, &ZEROS[..padding]]
        });
        std::iter::once(self.head.as_slice())
            .chain(data)
            .chain(std::iter::once(self.tail.as_slice()))
            .filter(|part| !part.is_empty())
    }

    /// The pack's bytes, joined.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len() as usize);
        for part in self.parts() {
            out.extend_from_slice(part);
        }
        out
    }
}

/// The v3 layout at `version` 3, 4 or 5 (v5: with the digests and the signer).
fn layout_tables<'a>(
    inputs: &[PackInput<'a>],
    checksums: &[u64],
    version: u32,
    signing: Option<(&[[u8; V5_DIGEST_SIZE]], &dyn PackSigner)>,
) -> PackLayout<'a> {
    check_inputs(inputs);
    assert_eq!(inputs.len(), checksums.len(), "one checksum per entry");
    debug_assert_eq!(checksums, self::checksums(inputs), "the entries' checksums");
    let parts: Vec<(&str, &str)> = inputs
        .iter()
        .map(|i| i.path.rsplit_once('/').unwrap_or(("", i.path)))
        .collect();

    // Deduplicated string table: each directory and each file name once, in first-use order.
    let mut strings = Vec::new();
    let mut string_offsets: BTreeMap<&str, u32> = BTreeMap::new();
    fn intern<'s>(
        text: &'s str,
        strings: &mut Vec<u8>,
        offsets: &mut BTreeMap<&'s str, u32>,
    ) -> u32 {
        *offsets.entry(text).or_insert_with(|| {
            let offset = strings.len() as u32;
            strings.extend_from_slice(text.as_bytes());
            offset
        })
    }
    let mut dir_index: BTreeMap<&str, u32> = BTreeMap::new();
    for (dir, _) in &parts {
        if !dir.is_empty() {
            dir_index.insert(dir, 0);
        }
    }
    let mut dirs = Vec::with_capacity(dir_index.len());
    for (index, (dir, slot)) in dir_index.iter_mut().enumerate() {
        *slot = index as u32;
        dirs.push(V3Dir {
            offset: intern(dir, &mut strings, &mut string_offsets),
            len: dir.len() as u32,
        });
    }

    let n = inputs.len() as u64;
    let entries_offset = V3_HEADER_SIZE as u64;
    let dirs_offset = entries_offset + n * V3_ENTRY_SIZE as u64;
    let hash_index_offset = dirs_offset + dirs.len() as u64 * V3_DIR_SIZE as u64;
    let strings_offset = hash_index_offset + n * V3_HASH_SLOT_SIZE as u64;

    let mut entries = Vec::with_capacity(inputs.len());
    let mut hash_slots = Vec::with_capacity(inputs.len());
    for (index, ((input, (dir, name)), &checksum)) in
        inputs.iter().zip(&parts).zip(checksums).enumerate()
    {
        entries.push(V3Entry {
            offset: 0, // assigned below, once the string table's size is known
            stored_size: input.stored.len() as u64,
            size: input.size,
            checksum,
            dir: if dir.is_empty() {
                ROOT_DIR
            } else {
                dir_index[dir]
            },
            name_offset: intern(name, &mut strings, &mut string_offsets),
            name_len: u16::try_from(name.len()).expect("file name over 65535 bytes"),
            kind: if version == 3 {
                PackKind::from_path(input.path) as u8
            } else {
                input.kind.0
            },
            codec: input.codec as u8,
            reserved: 0,
        });
        hash_slots.push(V3HashSlot {
            hash: hash_runtime_path(input.path),
            entry: index as u32,
            reserved: 0,
        });
    }
    hash_slots.sort_by_key(|slot| (slot.hash, slot.entry));

    let digests_offset = align_up(strings_offset + strings.len() as u64);
    let data_offset = match signing {
        Some(_) => digests_offset + n * V5_DIGEST_SIZE as u64,
        None => digests_offset,
    };
    let mut offset = data_offset;
    for entry in &mut entries {
        entry.offset = offset;
        offset = align_up(offset + entry.stored_size);
    }
    let (signature_offset, file_size) = match signing {
        Some(_) => (offset, offset + V5_SIGNATURE_SIZE as u64),
        None => (0, offset),
    };
    let mut header = V3Header {
        magic: MAGIC,
        version,
        entry_count: inputs.len() as u32,
        dir_count: dirs.len() as u32,
        flags: 0,
        header_size: V3_HEADER_SIZE as u32,
        file_size,
        entries_offset,
        dirs_offset,
        hash_index_offset,
        strings_offset,
        strings_size: strings.len() as u64,
        data_offset,
        tables_checksum: 0,
        signature_offset,
    };

    let mut head = Vec::with_capacity(data_offset as usize);
    head.extend_from_slice(bytemuck::bytes_of(&header));
    head.extend_from_slice(bytemuck::cast_slice(&entries));
    head.extend_from_slice(bytemuck::cast_slice(&dirs));
    head.extend_from_slice(bytemuck::cast_slice(&hash_slots));
    head.extend_from_slice(&strings);
    pad_to_alignment(&mut head);
    if let Some((digests, _)) = signing {
        head.extend_from_slice(digests.as_flattened());
    }
    header.tables_checksum = tables_checksum(&head[..80], &head[V3_HEADER_SIZE..]);
    head[..V3_HEADER_SIZE].copy_from_slice(bytemuck::bytes_of(&header));
    let mut tail = Vec::new();
    if let Some((_, signer)) = signing {
        let mut message = V5_SIGNATURE_CONTEXT.to_vec();
        message.extend_from_slice(&head);
        tail.extend_from_slice(&signer.public_key());
        tail.extend_from_slice(&signer.sign(&message));
    }
    let layout = PackLayout {
        head,
        data: inputs.iter().map(|input| input.stored).collect(),
        tail,
    };
    debug_assert_eq!(layout.len(), file_size);
    layout
}

#[cfg(test)]
mod tests {
    use super::*;

    struct FixedSigner;

    impl PackSigner for FixedSigner {
        fn public_key(&self) -> [u8; 32] {
            [7; 32]
        }
        fn sign(&self, message: &[u8]) -> [u8; 64] {
            let digest = xxhash_rust::xxh3::xxh3_64(message).to_le_bytes();
            std::array::from_fn(|i| digest[i % 8])
        }
    }

    /// A layout's parts, joined, are the pack: their sizes add up to the header's file size,
    /// each entry's bytes sit at its offset, and a v5 pack's signature covers its tables.
    #[test]
    fn a_layouts_parts_make_the_pack() {
        let stored: Vec<Vec<u8>> = (0..5u8).map(|i| vec![i; 3 + 17 * i as usize]).collect();
        let paths = ["a.bin", "b/c.bin", "b/d.bin", "e.bin", "z/y.bin"];
        let inputs: Vec<PackInput<'_>> = paths
            .iter()
            .zip(&stored)
            .map(|(path, stored)| PackInput {
                path,
                kind: AssetKind::BLOB,
                codec: Codec::None,
                stored,
                size: stored.len() as u64,
            })
            .collect();
        let digests = vec![[1u8; V5_DIGEST_SIZE]; inputs.len()];
        for (version, layout) in [
            (3, layout_v3(&inputs, &checksums(&inputs))),
            (4, layout_v4(&inputs, &checksums(&inputs))),
            (
                5,
                layout_v5(&inputs, &checksums(&inputs), &digests, &FixedSigner),
            ),
        ] {
            let bytes = layout.to_vec();
            assert_eq!(bytes.len() as u64, layout.len());
            let header: V3Header = bytemuck::pod_read_unaligned(&bytes[..V3_HEADER_SIZE]);
            assert_eq!(header.version, version);
            assert_eq!(header.file_size, layout.len());
            let entries: &[V3Entry] = bytemuck::cast_slice(
                &bytes[V3_HEADER_SIZE..V3_HEADER_SIZE + inputs.len() * V3_ENTRY_SIZE],
            );
            for (entry, input) in entries.iter().zip(&inputs) {
                let at = entry.offset as usize;
                assert_eq!(&bytes[at..at + input.stored.len()], input.stored);
                assert_eq!(entry.offset % ALIGN, 0);
            }
            assert!(layout.parts().all(|part| !part.is_empty()));
            if version == 5 {
                let signed = &bytes[header.signature_offset as usize..];
                let mut message = V5_SIGNATURE_CONTEXT.to_vec();
                message.extend_from_slice(&bytes[..header.data_offset as usize]);
                assert_eq!(&signed[32..], FixedSigner.sign(&message));
            }
        }
    }
}

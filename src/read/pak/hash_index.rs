//! The in-memory hash index of a v3+ pack ([`HashIndex`]), built on the first lookup by
//! [`PakReader`](crate::PakReader).

use crate::format::hpack;

/// An in-memory open-addressed table over a v3+ pack's hash slots, one slot per distinct
/// hash: a lookup by hash reads one cache line of this table (linear probing at most 0.8
/// load: 1.5 slots on average for a hit), then the entry's row. Every entry's row and path
/// are validated once while the table is built (one pass in entry order), so an entry found
/// through it reads its path only when asked ([`Entry::path`]). Entries sharing a hash (paths
/// differing only in case) follow their first one in the file's sorted hash slots.
///
/// A hash's home slot is its top bits: the file's slots are sorted by hash, so the table
/// fills front to back in one sequential pass. FNV-1a spreads real paths evenly; a crafted
/// pack whose hashes crowd together (a probe run past [`HashIndex::MAX_PROBE`]) gets no
/// table, and its lookups binary-search the file's slots instead. 16 bytes per slot, 1.25
/// to 2.5 slots per distinct hash; built on the first lookup. File slots that name no entry
/// (a corrupt pack; `verify` says so) are left out.
#[derive(Debug)]
pub(crate) enum HashIndex {
    Table {
        shift: u32,
        slots: Box<[IndexSlot]>,
    },
    /// Binary search over the file's sorted hash slots.
    Sorted,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct IndexSlot {
    pub(crate) hash: u64,
    /// Bits 0–30: the first entry (in file order) with this hash. Bit 31: its row and path
    /// passed validation at build time. [`IndexSlot::EMPTY`] in an empty slot.
    entry: u32,
    /// The entry's name offset, copied from its row so that a lookup by path reads the name
    /// and the row at once (two parallel cache misses, not two in a row).
    pub(crate) name_offset: u32,
}

impl IndexSlot {
    const EMPTY: u32 = u32::MAX;
    const CHECKED: u32 = 1 << 31;

    pub(crate) fn checked(&self) -> bool {
        self.entry & Self::CHECKED != 0
    }

    pub(crate) fn entry(&self) -> usize {
        (self.entry & !Self::CHECKED) as usize
    }
}

impl HashIndex {
    /// The longest probe run the table accepts (real packs stay in single digits).
    const MAX_PROBE: usize = 64;

    /// Packs are opened with fewer than 2^31 entries, so entry indices fit in 31 bits.
    pub(crate) fn build(layout: &hpack::V3Layout, bytes: &[u8], max_entry_size: u64) -> Self {
        let len = layout.len();
        let utf8 = |text: &[u8]| text.is_ascii() || std::str::from_utf8(text).is_ok();
        // Directories are shared by many entries: each is checked once.
        let dirs_valid: Vec<bool> = (0..layout.header.dir_count)
            .map(|dir| layout.dir_name(bytes, dir).is_ok_and(utf8))
            .collect();
        // Each entry's name offset and whether it is valid, in one pass in entry order.
        let rows: Vec<(u32, bool)> = (0..len)
            .map(|index| {
                let raw = layout.raw_entry(bytes, index);
                let dir_valid = raw.dir == hpack::ROOT_DIR
                    || dirs_valid.get(raw.dir as usize).copied().unwrap_or(false);
                let valid = dir_valid
                    && layout.check_entry(&raw, max_entry_size).is_ok()
                    && layout
                        .name(bytes, raw.name_offset, raw.name_len as usize)
                        .is_ok_and(utf8);
                (raw.name_offset, valid)
            })
            .collect();
        // At least one slot more than entries: a miss ends at an empty slot (the probe bound
        // below ends it anyway, but a full table would make every miss walk that far).
        let capacity = (len + len / 4 + 1).max(2).next_power_of_two();
        let shift = 64 - capacity.trailing_zeros();
        let mask = capacity - 1;
        let empty = IndexSlot {
            hash: 0,
            entry: IndexSlot::EMPTY,
            name_offset: 0,
        };
        let mut slots = vec![empty; capacity].into_boxed_slice();
        for file_slot in 0..len {
            let slot = layout.raw_hash_slot(bytes, file_slot);
            let Some(&(name_offset, valid)) = rows.get(slot.entry as usize) else {
                continue;
            };
            let home = (slot.hash >> shift) as usize;
            let mut placed = false;
            for probe in 0..=Self::MAX_PROBE {
                let here = &mut slots[(home + probe) & mask];
                if here.entry == IndexSlot::EMPTY {
                    *here = IndexSlot {
                        hash: slot.hash,
                        entry: slot.entry | if valid { IndexSlot::CHECKED } else { 0 },
                        name_offset,
                    };
                    placed = true;
                    break;
                }
                if here.hash == slot.hash {
                    placed = true; // a later entry of the same hash: found through the file's slots
                    break;
                }
            }
            if !placed {
                return Self::Sorted;
            }
        }
        Self::Table { shift, slots }
    }

    /// The slot of `hash`, if any entry has it. Without a table, the first file slot of
    /// `hash`, unchecked.
    pub(crate) fn get(
        &self,
        layout: &hpack::V3Layout,
        bytes: &[u8],
        hash: u64,
    ) -> Option<IndexSlot> {
        let (shift, slots) = match self {
            Self::Table { shift, slots } => (*shift, slots),
            Self::Sorted => {
                let at = first_hash_slot(layout, bytes, hash);
                let slot = (at < layout.len()).then(|| layout.raw_hash_slot(bytes, at))?;
                // An entry past the table (corrupt) is left out, as in the table.
                let in_table = (slot.entry as usize) < layout.len();
                return (slot.hash == hash && in_table).then_some(IndexSlot {
                    hash,
                    entry: slot.entry,
                    name_offset: 0,
                });
            }
        };
        let mask = slots.len() - 1;
        let home = (hash >> shift) as usize;
        // `build` placed every hash within MAX_PROBE slots of its home, so the probe stops
        // there even if no slot on the way is empty.
        for probe in 0..=Self::MAX_PROBE.min(mask) {
            let slot = slots[(home + probe) & mask];
            if slot.entry == IndexSlot::EMPTY {
                return None;
            }
            if slot.hash == hash {
                return Some(slot);
            }
        }
        None
    }
}

/// The first of the file's sorted hash slots whose hash is not below `hash`.
pub(crate) fn first_hash_slot(layout: &hpack::V3Layout, bytes: &[u8], hash: u64) -> usize {
    let (mut low, mut high) = (0, layout.len());
    while low < high {
        let mid = low + (high - low) / 2;
        if layout.raw_hash_slot(bytes, mid).hash < hash {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    low
}

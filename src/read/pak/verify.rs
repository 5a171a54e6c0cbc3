//! A pack's integrity checks: [`PakReader::verify`] (everything) and the tables checksum
//! alone, which a layered mount checks for each upper layer.

use super::{Layout, PakReader};
use crate::format::hash::hash_runtime_path;
use crate::format::hpack;
use crate::read::error::ReadError;

impl PakReader {
    /// Checks everything: the tables checksum (v3–v5), path order, the hash index against the
    /// paths (v3–v5), every entry's range, checksum and decompressed size, and that payloads
    /// follow each other in entry order with only zero bytes between them (so no byte of a
    /// pack goes unchecked). Opened with [`open_signed`](Self::open_signed), every entry's
    /// signed digest too.
    pub fn verify(&self) -> Result<(), ReadError> {
        self.verify_tables()?;
        let mut previous: Option<String> = None;
        for entry in self.entries() {
            let entry = entry?;
            let path = entry.path();
            if previous.as_deref().is_some_and(|p| p >= &*path) {
                return Err(ReadError::Invalid {
                    what: "pack entry order (paths must ascend)",
                });
            }
            entry.verify()?;
            entry.bytes()?;
            previous = Some(path.into_owned());
        }
        if let Layout::V3(layout) = &self.layout {
            let mut last = None;
            for slot_index in 0..layout.len() {
                let slot = layout.raw_hash_slot(self.bytes(), slot_index);
                let entry = self.entry(slot.entry as usize)?;
                if slot.reserved != 0 || hash_runtime_path(&entry.path()) != slot.hash {
                    return Err(ReadError::Invalid {
                        what: "pack hash index (hash does not match path)",
                    });
                }
                if last.is_some_and(|l| l >= (slot.hash, slot.entry)) {
                    return Err(ReadError::Invalid {
                        what: "pack hash index order",
                    });
                }
                last = Some((slot.hash, slot.entry));
            }
            let bytes = self.bytes();
            let bad_layout = || ReadError::Invalid {
                what: "pack payload layout (payloads out of entry order, or non-zero padding)",
            };
            let zeros =
                |from: u64, to: u64| bytes[from as usize..to as usize].iter().all(|b| *b == 0);
            let mut end = layout.header.data_offset;
            for index in 0..layout.len() {
                // Ranges validated by `entry` in the loop above.
                let raw = layout.raw_entry(bytes, index);
                if raw.offset != hpack::align_up(end) || !zeros(end, raw.offset) {
                    return Err(bad_layout());
                }
                end = raw.offset + raw.stored_size;
            }
            if hpack::align_up(end) != layout.payload_end() || !zeros(end, layout.payload_end()) {
                return Err(bad_layout());
            }
        }
        Ok(())
    }

    /// Checks the tables checksum (v3–v5; v2 has none): O(tables), no payload read. A layered
    /// mount checks each upper layer's tables this way.
    pub(crate) fn verify_tables(&self) -> Result<(), ReadError> {
        if let Layout::V3(layout) = &self.layout {
            let [prefix, tables] = layout.checksummed_parts(self.bytes());
            if hpack::tables_checksum(prefix, tables) != layout.header.tables_checksum {
                return Err(ReadError::ChecksumMismatch {
                    what: "pack header and tables",
                    entry: None,
                });
            }
        }
        Ok(())
    }
}

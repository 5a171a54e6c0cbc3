//! USDZ: a zip archive, uncompressed (stored), every file's data starting at a multiple of
//! 64 bytes (the local header's extra field pads it), the root layer first, as the USDZ
//! specification requires so a reader can map each file in place.
//!
//! Timestamps are fixed (1980-01-01), so the archive is a pure function of its files.

/// The alignment of each file's data.
const ALIGN: usize = 64;
/// The extra field's header id for the padding (the one OpenUSD's own writer uses).
const PAD_ID: u16 = 0x1986;
/// DOS date 1980-01-01 (time 00:00).
const DOS_DATE: u16 = (1 << 5) | 1;

/// The files of `entries` (name, bytes), in order, as a `.usdz`. The first should be the
/// root layer. Errors when a name or the archive outgrows the zip format (no Zip64).
pub fn write(entries: &[(String, Vec<u8>)]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let offset = u32::try_from(out.len()).map_err(|_| too_large())?;
        let size = u32::try_from(data.len()).map_err(|_| too_large())?;
        let name_len = u16::try_from(name.len())
            .map_err(|_| format!("USDZ entry name `{name}` is too long"))?;
        let crc = crc32(data);
        // Pad so the data after the header, name and extra field starts aligned; an extra
        // field is at least its 4-byte header.
        let unpadded = out.len() + 30 + name.len();
        let mut pad = (ALIGN - unpadded % ALIGN) % ALIGN;
        if pad != 0 && pad < 4 {
            pad += ALIGN;
        }
        let mut header = Vec::with_capacity(30 + name.len() + pad);
        header.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        common_fields(&mut header, crc, size, name_len);
        header.extend_from_slice(&(pad as u16).to_le_bytes());
        header.extend_from_slice(name.as_bytes());
        if pad != 0 {
            header.extend_from_slice(&PAD_ID.to_le_bytes());
            header.extend_from_slice(&((pad - 4) as u16).to_le_bytes());
            header.resize(header.len() + pad - 4, 0);
        }
        out.extend_from_slice(&header);
        debug_assert_eq!(out.len() % ALIGN, 0);
        out.extend_from_slice(data);

        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes()); // made by: version 2.0
        common_fields(&mut central, crc, size, name_len);
        central.extend_from_slice(&0u16.to_le_bytes()); // no extra field here
        central.extend_from_slice(&0u16.to_le_bytes()); // no comment
        central.extend_from_slice(&0u16.to_le_bytes()); // disk 0
        central.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
        central.extend_from_slice(&0u32.to_le_bytes()); // external attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let count = u16::try_from(entries.len()).map_err(|_| too_large())?;
    let central_at = u32::try_from(out.len()).map_err(|_| too_large())?;
    let central_size = u32::try_from(central.len()).map_err(|_| too_large())?;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // this disk, the central directory's disk
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&central_size.to_le_bytes());
    out.extend_from_slice(&central_at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    Ok(out)
}

fn too_large() -> String {
    "the USDZ archive outgrows the zip format (4 GiB, 65535 files; Zip64 is not written)".into()
}

/// The fields a local header and a central directory entry share, from "version needed" to
/// the name length.
fn common_fields(out: &mut Vec<u8>, crc: u32, size: u32, name_len: u16) {
    out.extend_from_slice(&20u16.to_le_bytes()); // version needed: 2.0
    out.extend_from_slice(&0u16.to_le_bytes()); // flags: none
    out.extend_from_slice(&0u16.to_le_bytes()); // method: stored
    out.extend_from_slice(&0u16.to_le_bytes()); // time
    out.extend_from_slice(&DOS_DATE.to_le_bytes());
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes()); // compressed size
    out.extend_from_slice(&size.to_le_bytes()); // uncompressed size
    out.extend_from_slice(&name_len.to_le_bytes());
}

/// CRC-32 (IEEE, reflected), as zip stores it.
fn crc32(data: &[u8]) -> u32 {
    let table: [u32; 256] = std::array::from_fn(|i| {
        (0..8).fold(i as u32, |c, _| {
            if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            }
        })
    });
    !data.iter().fold(!0u32, |c, &b| {
        table[((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_aligned_and_checksummed() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        let zip = write(&[
            ("a.usdc".into(), vec![1; 10]),
            ("tex/b.png".into(), vec![2; 100]),
        ])
        .unwrap();
        // Walk the local headers: each file's data starts at a multiple of 64.
        let mut at = 0;
        for (len, byte) in [(10usize, 1u8), (100, 2)] {
            let u16_at = |i: usize| u16::from_le_bytes([zip[i], zip[i + 1]]) as usize;
            assert_eq!(&zip[at..at + 4], &0x0403_4b50u32.to_le_bytes());
            let data = at + 30 + u16_at(at + 26) + u16_at(at + 28);
            assert_eq!(data % 64, 0);
            assert!(zip[data..data + len].iter().all(|&b| b == byte));
            at = data + len;
        }
        assert_eq!(
            &zip[zip.len() - 22..zip.len() - 18],
            &0x0605_4b50u32.to_le_bytes()
        );
    }
}

//! Whether an image file is whole: a file cut short is an error, whatever its decoder would
//! make of it (some decoders fill the missing rows in silently).

/// Walks a file's structure to its end: a file cut short is an error, whatever the decoder
/// would make of it.
pub(super) fn check_complete(format: image::ImageFormat, bytes: &[u8]) -> Result<(), String> {
    match format {
        image::ImageFormat::Png => png_complete(bytes),
        image::ImageFormat::Jpeg => jpeg_complete(bytes),
        image::ImageFormat::Tga => tga_complete(bytes),
        _ => Ok(()),
    }
    .map_err(|what| format!("truncated or malformed image: {what}"))
}

/// PNG: chunks (length, type, data, CRC) from byte 8 until a whole `IEND` chunk.
fn png_complete(bytes: &[u8]) -> Result<(), String> {
    let mut at = 8usize;
    loop {
        let header = bytes
            .get(at..at + 8)
            .ok_or("PNG ends before its IEND chunk")?;
        let length = u32::from_be_bytes(header[..4].try_into().expect("4 bytes")) as usize;
        let end = at
            .checked_add(12)
            .and_then(|v| v.checked_add(length))
            .filter(|end| *end <= bytes.len())
            .ok_or_else(|| {
                format!(
                    "PNG chunk `{}` at byte {at} runs past the end of the file",
                    String::from_utf8_lossy(&header[4..8])
                )
            })?;
        if &header[4..8] == b"IEND" {
            return Ok(());
        }
        at = end;
    }
}

/// JPEG: marker segments, and each scan's entropy-coded data, until the end-of-image marker.
fn jpeg_complete(bytes: &[u8]) -> Result<(), String> {
    const EOI: u8 = 0xD9;
    const SOS: u8 = 0xDA;
    let missing = || "JPEG ends before its end-of-image marker".to_owned();
    if bytes.get(..2) != Some(&[0xFF, 0xD8]) {
        return Err("no JPEG start-of-image marker".into());
    }
    let mut at = 2usize;
    loop {
        if *bytes.get(at).ok_or_else(missing)? != 0xFF {
            return Err(format!("JPEG: no marker at byte {at}"));
        }
        // Fill bytes: any number of 0xFF before the marker code.
        while bytes.get(at) == Some(&0xFF) {
            at += 1;
        }
        let marker = *bytes.get(at).ok_or_else(missing)?;
        at += 1;
        match marker {
            EOI => return Ok(()),
            // Restart markers and TEM stand alone.
            0xD0..=0xD7 | 0x01 => continue,
            _ => {}
        }
        let length = bytes.get(at..at + 2).ok_or_else(missing)?;
        let length = u16::from_be_bytes([length[0], length[1]]) as usize;
        if length < 2 || at + length > bytes.len() {
            return Err(missing());
        }
        at += length;
        if marker == SOS {
            // Entropy-coded data runs to the next marker that is not a stuffed 0xFF00 or a
            // restart marker.
            loop {
                let next = bytes[at..]
                    .iter()
                    .position(|b| *b == 0xFF)
                    .ok_or_else(missing)?;
                at += next;
                match bytes.get(at + 1) {
                    None => return Err(missing()),
                    Some(0x00 | 0xD0..=0xD7) => at += 2,
                    Some(_) => break,
                }
            }
        }
    }
}

/// TGA: the header, image ID and color map, then the pixel data (raw) or RLE packets covering
/// every pixel. The optional TGA 2.0 footer after them is not required.
fn tga_complete(bytes: &[u8]) -> Result<(), String> {
    let header = bytes.get(..18).ok_or("TGA header cut short")?;
    let id_length = header[0] as usize;
    let color_map = header[1] == 1;
    let image_type = header[2];
    let map_length = u16::from_le_bytes([header[5], header[6]]) as usize;
    let map_entry = (header[7] as usize).div_ceil(8);
    let width = u16::from_le_bytes([header[12], header[13]]) as usize;
    let height = u16::from_le_bytes([header[14], header[15]]) as usize;
    let pixel_bytes = (header[16] as usize).div_ceil(8).max(1);
    let mut at = 18 + id_length + if color_map { map_length * map_entry } else { 0 };
    let pixels = width * height;
    let short = |at: usize| format!("TGA pixel data ends at byte {at} of {}", bytes.len());
    match image_type {
        1..=3 => {
            let end = at + pixels * pixel_bytes;
            if end > bytes.len() {
                return Err(short(bytes.len().min(end)));
            }
        }
        9..=11 => {
            let mut covered = 0usize;
            while covered < pixels {
                let packet = *bytes.get(at).ok_or_else(|| short(at))?;
                let count = (packet & 0x7F) as usize + 1;
                at += 1 + if packet & 0x80 != 0 {
                    pixel_bytes
                } else {
                    count * pixel_bytes
                };
                if at > bytes.len() {
                    return Err(short(bytes.len()));
                }
                covered += count;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Appends a chunk (length, type, data, CRC).
fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend((data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend(kind);
    out.extend(data);
    out.extend(crc32fast::hash(&out[start..]).to_be_bytes());
}

/// The chunks of a PNG: (type, data).
fn chunks(png: &[u8]) -> Vec<([u8; 4], &[u8])> {
    let mut at = 8;
    let mut out = Vec::new();
    while at + 12 <= png.len() {
        let length = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let kind: [u8; 4] = png[at + 4..at + 8].try_into().unwrap();
        out.push((kind, &png[at + 8..at + 8 + length]));
        at += 12 + length;
    }
    out
}

/// Bytes per row of `width` pixels of `samples` samples of `bits`.
pub(crate) fn row_bytes(width: u32, samples: u32, bits: u32) -> usize {
    (width * samples * bits).div_ceil(8) as usize
}

/// Samples of every kind: any byte is a valid sample, packed or not, or palette index (the
/// palettes have 2^bits entries).
pub(crate) fn data(rows: usize, row_bytes: usize) -> Vec<u8> {
    (0..rows * row_bytes)
        .map(|i| {
            let (x, y) = (i % row_bytes, i / row_bytes);
            ((x * 7 + y * 13) ^ (x * y / 5)) as u8
        })
        .collect()
}

/// A non-interlaced PNG through the `png` crate's encoder.
pub(crate) fn encode(
    (width, height): (u32, u32),
    (color, depth): (png::ColorType, png::BitDepth),
    palette: Option<Vec<u8>>,
    trns: Option<Vec<u8>>,
    data: &[u8],
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(color);
    encoder.set_depth(depth);
    if let Some(palette) = palette {
        encoder.set_palette(palette);
    }
    if let Some(trns) = trns {
        encoder.set_trns(trns);
    }
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(data).unwrap();
    writer.finish().unwrap();
    out
}

/// An Adam7-interlaced PNG of 8- or 16-bit samples (`color` is the IHDR color type byte),
/// written by hand: the `png` crate does not write interlaced images. Unfiltered rows in
/// stored (uncompressed) deflate blocks.
pub(crate) fn adam7(
    (width, height): (u32, u32),
    (color, bits): (u8, u8),
    bytes_per_pixel: usize,
    data: &[u8],
) -> Vec<u8> {
    const PASSES: [(u32, u32, u32, u32); 7] = [
        (0, 0, 8, 8),
        (4, 0, 8, 8),
        (0, 4, 4, 8),
        (2, 0, 4, 4),
        (0, 2, 2, 4),
        (1, 0, 2, 2),
        (0, 1, 1, 2),
    ];
    let stride = width as usize * bytes_per_pixel;
    let mut raw = Vec::new();
    for (x0, y0, dx, dy) in PASSES {
        if x0 >= width || y0 >= height {
            continue;
        }
        for y in (y0..height).step_by(dy as usize) {
            raw.push(0); // filter: none
            for x in (x0..width).step_by(dx as usize) {
                let at = y as usize * stride + x as usize * bytes_per_pixel;
                raw.extend(&data[at..at + bytes_per_pixel]);
            }
        }
    }
    let mut zlib = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = raw.chunks(65535).collect();
    for (i, block) in blocks.iter().enumerate() {
        zlib.push((i + 1 == blocks.len()) as u8);
        let length = block.len() as u16;
        zlib.extend(length.to_le_bytes());
        zlib.extend((!length).to_le_bytes());
        zlib.extend(*block);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for byte in &raw {
        a = (a + *byte as u32) % 65521;
        b = (b + a) % 65521;
    }
    zlib.extend(((b << 16) | a).to_be_bytes());
    let mut png = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    let mut ihdr = Vec::new();
    ihdr.extend(width.to_be_bytes());
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([bits, color, 0, 0, 1]);
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(&mut png, b"IDAT", &zlib);
    chunk(&mut png, b"IEND", &[]);
    png
}

/// `png` with its image data (the IDAT chunks' zlib stream) cut to `keep` of its length, in
/// one well-formed IDAT chunk: the file's structure is whole, its rows stop part way.
pub(crate) fn idat_cut(png: &[u8], keep: f64) -> Vec<u8> {
    let all = chunks(png);
    let idat: Vec<u8> = all
        .iter()
        .filter(|(kind, _)| kind == b"IDAT")
        .flat_map(|(_, data)| data.iter().copied())
        .collect();
    let cut = &idat[..(idat.len() as f64 * keep) as usize];
    let mut out = png[..8].to_vec();
    let mut idat_written = false;
    for (kind, data) in all {
        match &kind {
            b"IDAT" if idat_written => {}
            b"IDAT" => {
                chunk(&mut out, b"IDAT", cut);
                idat_written = true;
            }
            _ => chunk(&mut out, &kind, data),
        }
    }
    out
}

//! The two compressions OpenUSD's reader requires of a crate file's structural sections from
//! version 0.4.0 on: its LZ4 framing (`TfFastCompression`) and its integer coding
//! (`Sdf_IntegerCompression`, applied before the LZ4).

/// The largest input one LZ4 chunk holds (LZ4's own limit, which OpenUSD's framing keeps).
const LZ4_MAX_INPUT: usize = 0x7E00_0000;

/// `input` compressed as `TfFastCompression::CompressToBuffer` frames it: a chunk-count byte
/// (0: one chunk, the rest of the buffer) followed by one raw LZ4 block. Structural sections
/// far larger than any model's are refused (the multi-chunk form is not written).
pub(crate) fn fast_compress(input: &[u8]) -> Result<Vec<u8>, String> {
    if input.len() > LZ4_MAX_INPUT {
        return Err(format!(
            "a USDC structural section of {} bytes (at most {LZ4_MAX_INPUT} are written)",
            input.len()
        ));
    }
    let block = lz4_flex::block::compress(input);
    let mut out = Vec::with_capacity(block.len() + 1);
    out.push(0);
    out.extend_from_slice(&block);
    Ok(out)
}

/// The 2-bit class of one delta: 0 the common value, 1 an `i8`, 2 an `i16`, 3 an `i32`.
fn code_of(delta: i32, common: i32) -> u8 {
    if delta == common {
        0
    } else if i8::try_from(delta).is_ok() {
        1
    } else if i16::try_from(delta).is_ok() {
        2
    } else {
        3
    }
}

/// `ints` coded as `Sdf_IntegerCompression` codes 32-bit integers: the deltas between
/// neighbours (the first against 0); the most common delta (the largest on a tie, as
/// OpenUSD picks it); one 2-bit code per delta, four to a byte, low bits first; then each
/// delta that is not the common one as the smallest of `i8`, `i16`, `i32` that holds it.
pub(crate) fn encode_ints(ints: &[i32]) -> Vec<u8> {
    if ints.is_empty() {
        return Vec::new();
    }
    let deltas: Vec<i32> = std::iter::once(ints[0])
        .chain(ints.windows(2).map(|w| w[1].wrapping_sub(w[0])))
        .collect();
    let mut counts = std::collections::HashMap::<i32, usize>::new();
    let (mut common, mut best) = (0i32, 0usize);
    for &d in &deltas {
        let count = counts.entry(d).or_insert(0);
        *count += 1;
        if *count > best || (*count == best && d > common) {
            (common, best) = (d, *count);
        }
    }
    let code_bytes = (deltas.len() * 2).div_ceil(8);
    let mut out = Vec::with_capacity(4 + code_bytes + deltas.len() * 4);
    out.extend_from_slice(&common.to_le_bytes());
    out.resize(4 + code_bytes, 0);
    for (i, &d) in deltas.iter().enumerate() {
        let code = code_of(d, common);
        out[4 + i / 4] |= code << (2 * (i % 4));
        match code {
            1 => out.extend_from_slice(&(d as i8).to_le_bytes()),
            2 => out.extend_from_slice(&(d as i16).to_le_bytes()),
            3 => out.extend_from_slice(&d.to_le_bytes()),
            _ => {}
        }
    }
    out
}

/// `ints` integer-coded then LZ4-framed, as a crate file stores an index list: the
/// compressed size (`u64`) and the compressed bytes.
pub(crate) fn compressed_ints(ints: &[i32]) -> Result<Vec<u8>, String> {
    let compressed = fast_compress(&encode_ints(ints))?;
    let mut out = Vec::with_capacity(compressed.len() + 8);
    out.extend_from_slice(&(compressed.len() as u64).to_le_bytes());
    out.extend_from_slice(&compressed);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decoder OpenUSD runs, to check the coding against.
    fn decode(data: &[u8], n: usize) -> Vec<i32> {
        let common = i32::from_le_bytes(data[..4].try_into().unwrap());
        let codes = &data[4..4 + (n * 2).div_ceil(8)];
        let mut at = 4 + codes.len();
        let mut prev = 0i32;
        (0..n)
            .map(|i| {
                let delta = match (codes[i / 4] >> (2 * (i % 4))) & 3 {
                    0 => common,
                    1 => {
                        at += 1;
                        data[at - 1] as i8 as i32
                    }
                    2 => {
                        at += 2;
                        i16::from_le_bytes([data[at - 2], data[at - 1]]) as i32
                    }
                    _ => {
                        at += 4;
                        i32::from_le_bytes(data[at - 4..at].try_into().unwrap())
                    }
                };
                prev = prev.wrapping_add(delta);
                prev
            })
            .collect()
    }

    #[test]
    fn integer_coding_round_trips() {
        // OpenUSD's own example (integerCoding.cpp), and the extremes of each class.
        let ints = [123, 124, 125, 100125, 100125, 100126, 100126];
        let coded = encode_ints(&ints);
        assert_eq!(&coded[..4], &1i32.to_le_bytes());
        assert_eq!(decode(&coded, ints.len()), ints);
        let wide = [-1, i32::MAX, i32::MIN, 0, 127, -128, 32767, -32768, 5];
        assert_eq!(decode(&encode_ints(&wide), wide.len()), wide);
    }

    #[test]
    fn fast_compression_is_one_framed_block() {
        let data: Vec<u8> = (0..1000u32).flat_map(|i| (i % 7).to_le_bytes()).collect();
        let framed = fast_compress(&data).unwrap();
        assert_eq!(framed[0], 0);
        assert_eq!(
            lz4_flex::block::decompress(&framed[1..], data.len()).unwrap(),
            data
        );
    }
}

//! Value representations (`ValueRep`): a 64-bit word per field value, with the value inlined
//! in its low 48 bits when it fits and otherwise the file offset of its bytes, which
//! [`Crate`] appends to the value area before the structural sections.

use super::Crate;
use crate::export::layer::{Specifier, Value};

/// Crate type numbers (`crateDataTypes.h`).
pub(super) mod ty {
    pub const BOOL: u8 = 1;
    pub const INT: u8 = 3;
    pub const FLOAT: u8 = 8;
    pub const DOUBLE: u8 = 9;
    pub const STRING: u8 = 10;
    pub const TOKEN: u8 = 11;
    pub const ASSET_PATH: u8 = 12;
    pub const MATRIX4D: u8 = 15;
    pub const QUATF: u8 = 17;
    pub const VEC2F: u8 = 20;
    pub const VEC3D: u8 = 23;
    pub const VEC3F: u8 = 24;
    pub const VEC3H: u8 = 25;
    pub const VEC4F: u8 = 28;
    pub const TOKEN_LIST_OP: u8 = 32;
    pub const PATH_LIST_OP: u8 = 34;
    pub const REFERENCE_LIST_OP: u8 = 35;
    pub const TOKEN_VECTOR: u8 = 41;
    pub const SPECIFIER: u8 = 42;
    pub const VARIABILITY: u8 = 44;
    pub const TIME_SAMPLES: u8 = 46;
    pub const DOUBLE_VECTOR: u8 = 48;
}

const ARRAY_BIT: u64 = 1 << 63;
const INLINED_BIT: u64 = 1 << 62;
const COMPRESSED_BIT: u64 = 1 << 61;
/// Int arrays from this length on are integer-coded, as OpenUSD writes them.
const MIN_COMPRESSED_ARRAY: usize = 16;
const PAYLOAD_MASK: u64 = (1 << 48) - 1;

/// A value stored elsewhere in the file: its type and offset.
pub(super) fn at(ty: u8, offset: u64) -> u64 {
    ((ty as u64) << 48) | (offset & PAYLOAD_MASK)
}

/// A value held in the rep itself.
pub(super) fn inlined(ty: u8, bits: u32) -> u64 {
    ((ty as u64) << 48) | INLINED_BIT | bits as u64
}

/// List-op header bits (`_ListOpHeader`).
const LIST_OP_EXPLICIT: u8 = 1;
const LIST_OP_HAS_EXPLICIT: u8 = 1 << 1;
const LIST_OP_HAS_PREPENDED: u8 = 1 << 5;

impl Crate {
    /// Appends `bytes` to the value area, at an offset aligned to `align`, and returns where;
    /// bytes already written at that alignment are shared instead (the same joints, times or
    /// texture scales appear in many specs).
    fn append(&mut self, align: usize, bytes: &[u8]) -> u64 {
        let key = (align, bytes.to_vec());
        if let Some(&offset) = self.values.get(&key) {
            return offset;
        }
        let padded = self.out.len().next_multiple_of(align);
        self.out.resize(padded, 0);
        self.out.extend_from_slice(bytes);
        self.values.insert(key, padded as u64);
        padded as u64
    }

    /// The rep of a specifier field.
    pub(super) fn specifier(specifier: Specifier) -> u64 {
        let bits = match specifier {
            Specifier::Def => 0,
            Specifier::Over => 1,
            Specifier::Class => 2,
        };
        inlined(ty::SPECIFIER, bits)
    }

    /// The rep of a variability field (0 varying, 1 uniform).
    pub(super) fn variability(uniform: bool) -> u64 {
        inlined(ty::VARIABILITY, uniform as u32)
    }

    /// A token vector (`primChildren`, `properties`): a count and token indices.
    pub(super) fn token_vector(&mut self, tokens: &[String]) -> u64 {
        let mut bytes = (tokens.len() as u64).to_le_bytes().to_vec();
        for token in tokens {
            bytes.extend_from_slice(&self.token(token).to_le_bytes());
        }
        at(ty::TOKEN_VECTOR, self.append(1, &bytes))
    }

    /// A token list op whose items are prepended (`prepend apiSchemas = [...]`).
    pub(super) fn prepended_tokens(&mut self, tokens: &[String]) -> u64 {
        let mut bytes = vec![LIST_OP_HAS_PREPENDED];
        bytes.extend_from_slice(&(tokens.len() as u64).to_le_bytes());
        for token in tokens {
            bytes.extend_from_slice(&self.token(token).to_le_bytes());
        }
        at(ty::TOKEN_LIST_OP, self.append(1, &bytes))
    }

    /// A reference list op whose items are prepended (`prepend references = [...]`): each
    /// reference is its asset path (a string), its prim path, an identity layer offset
    /// (offset 0, scale 1) and empty custom data.
    pub(super) fn prepended_references(
        &mut self,
        refs: &[(String, String)],
    ) -> Result<u64, String> {
        let mut bytes = vec![LIST_OP_HAS_PREPENDED];
        bytes.extend_from_slice(&(refs.len() as u64).to_le_bytes());
        for (asset, prim) in refs {
            bytes.extend_from_slice(&self.string(asset).to_le_bytes());
            bytes.extend_from_slice(&self.path(prim)?.to_le_bytes());
            bytes.extend_from_slice(&0f64.to_le_bytes());
            bytes.extend_from_slice(&1f64.to_le_bytes());
            bytes.extend_from_slice(&0u64.to_le_bytes());
        }
        Ok(at(ty::REFERENCE_LIST_OP, self.append(1, &bytes)))
    }

    /// An explicit path list op (`targetPaths`, `connectionPaths`).
    pub(super) fn explicit_paths(&mut self, paths: &[String]) -> Result<u64, String> {
        let mut bytes = vec![LIST_OP_EXPLICIT | LIST_OP_HAS_EXPLICIT];
        bytes.extend_from_slice(&(paths.len() as u64).to_le_bytes());
        for path in paths {
            bytes.extend_from_slice(&self.path(path)?.to_le_bytes());
        }
        Ok(at(ty::PATH_LIST_OP, self.append(1, &bytes)))
    }

    /// Time samples: the times as a double vector, each value packed, then the layout
    /// OpenUSD's reader walks (a skip offset, the times' rep, a skip offset, the count and
    /// the values' reps; the skips jump over nothing, the data being written before).
    pub(super) fn time_samples(&mut self, samples: &[(f64, Value)]) -> Result<u64, String> {
        let mut times = (samples.len() as u64).to_le_bytes().to_vec();
        for (time, _) in samples {
            times.extend_from_slice(&time.to_le_bytes());
        }
        let times_rep = at(ty::DOUBLE_VECTOR, self.append(8, &times));
        let reps = samples
            .iter()
            .map(|(_, v)| self.value(v))
            .collect::<Result<Vec<u64>, String>>()?;
        let mut bytes = Vec::with_capacity(32 + reps.len() * 8);
        bytes.extend_from_slice(&8i64.to_le_bytes());
        bytes.extend_from_slice(&times_rep.to_le_bytes());
        bytes.extend_from_slice(&8i64.to_le_bytes());
        bytes.extend_from_slice(&(reps.len() as u64).to_le_bytes());
        for rep in reps {
            bytes.extend_from_slice(&rep.to_le_bytes());
        }
        Ok(at(ty::TIME_SAMPLES, self.append(8, &bytes)))
    }

    /// An array: 8-byte aligned, a `u64` count, then the elements as they lie in memory.
    /// An empty array is the array rep with offset 0, as OpenUSD writes it.
    fn array(&mut self, ty: u8, count: usize, elements: &[u8]) -> u64 {
        if count == 0 {
            return at(ty, 0) | ARRAY_BIT;
        }
        let mut bytes = Vec::with_capacity(8 + elements.len());
        bytes.extend_from_slice(&(count as u64).to_le_bytes());
        bytes.extend_from_slice(elements);
        at(ty, self.append(8, &bytes)) | ARRAY_BIT
    }

    /// An `int[]`: from [`MIN_COMPRESSED_ARRAY`] elements on, the count then the integers
    /// coded and compressed as the structural sections are (indices compress well).
    fn int_array(&mut self, ints: &[i32]) -> Result<u64, String> {
        if ints.len() < MIN_COMPRESSED_ARRAY {
            let bytes: Vec<u8> = ints.iter().flat_map(|i| i.to_le_bytes()).collect();
            return Ok(self.array(ty::INT, ints.len(), &bytes));
        }
        let mut bytes = (ints.len() as u64).to_le_bytes().to_vec();
        bytes.extend(super::compress::compressed_ints(ints)?);
        Ok(at(ty::INT, self.append(8, &bytes)) | ARRAY_BIT | COMPRESSED_BIT)
    }

    /// The rep of `value`, its bytes appended when it does not fit in the rep.
    pub(super) fn value(&mut self, value: &Value) -> Result<u64, String> {
        Ok(match value {
            Value::IntArray(a) => self.int_array(a)?,
            other => self.plain_value(other),
        })
    }

    /// [`value`](Self::value) for every type but `int[]`.
    fn plain_value(&mut self, value: &Value) -> u64 {
        match value {
            Value::Bool(b) => inlined(ty::BOOL, *b as u32),
            Value::Int(i) => inlined(ty::INT, *i as u32),
            Value::Float(f) => inlined(ty::FLOAT, f.to_bits()),
            // A double that a float holds exactly is inlined as that float, as OpenUSD does.
            Value::Double(d) if (*d as f32) as f64 == *d => {
                inlined(ty::DOUBLE, (*d as f32).to_bits())
            }
            Value::Double(d) => at(ty::DOUBLE, self.append(8, &d.to_le_bytes())),
            Value::Token(t) => inlined(ty::TOKEN, self.token(t)),
            Value::Asset(a) => inlined(ty::ASSET_PATH, self.token(a)),
            Value::String(s) => inlined(ty::STRING, self.string(s)),
            Value::Float2(v) => at(ty::VEC2F, self.append(4, &f32_bytes(v))),
            Value::Float3(v) => at(ty::VEC3F, self.append(4, &f32_bytes(v))),
            Value::Float4(v) => at(ty::VEC4F, self.append(4, &f32_bytes(v))),
            Value::Quatf(v) => at(ty::QUATF, self.append(4, &f32_bytes(v))),
            Value::Double3(v) => at(ty::VEC3D, self.append(8, &f64_bytes(v))),
            Value::Matrix4d(m) => at(ty::MATRIX4D, self.append(8, &f64_bytes(m))),
            Value::IntArray(a) => {
                let bytes: Vec<u8> = a.iter().flat_map(|i| i.to_le_bytes()).collect();
                self.array(ty::INT, a.len(), &bytes)
            }
            Value::FloatArray(a) => self.array(ty::FLOAT, a.len(), &f32_bytes(a)),
            Value::Float2Array(a) => self.array(ty::VEC2F, a.len(), &f32_bytes(a.as_flattened())),
            Value::Float3Array(a) => self.array(ty::VEC3F, a.len(), &f32_bytes(a.as_flattened())),
            Value::QuatfArray(a) => self.array(ty::QUATF, a.len(), &f32_bytes(a.as_flattened())),
            Value::Half3Array(a) => {
                let bytes: Vec<u8> = a
                    .as_flattened()
                    .iter()
                    .flat_map(|&v| f16_bits(v).to_le_bytes())
                    .collect();
                self.array(ty::VEC3H, a.len(), &bytes)
            }
            Value::Matrix4dArray(a) => {
                self.array(ty::MATRIX4D, a.len(), &f64_bytes(a.as_flattened()))
            }
            Value::TokenArray(a) => {
                let bytes: Vec<u8> = a.iter().flat_map(|t| self.token(t).to_le_bytes()).collect();
                self.array(ty::TOKEN, a.len(), &bytes)
            }
        }
    }
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn f64_bytes(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// `v` as IEEE half-precision bits, rounded to nearest, ties to even (what `GfHalf` does).
fn f16_bits(v: f32) -> u16 {
    let x = v.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xFF) as i32;
    let mant = x & 0x7F_FFFF;
    if exp == 0xFF {
        return sign | 0x7C00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 31 {
        return sign | 0x7C00;
    }
    let round = |kept: u32, rest: u32, halfway: u32| {
        if rest > halfway || (rest == halfway && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    };
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        // A subnormal half: the implicit bit joins the mantissa, shifted further right.
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let kept = m >> shift;
        return sign | round(kept, m & ((1 << shift) - 1), 1 << (shift - 1)) as u16;
    }
    // A carry out of the mantissa rounds up into the exponent, as it should.
    let kept = ((e as u32) << 10) | (mant >> 13);
    sign | round(kept, mant & 0x1FFF, 0x1000) as u16
}

#[cfg(test)]
mod tests {
    use super::f16_bits;

    #[test]
    fn halves_round_to_nearest() {
        assert_eq!(f16_bits(1.0), 0x3C00);
        assert_eq!(f16_bits(-2.0), 0xC000);
        assert_eq!(f16_bits(65504.0), 0x7BFF);
        assert_eq!(f16_bits(1e6), 0x7C00);
        assert_eq!(f16_bits(0.0), 0);
        assert_eq!(f16_bits(5.960_464_5e-8), 1);
    }
}

//! A structural check of SPIR-V modules (the binary form, SPIR-V 1.0 to 1.6): header (magic in
//! either byte order, version, id bound, schema), an instruction stream whose word counts tile
//! the module exactly, one memory model, and the entry points with their execution models.
//!
//! This is not a validator in the sense of `spirv-val` (it knows no operand grammar); it
//! catches what a wrong or damaged file looks like: not SPIR-V, truncated, a stream that runs
//! off its end, a module with no entry point, or a stage file whose entry point is another
//! stage. A full front end (naga's) is deliberately not used: it rejects valid modules that
//! Vulkan GLSL compilers emit (combined image samplers).

use crate::format::error::ReadError;

/// The SPIR-V magic number, as a word.
pub const MAGIC: u32 = 0x0723_0203;

const OP_ENTRY_POINT: u16 = 15;
const OP_MEMORY_MODEL: u16 = 14;
const OP_FUNCTION: u16 = 54;
const OP_FUNCTION_END: u16 = 56;
/// The largest id bound real modules need is far below this; a larger one is a damaged header.
const MAX_BOUND: u32 = 1 << 24;

/// A shader stage, as a SPIR-V execution model names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// `Vertex` (0).
    Vertex,
    /// `TessellationControl` (1).
    TessellationControl,
    /// `TessellationEvaluation` (2).
    TessellationEvaluation,
    /// `Geometry` (3).
    Geometry,
    /// `Fragment` (4).
    Fragment,
    /// `GLCompute` (5).
    Compute,
    /// `Kernel` (6): OpenCL, not a Vulkan stage.
    Kernel,
    /// `TaskNV` / `TaskEXT`.
    Task,
    /// `MeshNV` / `MeshEXT`.
    Mesh,
    /// A ray-tracing stage (`RayGenerationKHR` … `CallableKHR`).
    RayTracing,
}

impl Stage {
    /// The stage of a SPIR-V execution model number, if it is one.
    pub fn from_execution_model(model: u32) -> Option<Self> {
        Some(match model {
            0 => Stage::Vertex,
            1 => Stage::TessellationControl,
            2 => Stage::TessellationEvaluation,
            3 => Stage::Geometry,
            4 => Stage::Fragment,
            5 => Stage::Compute,
            6 => Stage::Kernel,
            5267 | 5364 => Stage::Task,
            5268 | 5365 => Stage::Mesh,
            5313..=5318 => Stage::RayTracing,
            _ => return None,
        })
    }

    /// The stage a shader folder's file name (without `.spv`) stands for: `vertex`,
    /// `fragment`, `compute`, `geometry`, `tess_control`, `tess_eval`, `task`, `mesh` (and the
    /// short names `vert`, `frag`, `comp`, `geom`, `tesc`, `tese` glslang uses).
    pub fn from_file_stem(stem: &str) -> Option<Self> {
        Some(match stem {
            "vertex" | "vert" => Stage::Vertex,
            "fragment" | "frag" => Stage::Fragment,
            "compute" | "comp" => Stage::Compute,
            "geometry" | "geom" => Stage::Geometry,
            "tess_control" | "tesc" => Stage::TessellationControl,
            "tess_eval" | "tese" => Stage::TessellationEvaluation,
            "task" => Stage::Task,
            "mesh" => Stage::Mesh,
            _ => return None,
        })
    }

    /// A lowercase name for messages and `hearth info`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex",
            Stage::TessellationControl => "tess_control",
            Stage::TessellationEvaluation => "tess_eval",
            Stage::Geometry => "geometry",
            Stage::Fragment => "fragment",
            Stage::Compute => "compute",
            Stage::Kernel => "kernel",
            Stage::Task => "task",
            Stage::Mesh => "mesh",
            Stage::RayTracing => "ray_tracing",
        }
    }
}

/// One `OpEntryPoint`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPoint {
    /// Its execution model.
    pub stage: Stage,
    /// Its name (the literal string operand).
    pub name: String,
}

/// What the check found in a well-formed module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpirvInfo {
    /// SPIR-V version (major, minor).
    pub version: (u8, u8),
    /// The id bound from the header.
    pub bound: u32,
    /// Whether the words are big-endian (the magic tells; almost every module is little).
    pub big_endian: bool,
    /// Instructions in the stream.
    pub instructions: usize,
    /// Every entry point, in module order.
    pub entry_points: Vec<EntryPoint>,
}

/// Checks `bytes` as a SPIR-V module; errors say what is wrong and where (word offsets).
pub fn check(bytes: &[u8]) -> Result<SpirvInfo, String> {
    let Header {
        words,
        big_endian,
        version: (major, minor),
        bound,
    } = header(bytes)?;

    let mut at = 5;
    let mut instructions = 0;
    let mut memory_models = 0;
    let mut entry_points = Vec::new();
    // Functions come last in a module and never nest: a stream cut at an instruction
    // boundary shows as a function without its end.
    let mut open_function: Option<usize> = None;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let opcode = words[at] as u16;
        if count == 0 {
            return Err(format!(
                "instruction at word {at} (opcode {opcode}) has a word count of 0"
            ));
        }
        let Some(operands) = words.get(at + 1..at + count) else {
            return Err(format!(
                "instruction at word {at} (opcode {opcode}) needs {count} words, {} are left: \
                 the module is truncated",
                words.len() - at
            ));
        };
        match opcode {
            OP_MEMORY_MODEL => memory_models += 1,
            OP_FUNCTION => {
                if let Some(start) = open_function {
                    return Err(format!(
                        "OpFunction at word {at} inside the function that starts at word {start}"
                    ));
                }
                open_function = Some(at);
            }
            OP_FUNCTION_END if open_function.take().is_none() => {
                return Err(format!("OpFunctionEnd at word {at} without an OpFunction"));
            }
            OP_ENTRY_POINT => entry_points.push(entry_point(at, operands, bound, big_endian)?),
            _ => {}
        }
        instructions += 1;
        at += count;
    }
    if let Some(start) = open_function {
        return Err(format!(
            "the function that starts at word {start} has no OpFunctionEnd: the module is truncated"
        ));
    }
    if memory_models != 1 {
        return Err(format!(
            "{memory_models} OpMemoryModel instructions (a module has exactly one)"
        ));
    }
    if entry_points.is_empty() {
        return Err("no OpEntryPoint: the module has no shader stage".to_owned());
    }
    Ok(SpirvInfo {
        version: (major, minor),
        bound,
        big_endian,
        instructions,
        entry_points,
    })
}

/// A module's header, read and checked, and its words in host order.
struct Header {
    words: Vec<u32>,
    big_endian: bool,
    version: (u8, u8),
    bound: u32,
}

/// The magic number (either byte order), a known version, an id bound in range, schema 0.
fn header(bytes: &[u8]) -> Result<Header, String> {
    if !bytes.len().is_multiple_of(4) {
        return Err(format!(
            "not SPIR-V: {} bytes is not a whole number of 32-bit words",
            bytes.len()
        ));
    }
    if bytes.len() < 20 {
        return Err(format!(
            "not SPIR-V: {} bytes, shorter than the 5-word header",
            bytes.len()
        ));
    }
    let first = [bytes[0], bytes[1], bytes[2], bytes[3]];
    let big_endian = match (u32::from_le_bytes(first), u32::from_be_bytes(first)) {
        (MAGIC, _) => false,
        (_, MAGIC) => true,
        _ => {
            return Err(format!(
                "not SPIR-V: the magic number is {:#010x}, not {MAGIC:#010x}",
                u32::from_le_bytes(first)
            ))
        }
    };
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| {
            let c = [c[0], c[1], c[2], c[3]];
            if big_endian {
                u32::from_be_bytes(c)
            } else {
                u32::from_le_bytes(c)
            }
        })
        .collect();
    let version = words[1];
    let (major, minor) = ((version >> 16) as u8, (version >> 8) as u8);
    if version & 0xff00_00ff != 0 || major != 1 || minor > 6 {
        return Err(format!(
            "unsupported SPIR-V version word {version:#010x} (1.0 to 1.6 are known)"
        ));
    }
    let bound = words[3];
    if bound == 0 || bound > MAX_BOUND {
        return Err(format!(
            "id bound {bound} is out of range (1 to {MAX_BOUND})"
        ));
    }
    if words[4] != 0 {
        return Err(format!("header schema word is {} (must be 0)", words[4]));
    }
    Ok(Header {
        words,
        big_endian,
        version: (major, minor),
        bound,
    })
}

/// The OpEntryPoint at word `at`: execution model, function id (inside the bound), name (a
/// nul-terminated literal); interface ids follow.
fn entry_point(
    at: usize,
    operands: &[u32],
    bound: u32,
    big_endian: bool,
) -> Result<EntryPoint, String> {
    if operands.len() < 3 {
        return Err(format!("OpEntryPoint at word {at} is too short"));
    }
    let model = operands[0];
    let stage = Stage::from_execution_model(model)
        .ok_or_else(|| format!("OpEntryPoint at word {at} has unknown execution model {model}"))?;
    if operands[1] == 0 || operands[1] >= bound {
        return Err(format!(
            "OpEntryPoint at word {at} names function id {} outside the bound {bound}",
            operands[1]
        ));
    }
    let name = literal_string(&operands[2..], big_endian).ok_or_else(|| {
        format!("OpEntryPoint at word {at}: its name is not a nul-terminated UTF-8 string")
    })?;
    Ok(EntryPoint { stage, name })
}

/// A SPIR-V literal string: UTF-8 bytes packed into words (in the module's byte order), ended
/// by a nul within the words given.
fn literal_string(words: &[u32], big_endian: bool) -> Option<String> {
    let mut bytes = Vec::new();
    for &word in words {
        let word = if big_endian {
            word.to_be_bytes()
        } else {
            word.to_le_bytes()
        };
        for byte in word {
            if byte == 0 {
                return String::from_utf8(bytes).ok();
            }
            bytes.push(byte);
        }
    }
    None
}

/// [`check`] as a [`ReadError`], for readers that only need to know it is well formed.
pub fn check_read(bytes: &[u8]) -> Result<SpirvInfo, ReadError> {
    check(bytes).map_err(|_| ReadError::Invalid {
        what: "SPIR-V module",
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A minimal module: OpCapability Shader, OpMemoryModel, OpEntryPoint `model` "main",
    /// then a few words of body (not a full function: the check knows no grammar).
    pub fn module(model: u32) -> Vec<u8> {
        let name = u32::from_le_bytes(*b"main");
        let words = [
            MAGIC,
            0x0001_0000,
            0,
            8,
            0,
            (2 << 16) | 17, // OpCapability Shader
            1,
            (3 << 16) | 14, // OpMemoryModel Logical GLSL450
            0,
            1,
            (5 << 16) | 15, // OpEntryPoint model %4 "main"
            model,
            4,
            name,
            0,
        ];
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn a_minimal_module_is_read_in_either_byte_order() {
        let info = check(&module(4)).unwrap();
        assert_eq!(info.version, (1, 0));
        assert_eq!(info.instructions, 3);
        assert_eq!(
            info.entry_points,
            [EntryPoint {
                stage: Stage::Fragment,
                name: "main".into()
            }]
        );
        let big: Vec<u8> = module(0)
            .chunks(4)
            .flat_map(|c| [c[3], c[2], c[1], c[0]])
            .collect();
        let info = check(&big).unwrap();
        assert!(info.big_endian);
        assert_eq!(info.entry_points[0].stage, Stage::Vertex);
    }

    #[test]
    fn damage_is_named() {
        let good = module(0);
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (good[..good.len() - 4].to_vec(), "truncated"),
            (good[..good.len() - 1].to_vec(), "whole number"),
            (b"\x7fELF and then some bytes".to_vec(), "magic"),
            (good[..12].to_vec(), "header"),
            (
                {
                    let mut b = good.clone();
                    b[4..8].copy_from_slice(&0x0002_0000u32.to_le_bytes());
                    b
                },
                "version",
            ),
            (
                {
                    let mut b = good.clone();
                    b[12..16].copy_from_slice(&0u32.to_le_bytes());
                    b
                },
                "bound",
            ),
            (
                {
                    let mut b = good.clone();
                    b[20..24].copy_from_slice(&17u32.to_le_bytes()); // word count 0
                    b
                },
                "word count of 0",
            ),
            (good[..40].to_vec(), "no OpEntryPoint"),
            (
                {
                    let mut b = good.clone();
                    b[44..48].copy_from_slice(&77u32.to_le_bytes());
                    b
                },
                "execution model 77",
            ),
        ];
        for (bytes, expect) in cases {
            let error = check(&bytes).unwrap_err();
            assert!(error.contains(expect), "{expect:?} not in {error:?}");
        }
    }
}

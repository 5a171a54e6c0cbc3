//! A USD layer through the model import (`bake::mesh::usd`), as a `.usda`, `.usdc` or `.usdz`
//! model source is baked: openusd's readers and composition, then hearth's transforms,
//! primvars, triangulation, shading and skeleton reads. The first byte picks the extension
//! (and so the reader); the rest is the layer. Every input must come back as a scene or an
//! error, never a panic, hang or abort. Seeds: the layers of `tests/corpus/usd` (`seed.sh`).
#![no_main]

use hearth::bake::mesh::usd::import_detached;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some((&pick, layer)) = data.split_first() {
        let name = ["fuzz.usda", "fuzz.usdc", "fuzz.usdz", "fuzz.usd"][usize::from(pick % 4)];
        let _ = import_detached(layer, name);
    }
});

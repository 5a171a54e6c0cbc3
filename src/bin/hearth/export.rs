//! `hearth export`: a baked model as USD (`.usdc`, `.usda`, `.usdz`).

use hearth::Assets;
use std::path::Path;

/// `hearth export SOURCE ASSET -o FILE`: the model `asset` (a `.hmesh` path or a name) of
/// `source` written as `out`, with its PNGs beside it (or inside a `.usdz`); prints each file.
pub(crate) fn export(source: &Path, asset: &str, out: &Path) -> Result<(), String> {
    let assets = Assets::open(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let written = hearth::export::write(&assets, asset, out, &[source])
        .map_err(|e| format!("{}: {e}", source.display()))?;
    for path in written {
        println!("{}", path.display());
    }
    Ok(())
}

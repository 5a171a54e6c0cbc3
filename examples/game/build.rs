fn main() {
    // Bakes ../content/hearth.toml into $OUT_DIR/hearth, tells cargo which files to watch and
    // sets HEARTH_PACK to the pack's path. Debug builds use the manifest's `debug` preset.
    hearth::bake::cargo::bake("../content/hearth.toml");
}

//! Builds (through build.rs) and runs the example game, checking what it read from its pack.

#[test]
fn the_game_reads_its_pack() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_hearth-example-game"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "game failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // A debug build maps the pack build.rs wrote, a release build embeds it.
    let source = if cfg!(debug_assertions) {
        "mapped"
    } else {
        "embedded"
    };
    assert!(
        stdout.contains(&format!("{source} pack: v4, 18 entries")),
        "{stdout}"
    );
    // v4 entry kinds are the manifest's: a LUT and a WGSL shader are named as such.
    for (path, kind) in [
        ("grading/warm.lut.ktx2", "lut"),
        ("shaders/sprite.wgsl", "shader"),
        ("assets.hman", "manifest"),
    ] {
        let line = stdout
            .lines()
            .find(|l| l.trim_start().starts_with(path))
            .unwrap_or_else(|| panic!("{path} not listed: {stdout}"));
        assert_eq!(line.split_whitespace().nth(1), Some(kind), "{line}");
    }
    assert!(
        stdout.contains("text/hello.txt says: Hello from hearth!"),
        "{stdout}"
    );
    assert!(
        stdout.contains("-> data/levels/level2.json (blob"),
        "{stdout}"
    );
    assert!(stdout.contains("verify: ok (16 manifest rows)"), "{stdout}");
    // The game's own kind, baked by the pipeline its build.rs registers, references checked.
    assert!(
        stdout.contains("level \"Meadow\" (kind 130): spawn at [0.0, 0.5, 3.0], 2 props"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  ground: textures/bricks.ktx2 (64x64)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  prop: models/spot/spot.hmesh at [2.0, 0.0, -1.0] x0.5: 3233 vertices"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("ui/wip"),
        "excluded files stay out: {stdout}"
    );
}

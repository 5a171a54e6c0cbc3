//! Builds (through build.rs) and runs the example game, checking what it read from its pack.

#[test]
fn the_game_reads_its_embedded_pack() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_hearth-example-game"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "game failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("embedded pack: v3, 13 entries"), "{stdout}");
    assert!(
        stdout.contains("text/hello.txt says: Hello from hearth!"),
        "{stdout}"
    );
    assert!(
        stdout.contains("-> data/levels/level2.json (embed"),
        "{stdout}"
    );
    assert!(stdout.contains("verify: ok (12 manifest rows)"), "{stdout}");
    assert!(
        !stdout.contains("ui/wip"),
        "excluded files stay out: {stdout}"
    );
}

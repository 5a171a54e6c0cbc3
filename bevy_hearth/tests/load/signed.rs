//! Signed packs: loaded with their key, refused without it or with another.

use super::*;

/// Bakes BoxVertexColors as `m/Thing.glb` into `dir/out`, signed by `key`; returns the pack.
fn bake_signed(dir: &Path, key: &hearth::bake::signing::SigningKey) -> PathBuf {
    bake_thing_with(dir, "BoxVertexColors/BoxVertexColors.glb", |baker| {
        baker.sign(key.clone());
    })
}

#[test]
fn signed_packs_load_with_their_key_and_are_refused_otherwise() {
    use hearth::bake::signing::SigningKey;
    let dir = tempfile::tempdir().unwrap();
    let key = SigningKey::generate().unwrap();
    let pack = bake_signed(dir.path(), &key);

    // The right key: the model loads through the verifying source.
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        HearthPlugin::open_signed(&pack, &key.public_key()).unwrap(),
        AssetPlugin::default(),
    ));
    app.finish();
    app.cleanup();
    let handle: Handle<HearthModel> = load(&mut app, "m/Thing.hmesh");
    let models = app.world().resource::<Assets<HearthModel>>();
    assert_eq!(models.get(&handle).unwrap().submeshes.len(), 1);

    // Another key, and an unsigned pack: refused, naming the file.
    let refused = |pack: &Path, key: &hearth::PublicKey| match HearthPlugin::open_signed(pack, key)
    {
        Ok(_) => panic!("{} opened", pack.display()),
        Err(error) => error.to_string(),
    };
    let other = SigningKey::generate().unwrap().public_key();
    let error = refused(&pack, &other);
    assert!(error.contains(&pack.display().to_string()), "{error}");
    assert!(error.contains("signature"), "{error}");
    let unsigned = bake_thing(
        &dir.path().join("unsigned"),
        "BoxVertexColors/BoxVertexColors.glb",
    );
    let error = refused(&unsigned, &key.public_key());
    assert!(error.contains(&unsigned.display().to_string()), "{error}");

    // A changed table byte (the mesh entry's offset) fails the open; a changed payload byte
    // fails that entry's read, naming it.
    let bytes = std::fs::read(&pack).unwrap();
    let pak = hearth::PakReader::open(&pack).unwrap();
    let entry = pak.find("m/Thing.hmesh").unwrap().unwrap();
    let payload = entry.offset() as usize;
    let table_at = bytes[..payload]
        .windows(8)
        .rposition(|w| w == (payload as u64).to_le_bytes())
        .expect("the entry's offset in its table");
    let tampered = dir.path().join("tampered.hpack");
    let mut table_changed = bytes.clone();
    table_changed[table_at] ^= 1;
    std::fs::write(&tampered, &table_changed).unwrap();
    let error = refused(&tampered, &key.public_key());
    assert!(error.contains(&tampered.display().to_string()), "{error}");
    let mut payload_changed = bytes;
    payload_changed[payload] ^= 0x40;
    std::fs::write(&tampered, &payload_changed).unwrap();
    let plugin = HearthPlugin::open_signed(&tampered, &key.public_key()).unwrap();
    let error = plugin
        .assets()
        .get("m/Thing.hmesh")
        .unwrap_err()
        .to_string();
    assert!(error.contains("digest"), "{error}");
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, plugin, AssetPlugin::default()));
    app.finish();
    app.cleanup();
    let error = load_error(&mut app, "hearth://m/Thing.hmesh");
    assert!(error.contains("m/Thing.hmesh"), "{error}");
}

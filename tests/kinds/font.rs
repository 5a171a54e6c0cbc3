//! Bitmap fonts: AngelCode BMFont descriptors in text, XML and binary bake to the same
//! `.hfont` and page texture; `FontView` reads glyphs, pages and kerning; bad descriptors are
//! errors naming the file and the line (text, XML) or block (binary).
#![cfg(feature = "bake")]

use crate::common;

use hearth::bake::{BakeError, Baker, Report};
use hearth::{AssetKind, FontView, Ktx2, PakReader};
use std::path::Path;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fonts");

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(FIXTURES).join(name))
        .unwrap_or_else(|e| panic!("missing test data {FIXTURES}/{name}: {e}"))
}

/// Bakes `fonts/ui.fnt` (= `descriptor`) with the page beside it.
fn bake(descriptor: &[u8], settings: &str) -> (tempfile::TempDir, Result<Report, BakeError>) {
    bake_files(
        &[
            ("fonts/ui.fnt", descriptor),
            ("fonts/dejavu.png", &fixture("dejavu.png")),
        ],
        settings,
    )
}

fn bake_files(
    files: &[(&str, &[u8])],
    settings: &str,
) -> (tempfile::TempDir, Result<Report, BakeError>) {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(&dir.path().join("src"), files);
    let manifest = dir.path().join("src/hearth.toml");
    std::fs::write(
        &manifest,
        format!(
            "[content]\nname = \"game\"\n[[content.group]]\nassets = [\"fonts/*.fnt\"]\n{settings}"
        ),
    )
    .unwrap();
    let report = Baker::new(manifest.as_path(), dir.path().join("out")).run();
    (dir, report)
}

fn out(dir: &tempfile::TempDir, path: &str) -> Vec<u8> {
    std::fs::read(dir.path().join("out").join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_three_encodings_bake_the_same_font_and_the_view_reads_it() {
    let mut baked = Vec::new();
    for name in ["dejavu.txt.fnt", "dejavu.xml.fnt", "dejavu.bin.fnt"] {
        let (dir, report) = bake(&fixture(name), "");
        let report = report.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(report.assets, 1, "{name}");
        baked.push((
            name,
            out(&dir, "fonts/ui.hfont"),
            out(&dir, "fonts/ui/page_0.ktx2"),
            dir,
        ));
    }
    for (name, hfont, page, _) in &baked[1..] {
        assert_eq!(
            hfont, &baked[0].1,
            "{name}: .hfont differs from the text encoding's"
        );
        assert_eq!(page, &baked[0].2, "{name}: page differs");
    }

    let (_, hfont, page, dir) = &baked[0];
    let font = FontView::parse(hfont).unwrap();
    assert_eq!(font.header.line_height, 24);
    assert_eq!(font.header.base, 19);
    assert_eq!((font.header.scale_w, font.header.scale_h), (128, 64));
    assert_eq!(font.header.font_size, 20);
    assert_eq!(font.glyph_count(), 14);
    assert_eq!(font.page_count(), 1);
    let space = font.glyph(' ' as u32).unwrap();
    assert_eq!((space.width, space.height, space.x_advance), (0, 0, 6));
    assert!(font.glyph('Z' as u32).is_none());
    // DejaVu Sans kerns "AV" and "Te" tighter; "He" not at all.
    assert!(font.kerning('A' as u32, 'V' as u32) < 0);
    assert!(font.kerning('T' as u32, 'e' as u32) < 0);
    assert_eq!(font.kerning('H' as u32, 'e' as u32), 0);
    assert_eq!(font.kerning_count(), 19);

    // The page: a raw RGBA8 KTX2 whose pixels are the PNG's exactly, found through the
    // manifest by the hash the font stores.
    let pack = PakReader::open(dir.path().join("out/game.hpack")).unwrap();
    let record = pack.resolve(font.page(0).unwrap()).unwrap().unwrap();
    assert_eq!(&*record.path, "fonts/ui/page_0.ktx2");
    assert_eq!(record.kind, AssetKind::TEXTURE);
    let font_record = pack
        .resolve(hearth::hash_asset_ref("fonts/ui.hfont"))
        .unwrap()
        .unwrap();
    assert_eq!(font_record.kind, AssetKind::FONT);
    let ktx = Ktx2::parse(page).unwrap();
    assert!(!ktx.is_uastc());
    assert_eq!((ktx.width(), ktx.height(), ktx.level_count()), (128, 64, 1));
    let pixels = ktx.level(0).unwrap();
    let png = image::load_from_memory(&fixture("dejavu.png"))
        .unwrap()
        .to_rgba8();
    assert_eq!(&*pixels, png.as_raw().as_slice(), "pixel-exact page");
    // Every visible glyph's rectangle holds ink.
    for glyph in font.glyphs().filter(|g| g.width > 0) {
        let ink = (glyph.y..glyph.y + glyph.height).any(|y| {
            (glyph.x..glyph.x + glyph.width).any(|x| png.get_pixel(x.into(), y.into())[3] > 0)
        });
        assert!(ink, "glyph {} has no ink in its rectangle", glyph.id);
    }
}

/// A descriptor written the way BMFont and its kin write text files: CRLF, no final newline,
/// padded columns, `letter="""` for the double quote, `xoffset=-0`, and a kerning pair naming a
/// glyph the font lacks (kept, as the `.hfont` stores pairs by id).
#[test]
fn text_descriptors_as_real_tools_write_them() {
    let (dir, report) = bake(&fixture("bmfont-style.fnt"), "");
    report.unwrap();
    let hfont = out(&dir, "fonts/ui.hfont");
    let font = FontView::parse(&hfont).unwrap();
    assert_eq!(font.glyph_count(), 15);
    let quote = font.glyph('"' as u32).expect("the double-quote glyph");
    assert_eq!(
        (quote.x, quote.y, quote.x_offset, quote.x_advance),
        (100, 40, 0, 7)
    );
    assert_eq!(
        font.kerning('A' as u32, 'Z' as u32),
        -1,
        "kept though Z is absent"
    );
    assert_eq!(font.kerning_count(), 20);
    // The rest reads as the plain text encoding does.
    let (plain, report) = bake(&fixture("dejavu.txt.fnt"), "");
    report.unwrap();
    let plain_hfont = out(&plain, "fonts/ui.hfont");
    let plain = FontView::parse(&plain_hfont).unwrap();
    for glyph in plain.glyphs() {
        assert_eq!(font.glyph(glyph.id), Some(glyph), "glyph {}", glyph.id);
    }
    for kerning in plain.kernings() {
        assert_eq!(font.kerning(kerning.first, kerning.second), kerning.amount);
    }
    assert_eq!(font.header, plain.header);
    // Quoted values may hold spaces and `=`; a quote ends only before whitespace or the end.
    let text = String::from_utf8(fixture("dejavu.txt.fnt")).unwrap();
    let odd = text.replace(
        "info face=\"DejaVu Sans\"",
        "info face=\"Deja=Vu \"Sans\"\" extra=\"\"\" x=\"=\"",
    );
    let (_, report) = bake(odd.as_bytes(), "");
    report.unwrap();
    // An unclosed quote is still an error naming the line.
    let (_, report) = bake(
        text.replace("file=\"dejavu.png\"", "file=\"dejavu.png")
            .as_bytes(),
        "",
    );
    let error = report.unwrap_err().to_string();
    assert!(
        error.contains("line 3: `file` has an unclosed quote"),
        "{error}"
    );
}

#[test]
fn compressed_pages_with_mips_on_request() {
    let (dir, report) = bake(
        &fixture("dejavu.txt.fnt"),
        "[default]\nfont = { compress = true, mips = true }\n",
    );
    report.unwrap();
    let page = out(&dir, "fonts/ui/page_0.ktx2");
    let ktx = Ktx2::parse(&page).unwrap();
    assert!(ktx.is_uastc());
    assert_eq!(ktx.level_count(), 8);
}

#[test]
fn bad_descriptors_are_errors_naming_file_and_place() {
    let text = String::from_utf8(fixture("dejavu.txt.fnt")).unwrap();
    let xml = String::from_utf8(fixture("dejavu.xml.fnt")).unwrap();
    let binary = fixture("dejavu.bin.fnt");
    let a_line = text
        .lines()
        .position(|l| l.starts_with("char id=65 "))
        .unwrap()
        + 1;
    let cases: Vec<(Vec<u8>, Vec<String>)> = vec![
        // A glyph outside its page (text): the line is named.
        (
            text.replace("char id=65 x=", "char id=65 x=12")
                .into_bytes(),
            vec![
                format!("line {a_line}: char id 65"),
                "outside its 128x64 page".into(),
            ],
        ),
        // Duplicate ids.
        (
            format!("{text}char id=65 x=0 y=0 width=1 height=1\n").into_bytes(),
            vec![format!("char id 65 is also on line {a_line}")],
        ),
        // A page the descriptor lists but that is not there.
        (
            text.replace("dejavu.png", "missing.png").into_bytes(),
            vec!["missing.png".into()],
        ),
        // A glyph on a page the font does not have.
        (
            text.replace("char id=65 x=", "char id=65 page=3 x=")
                .into_bytes(),
            vec![
                format!("line {a_line}"),
                "on page 3, but the font has 1 pages".into(),
            ],
        ),
        // No common line.
        (
            text.lines()
                .filter(|l| !l.starts_with("common"))
                .collect::<Vec<_>>()
                .join("\n")
                .into_bytes(),
            vec!["no `common` line".into()],
        ),
        // XML: an unclosed quote, named by line.
        (
            xml.replacen("<char id=\"65\"", "<char id=\"65", 1)
                .into_bytes(),
            vec!["line ".into()],
        ),
        // XML: a value that is not a number.
        (
            xml.replacen("lineHeight=\"24\"", "lineHeight=\"tall\"", 1)
                .into_bytes(),
            vec!["line 4: `common lineHeight=tall` is not an integer".into()],
        ),
        // Binary: cut inside the chars block.
        (
            binary[..binary.len() - 200].to_vec(),
            vec!["block 4".into(), "the file ends first".into()],
        ),
        // Binary: a version this reader does not know.
        (
            [b"BMF\x02".as_slice(), &binary[4..]].concat(),
            vec!["binary BMFont version 2".into()],
        ),
    ];
    for (descriptor, expect) in cases {
        let (_, report) = bake(&descriptor, "");
        let error = report.expect_err("the bake must fail").to_string();
        assert!(error.contains("fonts/ui.fnt"), "the file is named: {error}");
        for part in &expect {
            assert!(error.contains(part.as_str()), "{part:?} not in {error:?}");
        }
    }
    // A page of the wrong size.
    let small = {
        let mut png = Vec::new();
        image::RgbaImage::new(64, 64)
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap();
        png
    };
    let (_, report) = bake_files(
        &[
            ("fonts/ui.fnt", text.as_bytes()),
            ("fonts/dejavu.png", &small),
        ],
        "",
    );
    let error = report.unwrap_err().to_string();
    assert!(
        error.contains("is 64x64, but the descriptor's scaleW x scaleH is 128x64"),
        "{error}"
    );
}

/// `hearth info` counts glyphs, pages and kernings; `hearth check` follows the page refs.
#[cfg(feature = "cli")]
#[test]
fn info_counts_and_check_follows_pages() {
    let (dir, report) = bake(&fixture("dejavu.bin.fnt"), "");
    report.unwrap();
    let out = dir.path().join("out");
    let hearth = |args: &[&str]| common::hearth_on(args, &out);
    let (ok, text) = hearth(&["info"]);
    assert!(ok, "{text}");
    assert!(
        text.contains("14 glyphs, 1 pages (128x64), 19 kerning pairs, line height 24"),
        "{text}"
    );
    let font = &common::info_files(&out)["fonts/ui.hfont"];
    assert_eq!(font["kind"], "font");
    assert_eq!(
        (
            font["glyphs"].as_u64(),
            font["pages"].as_u64(),
            font["kernings"].as_u64()
        ),
        (Some(14), Some(1), Some(19))
    );
    let (ok, text) = hearth(&["check"]);
    assert!(ok, "{text}");
    // The page gone: check names the font and the page.
    std::fs::remove_file(out.join("fonts/ui/page_0.ktx2")).unwrap();
    let (ok, text) = hearth(&["check"]);
    assert!(!ok);
    assert!(
        text.contains("`fonts/ui.hfont`: page 0 `fonts/ui/page_0.ktx2` is missing"),
        "{text}"
    );
}

/// The independent Python reader (`tools/spec_check.py`, written from the README's layout)
/// accepts the baked font and refuses a damaged one.
#[test]
fn the_spec_checker_reads_hfont_from_the_readme_layout() {
    let (dir, report) = bake(&fixture("dejavu.xml.fnt"), "");
    report.unwrap();
    let out = dir.path().join("out");
    let spec_check = || common::spec_check(&out);
    let (ok, text) = spec_check();
    assert!(ok, "{text}");
    assert!(text.contains("0 problems"), "{text}");
    // Swap two glyph records: ids no longer ascend.
    let path = out.join("fonts/ui.hfont");
    let mut bytes = std::fs::read(&path).unwrap();
    let glyphs = 32 + 8;
    let (a, b) = bytes[glyphs..glyphs + 40].split_at_mut(20);
    a.swap_with_slice(b);
    std::fs::write(&path, &bytes).unwrap();
    let (ok, text) = spec_check();
    assert!(!ok);
    assert!(text.contains("fonts/ui.hfont: glyph 1: id"), "{text}");
}

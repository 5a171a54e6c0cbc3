//! AngelCode BMFont descriptors in their three encodings: text (`info face="…" size=32 …`),
//! XML (`<font><common …/><pages><page …/></pages>…`) and binary version 3 (`BMF\x03` and
//! typed blocks). All three become one [`BmFont`]; errors name the line (text, XML) or the
//! block (binary).

use crate::format::hfont::{FontHeader, Glyph, Kerning};
use std::collections::BTreeMap;

/// A parsed descriptor.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BmFont {
    /// Font-wide values.
    pub header: FontHeader,
    /// Page image file names, relative to the descriptor, by page id.
    pub pages: Vec<String>,
    /// Glyphs, in file order.
    pub glyphs: Vec<Glyph>,
    /// Kerning pairs, in file order.
    pub kernings: Vec<Kerning>,
}

/// Parses any of the three encodings (binary by its `BMF` signature, XML by a leading `<`).
pub fn parse(bytes: &[u8]) -> Result<BmFont, String> {
    if bytes.starts_with(b"BMF") {
        return parse_binary(bytes);
    }
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 text: {e}"))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut builder = Builder::default();
    if text.trim_start().starts_with('<') {
        for element in xml_elements(text)? {
            builder.element(&element.name, &element.attributes, element.line)?;
        }
    } else {
        for (index, line) in text.lines().enumerate() {
            let (tag, attributes) =
                text_line(line).map_err(|e| format!("line {}: {e}", index + 1))?;
            if !tag.is_empty() {
                builder.element(tag, &attributes, index + 1)?;
            }
        }
    }
    builder.finish()
}

/// One element: a text line's tag and pairs, or an XML element's name and attributes.
struct Element {
    name: String,
    attributes: Vec<(String, String)>,
    line: usize,
}

/// Collects elements of either text encoding into a font, checking as it goes.
#[derive(Default)]
struct Builder {
    common: Option<(FontHeader, u32)>,
    font_size: i16,
    pages: BTreeMap<u32, (String, usize)>,
    glyphs: Vec<Glyph>,
    glyph_lines: BTreeMap<u32, usize>,
    kernings: Vec<Kerning>,
    kerning_lines: BTreeMap<(u32, u32), usize>,
}

fn attribute<'a>(attributes: &'a [(String, String)], key: &str) -> Option<&'a str> {
    attributes
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// An integer attribute in `T`'s range; `default` when absent (None: required).
fn number<T: TryFrom<i64>>(
    attributes: &[(String, String)],
    tag: &str,
    key: &str,
    default: Option<T>,
    line: usize,
) -> Result<T, String> {
    let Some(text) = attribute(attributes, key) else {
        return default.ok_or_else(|| format!("line {line}: `{tag}` has no `{key}`"));
    };
    let value: i64 = text
        .trim()
        .parse()
        .map_err(|_| format!("line {line}: `{tag} {key}={text}` is not an integer"))?;
    T::try_from(value).map_err(|_| format!("line {line}: `{tag} {key}={value}` is out of range"))
}

impl Builder {
    fn element(&mut self, tag: &str, a: &[(String, String)], line: usize) -> Result<(), String> {
        match tag {
            "info" => self.font_size = number(a, tag, "size", Some(0), line)?,
            "common" => {
                let header = FontHeader {
                    line_height: number(a, tag, "lineHeight", None, line)?,
                    base: number(a, tag, "base", None, line)?,
                    scale_w: number(a, tag, "scaleW", None, line)?,
                    scale_h: number(a, tag, "scaleH", None, line)?,
                    font_size: 0,
                };
                let pages: u32 = number(a, tag, "pages", None, line)?;
                if pages > 256 {
                    return Err(format!("line {line}: {pages} pages (at most 256)"));
                }
                self.common = Some((header, pages));
            }
            "page" => {
                let id: u32 = number(a, tag, "id", None, line)?;
                let file = attribute(a, "file")
                    .filter(|f| !f.is_empty())
                    .ok_or_else(|| format!("line {line}: `page` has no `file`"))?;
                if let Some((_, first)) = self.pages.insert(id, (file.to_owned(), line)) {
                    return Err(format!("line {line}: page {id} is also on line {first}"));
                }
            }
            "char" => {
                let glyph = Glyph {
                    id: number(a, tag, "id", None, line)?,
                    x: number(a, tag, "x", None, line)?,
                    y: number(a, tag, "y", None, line)?,
                    width: number(a, tag, "width", None, line)?,
                    height: number(a, tag, "height", None, line)?,
                    x_offset: number(a, tag, "xoffset", Some(0), line)?,
                    y_offset: number(a, tag, "yoffset", Some(0), line)?,
                    x_advance: number(a, tag, "xadvance", Some(0), line)?,
                    page: number(a, tag, "page", Some(0), line)?,
                    channel: number(a, tag, "chnl", Some(15), line)?,
                };
                if let Some(first) = self.glyph_lines.insert(glyph.id, line) {
                    return Err(format!(
                        "line {line}: char id {} is also on line {first}",
                        glyph.id
                    ));
                }
                self.glyphs.push(glyph);
            }
            "kerning" => {
                let kerning = Kerning {
                    first: number(a, tag, "first", None, line)?,
                    second: number(a, tag, "second", None, line)?,
                    amount: number(a, tag, "amount", None, line)?,
                };
                let pair = (kerning.first, kerning.second);
                if let Some(first) = self.kerning_lines.insert(pair, line) {
                    return Err(format!(
                        "line {line}: kerning {} {} is also on line {first}",
                        pair.0, pair.1
                    ));
                }
                self.kernings.push(kerning);
            }
            // chars/kernings counts, the XML root and containers, and tags of newer tools.
            _ => {}
        }
        Ok(())
    }

    fn finish(self) -> Result<BmFont, String> {
        let (mut header, page_count) = self
            .common
            .ok_or("no `common` line (lineHeight, base, scaleW, scaleH, pages)")?;
        header.font_size = self.font_size;
        let mut pages = Vec::new();
        for id in 0..page_count {
            let (file, _) = self.pages.get(&id).ok_or_else(|| {
                format!("`common pages={page_count}` but page {id} is not listed")
            })?;
            pages.push(file.clone());
        }
        if let Some((id, (_, line))) = self.pages.range(page_count..).next() {
            return Err(format!(
                "line {line}: page {id} is beyond `common pages={page_count}`"
            ));
        }
        for glyph in &self.glyphs {
            let line = self.glyph_lines[&glyph.id];
            check_glyph(glyph, &header, page_count).map_err(|e| format!("line {line}: {e}"))?;
        }
        Ok(BmFont {
            header,
            pages,
            glyphs: self.glyphs,
            kernings: self.kernings,
        })
    }
}

/// A glyph's page exists and its rectangle lies inside the page size.
fn check_glyph(glyph: &Glyph, header: &FontHeader, page_count: u32) -> Result<(), String> {
    if u32::from(glyph.page) >= page_count {
        return Err(format!(
            "char id {} is on page {}, but the font has {page_count} pages",
            glyph.id, glyph.page
        ));
    }
    if u32::from(glyph.x) + u32::from(glyph.width) > u32::from(header.scale_w)
        || u32::from(glyph.y) + u32::from(glyph.height) > u32::from(header.scale_h)
    {
        return Err(format!(
            "char id {}: its rectangle {}x{} at ({}, {}) lies outside its {}x{} page",
            glyph.id, glyph.width, glyph.height, glyph.x, glyph.y, header.scale_w, header.scale_h
        ));
    }
    Ok(())
}

/// `key=value` pairs, in order.
type Pairs = Vec<(String, String)>;

/// Where a quoted value (`quoted` is what follows its opening quote) ends: at the first `"`
/// followed by whitespace or the end of the line. So a value may hold `=`, spaces and quotes, and
/// BMFont's own `letter="""` for the double-quote glyph reads as `"`, as libGDX, pixi and
/// HaxeFlixel read it.
fn closing_quote(quoted: &str) -> Option<usize> {
    quoted.match_indices('"').map(|(at, _)| at).find(|&at| {
        quoted[at + 1..]
            .chars()
            .next()
            .is_none_or(char::is_whitespace)
    })
}

/// A text line: its tag and `key=value` pairs (values may be quoted and hold spaces, `=` and
/// quotes; see [`closing_quote`]).
fn text_line(line: &str) -> Result<(&str, Pairs), String> {
    let line = line.trim();
    let (tag, mut rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let mut pairs = Vec::new();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return Ok((tag, pairs));
        }
        let (key, after) = rest
            .split_once('=')
            .ok_or_else(|| format!("`{rest}` is not key=value"))?;
        if key.contains(char::is_whitespace) {
            return Err(format!("`{key}` is not key=value"));
        }
        let (value, after) = match after.strip_prefix('"') {
            Some(quoted) => {
                let end = closing_quote(quoted)
                    .ok_or_else(|| format!("`{key}` has an unclosed quote"))?;
                (&quoted[..end], &quoted[end + 1..])
            }
            None => after.split_once(char::is_whitespace).unwrap_or((after, "")),
        };
        pairs.push((key.to_owned(), value.to_owned()));
        rest = after;
    }
}

/// The start tags of an XML document (declarations, comments and end tags skipped), with
/// their attributes (entities decoded) and line numbers.
fn xml_elements(text: &str) -> Result<Vec<Element>, String> {
    let mut elements = Vec::new();
    let mut at = 0;
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    while let Some(offset) = text[at..].find('<') {
        let start = at + offset;
        let rest = &text[start..];
        if rest.starts_with("<!--") {
            let end = rest
                .find("-->")
                .ok_or_else(|| format!("line {}: unclosed comment", line_of(start)))?;
            at = start + end + 3;
            continue;
        }
        let end = rest
            .find('>')
            .ok_or_else(|| format!("line {}: unclosed tag", line_of(start)))?;
        let inner = &rest[1..end];
        at = start + end + 1;
        if inner.starts_with(['?', '!', '/']) {
            continue;
        }
        let inner = inner.strip_suffix('/').unwrap_or(inner).trim();
        let (name, mut attrs) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
        let line = line_of(start);
        let mut attributes = Vec::new();
        loop {
            attrs = attrs.trim_start();
            if attrs.is_empty() {
                break;
            }
            let (key, after) = attrs
                .split_once('=')
                .ok_or_else(|| format!("line {line}: `{attrs}` is not key=\"value\""))?;
            let after = after.trim_start();
            let quote = after
                .chars()
                .next()
                .filter(|c| matches!(c, '"' | '\''))
                .ok_or_else(|| format!("line {line}: `{}` has an unquoted value", key.trim()))?;
            let close = after[1..]
                .find(quote)
                .ok_or_else(|| format!("line {line}: `{}` has an unclosed quote", key.trim()))?;
            let value =
                decode_entities(&after[1..1 + close]).map_err(|e| format!("line {line}: {e}"))?;
            attributes.push((key.trim().to_owned(), value));
            attrs = &after[close + 2..];
        }
        elements.push(Element {
            name: name.to_owned(),
            attributes,
            line,
        });
    }
    Ok(elements)
}

fn decode_entities(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let end = rest[amp..]
            .find(';')
            .ok_or_else(|| format!("unterminated entity in `{text}`"))?;
        let entity = &rest[amp + 1..amp + end];
        let decoded = match entity {
            "quot" => '"',
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "apos" => '\'',
            _ => entity
                .strip_prefix("#x")
                .map(|hex| u32::from_str_radix(hex, 16))
                .or_else(|| entity.strip_prefix('#').map(str::parse))
                .and_then(Result::ok)
                .and_then(char::from_u32)
                .ok_or_else(|| format!("unknown entity `&{entity};`"))?,
        };
        out.push(decoded);
        rest = &rest[amp + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Binary version 3: `BMF` 3, then blocks (type u8, size u32, body): 1 info, 2 common, 3 pages,
/// 4 chars, 5 kerning pairs.
fn parse_binary(bytes: &[u8]) -> Result<BmFont, String> {
    match bytes.get(3) {
        Some(3) => {}
        Some(version) => return Err(format!("binary BMFont version {version} (3 is supported)")),
        None => return Err("truncated binary BMFont header".to_owned()),
    }
    let mut font_size = 0i16;
    let mut common: Option<(FontHeader, u32)> = None;
    let mut page_names: Vec<String> = Vec::new();
    let mut glyphs = Vec::new();
    let mut kernings = Vec::new();
    let mut at = 4;
    while at < bytes.len() {
        let (block, body) = binary_block(bytes, at)?;
        let u16_at = |i: usize| u16::from_le_bytes([body[i], body[i + 1]]);
        let short = |need: usize| {
            if body.len() < need {
                Err(format!(
                    "block {block} (at byte {at}) is {} bytes, shorter than {need}",
                    body.len()
                ))
            } else {
                Ok(())
            }
        };
        match block {
            1 => {
                short(2)?;
                font_size = u16_at(0) as i16;
            }
            2 => {
                short(10)?;
                let header = FontHeader {
                    line_height: u16_at(0),
                    base: u16_at(2),
                    scale_w: u16_at(4),
                    scale_h: u16_at(6),
                    font_size: 0,
                };
                common = Some((header, u32::from(u16_at(8))));
            }
            3 => page_names.extend(binary_pages(body)?),
            4 => glyphs.extend(binary_chars(body)?),
            5 => kernings.extend(binary_kernings(body)?),
            other => return Err(format!("unknown block type {other} at byte {at}")),
        }
        at += 5 + body.len();
    }
    let (mut header, page_count) = common.ok_or("no common block (block 2)")?;
    header.font_size = font_size;
    if page_names.len() != page_count as usize {
        return Err(format!(
            "the common block says {page_count} pages, the pages block names {}",
            page_names.len()
        ));
    }
    check_binary_records(&glyphs, &kernings, &header, page_count)?;
    Ok(BmFont {
        header,
        pages: page_names,
        glyphs,
        kernings,
    })
}

/// The block at byte `at` of a binary BMFont: its type and its body, within the file.
fn binary_block(bytes: &[u8], at: usize) -> Result<(u8, &[u8]), String> {
    let block = bytes[at];
    let size = bytes
        .get(at + 1..at + 5)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .ok_or_else(|| format!("block {block} at byte {at}: truncated block header"))?;
    let body = at
        .checked_add(5)
        .and_then(|start| bytes.get(start..start.checked_add(size)?))
        .ok_or_else(|| {
            format!("block {block} at byte {at}: {size} bytes declared, the file ends first")
        })?;
    Ok((block, body))
}

/// Block 3's page names: nul-terminated, all the same length.
fn binary_pages(body: &[u8]) -> Result<Vec<String>, String> {
    let mut page_names = Vec::new();
    for name in body.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = std::str::from_utf8(name)
            .map_err(|_| "block 3 (pages): a page name is not UTF-8".to_owned())?;
        page_names.push(name.to_owned());
    }
    Ok(page_names)
}

/// Block 4's glyphs, 20 bytes each.
fn binary_chars(body: &[u8]) -> Result<Vec<Glyph>, String> {
    if !body.len().is_multiple_of(20) {
        return Err(format!(
            "block 4 (chars) is {} bytes, not a multiple of 20: truncated",
            body.len()
        ));
    }
    let glyph = |c: &[u8]| {
        let u16c = |i: usize| u16::from_le_bytes([c[i], c[i + 1]]);
        Glyph {
            id: u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
            x: u16c(4),
            y: u16c(6),
            width: u16c(8),
            height: u16c(10),
            x_offset: u16c(12) as i16,
            y_offset: u16c(14) as i16,
            x_advance: u16c(16) as i16,
            page: c[18],
            channel: c[19],
        }
    };
    Ok(body.chunks_exact(20).map(glyph).collect())
}

/// Block 5's kerning pairs, 10 bytes each.
fn binary_kernings(body: &[u8]) -> Result<Vec<Kerning>, String> {
    if !body.len().is_multiple_of(10) {
        return Err(format!(
            "block 5 (kerning pairs) is {} bytes, not a multiple of 10: truncated",
            body.len()
        ));
    }
    Ok(body
        .chunks_exact(10)
        .map(|k| Kerning {
            first: u32::from_le_bytes([k[0], k[1], k[2], k[3]]),
            second: u32::from_le_bytes([k[4], k[5], k[6], k[7]]),
            amount: i16::from_le_bytes([k[8], k[9]]),
        })
        .collect())
}

/// Every glyph of a binary BMFont once and inside its page, every kerning pair once.
fn check_binary_records(
    glyphs: &[Glyph],
    kernings: &[Kerning],
    header: &FontHeader,
    page_count: u32,
) -> Result<(), String> {
    let mut seen = BTreeMap::new();
    for (index, glyph) in glyphs.iter().enumerate() {
        if let Some(first) = seen.insert(glyph.id, index) {
            return Err(format!(
                "block 4 (chars): char id {} is both record {first} and record {index}",
                glyph.id
            ));
        }
        check_glyph(glyph, header, page_count).map_err(|e| format!("block 4 (chars): {e}"))?;
    }
    let mut pairs = BTreeMap::new();
    for (index, kerning) in kernings.iter().enumerate() {
        if let Some(first) = pairs.insert((kerning.first, kerning.second), index) {
            return Err(format!(
                "block 5 (kerning pairs): pair {} {} is both record {first} and record {index}",
                kerning.first, kerning.second
            ));
        }
    }
    Ok(())
}

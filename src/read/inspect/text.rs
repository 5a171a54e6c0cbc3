//! Text a tool shows that came from a pack or a file name: characters that would act on a
//! terminal, a page or a line format, shown as visible markers instead.

use std::borrow::Cow;

/// Whether a character can reorder or hide the text around it: the bidi embeddings,
/// overrides and isolates (U+202A–U+202E, U+2066–U+2069), the bidi marks (U+200E, U+200F,
/// U+061C), and control characters (a file name may hold any but `/` and NUL). An HTML entity
/// would not do in a page: the browser decodes it back to the character, which still acts.
pub fn is_hidden_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
        || c.is_control()
}

/// `text` for one field of a tab-separated line (`hearth names`, `hearth info`): every
/// [hidden control](is_hidden_control), tab and newline included, shown as `[U+XXXX]`, so a
/// value cannot forge rows, shift columns or send escape sequences to the terminal. Borrowed
/// when there is nothing to show.
///
/// ```
/// use hearth::read::inspect::line_field;
/// assert_eq!(line_field("logo"), "logo");
/// assert_eq!(line_field("a\tb\u{1b}[2J"), "a[U+0009]b[U+001B][2J");
/// ```
pub fn line_field(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_hidden_control) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match is_hidden_control(c) {
            true => shown.push_str(&format!("[U+{:04X}]", c as u32)),
            false => shown.push(c),
        }
    }
    Cow::Owned(shown)
}

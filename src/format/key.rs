//! The text form of signing keys: one line, a tag naming what the key is, then its 32 bytes
//! in lowercase hex (`hearth-public-key-v1 3b6a27bc…`). Text, so a public key can be pasted
//! into source (`include_str!`) and a secret key kept in a CI secret store.

/// Tag of an Ed25519 public key (`KEY.pub`, written by `hearth keygen`).
pub const PUBLIC_KEY_TAG: &str = "hearth-public-key-v1";
/// Tag of an Ed25519 secret key (its 32-byte seed; `KEY`, written by `hearth keygen`).
pub const SECRET_KEY_TAG: &str = "hearth-secret-key-v1";

/// `tag` and `bytes` as one line of text, newline-terminated.
pub fn encode(tag: &str, bytes: &[u8; 32]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{tag} {hex}\n")
}

/// The 32 bytes of a key written by [`encode`] with `tag`; surrounding whitespace is ignored.
/// `None` when the text is not such a key (another tag, a bad length, a non-hex digit).
pub fn decode(tag: &str, text: &str) -> Option<[u8; 32]> {
    let hex = text.trim().strip_prefix(tag)?.strip_prefix(' ')?;
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut bytes = [0u8; 32];
    for (byte, pair) in bytes.iter_mut().zip(hex.as_bytes().chunks_exact(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_the_wrong_tag_or_length() {
        let key: [u8; 32] = std::array::from_fn(|i| (i * 37) as u8);
        let text = encode(PUBLIC_KEY_TAG, &key);
        assert_eq!(decode(PUBLIC_KEY_TAG, &text), Some(key));
        assert_eq!(decode(PUBLIC_KEY_TAG, &format!("  {text}  ")), Some(key));
        assert_eq!(decode(SECRET_KEY_TAG, &text), None);
        assert_eq!(decode(PUBLIC_KEY_TAG, &text[..text.len() - 3]), None);
        assert_eq!(decode(PUBLIC_KEY_TAG, &text.replace('a', "g")), None);
    }
}

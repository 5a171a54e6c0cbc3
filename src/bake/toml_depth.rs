//! TOML parsed safely: the `toml` crate's parser recurses once per dotted-key segment and
//! inline table (up to 80 x 80 levels, kilobytes of stack each in debug builds), so a crafted
//! file can overflow the caller's stack and abort the process. Every TOML hearth reads (the
//! manifest, asset files) is parsed here: on a stack of known size, and refused when nested
//! deeper than [`MAX_TOML_DEPTH`], which bounds every recursive walk of the values later
//! (settings merge and fingerprint, scene data, serde's own deserialization).

/// The deepest nesting of tables and arrays a TOML file may have: far over any real one.
pub(crate) const MAX_TOML_DEPTH: usize = 64;

/// The stack TOML is parsed on.
const TOML_STACK_BYTES: usize = 64 << 20;

/// Text this short cannot nest deeply enough to matter: parsed on the caller's stack.
const SHORT_TEXT: usize = 256;

/// Parses TOML on a stack of known size (text too short to nest deeply is parsed in place),
/// refusing values nested deeper than [`MAX_TOML_DEPTH`]. The error is the message and, when
/// known, the byte offset.
pub(crate) fn parse_toml(text: &str) -> Result<toml::Table, (String, Option<usize>)> {
    on_parser_stack(text, || parse_here(text))?
}

/// [`parse_toml`] on the current stack: for a caller already on [`on_parser_stack`].
pub(crate) fn parse_here(text: &str) -> Result<toml::Table, (String, Option<usize>)> {
    let table = text
        .parse::<toml::Table>()
        .map_err(|e| (e.message().trim_end().to_owned(), e.span().map(|s| s.start)))?;
    match depth_within(&table, MAX_TOML_DEPTH) {
        true => Ok(table),
        // Dropped here, on the caller's (large) stack: dropping recurses too.
        false => Err((
            format!("tables and arrays nested deeper than {MAX_TOML_DEPTH} levels"),
            None,
        )),
    }
}

/// Runs `parse` (which parses `text`) on a thread with a stack of [`TOML_STACK_BYTES`], or in
/// place when `text` is short. A panic in `parse` is resumed on the caller's thread.
pub(crate) fn on_parser_stack<T: Send>(
    text: &str,
    parse: impl FnOnce() -> T + Send,
) -> Result<T, (String, Option<usize>)> {
    if text.len() <= SHORT_TEXT {
        return Ok(parse());
    }
    std::thread::scope(|scope| {
        let parser = std::thread::Builder::new()
            .name("hearth-toml".into())
            .stack_size(TOML_STACK_BYTES)
            .spawn_scoped(scope, parse)
            .map_err(|e| {
                (
                    format!("could not start the TOML parser's thread: {e}"),
                    None,
                )
            })?;
        Ok(parser
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

/// Whether no value of `table` is nested deeper than `max` tables and arrays (iterative).
fn depth_within(table: &toml::Table, max: usize) -> bool {
    let mut stack: Vec<(&toml::Value, usize)> = table.values().map(|v| (v, 1)).collect();
    while let Some((value, depth)) = stack.pop() {
        if depth > max {
            return false;
        }
        match value {
            toml::Value::Table(t) => stack.extend(t.values().map(|v| (v, depth + 1))),
            toml::Value::Array(a) => stack.extend(a.iter().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
    true
}

/// The 1-based line of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text.as_bytes()[..offset]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

//! Fault injection for the write-phase tests (feature `failpoints`, testing only): named
//! points where a test makes the process abort (as a `kill -9` would) or an I/O call fail
//! (as a full disk would), through the `fail` crate's `FAILPOINTS` variable, e.g.
//! `FAILPOINTS='transaction::apply=2*off->return(abort)'`. Without the feature every point
//! is a no-op that compiles away.

/// Passes, fails with an injected I/O error, or aborts the process, as configured for `name`.
#[inline]
pub(crate) fn point(name: &str) -> std::io::Result<()> {
    #[cfg(feature = "failpoints")]
    if let Some(result) = fail::eval(name, |arg| match arg.as_deref() {
        Some("abort") => std::process::abort(),
        _ => Err(std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            format!("injected fault at `{name}`: no space left on device"),
        )),
    }) {
        return result;
    }
    let _ = name;
    Ok(())
}

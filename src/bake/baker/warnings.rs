//! The bake's warnings: each reported once, at once, and all kept for the report.

use std::sync::Arc;

pub(super) type WarningFn = Arc<dyn Fn(&str) + Send + Sync>;

/// The bake's warnings, in the order found: each goes to the warning callback at once, and
/// all into [`Report::warnings`](crate::bake::Report::warnings) at the end. Each distinct warning
/// (its text names the file) once per bake: a mesh instanced on several nodes, or a file several
/// assets read, says it once.
pub(super) struct Warnings<'a> {
    pub(super) callback: Option<&'a WarningFn>,
    pub(super) list: Vec<String>,
    pub(super) seen: std::collections::HashSet<String>,
}

impl<'a> Warnings<'a> {
    pub(super) fn new(callback: Option<&'a WarningFn>) -> Self {
        Self {
            callback,
            list: Vec::new(),
            seen: Default::default(),
        }
    }

    pub(super) fn push(&mut self, message: String) {
        if !self.seen.insert(message.clone()) {
            return;
        }
        if let Some(callback) = self.callback {
            callback(&message);
        }
        self.list.push(message);
    }

    pub(super) fn extend(&mut self, messages: impl IntoIterator<Item = String>) {
        messages.into_iter().for_each(|message| self.push(message));
    }
}

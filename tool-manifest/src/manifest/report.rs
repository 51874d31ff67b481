//! The mistakes of one manifest (and of the schema files it names), located and bounded.

use std::ops::Range;
use std::path::Path;

use toml::Spanned;
use toml::de::DeValue;

use super::limits::{MAX_DIAGNOSTICS_PER_FILE, MESSAGE_LIMIT};
use crate::diagnostic::Diagnostic;
use crate::schema::{article, truncate};

/// Where the mistakes of one manifest go: at most [`MAX_DIAGNOSTICS_PER_FILE`] are kept, the
/// rest counted.
pub(super) struct Report<'t> {
    file: &'t Path,
    text: &'t str,
    diagnostics: Vec<Diagnostic>,
    /// Mistakes past the limit: counted, not located (locating each costs a pass over the text).
    suppressed: usize,
    /// Where in the manifest the first of them is.
    first_suppressed: usize,
}

impl<'t> Report<'t> {
    pub(super) fn new(file: &'t Path, text: &'t str) -> Self {
        Report {
            file,
            text,
            diagnostics: Vec::new(),
            suppressed: 0,
            first_suppressed: 0,
        }
    }

    /// The manifest's text.
    pub(super) fn text(&self) -> &'t str {
        self.text
    }

    /// The manifest's path, as given.
    pub(super) fn file(&self) -> &'t Path {
        self.file
    }

    /// The 1-based line and column of a byte offset of the manifest.
    pub(super) fn line_col(&self, offset: usize) -> (usize, usize) {
        Diagnostic::line_col(self.text, offset)
    }

    /// How many mistakes were found so far, kept or counted.
    pub(super) fn count(&self) -> usize {
        self.diagnostics.len() + self.suppressed
    }

    /// A mistake at a byte offset of the manifest.
    pub(super) fn error(&mut self, offset: usize, message: impl Into<String>) {
        let (file, text) = (self.file, self.text);
        self.push(offset, || {
            let (line, column) = Diagnostic::line_col(text, offset);
            Diagnostic::at(file, line, column, message)
        });
    }

    /// A mistake made by `diagnostic` (called only when it is kept), counted at `offset` of the
    /// manifest when it is not. Messages quote what the files say: bounded, and with invisible or
    /// reordering characters escaped so that what is shown is what is written.
    pub(super) fn push(&mut self, offset: usize, diagnostic: impl FnOnce() -> Diagnostic) {
        if self.diagnostics.len() >= MAX_DIAGNOSTICS_PER_FILE {
            if self.suppressed == 0 {
                self.first_suppressed = offset;
            }
            self.suppressed += 1;
            return;
        }
        let mut diagnostic = diagnostic();
        diagnostic.message = truncate(&diagnostic.message, MESSAGE_LIMIT);
        self.diagnostics.push(diagnostic);
    }

    /// A non-empty string, the value of `key`.
    pub(super) fn string(&mut self, item: &Item<'_>, key: &str) -> Option<(String, Range<usize>)> {
        match item.get_ref() {
            DeValue::String(s) if s.trim().is_empty() => {
                self.error(
                    item.span().start,
                    format!("expected `{key}` to be a non-empty string, found an empty one"),
                );
                None
            }
            DeValue::String(s) => Some((s.to_string(), item.span())),
            other => {
                self.error(
                    item.span().start,
                    format!(
                        "expected `{key}` to be a string, found {}",
                        toml_type(other)
                    ),
                );
                None
            }
        }
    }

    /// Every mistake kept, and one more that counts the others when there were too many.
    pub(super) fn into_diagnostics(mut self) -> Vec<Diagnostic> {
        if self.suppressed > 0 {
            let (line, column) = self.line_col(self.first_suppressed);
            self.diagnostics.push(Diagnostic::at(
                self.file,
                line,
                column,
                format!(
                    "too many mistakes: {} more, the first of them here (only the first {MAX_DIAGNOSTICS_PER_FILE} are listed)",
                    self.suppressed
                ),
            ));
        }
        self.diagnostics
    }
}

/// A value of a manifest with where it is written.
pub(super) type Item<'i> = Spanned<DeValue<'i>>;

/// `a string`, `an integer`, … for messages.
pub(super) fn toml_type(value: &DeValue<'_>) -> String {
    let word = value.type_str();
    format!("{} {word}", article(word))
}

//! Errors in manifests, located at `file:line:col`.

use std::fmt;
use std::path::PathBuf;

/// One mistake in one manifest, with where it is and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic {
    /// The manifest file, as given to the loader (relative paths stay relative).
    pub file: PathBuf,
    /// 1-based line; 0 when the mistake concerns the file as a whole.
    pub line: usize,
    /// 1-based column (in characters); 0 when the mistake concerns the file as a whole.
    pub column: usize,
    /// Lowercase, the offending name in backticks, the accepted values listed.
    pub message: String,
}

impl Diagnostic {
    /// A mistake at a 1-based line and column.
    pub fn at(
        file: impl Into<PathBuf>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            file: file.into(),
            line,
            column,
            message: message.into(),
        }
    }

    /// A mistake about a whole file (unreadable, say).
    pub fn file(file: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Diagnostic {
            file: file.into(),
            line: 0,
            column: 0,
            message: message.into(),
        }
    }

    /// The 1-based line and column of a byte offset in `text`.
    pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let before = text.get(..offset).unwrap_or(text);
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
        (line, column)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file.display(),
                self.line,
                self.column,
                self.message
            )
        }
    }
}

/// Every mistake of a run, sorted by file, line and column.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Sorts by location so output is stable.
    pub fn sorted(mut self) -> Self {
        self.0.sort_by(|a, b| {
            (&a.file, a.line, a.column, &a.message).cmp(&(&b.file, b.line, b.column, &b.message))
        });
        self
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "error: {d}")?;
        }
        if self.0.len() > 1 {
            write!(f, "\n{} errors", self.0.len())?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one_in_characters() {
        let text = "a = 1\nbé = 2\n";
        assert_eq!(Diagnostic::line_col(text, 0), (1, 1));
        assert_eq!(Diagnostic::line_col(text, 6), (2, 1));
        // byte offset of `=` on line 2: "bé " is 4 bytes, 3 characters
        assert_eq!(Diagnostic::line_col(text, 10), (2, 4));
    }
}

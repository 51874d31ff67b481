//! Errors in manifests, located at `file:line:col`.

use std::path::PathBuf;

/// One mistake in one manifest, with where it is and what was expected: `file:line:col: message`,
/// or `file: message` for the file as a whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", self.place())]
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

    /// `file:line:col`, or `file` for the file as a whole.
    fn place(&self) -> String {
        if self.line == 0 {
            self.file.display().to_string()
        } else {
            format!("{}:{}:{}", self.file.display(), self.line, self.column)
        }
    }
}

/// Every mistake of a run, sorted by file, line and column.
#[derive(Debug, Clone, Default, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.listing())]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Sorts by location so output is stable.
    pub fn sorted(mut self) -> Self {
        self.0.sort_by(|a, b| {
            (&a.file, a.line, a.column, &a.message).cmp(&(&b.file, b.line, b.column, &b.message))
        });
        self
    }

    /// Each mistake on a line of its own after `error: `, then how many there are when more
    /// than one.
    fn listing(&self) -> String {
        let mut lines: Vec<String> = self.0.iter().map(|d| format!("error: {d}")).collect();
        if self.0.len() > 1 {
            lines.push(format!("{} errors", self.0.len()));
        }
        lines.join("\n")
    }
}

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

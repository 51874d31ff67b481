//! What pins an imported tool to a live server, and the lines of its manifest that say so:
//! the hints as a comment (or as the declaration, when trusted) and the `[upstream]` table.

use super::text::{FileRef, entry};
use crate::model::{Endpoint, Mode, Safety};

/// The boolean annotations of an MCP tool, in the order a manifest's comment lists them.
pub(super) const HINTS: &[&str] = &[
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// What pins an imported tool to a live server: its manifest's `[upstream]` table and its
/// definition file.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Pin {
    /// The server's id.
    pub server: String,
    /// How to reach the server.
    pub endpoint: Endpoint,
    /// The tool's name on the server.
    pub tool: String,
    /// [`crate::lock::digest`] of the definition as received.
    pub digest: String,
    /// The definition as received, pretty JSON text (`<name>.upstream.json`).
    pub definition: String,
    /// Whether `safety` and `mode` are written from the hints (`--trust-hints`).
    pub trust_hints: bool,
    /// The boolean hints the definition declares, in the order of `HINTS`, for the manifest's
    /// comment.
    pub hints: Vec<(&'static str, bool)>,
}

impl Pin {
    /// `readOnlyHint true, openWorldHint false`, or `None` when the server declares none.
    fn hints_text(&self) -> Option<String> {
        let listed: Vec<String> = self
            .hints
            .iter()
            .map(|(hint, value)| format!("{hint} {value}"))
            .collect();
        (!listed.is_empty()).then(|| listed.join(", "))
    }

    /// The safety and mode lines of the manifest: real keys when the hints are trusted, else
    /// the hints' suggestion as comments the author turns into keys.
    pub(super) fn safety(
        &self,
        out: &mut String,
        safety: Safety,
        mode: Mode,
    ) -> Result<(), toml::ser::Error> {
        let hints = self.hints_text();
        if self.trust_hints {
            out.push_str(&match hints {
                Some(hints) => format!(
                    "# safety and mode taken from the upstream's hints, which nothing checks: {hints}\n"
                ),
                None => "# safety and mode taken from the upstream's hints, which nothing checks: it declares none\n".to_owned(),
            });
            entry(out, "safety", safety.as_str())?;
            entry(out, "mode", mode.as_str())?;
            return Ok(());
        }
        out.push_str(&match hints {
            Some(hints) => format!("# the upstream's hints (not trusted): {hints}\n"),
            None => "# the upstream declares no hints\n".to_owned(),
        });
        out.push_str("# declare what the tool may do, then remove the `#` of both lines:\n");
        let mut lines = String::new();
        entry(&mut lines, "safety", safety.as_str())?;
        entry(&mut lines, "mode", mode.as_str())?;
        for line in lines.lines() {
            out.push_str("# ");
            out.push_str(line);
            out.push('\n');
        }
        Ok(())
    }

    /// The `[upstream]` table, after a blank line; `file` is the definition file's name.
    pub(super) fn table(&self, out: &mut String, file: &str) -> Result<(), toml::ser::Error> {
        out.push_str("\n[upstream]\n");
        entry(out, "server", &self.server)?;
        match &self.endpoint {
            Endpoint::Command(command) => entry(out, "command", command)?,
            Endpoint::Url(url) => entry(out, "url", url)?,
        }
        entry(out, "tool", &self.tool)?;
        entry(out, "digest", &self.digest)?;
        entry(out, "definition", &FileRef { file })?;
        if self.trust_hints {
            entry(out, "trust_hints", &true)?;
        }
        Ok(())
    }
}

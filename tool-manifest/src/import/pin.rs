//! The tools of a live MCP server the user does not control, as pinned manifests: the upstream
//! definition kept exactly (`<name>.upstream.json`) with its digest and where it came from
//! (`[upstream]`), and the tool's safety and mode left to the author, because the server's
//! annotations are claims nothing checks.

use std::collections::HashSet;

use serde_json::Value;

use super::convert::{self, FileRef, InputError, Line, Reading, entry};
use super::json::Json;
use super::source::{self, Format, Refused};
use crate::model::{Endpoint, Mode, Safety, is_valid_server_id};

/// The boolean annotations of an MCP tool, in the order a manifest's comment lists them.
const HINTS: &[&str] = &[
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

/// The tools of a live server's `tools/list` (the `Tool` objects as received) as pinned
/// manifests of the server `server` at `endpoint`.
///
/// Each tool is converted as [`read`](super::read) converts an MCP definition (its name made
/// valid and unique, title, description and schemas kept as the server wrote them, what was
/// filled in reported, a definition that cannot be imported refused and reported), and pinned:
/// its `[upstream]` table names the server, the tool's name on it and the digest of the
/// definition, kept in `<name>.upstream.json`. Its `safety` and `mode` are left for the author
/// to declare (suggested in comments from the hints), unless `trust_hints`: then they are
/// written from the hints, and so are `idempotent` and `open_world`.
///
/// # Errors
/// An invalid server id, or an endpoint no manifest may hold (an empty command, a URL that is
/// not `http`/`https` or holds credentials): every manifest would be refused.
pub fn pinned(
    tools: Vec<Value>,
    server: &str,
    endpoint: &Endpoint,
    trust_hints: bool,
) -> Result<Reading, InputError> {
    if !is_valid_server_id(server) {
        return Err(InputError(format!(
            "invalid server id {server:?}, expected lowercase ASCII letters, digits, `_` and `-`, starting with a letter, at most 64 characters (`^[a-z][a-z0-9_-]{{0,63}}$`)"
        )));
    }
    match endpoint {
        Endpoint::Command(command)
            if command.is_empty() || command.iter().any(String::is_empty) =>
        {
            return Err(InputError(
                "expected the server's command to be a program and its arguments, none of them empty".to_owned(),
            ));
        }
        Endpoint::Url(url) => {
            if let Some(why) = crate::manifest::url_mistake(url) {
                return Err(InputError(why));
            }
        }
        Endpoint::Command(_) => {}
    }
    let mut reading = Reading {
        tools: Vec::with_capacity(tools.len()),
        report: Vec::new(),
        refused: 0,
    };
    let mut taken = HashSet::new();
    for (i, value) in tools.into_iter().enumerate() {
        let place = format!("tools[{i}]");
        match pin(
            &place,
            value,
            server,
            endpoint,
            trust_hints,
            &mut taken,
            &mut reading.report,
        ) {
            Ok(tool) => reading.tools.push(tool),
            Err(refused) => {
                reading
                    .report
                    .push(Line::Error(format!("{refused}; the tool is skipped")));
                reading.refused += 1;
            }
        }
    }
    Ok(reading)
}

/// One `Tool` object of the server, converted and pinned.
fn pin(
    place: &str,
    value: Value,
    server: &str,
    endpoint: &Endpoint,
    trust_hints: bool,
    taken: &mut HashSet<String>,
    report: &mut Vec<Line>,
) -> Result<convert::Tool, Refused> {
    let refused = |message: String| Refused {
        place: place.to_owned(),
        message,
    };
    // The conversion reads the order-keeping tree the other sources are read into; the value's
    // own text is that tree's input.
    let text = serde_json::to_string(&value)
        .map_err(|e| refused(format!("cannot be written as JSON: {e}")))?;
    let json =
        Json::parse(&text).ok_or_else(|| refused("cannot be read back as JSON".to_owned()))?;
    let found = source::read(place, &json, Format::Mcp)?;
    let mut definition = serde_json::to_string_pretty(&value)
        .map_err(|e| refused(format!("cannot be written as JSON: {e}")))?;
    definition.push('\n');
    let hints = HINTS
        .iter()
        .filter_map(|hint| {
            value
                .pointer(&format!("/annotations/{hint}"))
                .and_then(Value::as_bool)
                .map(|b| (*hint, b))
        })
        .collect();
    let mut tool = convert::convert(found, taken, report, Some(trust_hints))?;
    tool.pin = Some(Pin {
        server: server.to_owned(),
        endpoint: endpoint.clone(),
        tool: tool.source_name.clone(),
        digest: crate::lock::digest(&value),
        definition,
        trust_hints,
        hints,
    });
    Ok(tool)
}

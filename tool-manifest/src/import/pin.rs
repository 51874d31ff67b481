//! The tools of a live MCP server the user does not control, as pinned manifests: the upstream
//! definition kept exactly (`<name>.upstream.json`) with its digest and where it came from
//! (`[upstream]`), and the tool's safety and mode left to the author, because the server's
//! annotations are claims nothing checks.

use std::collections::HashSet;

use serde_json::Value;

use super::convert::{self, InputError, Line, Reading};
use super::json::Json;
use super::source::{self, Format, Refused};
use super::upstream::{HINTS, Pin};
use crate::model::{Endpoint, is_valid_server_id};

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
    let tools: Vec<(usize, Value)> = tools.into_iter().enumerate().collect();
    Ok(Reading::of(tools, |(i, value), taken, report| {
        let place = format!("tools[{i}]");
        pin(&place, value, server, endpoint, trust_hints, taken, report)
    }))
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

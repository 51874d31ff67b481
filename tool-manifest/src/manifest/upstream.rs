//! `[upstream]`: a pinned third-party tool, where it runs and what it was when it was pinned.
//!
//! ```toml
//! [upstream]
//! server = "everything"
//! command = ["npx", "-y", "@modelcontextprotocol/server-everything"]   # or url = "https://…"
//! tool = "echo"
//! digest = "sha256:…"
//! definition = { file = "echo.upstream.json" }
//! trust_hints = true                                                  # optional
//! ```
//!
//! The definition file holds the upstream `Tool` object as it was pinned; its digest
//! ([`crate::lock::digest`]) must be the declared `digest`, so that an edit of the file (or of
//! the digest) is not taken for the server's definition. The server's own annotations are hints
//! nothing checks: a pinned manifest declares `safety` and `mode` itself.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toml::de::{DeTable, DeValue};

use super::limits::{MAX_MANIFEST_BYTES, QUOTE_LIMIT};
use super::report::{Item, toml_type};
use super::{Parser, SCHEMA_FILE_KEY, Section};
use crate::diagnostic::Diagnostic;
use crate::model::{Endpoint, Upstream, is_valid_digest, is_valid_server_id};
use crate::schema::truncate;

/// The keys of `[upstream]`.
pub const UPSTREAM_KEYS: &[&str] = &[
    "server",
    "command",
    "url",
    "tool",
    "digest",
    "definition",
    "trust_hints",
];

/// `[upstream]`.
const UPSTREAM: Section = Section {
    keys: UPSTREAM_KEYS,
    context: " in `[upstream]`",
};

/// What follows a missing `safety` or `mode` (`key`) in a manifest with an `[upstream]` table:
/// the server's annotations are its own claims, so the import leaves the choice to the author.
pub(super) fn untrusted_hints(key: &str) -> String {
    let declare = if key == "mode" {
        "declare how the tool's calls may be scheduled"
    } else {
        "declare what the tool may do"
    };
    format!(
        "; the upstream's hints are not trusted: {declare} (the hints are in the comment above), or import with --trust-hints"
    )
}

impl Parser<'_> {
    /// `[upstream]`: `Some(None)` when absent, `None` when it has a mistake.
    pub(super) fn upstream(&mut self, document: &DeTable<'_>) -> Option<Option<Upstream>> {
        let Some(item) = document.get("upstream") else {
            return Some(None);
        };
        let DeValue::Table(table) = item.get_ref() else {
            self.error(
                item.span().start,
                format!(
                    "expected `upstream` to be a table (`[upstream]` with `server`, `command` or `url`, `tool`, `digest` and `definition`), found {}",
                    toml_type(item.get_ref())
                ),
            );
            return None;
        };
        let at = item.span().start;
        let before = self.report.count();
        self.unknown_keys(table, UPSTREAM);
        let server = self
            .required(
                table,
                "server",
                at,
                UPSTREAM,
                ", expected the id of the server the tool runs on (`server = \"everything\"`)",
            )
            .and_then(|item| self.server(item));
        let endpoint = self.endpoint(table, at);
        let tool = self
            .required(
                table,
                "tool",
                at,
                UPSTREAM,
                ", expected the tool's name on the server",
            )
            .and_then(|item| self.report.string(item, "tool"))
            .map(|(tool, _)| tool);
        let digest = self
            .required(
                table,
                "digest",
                at,
                UPSTREAM,
                ", expected the digest of the pinned definition (`digest = \"sha256:…\"`)",
            )
            .and_then(|item| self.digest(item));
        let definition = self
            .required(
                table,
                "definition",
                at,
                UPSTREAM,
                ", expected the file of the pinned definition (`definition = { file = \"….upstream.json\" }`)",
            )
            .and_then(|item| self.definition(item));
        let trust_hints = self.optional(table, "trust_hints", Self::boolean);

        // The definition is compared with what the table declares only when both are read.
        if let Some((definition, file, offset)) = &definition {
            if let Some(tool) = &tool {
                let named = definition.get("name").and_then(Value::as_str);
                if named != Some(tool.as_str()) {
                    let found = match named {
                        Some(name) => format!("the tool `{}`", truncate(name, QUOTE_LIMIT)),
                        None => "no tool name".to_owned(),
                    };
                    self.error(
                        *offset,
                        format!(
                            "the pinned definition `{}` holds {found}, expected the tool `{}` that `tool` names",
                            truncate(file, QUOTE_LIMIT),
                            truncate(tool, QUOTE_LIMIT)
                        ),
                    );
                }
            }
            if let Some(digest) = &digest
                && crate::lock::digest(definition) != *digest
            {
                self.error(
                    *offset,
                    format!(
                        "the pinned definition `{}` does not match `digest`: it was edited since it was pinned; re-pin the tool by importing it again",
                        truncate(file, QUOTE_LIMIT)
                    ),
                );
            }
        }
        if self.report.count() != before {
            return None;
        }
        let upstream = Upstream::new(server?, endpoint?, tool?, digest?)
            .trust_hints(trust_hints?.unwrap_or(false))
            .definition(definition?.0);
        Some(Some(upstream))
    }

    /// `server`: a server id, `^[a-z][a-z0-9_-]{0,63}$`.
    fn server(&mut self, item: &Item<'_>) -> Option<String> {
        let (server, span) = self.report.string(item, "server")?;
        if !is_valid_server_id(&server) {
            self.error(
                span.start,
                format!(
                    "invalid server id `{}` in `[upstream]`, expected lowercase ASCII letters, digits, `_` and `-`, starting with a letter, at most 64 characters (`^[a-z][a-z0-9_-]{{0,63}}$`)",
                    truncate(&server, QUOTE_LIMIT)
                ),
            );
            return None;
        }
        Some(server)
    }

    /// `digest`: `sha256:` and 64 lowercase hex digits.
    fn digest(&mut self, item: &Item<'_>) -> Option<String> {
        let (digest, span) = self.report.string(item, "digest")?;
        if !is_valid_digest(&digest) {
            self.error(
                span.start,
                format!(
                    "expected `digest` to be `sha256:` and 64 lowercase hex digits, found {:?}",
                    truncate(&digest, QUOTE_LIMIT)
                ),
            );
            return None;
        }
        Some(digest)
    }

    /// Exactly one of `command` (the program and its arguments) and `url`.
    fn endpoint(&mut self, table: &DeTable<'_>, at: usize) -> Option<Endpoint> {
        match (table.get("command"), table.get("url")) {
            (Some(command), None) => self.command(command).map(Endpoint::Command),
            (None, Some(url)) => self.url(url).map(Endpoint::Url),
            (Some(_), Some(url)) => {
                self.error(
                    url.span().start,
                    "`command` and `url` are both given in `[upstream]`, expected exactly one: the command that starts the server or the URL it answers at",
                );
                None
            }
            (None, None) => {
                if !super::misspelled(table, "command", UPSTREAM)
                    && !super::misspelled(table, "url", UPSTREAM)
                {
                    self.error(
                        at,
                        "missing key `command` or `url` in `[upstream]`, expected the command that starts the server (`command = [\"npx\", \"-y\", \"…\"]`) or the URL it answers at (`url = \"https://…/mcp\"`)",
                    );
                }
                None
            }
        }
    }

    /// `command`: a non-empty array of non-empty strings.
    fn command(&mut self, item: &Item<'_>) -> Option<Vec<String>> {
        let expected = "expected `command` to be the program and its arguments, a non-empty array of strings (`[\"npx\", \"-y\", \"…\"]`)";
        let DeValue::Array(parts) = item.get_ref() else {
            self.error(
                item.span().start,
                format!("{expected}, found {}", toml_type(item.get_ref())),
            );
            return None;
        };
        if parts.is_empty() {
            self.error(item.span().start, format!("{expected}, found an empty one"));
            return None;
        }
        let mut ok = true;
        let mut words = Vec::with_capacity(parts.len());
        for part in parts.iter() {
            match part.get_ref() {
                DeValue::String(s) if !s.is_empty() => words.push(s.to_string()),
                DeValue::String(_) => {
                    self.error(
                        part.span().start,
                        "expected each entry of `command` to be a non-empty string, found an empty one",
                    );
                    ok = false;
                }
                other => {
                    self.error(
                        part.span().start,
                        format!(
                            "expected each entry of `command` to be a string, found {}",
                            toml_type(other)
                        ),
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(words)
    }

    /// `url`: an `http` or `https` URL with a host and no credentials.
    fn url(&mut self, item: &Item<'_>) -> Option<String> {
        let (url, span) = self.report.string(item, "url")?;
        match url_mistake(&url) {
            None => Some(url),
            Some(why) => {
                self.error(span.start, why);
                None
            }
        }
    }

    /// `definition = { file = "…" }`: the pinned upstream `Tool` object, a JSON object in a
    /// file next to the manifest (recorded in `files`), with the file's name as written and
    /// where it is written.
    fn definition(&mut self, item: &Item<'_>) -> Option<(Value, String, usize)> {
        let file = match item.get_ref() {
            DeValue::Table(table) if table.len() == 1 => table.get(SCHEMA_FILE_KEY),
            _ => None,
        };
        let Some(file) = file else {
            self.error(
                item.span().start,
                format!(
                    "expected `definition` to be `{{ {SCHEMA_FILE_KEY} = \"….upstream.json\" }}`, the JSON file of the pinned upstream definition, found {}",
                    toml_type(item.get_ref())
                ),
            );
            return None;
        };
        let (name, span) = self.report.string(file, SCHEMA_FILE_KEY)?;
        let path = self
            .report
            .file()
            .parent()
            .unwrap_or(Path::new(""))
            .join(&name);
        self.files.push(path.clone());
        let value = self.read_definition(&path, &name, span.clone())?;
        Some((value, name, span.start))
    }

    /// Reads the definition file `name` (at `path`, named at `span`): JSON text of at most
    /// [`MAX_MANIFEST_BYTES`] holding an object.
    fn read_definition(&mut self, path: &PathBuf, name: &str, span: Range<usize>) -> Option<Value> {
        let shown = truncate(name, QUOTE_LIMIT);
        let offset = span.start;
        let text = match std::fs::metadata(path) {
            Ok(meta) if meta.len() > MAX_MANIFEST_BYTES as u64 => {
                self.error(
                    offset,
                    format!(
                        "the pinned definition `{shown}` is {} bytes, more than the {MAX_MANIFEST_BYTES} a definition may have",
                        meta.len()
                    ),
                );
                return None;
            }
            _ => match std::fs::read_to_string(path) {
                Ok(text) => text,
                Err(e) => {
                    self.error(
                        offset,
                        format!("cannot read the pinned definition `{shown}`: {e}"),
                    );
                    return None;
                }
            },
        };
        match serde_json::from_str::<Value>(&text) {
            Ok(value @ Value::Object(_)) => Some(value),
            Ok(other) => {
                self.error(
                    offset,
                    format!(
                        "expected the pinned definition `{shown}` to be an MCP `Tool` object, found {}",
                        crate::model::json_kind(&other)
                    ),
                );
                None
            }
            Err(e) => {
                self.report.push(offset, || {
                    Diagnostic::at(
                        path,
                        e.line(),
                        e.column().max(1),
                        format!("the pinned definition is not JSON: {e}"),
                    )
                });
                None
            }
        }
    }
}

/// The names (in part, any case) of the query parameters an upstream URL may not hold: their
/// values are credentials.
const SECRET_PARAMETERS: &[&str] = &["key", "token", "secret", "password", "auth", "sig"];

/// What is wrong with an upstream URL, if anything: the scheme is `http` or `https`, there is a
/// host, and no credentials, in the authority or as a query parameter such as `api_key` (they
/// would be committed with the manifest).
pub fn url_mistake(url: &str) -> Option<String> {
    let shown = truncate(url, QUOTE_LIMIT);
    let rest = match url.split_once("://") {
        Some((scheme, rest))
            if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") =>
        {
            rest
        }
        _ => {
            return Some(format!(
                "expected `url` to be an `http` or `https` URL (`https://…/mcp`), found {shown:?}"
            ));
        }
    };
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Some(format!(
            "expected `url` to be a URL without spaces or control characters, found {shown:?}"
        ));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('@') {
        return Some(
            "an upstream URL may not hold credentials; pass them to the proxy with --header"
                .to_owned(),
        );
    }
    if authority.is_empty() || authority.starts_with(':') {
        return Some(format!(
            "expected `url` to name a host (`https://host/mcp`), found {shown:?}"
        ));
    }
    let query = rest.split_once('?').map_or("", |(_, q)| q);
    let query = query.split('#').next().unwrap_or_default();
    for pair in query.split('&') {
        let name = pair
            .split('=')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if SECRET_PARAMETERS.iter().any(|secret| name.contains(secret)) {
            return Some(format!(
                "the query parameter `{}` of an upstream URL looks like a credential; pass it to the proxy with --header",
                truncate(&name, QUOTE_LIMIT)
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::url_mistake;

    #[test]
    fn urls_are_http_with_a_host_and_no_credentials() {
        for good in [
            "https://example.com/mcp",
            "http://localhost:8080",
            "HTTPS://example.com/mcp?x=1",
        ] {
            assert_eq!(url_mistake(good), None, "{good}");
        }
        for (bad, why) in [
            ("ftp://example.com", "an `http` or `https` URL"),
            ("example.com/mcp", "an `http` or `https` URL"),
            ("https:///mcp", "to name a host"),
            ("https://:80/mcp", "to name a host"),
            ("https://exa mple.com", "without spaces"),
            (
                "https://user:pass@example.com/mcp",
                "may not hold credentials",
            ),
            ("https://token@example.com", "may not hold credentials"),
            (
                "https://example.com/mcp?api_key=abc",
                "`api_key` of an upstream URL looks like a credential",
            ),
            ("https://example.com/mcp?x=1&Token=abc", "`token`"),
        ] {
            let found = url_mistake(bad).unwrap_or_default();
            assert!(found.contains(why), "{bad}: {found}");
        }
        // An `@` in the path or the query is not a credential.
        assert_eq!(url_mistake("https://example.com/@me?to=a@b"), None);
    }
}

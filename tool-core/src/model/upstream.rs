//! Pinned third-party tools: where such a tool runs ([`Endpoint`]) and what it was when it was
//! pinned ([`Upstream`]). A proxy refuses a tool whose live definition no longer has the pinned
//! digest, so a server cannot change what a tool does behind the declared safety.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a pinned tool runs and what it was when pinned. Built with [`Upstream::new`].
///
/// ```
/// use toolwright_core::{Endpoint, Upstream};
///
/// let upstream = Upstream::new(
///     "everything",
///     Endpoint::Command(vec!["npx".into(), "-y".into(), "@modelcontextprotocol/server-everything".into()]),
///     "echo",
///     format!("sha256:{}", "0".repeat(64)),
/// )
/// .trust_hints(true);
/// assert!(upstream.trust_hints);
/// assert!(upstream.definition.is_null());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Upstream {
    /// The server's id, `^[a-z][a-z0-9_-]{0,63}$` ([`is_valid_server_id`]): several manifests
    /// share one server, which a proxy starts or connects to once.
    pub server: String,
    /// How to reach the server.
    pub endpoint: Endpoint,
    /// The tool's name on the server (the manifest's `name` may differ: made a valid name, or
    /// prefixed).
    pub tool: String,
    /// `sha256:` and 64 lowercase hex digits ([`is_valid_digest`]): the digest of the pinned
    /// definition, its canonical JSON text (compact, keys sorted).
    pub digest: String,
    /// Whether the author took the tool's safety and mode from the server's hints
    /// (`readOnlyHint`, …), which nothing checks, instead of declaring them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub trust_hints: bool,
    /// The pinned upstream `Tool` object, read from its file; `Null` when not loaded. Not part of
    /// `tools.json`: the digest stands for it.
    #[serde(skip)]
    pub definition: Value,
}

impl Upstream {
    /// A pin of the tool `tool` of the server `server` at `endpoint`, whose definition had
    /// `digest`; the hints not trusted and the definition not loaded.
    pub fn new(
        server: impl Into<String>,
        endpoint: Endpoint,
        tool: impl Into<String>,
        digest: impl Into<String>,
    ) -> Self {
        Upstream {
            server: server.into(),
            endpoint,
            tool: tool.into(),
            digest: digest.into(),
            trust_hints: false,
            definition: Value::Null,
        }
    }

    /// Sets whether the safety and mode were taken from the server's hints.
    #[must_use]
    pub fn trust_hints(self, trust_hints: bool) -> Self {
        Upstream {
            trust_hints,
            ..self
        }
    }

    /// Sets the pinned definition.
    #[must_use]
    pub fn definition(self, definition: Value) -> Self {
        Upstream { definition, ..self }
    }
}

/// How a proxy reaches an upstream MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Endpoint {
    /// A server started as a child process speaking MCP over stdio: the program, then its
    /// arguments.
    Command(Vec<String>),
    /// A server reached over Streamable HTTP at this `http` or `https` URL.
    Url(String),
}

/// The prefix of a pinned definition's digest.
pub const DIGEST_PREFIX: &str = "sha256:";

/// Is `id` a valid server id? `^[a-z][a-z0-9_-]{0,63}$`.
pub fn is_valid_server_id(id: &str) -> bool {
    let bytes = id.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 64
        && bytes[0].is_ascii_lowercase()
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_' || *b == b'-')
}

/// Does `digest` have the shape of a pinned definition's digest? `sha256:` and 64 lowercase hex
/// digits.
pub fn is_valid_digest(digest: &str) -> bool {
    digest.strip_prefix(DIGEST_PREFIX).is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_ids_are_lowercase_words_joined_by_dashes_or_underscores() {
        for good in ["everything", "a", "git-hub_2", &"a".repeat(64)] {
            assert!(is_valid_server_id(good), "{good}");
        }
        for bad in [
            "",
            "Everything",
            "1server",
            "-a",
            "a.b",
            "a b",
            &"a".repeat(65),
        ] {
            assert!(!is_valid_server_id(bad), "{bad}");
        }
    }

    #[test]
    fn digests_are_sha256_in_lowercase_hex() {
        assert!(is_valid_digest(&format!("sha256:{}", "0a".repeat(32))));
        assert!(!is_valid_digest(&format!("sha256:{}", "0A".repeat(32))));
        assert!(!is_valid_digest(&format!("sha256:{}", "0".repeat(63))));
        assert!(!is_valid_digest(&format!("sha512:{}", "0".repeat(64))));
        assert!(!is_valid_digest(&"0".repeat(64)));
    }

    #[test]
    fn an_upstream_is_written_in_tools_json_without_its_definition() {
        let upstream = Upstream::new(
            "everything",
            Endpoint::Url("https://example.com/mcp".to_owned()),
            "get-tiny-image",
            format!("sha256:{}", "0".repeat(64)),
        )
        .definition(serde_json::json!({"name": "get-tiny-image"}));
        let json = serde_json::to_value(&upstream).expect("serialize");
        assert_eq!(
            json,
            serde_json::json!({
                "server": "everything",
                "endpoint": {"url": "https://example.com/mcp"},
                "tool": "get-tiny-image",
                "digest": format!("sha256:{}", "0".repeat(64)),
            })
        );
        let back: Upstream = serde_json::from_value(json).expect("deserialize");
        assert_eq!(back, upstream.clone().definition(Value::Null));

        let trusted = upstream.trust_hints(true);
        let json = serde_json::to_value(&trusted).expect("serialize");
        assert_eq!(json["trustHints"], serde_json::json!(true));
        let command =
            serde_json::to_value(Endpoint::Command(vec!["npx".to_owned()])).expect("serialize");
        assert_eq!(command, serde_json::json!({"command": ["npx"]}));
    }
}

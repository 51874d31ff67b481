//! Who may call an MCP server over HTTP, and what each caller may do.
//!
//! A [`TokenVerifier`] turns the bearer token of a request into a [`Grant`] or a
//! [`Rejection`]. The grant narrows the server's policy for that request only
//! ([`Grant::narrow`]): a `read` grant gets a read-only run (write tools are neither listed nor
//! callable, whatever the client claims), a `write` grant gets the server's policy, and a grant
//! may switch more tools off. Nothing a grant says widens the server's policy: a server started
//! read-only stays read-only for every caller.
//!
//! [`FileTokens`] is the verifier of a token file. The way to OAuth (MCP's authorization
//! specification: the server as an OAuth resource server that accepts only access tokens issued
//! for it) is another implementation of the same trait: validate the token's signature or
//! introspect it, check its audience and expiry, and map its scopes to a grant.
//!
//! # The token file
//!
//! TOML, one `[[token]]` table per token:
//!
//! ```toml
//! [[token]]
//! name = "dashboard"          # a label for the token: rate limits and logs use it, never the token
//! token = "kM3…"              # at least 32 characters of A-Z a-z 0-9 - . _ ~ + / (then = padding)
//! grant = "read"              # "read": read-only tools only; "write": the server's policy
//! disabled = ["web_search"]   # optional: tools this token may neither see nor call
//! ```
//!
//! Names and tokens are unique; unknown keys are errors. A bad file is an error naming the file,
//! the line and the column, and it never quotes a token. Tokens are kept only as SHA-256
//! digests, and a presented token is compared with every digest in constant time
//! ([`subtle`]): neither the timing nor the length of a token leaks through a comparison.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq as _;
use zeroize::Zeroize as _;

use toolwright_runtime::handler::BoxFuture;
use toolwright_runtime::policy::RunPolicy;

/// What a caller may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Only `read-only` tools are listed and may be called.
    Read,
    /// The server's policy applies as it is.
    Write,
}

/// What one authenticated caller may do: the server's policy, narrowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// Who the caller is, as a label (a token's name, an OAuth subject): rate limits count per
    /// subject. Never the token itself.
    pub subject: Arc<str>,
    /// Read-only or the server's policy.
    pub access: Access,
    /// Tools this caller may neither see nor call, beyond those the server disabled.
    pub disabled: Arc<BTreeSet<String>>,
}

impl Grant {
    /// A grant for `subject` with `access` and no tool disabled.
    pub fn new(subject: impl Into<Arc<str>>, access: Access) -> Self {
        Grant {
            subject: subject.into(),
            access,
            disabled: Arc::default(),
        }
    }

    /// Also switches `tools` off for this caller.
    #[must_use]
    pub fn disable(mut self, tools: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Arc::make_mut(&mut self.disabled).extend(tools.into_iter().map(Into::into));
        self
    }

    /// The policy of this caller's requests: `server`'s, read-only for a `read` grant, with the
    /// grant's disabled tools switched off too. Never wider than `server`.
    pub fn narrow(&self, server: &RunPolicy) -> RunPolicy {
        let policy = server.clone().disable_all(self.disabled.iter().cloned());
        if self.access == Access::Read {
            policy.into_read_only()
        } else {
            policy
        }
    }
}

/// Why a token is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rejection {
    /// Unknown, expired, revoked, or issued for another server: `401` with
    /// `WWW-Authenticate: Bearer error="invalid_token"`.
    InvalidToken,
    /// A valid token that does not allow this server at all: `403` with
    /// `WWW-Authenticate: Bearer error="insufficient_scope"`.
    InsufficientScope,
}

/// Turns the bearer token of a request into the caller's grant.
///
/// Called once per HTTP request, before the body is read; keep it fast (cache what a remote
/// check answers). The token is the request's secret: never log it or put it in a rejection.
pub trait TokenVerifier: Send + Sync + fmt::Debug + 'static {
    /// The grant of `token`, or why it is refused.
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Grant, Rejection>>;
}

/// The shortest token a token file may hold.
pub const MIN_TOKEN_LEN: usize = 32;

/// Why a token file cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TokenFileError {
    /// The file cannot be read.
    #[error("cannot read the token file `{path}`: {source}")]
    Read {
        /// The token file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a valid token file.
    #[error("the token file `{path}` is invalid at line {line}, column {column}: {message}")]
    Invalid {
        /// The token file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong (never the token).
        message: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenFile {
    #[serde(default)]
    token: Vec<TokenEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenEntry {
    name: toml::Spanned<String>,
    token: toml::Spanned<String>,
    grant: Access,
    #[serde(default)]
    disabled: Vec<toml::Spanned<String>>,
}

/// One token of the file: its digest and its grant.
struct Known {
    digest: [u8; 32],
    grant: Grant,
}

/// The verifier of a token file (format in the [module documentation](self)).
pub struct FileTokens {
    known: Vec<Known>,
}

impl fmt::Debug for FileTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.known.iter().map(|k| &*k.grant.subject).collect();
        f.debug_struct("FileTokens").field("names", &names).finish()
    }
}

/// The SHA-256 digest of a token: what is kept of it (here, and for the sessions and approvals
/// of the HTTP transport).
pub(super) fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// True when `token` is an RFC 6750 `b64token`: what a `Bearer` header can carry.
fn is_b64token(token: &str) -> bool {
    let body = token.trim_end_matches('=');
    !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
}

impl FileTokens {
    /// Reads the token file at `path`. `is_tool` says which names `disabled` may list.
    ///
    /// # Errors
    /// When the file cannot be read or is not a valid token file.
    pub fn load(
        path: impl Into<PathBuf>,
        is_tool: impl Fn(&str) -> bool,
    ) -> Result<Self, TokenFileError> {
        let path = path.into();
        let mut text = std::fs::read_to_string(&path).map_err(|source| TokenFileError::Read {
            path: path.clone(),
            source,
        })?;
        let parsed = Self::parse(&text, &path, is_tool);
        text.zeroize();
        parsed
    }

    /// Reads a token file's text; `path` names it in errors.
    ///
    /// # Errors
    /// When the text is not a valid token file.
    pub fn parse(
        text: &str,
        path: &Path,
        is_tool: impl Fn(&str) -> bool,
    ) -> Result<Self, TokenFileError> {
        let invalid = |span: std::ops::Range<usize>, message: String| {
            let (line, column) = line_column(text, span.start);
            TokenFileError::Invalid {
                path: path.to_owned(),
                line,
                column,
                message,
            }
        };
        let file: TokenFile = toml::from_str(text).map_err(|e| {
            // The message alone: the error's own rendering quotes the source line, which may
            // hold a token.
            invalid(e.span().unwrap_or(0..0), e.message().to_owned())
        })?;
        let mut known: Vec<Known> = Vec::with_capacity(file.token.len());
        for entry in file.token {
            let name = entry.name.get_ref().trim();
            if name.is_empty() {
                return Err(invalid(entry.name.span(), "the name is empty".to_owned()));
            }
            if known.iter().any(|k| &*k.grant.subject == name) {
                return Err(invalid(
                    entry.name.span(),
                    format!("the name `{name}` is given to two tokens"),
                ));
            }
            let token_span = entry.token.span();
            let mut token = entry.token.into_inner();
            let problem = if token.chars().count() < MIN_TOKEN_LEN {
                Some(format!(
                    "the token of `{name}` is shorter than {MIN_TOKEN_LEN} characters"
                ))
            } else if !is_b64token(&token) {
                Some(format!(
                    "the token of `{name}` may hold only A-Z a-z 0-9 - . _ ~ + / and trailing ="
                ))
            } else {
                None
            };
            let digest = digest(&token);
            token.zeroize();
            if let Some(problem) = problem {
                return Err(invalid(token_span, problem));
            }
            if let Some(other) = known.iter().find(|k| k.digest == digest) {
                return Err(invalid(
                    token_span,
                    format!(
                        "the token of `{name}` is the token of `{}` too",
                        other.grant.subject
                    ),
                ));
            }
            let mut disabled = BTreeSet::new();
            for tool in &entry.disabled {
                if !is_tool(tool.get_ref()) {
                    return Err(invalid(
                        tool.span(),
                        format!(
                            "unknown tool `{}` in `disabled` of `{name}`",
                            toolwright_core::text::bounded(tool.get_ref(), 64)
                        ),
                    ));
                }
                disabled.insert(tool.get_ref().clone());
            }
            known.push(Known {
                digest,
                grant: Grant {
                    subject: name.into(),
                    access: entry.grant,
                    disabled: Arc::new(disabled),
                },
            });
        }
        Ok(FileTokens { known })
    }

    /// How many tokens the file holds.
    pub fn len(&self) -> usize {
        self.known.len()
    }

    /// True when the file holds no token (then every request is refused).
    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }

    /// The grant of `token`, comparing its digest with every known digest in constant time.
    pub fn grant(&self, token: &str) -> Option<&Grant> {
        let presented = digest(token);
        // Every entry is compared, whichever matches: the time taken does not say which
        // entries come close. subtle does each comparison; no library walks a list this way.
        let mut found = None;
        for known in &self.known {
            if bool::from(known.digest.ct_eq(&presented)) {
                found = Some(&known.grant);
            }
        }
        found
    }
}

impl TokenVerifier for FileTokens {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Grant, Rejection>> {
        let grant = self.grant(token).cloned().ok_or(Rejection::InvalidToken);
        Box::pin(std::future::ready(grant))
    }
}

/// The 1-based line and column of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |last| last.chars().count())
        + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    const READER: &str = "reader-token-0123456789abcdefghijklmnop";
    const WRITER: &str = "writer-token-0123456789abcdefghijklmnop";

    fn file(text: &str) -> Result<FileTokens, TokenFileError> {
        FileTokens::parse(text, Path::new("tokens.toml"), |name| {
            ["web_search", "drawing_create"].contains(&name)
        })
    }

    fn error(text: &str) -> String {
        file(text).expect_err("the file is refused").to_string()
    }

    #[test]
    fn tokens_map_to_their_grants() {
        let tokens = file(&format!(
            "[[token]]\nname = \"r\"\ntoken = \"{READER}\"\ngrant = \"read\"\ndisabled = [\"web_search\"]\n\n[[token]]\nname = \"w\"\ntoken = \"{WRITER}\"\ngrant = \"write\"\n"
        ))
        .expect("a valid file");
        assert_eq!(tokens.len(), 2);
        let read = tokens.grant(READER).expect("the reader is known");
        assert_eq!(&*read.subject, "r");
        assert_eq!(read.access, Access::Read);
        assert!(read.disabled.contains("web_search"));
        assert_eq!(tokens.grant(WRITER).map(|g| g.access), Some(Access::Write));
        assert!(
            tokens
                .grant("writer-token-0123456789abcdefghijklmnoq")
                .is_none()
        );
        assert!(tokens.grant("").is_none());
        assert!(tokens.grant(&WRITER[..WRITER.len() - 1]).is_none());
        let debug = format!("{tokens:?}");
        assert!(
            !debug.contains(READER) && !debug.contains(WRITER),
            "{debug}"
        );
    }

    #[test]
    fn a_grant_never_widens_the_servers_policy() {
        let server = RunPolicy::read_only().disable("a");
        let write = Grant::new("w", Access::Write).narrow(&server);
        assert!(
            write.is_read_only(),
            "a write token on a read-only server reads"
        );
        let read = Grant::new("r", Access::Read)
            .disable(["b"])
            .narrow(&RunPolicy::full());
        assert!(read.is_read_only());
        assert!(read.is_disabled("b"));
        let both = Grant::new("r", Access::Write)
            .disable(["b"])
            .narrow(&server);
        assert_eq!(both.disabled().collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn a_bad_file_is_an_error_naming_the_file_and_the_place_but_never_the_token() {
        let short = error("[[token]]\nname = \"r\"\ntoken = \"short-secret\"\ngrant = \"read\"\n");
        assert_eq!(
            short,
            "the token file `tokens.toml` is invalid at line 3, column 9: the token of `r` is shorter than 32 characters"
        );
        assert!(!short.contains("short-secret"));
        let grant = error(&format!(
            "[[token]]\nname = \"r\"\ntoken = \"{READER}\"\ngrant = \"admin\"\n"
        ));
        assert!(
            grant.starts_with("the token file `tokens.toml` is invalid at line 4, column 9: ")
                && grant.contains("admin")
                && !grant.contains(READER),
            "{grant}"
        );
        let unknown_key = error(&format!(
            "[[token]]\nname = \"r\"\ntokn = \"{READER}\"\ngrant = \"read\"\n"
        ));
        assert!(!unknown_key.contains(READER), "{unknown_key}");
        assert!(unknown_key.contains("line "), "{unknown_key}");
        let duplicate = error(&format!(
            "[[token]]\nname = \"a\"\ntoken = \"{READER}\"\ngrant = \"read\"\n[[token]]\nname = \"b\"\ntoken = \"{READER}\"\ngrant = \"write\"\n"
        ));
        assert_eq!(
            duplicate,
            "the token file `tokens.toml` is invalid at line 7, column 9: the token of `b` is the token of `a` too"
        );
        let tool = error(&format!(
            "[[token]]\nname = \"a\"\ntoken = \"{READER}\"\ngrant = \"read\"\ndisabled = [\"web_serch\"]\n"
        ));
        assert_eq!(
            tool,
            "the token file `tokens.toml` is invalid at line 5, column 13: unknown tool `web_serch` in `disabled` of `a`"
        );
        let spaces = error(
            "[[token]]\nname = \"a\"\ntoken = \"has spaces in it 0123456789abcdefghij\"\ngrant = \"read\"\n",
        );
        assert!(spaces.contains("may hold only"), "{spaces}");
        assert!(!spaces.contains("has spaces"), "{spaces}");
        let names = error(&format!(
            "[[token]]\nname = \"a\"\ntoken = \"{READER}\"\ngrant = \"read\"\n[[token]]\nname = \"a\"\ntoken = \"{WRITER}\"\ngrant = \"read\"\n"
        ));
        assert!(
            names.contains("line 6") && names.contains("two tokens"),
            "{names}"
        );
        let syntax = error("[[token]\nname = 1\n");
        assert!(syntax.contains("line 1"), "{syntax}");
    }
}

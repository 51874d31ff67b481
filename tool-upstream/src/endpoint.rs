//! Where an upstream server is, and how to name it without its secrets.

use std::fmt;

use toolwright_secrets::SecretString;

/// Where an upstream server is: a command started as a child process (stdio), or a Streamable
/// HTTP URL.
///
/// Secrets belong in `env` and `headers`, whose values are never printed. The program, its
/// arguments and the URL's scheme, host and path are shown in errors and in [`describe`]; a
/// URL's userinfo and query string are not.
#[derive(Clone)]
pub enum Endpoint {
    /// A program started with `args`, speaking MCP on its stdin and stdout. It inherits this
    /// process's environment, with `env` added over it.
    Command {
        /// The program: a path, or a name looked up in `PATH`.
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// Environment variables set for it (API keys, typically).
        env: Vec<(String, SecretString)>,
    },
    /// A Streamable HTTP endpoint (`http://…/mcp`).
    Url {
        /// The endpoint's URL.
        url: String,
        /// Headers sent with every request (`Authorization`, typically).
        headers: Vec<(String, SecretString)>,
    },
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Only the names of the variables and headers: their values, a URL's userinfo and its
        // query string may all hold credentials.
        match self {
            Endpoint::Command { program, args, env } => f
                .debug_struct("Command")
                .field("program", program)
                .field("args", args)
                .field("env", &env.iter().map(|(name, _)| name).collect::<Vec<_>>())
                .finish(),
            Endpoint::Url { url, headers } => f
                .debug_struct("Url")
                .field("url", &public_url(url))
                .field(
                    "headers",
                    &headers.iter().map(|(name, _)| name).collect::<Vec<_>>(),
                )
                .finish(),
        }
    }
}

/// Says where `endpoint` is, with no secret in it: the command line (the program and its
/// arguments, quoted where needed), or the URL without its userinfo, query string and fragment.
///
/// ```
/// use toolwright_upstream::{Endpoint, describe};
///
/// let url = Endpoint::Url {
///     url: "https://user:pw@example.com/mcp?key=abc".into(),
///     headers: Vec::new(),
/// };
/// assert_eq!(describe(&url), "https://example.com/mcp");
///
/// let command = Endpoint::Command {
///     program: "npx".into(),
///     args: vec!["-y".into(), "my server".into()],
///     env: Vec::new(),
/// };
/// assert_eq!(describe(&command), "npx -y 'my server'");
/// ```
pub fn describe(endpoint: &Endpoint) -> String {
    match endpoint {
        Endpoint::Command { program, args, .. } => {
            let mut line = quote(program);
            for arg in args {
                line.push(' ');
                line.push_str(&quote(arg));
            }
            line
        }
        Endpoint::Url { url, .. } => public_url(url),
    }
}

/// A word as a POSIX shell would read it back: bare when it is made of safe characters only.
fn quote(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// `url` without userinfo, query string and fragment.
pub(crate) fn public_url(url: &str) -> String {
    let url = url.split(['?', '#']).next().unwrap_or_default();
    let (scheme, rest) = match url.find("://") {
        Some(at) => url.split_at(at + 3),
        None => ("", url),
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let host = authority.rsplit('@').next().unwrap_or_default();
    format!("{scheme}{host}{path}")
}

/// The parts of `url` that [`public_url`] leaves out and that may be credentials: the userinfo
/// and the query string, so that an error text quoting the full URL can be cleaned.
pub(crate) fn private_url_parts(url: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let before_fragment = url.split('#').next().unwrap_or_default();
    if let Some((_, query)) = before_fragment.split_once('?') {
        parts.push(query.to_owned());
        // Each value alone too: a client may quote the query re-encoded or reordered.
        for pair in query.split('&') {
            if let Some((_, value)) = pair.split_once('=') {
                parts.push(value.to_owned());
            }
        }
    }
    let rest = url
        .find("://")
        .map_or(before_fragment, |at| &before_fragment[at + 3..]);
    let authority = rest.split(['/', '?']).next().unwrap_or_default();
    if let Some((userinfo, _)) = authority.rsplit_once('@') {
        parts.push(userinfo.to_owned());
        if let Some((_, password)) = userinfo.split_once(':') {
            parts.push(password.to_owned());
        }
    }
    parts.retain(|part| !part.is_empty());
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_userinfo_query_and_fragment() {
        assert_eq!(
            public_url("http://a:b@127.0.0.1:8080/mcp?token=x#frag"),
            "http://127.0.0.1:8080/mcp"
        );
        assert_eq!(public_url("http://host?x=1"), "http://host");
        assert_eq!(public_url("host/path"), "host/path");
        assert_eq!(
            private_url_parts("http://a:b@host/p?token=x&y=z"),
            ["token=x&y=z", "x", "z", "a:b", "b"]
        );
        assert!(private_url_parts("http://host/p").is_empty());
    }

    #[test]
    fn debug_prints_no_secret() {
        let endpoint = Endpoint::Url {
            url: "https://u:pw@example.com/mcp?key=k123".into(),
            headers: vec![("Authorization".into(), SecretString::new("Bearer t0k"))],
        };
        let printed = format!("{endpoint:?}");
        assert!(!printed.contains("pw") && !printed.contains("k123") && !printed.contains("t0k"));
        assert!(printed.contains("https://example.com/mcp") && printed.contains("Authorization"));
        let command = Endpoint::Command {
            program: "server".into(),
            args: vec!["it's".into()],
            env: vec![("KEY".into(), SecretString::new("s3cret"))],
        };
        assert!(!format!("{command:?}").contains("s3cret"));
        assert_eq!(describe(&command), r"server 'it'\''s'");
    }
}

//! JSON Pointers (RFC 6901): the one place where reference tokens are escaped and unescaped.

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;

/// A JSON Pointer: `""` is the whole document, `/properties/a~1b` the property `a/b`.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JsonPointer(String);

impl JsonPointer {
    /// The pointer to the whole document.
    pub fn root() -> Self {
        JsonPointer(String::new())
    }

    /// A pointer from its text (already escaped), as `jsonschema` and `serde_json` write them.
    pub fn from_escaped(text: impl Into<String>) -> Self {
        JsonPointer(text.into())
    }

    /// This pointer and one more reference token (escaped here).
    #[must_use]
    pub fn join(&self, token: &str) -> Self {
        JsonPointer(join(&self.0, token))
    }

    /// This pointer and an array index.
    #[must_use]
    pub fn index(&self, index: usize) -> Self {
        JsonPointer(format!("{}/{index}", self.0))
    }

    /// The escaped text (`""` for the root).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The unescaped reference tokens.
    pub fn tokens(&self) -> impl Iterator<Item = Cow<'_, str>> {
        self.0.split('/').skip(1).map(unescape)
    }

    /// Is this the root?
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

/// Messages write the root as `/`.
impl fmt::Display for JsonPointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(display_pointer(&self.0))
    }
}

impl From<JsonPointer> for String {
    fn from(pointer: JsonPointer) -> String {
        pointer.0
    }
}

/// `ptr` + `/token`, the token escaped as RFC 6901 says (`~` → `~0`, `/` → `~1`): how every
/// JSON Pointer of the toolkit is built.
pub fn join(ptr: &str, token: &str) -> String {
    let mut joined = String::with_capacity(ptr.len() + 1 + token.len());
    joined.push_str(ptr);
    joined.push('/');
    if token.contains(['~', '/']) {
        joined.push_str(&token.replace('~', "~0").replace('/', "~1"));
    } else {
        joined.push_str(token);
    }
    joined
}

/// One reference token, unescaped (`~1` → `/`, `~0` → `~`).
pub fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        token.replace("~1", "/").replace("~0", "~").into()
    } else {
        token.into()
    }
}

/// A JSON Pointer for messages: the root (`""`) is written `/`.
pub fn display_pointer(pointer: &str) -> &str {
    if pointer.is_empty() { "/" } else { pointer }
}

/// A problem found in a schema: where (a JSON Pointer into the schema) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaIssue {
    /// The JSON Pointer (RFC 6901) of the offending keyword, value or node; `""` is the root.
    pub pointer: String,
    /// Lowercase, the offending name in backticks, the accepted values listed.
    pub message: String,
}

impl SchemaIssue {
    /// An issue at `pointer`.
    pub fn new(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        SchemaIssue {
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

/// The value a local reference (`#`, `#/$defs/a`, any `#/…` pointer, percent-encoded or not)
/// names in `root`; `None` for a reference that is not local or names nothing.
pub fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    root.pointer(&percent_decode(reference.strip_prefix('#')?)?)
}

/// Decodes `%XX` escapes in a URI fragment.
pub(crate) fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_escaped_and_unescaped_in_one_place() {
        let pointer = JsonPointer::root()
            .join("properties")
            .join("a/b~c")
            .index(2);
        assert_eq!(pointer.as_str(), "/properties/a~1b~0c/2");
        let tokens: Vec<String> = pointer.tokens().map(Cow::into_owned).collect();
        assert_eq!(tokens, ["properties", "a/b~c", "2"]);
        assert_eq!(JsonPointer::root().to_string(), "/");
        assert_eq!(unescape("~01"), "~1", "`~0` is unescaped last");
    }
}

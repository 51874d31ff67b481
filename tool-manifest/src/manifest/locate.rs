//! Where a part of a tool is written in its manifest: a JSON Pointer into the tool's MCP
//! `Tool` object (what `diff` reports) mapped to the manifest's key, or to the node of the
//! schema file the manifest names, for messages and GitHub annotations.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use toml::de::{DeTable, DeValue};

use super::schema_source::SCHEMA_FILE_KEY;
use crate::diagnostic::Diagnostic;
use crate::json_text;
use crate::schema::JsonPointer;

/// A file and a line (1-based).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Location {
    /// The file, as the tool set's source named it.
    pub file: PathBuf,
    /// The line.
    pub line: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)
    }
}

/// The file and line where `pointer` (into the tool's MCP `Tool` object: `/inputSchema/...`,
/// `/annotations/readOnlyHint`, `/errors/<CODE>/retryable`, `/mode`) is written in the manifest
/// at `path`; the nearest written ancestor when the pointer names what the manifest does not
/// write (a property removed, a default), and line 1 of the manifest when it cannot be read.
pub fn locate(path: &Path, pointer: &str) -> Location {
    let fallback = Location {
        file: path.to_path_buf(),
        line: 1,
    };
    let Ok(text) = std::fs::read_to_string(path) else {
        return fallback;
    };
    let Ok(document) = DeTable::parse(&text) else {
        return fallback;
    };
    let document = document.into_inner();
    let tokens: Vec<String> = JsonPointer::from_escaped(pointer)
        .tokens()
        .map(|t| t.into_owned())
        .collect();
    let (keys, rest): (Vec<String>, Vec<String>) = manifest_keys(&document, &tokens);
    let mut offset = 0;
    let mut table = &document;
    let mut item: Option<&toml::Spanned<DeValue<'_>>> = None;
    for (i, key) in keys.iter().enumerate() {
        let next = match item.map(toml::Spanned::get_ref) {
            None => table
                .get_key_value(key.as_str())
                .map(|(k, v)| (k.span().start, v)),
            Some(DeValue::Table(t)) => t
                .get_key_value(key.as_str())
                .map(|(k, v)| (k.span().start, v)),
            Some(DeValue::Array(items)) => key
                .parse::<usize>()
                .ok()
                .and_then(|n| items.get(n))
                .map(|v| (v.span().start, v)),
            _ => None,
        };
        let Some((at, value)) = next else { break };
        offset = at;
        // A schema in a JSON file: the rest of the pointer is in that file.
        if i == 0
            && (key == "input" || key == "output")
            && let DeValue::Table(t) = value.get_ref()
            && let Some(file) = t.get(SCHEMA_FILE_KEY)
            && let DeValue::String(file) = file.get_ref()
        {
            let schema_path: PathBuf = path.parent().unwrap_or(Path::new("")).join(file.as_ref());
            if let Ok(json) = std::fs::read_to_string(&schema_path) {
                let inner: String = keys[1..]
                    .iter()
                    .chain(&rest)
                    .map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1")))
                    .collect();
                let at = json_text::offset(&json, &inner, true).unwrap_or(0);
                return Location {
                    file: schema_path,
                    line: Diagnostic::line_col(&json, at).0,
                };
            }
        }
        item = Some(value);
        if let DeValue::Table(t) = value.get_ref() {
            table = t;
        }
    }
    Location {
        file: path.to_path_buf(),
        line: Diagnostic::line_col(&text, offset).0,
    }
}

/// The manifest keys a pointer's tokens stand for, and the tokens of the pointer left (a
/// schema's keywords are its keys as written).
fn manifest_keys(document: &DeTable<'_>, tokens: &[String]) -> (Vec<String>, Vec<String>) {
    let key = |k: &str| vec![k.to_owned()];
    let Some(first) = tokens.first() else {
        return (key("name"), Vec::new());
    };
    let keys = match (first.as_str(), tokens.get(1).map(String::as_str)) {
        ("inputSchema", _) => {
            let mut keys = key("input");
            keys.extend(tokens[1..].iter().cloned());
            keys
        }
        ("outputSchema", _) => {
            let mut keys = key("output");
            keys.extend(tokens[1..].iter().cloned());
            keys
        }
        ("annotations", Some("readOnlyHint" | "destructiveHint")) => key("safety"),
        ("annotations", Some("idempotentHint")) if document.contains_key("idempotent") => {
            key("idempotent")
        }
        ("annotations", Some("openWorldHint")) if document.contains_key("open_world") => {
            key("open_world")
        }
        ("annotations", Some("title")) => key("title"),
        ("annotations", _) => key("safety"),
        ("errors", Some(code)) => {
            // `[[errors]]` is a list: the entry with this code.
            let index = document.get("errors").and_then(|errors| match errors.get_ref() {
                DeValue::Array(entries) => entries.iter().position(|entry| {
                    matches!(entry.get_ref(), DeValue::Table(t)
                        if t.get("code").is_some_and(|c| matches!(c.get_ref(), DeValue::String(s) if s.as_ref() == code)))
                }),
                _ => None,
            });
            let mut keys = key("errors");
            if let Some(index) = index {
                keys.push(index.to_string());
                keys.extend(tokens[2..].iter().cloned());
            }
            keys
        }
        (other, _) => {
            let mut keys = key(other);
            keys.extend(tokens[1..].iter().cloned());
            keys
        }
    };
    (keys, Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_land_on_their_keys() {
        let dir = tempfile::tempdir().expect("test setup");
        let path = dir.path().join("t.toml");
        std::fs::write(
            &path,
            "name = \"t\"\ntitle = \"T\"\nsafety = \"read-only\"\nmode = \"parallel\"\n\n[input]\ntype = \"object\"\nproperties.a = { type = \"string\" }\n\n[[errors]]\ncode = \"A\"\nretryable = true\n\n[[errors]]\ncode = \"B\"\nretryable = false\n",
        )
        .expect("test setup");
        let line = |p: &str| locate(&path, p).line;
        assert_eq!(line(""), 1);
        assert_eq!(line("/annotations/readOnlyHint"), 3);
        assert_eq!(line("/mode"), 4);
        assert_eq!(line("/inputSchema/properties/a/type"), 8);
        assert_eq!(line("/inputSchema/properties/gone"), 8);
        assert_eq!(line("/errors/B/retryable"), 16);
        assert_eq!(line("/errors/GONE"), 10);
        assert_eq!(locate(&dir.path().join("missing.toml"), "/mode").line, 1);
    }

    #[test]
    fn a_schema_file_is_located_in_the_file() {
        let dir = tempfile::tempdir().expect("test setup");
        let path = dir.path().join("t.toml");
        std::fs::write(&path, "name = \"t\"\ninput = { file = \"t.input.json\" }\n")
            .expect("test setup");
        std::fs::write(
            dir.path().join("t.input.json"),
            "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"a\": {\"type\": \"string\"}\n  }\n}\n",
        )
        .expect("test setup");
        let found = locate(&path, "/inputSchema/properties/a");
        assert_eq!(found.file, dir.path().join("t.input.json"));
        assert_eq!(found.line, 4);
    }
}

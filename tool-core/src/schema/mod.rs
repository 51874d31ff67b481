//! The schema model: JSON Schema as the toolkit reads it, in one place.
//!
//! - [`keywords`]: every keyword, the shape of its value, what it is for and which types it
//!   applies to;
//! - [`draft`]: the drafts read (draft-07, 2019-09, 2020-12, from `$schema`), their validators
//!   and meta-validators, and the conversion to 2020-12 for exports;
//! - [`pointer`](mod@pointer): JSON Pointers, escaped in one place;
//! - [`tree`]: a schema parsed once into typed nodes, read by code generation, the docs, the
//!   provider dialects and the messages.
//!
//! The canonical form of a schema is its JSON with every object's keys in sorted order (the
//! default `serde_json` map is ordered) and no root `$schema` naming draft 2020-12 (the default);
//! a schema of another draft keeps its `$schema`, so that every validator reads it in its draft.

use serde_json::Value;

use crate::suggest::{self, Case};

pub mod draft;
pub mod keywords;
pub mod pointer;
pub mod tree;

pub use draft::{DRAFT_2020_12, Draft};
pub use keywords::{ANNOTATIONS, TYPE_NAMES};
pub use pointer::{JsonPointer, display_pointer, join};
pub use tree::{Body, Child, Node, Object, SchemaTree};

/// One JSON type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// `string`.
    String,
    /// `integer`.
    Integer,
    /// `number`.
    Number,
    /// `boolean`.
    Boolean,
    /// `array`.
    Array,
    /// `object`.
    Object,
    /// `null`.
    Null,
}

impl Kind {
    /// Every type, in the order of [`TYPE_NAMES`].
    pub const ALL: [Kind; 7] = [
        Kind::String,
        Kind::Integer,
        Kind::Number,
        Kind::Boolean,
        Kind::Array,
        Kind::Object,
        Kind::Null,
    ];

    /// The type a name stands for.
    pub fn parse(word: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.name() == word)
    }

    /// The type's name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Integer => "integer",
            Kind::Number => "number",
            Kind::Boolean => "boolean",
            Kind::Array => "array",
            Kind::Object => "object",
            Kind::Null => "null",
        }
    }
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

/// Removes a root `$schema` that names draft 2020-12 (the canonical form has none) and returns
/// the schema's draft.
///
/// # Errors
/// An issue at `/$schema` when it names another dialect or is not a string.
pub fn read_draft(schema: &mut Value) -> Result<Draft, SchemaIssue> {
    let draft = Draft::of(schema).map_err(|message| SchemaIssue::new("/$schema", message))?;
    if draft == Draft::Draft202012
        && let Some(map) = schema.as_object_mut()
    {
        map.remove("$schema");
    }
    Ok(draft)
}

/// The JSON text of a schema in canonical form: compact, keys sorted, no root `$schema` when it
/// names draft 2020-12.
pub fn canonical_text(schema: &Value) -> String {
    let mut schema = canonical_json(schema);
    if Draft::of(&schema) == Ok(Draft::Draft202012)
        && let Value::Object(map) = &mut schema
    {
        map.remove("$schema");
    }
    schema.to_string()
}

/// The same JSON value with every object's keys in sorted order (whatever map type
/// `serde_json` was built with).
pub fn canonical_json(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), canonical_json(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical_json).collect()),
        other => other.clone(),
    }
}

/// `a` or `an`, for the word it stands before in a message.
pub fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// The JSON type of a value, with its article, for messages: its [`json_kind`], except that a
/// whole number is `an integer`.
///
/// [`json_kind`]: crate::model::json_kind
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Number(n) if !n.is_f64() => "an integer",
        other => crate::model::json_kind(other),
    }
}

/// Cuts `text` to at most `max` characters, marking the cut with `…`.
pub fn truncate(text: &str, max: usize) -> String {
    let mut cut = String::new();
    for (i, c) in text.chars().enumerate() {
        if i + 1 >= max && text.chars().nth(max).is_some() {
            cut.push('…');
            break;
        }
        push_visible(&mut cut, c);
    }
    cut
}

/// Pushes `c`, or its `\u{…}` escape when it is a control character or one that is invisible
/// or reorders text (bidirectional controls, zero-width characters, the byte order mark): a
/// message must show what is written, not hide or reverse it.
fn push_visible(out: &mut String, c: char) {
    let invisible = c.is_control()
        || matches!(
            c,
            '\u{00ad}'
                | '\u{061c}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
        );
    if invisible {
        out.push_str(&format!("\\u{{{:04x}}}", u32::from(c)));
    } else {
        out.push(c);
    }
}

/// The closest candidate to `word`, ignoring case, if it is close enough to be a typo.
pub fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    // The distance is at least the difference in length: a word twice as long as every
    // candidate is no typo of one (and is not worth a quadratic comparison).
    let longest = candidates.iter().map(|c| c.len()).max().unwrap_or(0);
    if word.len() > 2 * longest + 3 {
        return None;
    }
    suggest::closest(
        word,
        candidates,
        Case::Insensitive,
        |distance, candidate| distance <= (candidate.chars().count().max(3) / 3).max(1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_draft_is_read_and_2020_12_is_dropped() {
        let mut schema = json!({"$schema": DRAFT_2020_12, "type": "object"});
        assert_eq!(read_draft(&mut schema), Ok(Draft::Draft202012));
        assert_eq!(schema, json!({"type": "object"}));
        let mut schema =
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"});
        assert_eq!(read_draft(&mut schema), Ok(Draft::Draft7));
        assert!(
            schema.get("$schema").is_some(),
            "another draft keeps its `$schema`"
        );
        let mut schema = json!({"$schema": "http://json-schema.org/draft-04/schema#"});
        let issue = read_draft(&mut schema).expect_err("draft-04 is not read");
        assert_eq!(issue.pointer, "/$schema");
    }

    #[test]
    fn canonical_text_sorts_keys_and_drops_only_the_default_dialect() {
        // Parsed from text, not built with `json!`: guards against `serde_json/preserve_order`
        // being switched on by feature unification.
        let value: Value = serde_json::from_str(
            r#"{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"b":{"$schema":"y"},"a":{}}}"#,
        )
        .expect("JSON");
        assert_eq!(
            canonical_text(&value),
            r#"{"properties":{"a":{},"b":{"$schema":"y"}},"type":"object"}"#
        );
        let draft7 = json!({"$schema": "http://json-schema.org/draft-07/schema#"});
        assert_eq!(
            canonical_text(&draft7),
            r#"{"$schema":"http://json-schema.org/draft-07/schema#"}"#
        );
    }

    #[test]
    fn closest_suggests_only_near_words() {
        assert_eq!(
            closest("saftey", &["name", "safety", "mode"]),
            Some("safety")
        );
        assert_eq!(closest("tilte", &["name", "title", "mode"]), Some("title"));
        assert_eq!(closest("colour", &["name", "safety", "mode"]), None);
    }
}

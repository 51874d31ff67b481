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
pub mod walk;
pub mod words;

pub use crate::text::{article, truncate};
pub use draft::{DRAFT_2020_12, Draft};
pub use keywords::{ANNOTATIONS, Kind, TYPE_NAMES};
pub use pointer::{JsonPointer, SchemaIssue, display_pointer, join};
pub use tree::{Body, Child, Node, Object, SchemaTree};
pub use walk::{DEPTH_LIMIT, has_reference, is_self_contained};

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

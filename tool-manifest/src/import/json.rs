//! A JSON value that keeps the order of every object's keys.
//!
//! An imported schema is written back exactly as its source published it, key order included.
//! `serde_json::Value` sorts keys unless `serde_json` is built with `preserve_order`, and that
//! feature is unified across every crate of a build: enabling it changes the provider exports
//! this workspace checks in (their keys come out in insertion order). A `RawValue` keeps the
//! text but can be neither re-indented nor rewritten (BFCL types are mapped in place). So the
//! import reads into this small tree, built from `jsonc-parser`'s, which keeps every number's
//! text as the source wrote it (`1e3`, `-1.50`); `serde_json` prints it, writing that text as it
//! is, as a `RawValue`.

use jsonc_parser::ast::Value as Node;
use serde::ser::{self as ser, Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Number, Value};

use crate::json_text;
use crate::model::json_kind;

/// A JSON value; objects keep their keys in document order (duplicates included, as written).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    /// A number as written.
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The value of a JSON text (read strictly, as JSON); `None` when the text is not one JSON
    /// value. `jsonc-parser` descends as deep as the text nests: a caller reading untrusted text
    /// lets `serde_json`, which stops at 128 levels, read it first.
    pub(crate) fn parse(text: &str) -> Option<Json> {
        json_text::parse(text).map(Json::from_node)
    }

    fn from_node(node: Node<'_>) -> Json {
        match node {
            Node::NullKeyword(_) => Json::Null,
            Node::BooleanLit(b) => Json::Bool(b.value),
            Node::NumberLit(number) => Json::Number(number.value.to_owned()),
            Node::StringLit(s) => Json::String(s.value.into_owned()),
            Node::Array(array) => {
                Json::Array(array.elements.into_iter().map(Json::from_node).collect())
            }
            Node::Object(object) => Json::Object(
                object
                    .properties
                    .into_iter()
                    .map(|p| (p.name.into_string(), Json::from_node(p.value)))
                    .collect(),
            ),
        }
    }

    /// The value of `key` in an object; the last one when a key is repeated (as `serde_json`
    /// reads it).
    pub(crate) fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().rev().find(|(k, _)| k == key).map(|e| &e.1),
            _ => None,
        }
    }

    /// The value of `key`, `None` when absent or `null` (sources write `"title": null` for
    /// "no title").
    pub(crate) fn field(&self, key: &str) -> Option<&Json> {
        self.get(key).filter(|v| !matches!(v, Json::Null))
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// `a string`, `an object`, … for messages: the [`json_kind`] of an empty value of the same
    /// kind.
    pub(crate) fn kind(&self) -> &'static str {
        json_kind(&match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(_) => Value::Number(Number::from(0)),
            Json::String(_) => Value::String(String::new()),
            Json::Array(_) => Value::Array(Vec::new()),
            Json::Object(_) => Value::Object(Map::new()),
        })
    }

    /// Pretty JSON text (`serde_json`'s pretty printer), followed by a newline.
    pub(crate) fn pretty(&self) -> Result<String, serde_json::Error> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        Ok(text)
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            // The text as written, which `serde_json` writes as it is.
            Json::Number(text) => serde_json::from_str::<&RawValue>(text)
                .map_err(ser::Error::custom)?
                .serialize(serializer),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_nulls_and_numbers_survive_a_round_trip() {
        let text = r#"{"z":1,"a":null,"m":[1.5,-2,{"y":true,"b":"x"}],"e":{}}"#;
        let json = Json::parse(text).expect("json");
        assert_eq!(serde_json::to_string(&json).expect("serialize"), text);
        assert_eq!(json.get("a"), Some(&Json::Null));
        assert_eq!(json.field("a"), None);
        assert_eq!(json.get("e").map(Json::kind), Some("an object"));
    }

    #[test]
    fn a_repeated_key_reads_as_its_last_value_and_is_written_twice() {
        let text = r#"{"k":1,"k":2}"#;
        let json = Json::parse(text).expect("json");
        assert_eq!(json.get("k"), Some(&Json::Number("2".to_owned())));
        assert_eq!(serde_json::to_string(&json).expect("serialize"), text);
    }

    #[test]
    fn pretty_text_is_serde_json_pretty_with_a_final_newline() {
        let json = Json::parse(r#"{"b":[1],"a":{}}"#).expect("json");
        assert_eq!(
            json.pretty().expect("pretty"),
            "{\n  \"b\": [\n    1\n  ],\n  \"a\": {}\n}\n"
        );
    }
}

//! A JSON value that keeps the order of every object's keys.
//!
//! An imported schema is written back exactly as its source published it, key order included.
//! `serde_json::Value` sorts keys unless `serde_json` is built with `preserve_order`, and that
//! feature is unified across every crate of a build: enabling it changes the provider exports
//! this workspace checks in (their keys come out in insertion order). A `RawValue` keeps the
//! text but can be neither re-indented nor rewritten (BFCL types are mapped in place). So the
//! import reads into this small tree, with `serde_json` doing all parsing and printing. Numbers
//! keep their text as the source wrote it (`1e3`, `-1.50`), attached after parsing from the
//! literals `jsonc-parser` finds ([`Json::attach_numbers`]); `serde_json` writes that text as it
//! is, as a `RawValue`.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{self as ser, Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Number, Value};

use crate::model::json_kind;

/// A JSON value; objects keep their keys in document order (duplicates included, as written).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    /// A number as written (`serde_json`'s text of it until [`Json::attach_numbers`] runs).
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
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

    /// Gives each number, in document order, the text of the next of `literals` (the numbers
    /// of the text this value was parsed from, in document order). False, and nothing changed
    /// past the point, when the counts differ.
    pub(crate) fn attach_numbers<'t>(
        &mut self,
        literals: &mut impl Iterator<Item = &'t str>,
    ) -> bool {
        match self {
            Json::Number(text) => match literals.next() {
                Some(literal) => {
                    literal.clone_into(text);
                    true
                }
                None => false,
            },
            Json::Array(items) => items.iter_mut().all(|item| item.attach_numbers(literals)),
            Json::Object(entries) => entries
                .iter_mut()
                .all(|(_, value)| value.attach_numbers(literals)),
            Json::Null | Json::Bool(_) | Json::String(_) => true,
        }
    }

    /// Every number with its JSON Pointer under `pointer`, in document order.
    pub(crate) fn numbers(&self, pointer: &str, found: &mut Vec<(String, String)>) {
        match self {
            Json::Number(text) => found.push((pointer.to_owned(), text.clone())),
            Json::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    item.numbers(&format!("{pointer}/{i}"), found);
                }
            }
            Json::Object(entries) => {
                for (key, value) in entries {
                    value.numbers(&crate::schema::join(pointer, key), found);
                }
            }
            Json::Null | Json::Bool(_) | Json::String(_) => {}
        }
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

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json, D::Error> {
        Json::deserialize(deserializer)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Json, E> {
        Ok(Json::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Json, E> {
        Ok(Json::Number(value.to_string()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Json, E> {
        Ok(Json::Number(value.to_string()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Json, E> {
        Number::from_f64(value)
            .map(|n| Json::Number(n.to_string()))
            .ok_or_else(|| E::custom("a number that is not finite"))
    }

    fn visit_str<E>(self, value: &str) -> Result<Json, E> {
        Ok(Json::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Json, E> {
        Ok(Json::String(value))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
        while let Some((key, value)) = map.next_entry::<String, Json>()? {
            entries.push((key, value));
        }
        Ok(Json::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_nulls_and_numbers_survive_a_round_trip() {
        let text = r#"{"z":1,"a":null,"m":[1.5,-2,{"y":true,"b":"x"}],"e":{}}"#;
        let json: Json = serde_json::from_str(text).expect("json");
        assert_eq!(serde_json::to_string(&json).expect("serialize"), text);
        assert_eq!(json.get("a"), Some(&Json::Null));
        assert_eq!(json.field("a"), None);
        assert_eq!(json.get("e").map(Json::kind), Some("an object"));
    }

    #[test]
    fn a_repeated_key_reads_as_its_last_value_and_is_written_twice() {
        let text = r#"{"k":1,"k":2}"#;
        let json: Json = serde_json::from_str(text).expect("json");
        assert_eq!(json.get("k"), Some(&Json::Number("2".to_owned())));
        assert_eq!(serde_json::to_string(&json).expect("serialize"), text);
    }

    #[test]
    fn pretty_text_is_serde_json_pretty_with_a_final_newline() {
        let json: Json = serde_json::from_str(r#"{"b":[1],"a":{}}"#).expect("json");
        assert_eq!(
            json.pretty().expect("pretty"),
            "{\n  \"b\": [\n    1\n  ],\n  \"a\": {}\n}\n"
        );
    }
}

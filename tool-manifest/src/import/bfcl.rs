//! BFCL function docs → JSON Schema 2020-12.
//!
//! The Berkeley Function Calling Leaderboard writes its function parameters in a dialect of
//! JSON Schema with Python's type names. Only the type names differ; every other keyword
//! (`properties`, `required`, `items`, `enum`, `default`, `description`) is JSON Schema's and is
//! kept as written.
//!
//! | BFCL | JSON Schema |
//! |---|---|
//! | `"dict"` | `"object"` |
//! | `"float"` | `"number"` |
//! | `"tuple"` | `"array"` (`items` kept) |
//! | `"any"` | no `type` (any value) |
//! | `"integer"`, `"boolean"`, `"string"`, `"array"` | the same |

use super::json::Json;
use crate::dialect::join_pointer;
use crate::schema::keywords::{self, Shape};

/// The BFCL type names that are not JSON Schema's, with what they become (`None`: the `type`
/// keyword is removed).
pub const TYPES: &[(&str, Option<&str>)] = &[
    ("dict", Some("object")),
    ("float", Some("number")),
    ("tuple", Some("array")),
    ("any", None),
];

/// One type name rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapped {
    /// The JSON Pointer of the schema node whose `type` was rewritten.
    pub pointer: String,
    /// The BFCL type name.
    pub from: String,
    /// The JSON Schema type name; `None` when the `type` keyword was removed (`any`).
    pub to: Option<&'static str>,
}

/// Whether any schema node of `schema` names a BFCL-only type.
pub(crate) fn uses_bfcl_types(schema: &Json) -> bool {
    let mut copy = schema.clone();
    !map(&mut copy).is_empty()
}

/// Rewrites every BFCL type name of `schema` in place, in document order, and lists what was
/// rewritten.
pub(crate) fn map(schema: &mut Json) -> Vec<Mapped> {
    let mut mapped = Vec::new();
    walk(schema, &mut String::new(), &mut mapped);
    mapped
}

fn lookup(name: &str) -> Option<Option<&'static str>> {
    TYPES
        .iter()
        .find(|(bfcl, _)| *bfcl == name)
        .map(|(_, to)| *to)
}

/// `at` is the pointer of `node` (a buffer restored on return).
fn walk(node: &mut Json, at: &mut String, mapped: &mut Vec<Mapped>) {
    let Json::Object(entries) = node else {
        return;
    };
    let mut remove_type = false;
    for (key, value) in entries.iter_mut() {
        if key != "type" {
            continue;
        }
        let words: Vec<&mut String> = match value {
            Json::String(word) => vec![word],
            Json::Array(names) => names
                .iter_mut()
                .filter_map(|name| match name {
                    Json::String(word) => Some(word),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        for word in words {
            let Some(to) = lookup(word) else {
                continue;
            };
            mapped.push(Mapped {
                pointer: at.clone(),
                from: word.clone(),
                to,
            });
            match to {
                Some(to) => *word = to.to_owned(),
                // `any`, alone or among other types, allows every value: no type at all.
                None => remove_type = true,
            }
        }
    }
    if remove_type {
        entries.retain(|(key, _)| key != "type");
    }
    for (key, value) in entries.iter_mut() {
        let len = at.len();
        *at = join_pointer(at, key);
        // The shape of each keyword's value comes from the schema model.
        let shape = keywords::keyword(key).map(|k| k.shape);
        if matches!(shape, Some(Shape::Schema | Shape::SchemaOrList)) {
            match value {
                // `items` as an array of schemas (draft 4 to 2019-09 tuples).
                Json::Array(items) => walk_each(items, at, mapped),
                other => walk(other, at, mapped),
            }
        } else if shape == Some(Shape::SchemaList) {
            if let Json::Array(items) = value {
                walk_each(items, at, mapped);
            }
        } else if matches!(shape, Some(Shape::SchemaMap | Shape::Dependencies))
            && let Json::Object(named) = value
        {
            for (name, schema) in named.iter_mut() {
                let len = at.len();
                *at = join_pointer(at, name);
                walk(schema, at, mapped);
                at.truncate(len);
            }
        }
        at.truncate(len);
    }
}

fn walk_each(items: &mut [Json], at: &mut String, mapped: &mut Vec<Mapped>) {
    for (i, item) in items.iter_mut().enumerate() {
        let len = at.len();
        at.push('/');
        at.push_str(&i.to_string());
        walk(item, at, mapped);
        at.truncate(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Json {
        Json::parse(text).expect("json")
    }

    fn mapped(pointer: &str, from: &str, to: Option<&'static str>) -> Mapped {
        Mapped {
            pointer: pointer.to_owned(),
            from: from.to_owned(),
            to,
        }
    }

    #[test]
    fn dict_float_tuple_and_any_become_json_schema_in_place() {
        let mut schema = json(
            r#"{"type":"dict","properties":{"x":{"type":"float","description":"X"},"pair":{"type":"tuple","items":{"type":"integer"}},"v":{"description":"V","type":"any"},"n":{"type":"string"}},"required":["x"]}"#,
        );
        let list = map(&mut schema);
        assert_eq!(
            serde_json::to_string(&schema).expect("serialize"),
            r#"{"type":"object","properties":{"x":{"type":"number","description":"X"},"pair":{"type":"array","items":{"type":"integer"}},"v":{"description":"V"},"n":{"type":"string"}},"required":["x"]}"#
        );
        assert_eq!(
            list,
            [
                mapped("", "dict", Some("object")),
                mapped("/properties/x", "float", Some("number")),
                mapped("/properties/pair", "tuple", Some("array")),
                mapped("/properties/v", "any", None),
            ]
        );
    }

    #[test]
    fn nested_objects_arrays_and_combinators_are_mapped() {
        let mut schema = json(
            r#"{"type":"dict","properties":{"a/b":{"type":"array","items":{"type":"dict","properties":{"p":{"type":"float"}}}},"u":{"anyOf":[{"type":"float"},{"type":["dict","null"]}]},"m":{"type":"dict","additionalProperties":{"type":"float"}}}}"#,
        );
        let list = map(&mut schema);
        let pointers: Vec<&str> = list.iter().map(|m| m.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "",
                "/properties/a~1b/items",
                "/properties/a~1b/items/properties/p",
                "/properties/u/anyOf/0",
                "/properties/u/anyOf/1",
                "/properties/m",
                "/properties/m/additionalProperties",
            ]
        );
        assert_eq!(
            schema
                .get("properties")
                .and_then(|p| p.get("u"))
                .and_then(|u| u.get("anyOf"))
                .map(|a| serde_json::to_string(a).expect("serialize")),
            Some(r#"[{"type":"number"},{"type":["object","null"]}]"#.to_owned())
        );
    }

    #[test]
    fn values_that_are_not_schemas_are_left_alone() {
        let text = r#"{"type":"object","properties":{"t":{"type":"string","enum":["dict","float"],"default":"any","examples":[{"type":"dict"}]}}}"#;
        let mut schema = json(text);
        assert!(map(&mut schema).is_empty());
        assert_eq!(serde_json::to_string(&schema).expect("serialize"), text);
        assert!(!uses_bfcl_types(&schema));
        assert!(uses_bfcl_types(&json(r#"{"type":"dict"}"#)));
    }

    #[test]
    fn any_among_other_types_removes_the_type() {
        let mut schema = json(r#"{"type":["string","any"],"description":"d"}"#);
        assert_eq!(map(&mut schema), [mapped("", "any", None)]);
        assert_eq!(
            serde_json::to_string(&schema).expect("serialize"),
            r#"{"description":"d"}"#
        );
    }
}

//! The drafts a schema may be written in (draft-07, 2019-09, 2020-12), read from its `$schema`
//! by `jsonschema`, and the conversion of the older drafts' constructs to 2020-12 for exports.

use serde_json::{Map, Value};

use super::keywords::{self, Kind, Shape};
use super::pointer::join;

/// The dialect a schema without `$schema` is written in, and the dialect of every export.
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// A draft the toolkit reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Draft {
    /// `http://json-schema.org/draft-07/schema#`: array `items`, `additionalItems`,
    /// `definitions`, `dependencies`.
    Draft7,
    /// `https://json-schema.org/draft/2019-09/schema`: array `items`, `additionalItems`,
    /// recursive references.
    Draft201909,
    /// `https://json-schema.org/draft/2020-12/schema`, also a schema without `$schema`.
    Draft202012,
}

impl Draft {
    /// Every draft read, oldest first.
    pub const ALL: &'static [Draft] = &[Draft::Draft7, Draft::Draft201909, Draft::Draft202012];

    /// The canonical `$schema` URI.
    pub const fn uri(self) -> &'static str {
        match self {
            Draft::Draft7 => "http://json-schema.org/draft-07/schema#",
            Draft::Draft201909 => "https://json-schema.org/draft/2019-09/schema",
            Draft::Draft202012 => DRAFT_2020_12,
        }
    }

    /// The short name used in messages and docs: `draft-07`, `2019-09`, `2020-12`.
    pub const fn name(self) -> &'static str {
        match self {
            Draft::Draft7 => "draft-07",
            Draft::Draft201909 => "2019-09",
            Draft::Draft202012 => "2020-12",
        }
    }

    /// The draft a `$schema` URI names (as `jsonschema` reads it), when it is one of these.
    pub fn from_uri(uri: &str) -> Option<Draft> {
        match jsonschema::Draft::from_schema_uri(uri) {
            jsonschema::Draft::Draft7 => Some(Draft::Draft7),
            jsonschema::Draft::Draft201909 => Some(Draft::Draft201909),
            jsonschema::Draft::Draft202012 => Some(Draft::Draft202012),
            _ => None,
        }
    }

    /// The draft of a schema: its root `$schema`, 2020-12 when there is none.
    ///
    /// # Errors
    /// A `$schema` that is not a string or names another draft, as a message.
    pub fn of(schema: &Value) -> Result<Draft, String> {
        match schema.get("$schema") {
            None => Ok(Draft::Draft202012),
            Some(Value::String(uri)) => Draft::from_uri(uri).ok_or_else(|| {
                // The URI as written, bounded, its invisible characters escaped.
                format!(
                    "unsupported `$schema` \"{}\", expected {} (or no `$schema`: draft 2020-12)",
                    crate::text::truncate(uri, 80),
                    crate::model::quoted_list(
                        &Draft::ALL.iter().map(|d| d.uri()).collect::<Vec<_>>()
                    )
                )
            }),
            Some(other) => Err(format!(
                "expected `$schema` to be a URI string, found {}",
                crate::text::with_article(Kind::of(other).name())
            )),
        }
    }

    /// The draft as `jsonschema` names it.
    pub const fn jsonschema(self) -> jsonschema::Draft {
        match self {
            Draft::Draft7 => jsonschema::Draft::Draft7,
            Draft::Draft201909 => jsonschema::Draft::Draft201909,
            Draft::Draft202012 => jsonschema::Draft::Draft202012,
        }
    }

    /// `jsonschema`'s options for this draft: `format` an annotation, nothing fetched.
    pub fn options(self) -> jsonschema::ValidationOptions<'static> {
        jsonschema::options()
            .with_draft(self.jsonschema())
            .should_validate_formats(false)
    }

    /// The meta-schema validator of this draft.
    pub fn meta_validator(self) -> jsonschema::meta::MetaValidator<'static> {
        match self {
            Draft::Draft7 => jsonschema::draft7::meta::validator(),
            Draft::Draft201909 => jsonschema::draft201909::meta::validator(),
            Draft::Draft202012 => jsonschema::draft202012::meta::validator(),
        }
    }

    /// Is an `items` array a list of positional schemas in this draft?
    pub const fn has_array_items(self) -> bool {
        !matches!(self, Draft::Draft202012)
    }
}

/// The shape of `keyword`'s value in `draft` (`items` is one schema in 2020-12, one or a list
/// before), `None` for what is not a keyword.
pub fn shape(draft: Draft, keyword: &str) -> Option<Shape> {
    let found = keywords::keyword(keyword)?.shape;
    Some(match (found, draft.has_array_items()) {
        (Shape::SchemaOrList, false) => Shape::Schema,
        (shape, _) => shape,
    })
}

/// The schema in draft 2020-12 form, without `$schema`: what every export carries. Draft-07 and
/// 2019-09 constructs are rewritten (`definitions` → `$defs` with the `$ref`s that name them,
/// array `items` → `prefixItems` and `additionalItems` → `items`, `dependencies` →
/// `dependentRequired` / `dependentSchemas`); a 2020-12 schema only loses its `$schema`.
pub fn to_2020_12(schema: &Value) -> Value {
    let draft = Draft::of(schema).unwrap_or(Draft::Draft202012);
    let mut out = schema.clone();
    if let Value::Object(map) = &mut out {
        map.remove("$schema");
    }
    if draft != Draft::Draft202012 {
        convert_node(&mut out);
    }
    out
}

/// Converts one node of a draft-07 or 2019-09 schema, then its subschemas (reached through the
/// 2020-12 keywords it now has).
fn convert_node(node: &mut Value) {
    let Value::Object(map) = node else {
        return;
    };
    if let Some(Value::String(reference)) = map.get_mut("$ref")
        && let Some(rest) = reference.strip_prefix("#/definitions/")
    {
        *reference = format!("#/$defs/{rest}");
    }
    if let Some(definitions) = map.remove("definitions") {
        match map.get_mut("$defs") {
            Some(Value::Object(defs)) => {
                if let Value::Object(definitions) = definitions {
                    for (name, schema) in definitions {
                        defs.entry(name).or_insert(schema);
                    }
                }
            }
            _ => {
                map.insert("$defs".to_owned(), definitions);
            }
        }
    }
    if let Some(Value::Array(_)) = map.get("items") {
        if let Some(items) = map.remove("items") {
            map.insert("prefixItems".to_owned(), items);
        }
        if let Some(rest) = map.remove("additionalItems") {
            map.insert("items".to_owned(), rest);
        }
    } else {
        // Without an array `items`, `additionalItems` has no effect.
        map.remove("additionalItems");
    }
    if let Some(Value::Object(dependencies)) = map.remove("dependencies") {
        let (mut required, mut schemas) = (Map::new(), Map::new());
        for (name, dependency) in dependencies {
            if dependency.is_array() {
                required.insert(name, dependency);
            } else {
                schemas.insert(name, dependency);
            }
        }
        for (keyword, entries) in [
            ("dependentRequired", required),
            ("dependentSchemas", schemas),
        ] {
            if !entries.is_empty() {
                map.insert(keyword.to_owned(), Value::Object(entries));
            }
        }
    }
    for_each_subschema_mut(map, Draft::Draft202012, "", &mut |child, _| {
        convert_node(child)
    });
}

/// Calls `f` on every direct subschema of a node read in `draft`, mutably, with its pointer
/// (`at` and the path to it).
pub fn for_each_subschema_mut(
    map: &mut Map<String, Value>,
    draft: Draft,
    at: &str,
    f: &mut dyn FnMut(&mut Value, String),
) {
    for (key, value) in map.iter_mut() {
        let here = || join(at, key);
        match (shape(draft, key), value) {
            (
                Some(Shape::Schema | Shape::SchemaOrList),
                value @ (Value::Object(_) | Value::Bool(_)),
            ) => {
                f(value, here());
            }
            (Some(Shape::SchemaList | Shape::SchemaOrList), Value::Array(children)) => {
                let here = here();
                for (i, child) in children.iter_mut().enumerate() {
                    f(child, format!("{here}/{i}"));
                }
            }
            (Some(Shape::SchemaMap | Shape::Dependencies), Value::Object(children)) => {
                let here = here();
                for (name, child) in children.iter_mut() {
                    if child.is_object() || child.is_boolean() {
                        f(child, join(&here, name));
                    }
                }
            }
            _ => {}
        }
    }
}

/// Calls `f` on every direct subschema of a node read in `draft`, with its pointer.
pub fn for_each_subschema<'a>(
    map: &'a Map<String, Value>,
    draft: Draft,
    at: &str,
    f: &mut dyn FnMut(&'a Value, String),
) {
    for (key, value) in map {
        // The pointer only for a key that holds schemas: most keys hold none.
        let here = || join(at, key);
        match (shape(draft, key), value) {
            (Some(Shape::Schema | Shape::SchemaOrList), Value::Object(_) | Value::Bool(_)) => {
                f(value, here());
            }
            (Some(Shape::SchemaList | Shape::SchemaOrList), Value::Array(children)) => {
                let here = here();
                for (i, child) in children.iter().enumerate() {
                    f(child, format!("{here}/{i}"));
                }
            }
            (Some(Shape::SchemaMap | Shape::Dependencies), Value::Object(children)) => {
                let here = here();
                for (name, child) in children {
                    if child.is_object() || child.is_boolean() {
                        f(child, join(&here, name));
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_draft_is_read_from_schema_and_defaults_to_2020_12() {
        assert_eq!(Draft::of(&json!({})), Ok(Draft::Draft202012));
        for draft in Draft::ALL {
            assert_eq!(Draft::of(&json!({"$schema": draft.uri()})), Ok(*draft));
        }
        assert_eq!(
            Draft::of(&json!({"$schema": "http://json-schema.org/draft-07/schema"})),
            Ok(Draft::Draft7)
        );
        let refused = Draft::of(&json!({"$schema": "http://json-schema.org/draft-04/schema#"}))
            .expect_err("draft-04 is not read");
        assert!(refused.starts_with("unsupported `$schema`"), "{refused}");
        for (schema, found) in [
            (json!(7), "an integer"),
            (json!(7.5), "a number"),
            (json!(["x"]), "an array"),
            (json!(null), "null"),
        ] {
            assert_eq!(
                Draft::of(&json!({ "$schema": schema })),
                Err(format!(
                    "expected `$schema` to be a URI string, found {found}"
                ))
            );
        }
        let hidden = Draft::of(&json!({"$schema": "x\u{202e}y"})).expect_err("unknown");
        assert!(hidden.contains("x\\u{202e}y"), "{hidden}");
    }

    #[test]
    fn draft_07_constructs_become_2020_12() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "definitions": {"point": {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": false}},
            "dependencies": {"a": ["b"], "c": {"required": ["d"]}},
            "properties": {
                "p": {"$ref": "#/definitions/point"},
                "list": {"type": "array", "items": {"type": "string"}, "additionalItems": false}
            }
        });
        assert_eq!(
            to_2020_12(&schema),
            json!({
                "type": "object",
                "$defs": {"point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": false}},
                "dependentRequired": {"a": ["b"]},
                "dependentSchemas": {"c": {"required": ["d"]}},
                "properties": {
                    "p": {"$ref": "#/$defs/point"},
                    "list": {"type": "array", "items": {"type": "string"}}
                }
            })
        );
        // A 2020-12 schema keeps its `items` and its `definitions` (a plain map there).
        let modern = json!({"$schema": DRAFT_2020_12, "items": [1], "definitions": {}});
        assert_eq!(
            to_2020_12(&modern),
            json!({"items": [1], "definitions": {}})
        );
    }
}

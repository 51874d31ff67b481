//! Verdicts reached without compiling a schema, for the keywords whose meaning is simple enough
//! to be certain of.
//!
//! Meta-validating a schema against draft 2020-12 and compiling it with `jsonschema` costs far
//! more than reading it once. Almost every schema a tool declares uses a handful of keywords
//! whose values the meta-schema constrains in simple ways (`minLength` is a non-negative integer,
//! `required` a list of distinct strings, …). For those, [`is_known_valid`] decides in one pass
//! that the schema is valid and compiles; [`is_known_match`] decides that a value matches such
//! a schema.
//!
//! Both answer only "yes, certainly" (`true`) or "not known here" (`false`): a `false` sends the
//! caller to `jsonschema`, whose verdict and messages are then used unchanged. So a verdict can
//! never differ from `jsonschema`'s as long as every `true` here is a `true` there, which the
//! differential tests check on every bad-manifest case and on mutated schemas.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use serde_json::{Map, Number, Value};

/// Deeper schemas are left to `jsonschema`.
const MAX_DEPTH: usize = 64;

/// The JSON types a `type` keyword may name.
const SIMPLE_TYPES: &[&str] = &[
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// Is `schema` certainly valid JSON Schema 2020-12 (by its meta-schema), and does it certainly
/// compile with `jsonschema` (every `pattern` a regular expression it accepts)? `false` when it
/// is not, or when it uses a keyword this check does not cover (`$ref`, `patternProperties`,
/// unknown keywords, …).
pub(crate) fn is_known_valid(schema: &Value) -> bool {
    schema_valid(schema, 0)
}

fn schema_valid(node: &Value, depth: usize) -> bool {
    match node {
        Value::Bool(_) => true,
        Value::Object(map) if depth < MAX_DEPTH => map
            .iter()
            .all(|(keyword, value)| keyword_valid(keyword, value, depth)),
        _ => false,
    }
}

/// One keyword's value, as the draft 2020-12 meta-schema constrains it.
fn keyword_valid(keyword: &str, value: &Value, depth: usize) -> bool {
    match keyword {
        "title" | "description" | "$comment" | "format" => value.is_string(),
        "default" | "const" => true,
        "examples" | "enum" => value.is_array(),
        "deprecated" | "readOnly" | "writeOnly" | "uniqueItems" => value.is_boolean(),
        "type" => match value {
            Value::String(name) => SIMPLE_TYPES.contains(&name.as_str()),
            Value::Array(names) => !names.is_empty() && distinct_strings(names, SIMPLE_TYPES),
            _ => false,
        },
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => value.is_number(),
        "multipleOf" => value.as_f64().is_some_and(|n| n > 0.0),
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" => {
            value.is_u64()
        }
        "pattern" => value.as_str().is_some_and(|p| pattern(p).is_some()),
        "required" => value
            .as_array()
            .is_some_and(|names| distinct_strings(names, &[])),
        "items" | "additionalProperties" | "not" => schema_valid(value, depth + 1),
        "properties" | "$defs" => value
            .as_object()
            .is_some_and(|map| map.values().all(|s| schema_valid(s, depth + 1))),
        "anyOf" | "allOf" | "oneOf" => value.as_array().is_some_and(|list| {
            !list.is_empty() && list.iter().all(|s| schema_valid(s, depth + 1))
        }),
        _ => false,
    }
}

/// Strings, no two equal, each in `allowed` (any string when `allowed` is empty).
fn distinct_strings(values: &[Value], allowed: &[&str]) -> bool {
    values.iter().enumerate().all(|(i, value)| {
        value.as_str().is_some_and(|s| {
            (allowed.is_empty() || allowed.contains(&s))
                && !values[..i].iter().any(|v| v.as_str() == Some(s))
        })
    })
}

/// Does `instance` certainly match `schema`, a schema for which [`is_known_valid`] holds?
/// `false` when it does not, or when deciding needs what this check does not cover (`oneOf`,
/// `not`, `multipleOf`, `uniqueItems`, a float compared with a large integer, …).
// Used by the manifest loader (the `generator` feature).
#[cfg_attr(not(feature = "generator"), allow(dead_code))]
pub(crate) fn is_known_match(schema: &Value, instance: &Value) -> bool {
    matches(schema, instance, 0)
}

#[cfg_attr(not(feature = "generator"), allow(dead_code))]
fn matches(schema: &Value, instance: &Value, depth: usize) -> bool {
    let map = match schema {
        Value::Bool(accepts) => return *accepts,
        Value::Object(map) if depth < MAX_DEPTH => map,
        _ => return false,
    };
    map.iter()
        .all(|(keyword, value)| keyword_matches(map, keyword, value, instance, depth))
}

#[cfg_attr(not(feature = "generator"), allow(dead_code))]
fn keyword_matches(
    node: &Map<String, Value>,
    keyword: &str,
    value: &Value,
    instance: &Value,
    depth: usize,
) -> bool {
    match keyword {
        // Annotations; formats are not asserted by default in draft 2020-12.
        "title" | "description" | "$comment" | "format" | "default" | "examples" | "deprecated"
        | "readOnly" | "writeOnly" | "$defs" => true,
        "type" => match value {
            Value::String(name) => has_type(name, instance),
            Value::Array(names) => names
                .iter()
                .any(|n| n.as_str().is_some_and(|n| has_type(n, instance))),
            _ => false,
        },
        // Equal as `serde_json` values implies equal as JSON Schema values (which also equates
        // `1` and `1.0`): a value found is certainly accepted.
        "enum" => value
            .as_array()
            .is_some_and(|values| values.contains(instance)),
        "const" => value == instance,
        "minLength" | "maxLength" => match instance {
            Value::String(s) => value.as_u64().is_some_and(|limit| {
                let length = s.chars().count() as u64;
                if keyword == "minLength" {
                    length >= limit
                } else {
                    length <= limit
                }
            }),
            _ => true,
        },
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => match instance {
            Value::Number(n) => value
                .as_number()
                .and_then(|limit| compare(n, limit))
                .is_some_and(|order| match keyword {
                    "minimum" => order.is_ge(),
                    "maximum" => order.is_le(),
                    "exclusiveMinimum" => order.is_gt(),
                    _ => order.is_lt(),
                }),
            _ => true,
        },
        "multipleOf" => !instance.is_number(),
        "pattern" => match instance {
            Value::String(_) => value
                .as_str()
                .and_then(pattern)
                .is_some_and(|validator| validator.is_valid(instance)),
            _ => true,
        },
        "items" => match instance {
            Value::Array(items) => items.iter().all(|item| matches(value, item, depth + 1)),
            _ => true,
        },
        "minItems" | "maxItems" => match instance {
            Value::Array(items) => within(keyword == "minItems", items.len(), value),
            _ => true,
        },
        "uniqueItems" => match instance {
            Value::Array(items) => value == &Value::Bool(false) || items.len() < 2,
            _ => true,
        },
        "properties" => match (instance, value) {
            (Value::Object(object), Value::Object(properties)) => {
                properties.iter().all(|(name, property)| {
                    object
                        .get(name)
                        .is_none_or(|v| matches(property, v, depth + 1))
                })
            }
            (Value::Object(_), _) => false,
            _ => true,
        },
        "required" => match instance {
            Value::Object(object) => value.as_array().is_some_and(|names| {
                names
                    .iter()
                    .all(|n| n.as_str().is_some_and(|n| object.contains_key(n)))
            }),
            _ => true,
        },
        "additionalProperties" => match instance {
            Value::Object(object) => {
                let declared = node.get("properties").and_then(Value::as_object);
                object
                    .iter()
                    .filter(|(name, _)| declared.is_none_or(|d| !d.contains_key(*name)))
                    .all(|(_, v)| matches(value, v, depth + 1))
            }
            _ => true,
        },
        "minProperties" | "maxProperties" => match instance {
            Value::Object(object) => within(keyword == "minProperties", object.len(), value),
            _ => true,
        },
        "anyOf" => value
            .as_array()
            .is_some_and(|branches| branches.iter().any(|b| matches(b, instance, depth + 1))),
        "allOf" => value
            .as_array()
            .is_some_and(|branches| branches.iter().all(|b| matches(b, instance, depth + 1))),
        _ => false,
    }
}

/// Does `instance` have the JSON type `name`? An integer written as a float (`1.0`) is left to
/// `jsonschema`.
#[cfg_attr(not(feature = "generator"), allow(dead_code))]
fn has_type(name: &str, instance: &Value) -> bool {
    match name {
        "null" => instance.is_null(),
        "boolean" => instance.is_boolean(),
        "string" => instance.is_string(),
        "array" => instance.is_array(),
        "object" => instance.is_object(),
        "number" => instance.is_number(),
        "integer" => instance.is_i64() || instance.is_u64(),
        _ => false,
    }
}

#[cfg_attr(not(feature = "generator"), allow(dead_code))]
fn within(at_least: bool, count: usize, limit: &Value) -> bool {
    limit.as_u64().is_some_and(|limit| {
        let count = count as u64;
        if at_least {
            count >= limit
        } else {
            count <= limit
        }
    })
}

/// The exact order of two JSON numbers, when it is certain: integers compared as integers,
/// floats as floats, an integer and a float only when the integer is exactly a float.
#[cfg_attr(not(feature = "generator"), allow(dead_code))]
fn compare(a: &Number, b: &Number) -> Option<std::cmp::Ordering> {
    /// Integers up to 2^53 are exact as floats.
    const EXACT: i128 = 1 << 53;
    let integer = |n: &Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    match (integer(a), integer(b)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        (Some(a), None) if a.abs() <= EXACT => (a as f64).partial_cmp(&b.as_f64()?),
        (None, Some(b)) if b.abs() <= EXACT => a.as_f64()?.partial_cmp(&(b as f64)),
        (None, None) => a.as_f64()?.partial_cmp(&b.as_f64()?),
        _ => None,
    }
}

/// The most patterns remembered; past it, each further one is compiled every time.
const PATTERN_CACHE: usize = 4096;

type PatternValidator = Option<Arc<jsonschema::Validator>>;

static PATTERNS: LazyLock<Mutex<HashMap<String, PatternValidator>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// A validator of `{"pattern": pattern}` when `jsonschema` compiles the pattern (exactly what it
/// does for the keyword inside a larger schema), remembered for the next schema.
fn pattern(pattern: &str) -> Option<Arc<jsonschema::Validator>> {
    if let Ok(cache) = PATTERNS.lock()
        && let Some(known) = cache.get(pattern)
    {
        return known.clone();
    }
    let mut schema = Map::new();
    schema.insert("pattern".to_owned(), Value::String(pattern.to_owned()));
    let compiled = jsonschema::draft202012::new(&Value::Object(schema))
        .ok()
        .map(Arc::new);
    if let Ok(mut cache) = PATTERNS.lock()
        && cache.len() < PATTERN_CACHE
    {
        cache.insert(pattern.to_owned(), compiled.clone());
    }
    compiled
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_common_keywords_are_known_valid() {
        let schema = json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["a"],
            "properties": {
                "a": {"type": "string", "minLength": 1, "pattern": "^[a-z]+$", "format": "uuid"},
                "b": {"type": ["integer", "null"], "minimum": 0, "multipleOf": 2},
                "c": {"type": "array", "items": {"enum": [1, "x"]}, "uniqueItems": true},
                "d": {"anyOf": [{"type": "null"}, {"const": 3}], "default": null}
            }
        });
        assert!(is_known_valid(&schema));
        assert!(is_known_valid(&json!(true)));
        assert!(is_known_valid(&json!({})));
    }

    #[test]
    fn invalid_or_uncovered_schemas_are_not_known_valid() {
        for schema in [
            json!({"minLength": -1}),
            json!({"minLength": 1.0}),
            json!({"type": "strng"}),
            json!({"type": []}),
            json!({"type": ["string", "string"]}),
            json!({"required": ["a", "a"]}),
            json!({"pattern": "([a-z"}),
            json!({"multipleOf": 0}),
            json!({"anyOf": []}),
            json!({"items": [{"type": "string"}]}),
            json!({"$ref": "#/$defs/a", "$defs": {"a": {}}}),
            json!({"x-unknown": 1}),
            json!(3),
        ] {
            assert!(!is_known_valid(&schema), "{schema}");
        }
    }

    #[test]
    fn matches_are_certain_or_left_to_jsonschema() {
        let schema = json!({
            "type": "object",
            "required": ["n"],
            "additionalProperties": false,
            "properties": {
                "n": {"type": "integer", "minimum": 0, "maximum": 10},
                "f": {"type": "number", "exclusiveMinimum": 0.5},
                "s": {"type": "string", "maxLength": 2, "pattern": "^a"}
            }
        });
        assert!(is_known_match(&schema, &json!({"n": 3, "f": 1, "s": "ab"})));
        assert!(is_known_match(&schema, &json!({"n": 10, "s": "aé"})));
        for instance in [
            json!({}),
            json!({"n": 11}),
            json!({"n": 1.0}),
            json!({"n": 1, "f": 0.5}),
            json!({"n": 1, "s": "abc"}),
            json!({"n": 1, "s": "b"}),
            json!({"n": 1, "x": 1}),
            json!([]),
        ] {
            assert!(!is_known_match(&schema, &instance), "{instance}");
        }
    }

    #[test]
    fn numbers_compare_exactly() {
        use std::cmp::Ordering;
        let n = |v: Value| v.as_number().cloned().expect("a number");
        assert_eq!(compare(&n(json!(1)), &n(json!(1.5))), Some(Ordering::Less));
        assert_eq!(
            compare(&n(json!(-1)), &n(json!(u64::MAX))),
            Some(Ordering::Less)
        );
        assert_eq!(compare(&n(json!(2.0)), &n(json!(2))), Some(Ordering::Equal));
        assert_eq!(compare(&n(json!(u64::MAX)), &n(json!(1.5))), None);
    }

    /// What `jsonschema` says: valid by the meta-schema, and compiles.
    fn jsonschema_valid(schema: &Value) -> bool {
        jsonschema::draft202012::meta::validator().is_valid(schema)
            && jsonschema::draft202012::new(schema).is_ok()
    }

    /// Every `true` here must be a `true` of `jsonschema`.
    fn assert_agrees(schema: &Value, instances: &[Value]) {
        let known = is_known_valid(schema);
        let valid = jsonschema_valid(schema);
        assert!(
            !known || valid,
            "known valid, but jsonschema refuses it: {schema}"
        );
        if !known {
            return;
        }
        let Ok(validator) = jsonschema::draft202012::new(schema) else {
            return;
        };
        for instance in instances {
            assert!(
                !is_known_match(schema, instance) || validator.is_valid(instance),
                "known match, but jsonschema refuses {instance} for {schema}"
            );
        }
    }

    #[test]
    fn known_verdicts_agree_with_jsonschema_on_edge_cases() {
        let schemas = [
            json!({"minLength": 0}),
            json!({"minLength": -1}),
            json!({"minLength": 1.0}),
            json!({"minLength": 1.5}),
            json!({"maxItems": u64::MAX}),
            json!({"multipleOf": 0}),
            json!({"multipleOf": -2}),
            json!({"multipleOf": 1e-300}),
            json!({"pattern": "([a-z"}),
            json!({"pattern": "\\p{Letter}+"}),
            json!({"pattern": "(?<=a)b"}),
            json!({"pattern": "^#[0-9a-fA-F]{6}$"}),
            json!({"format": "email"}),
            json!({"format": "no-such-format"}),
            json!({"format": 1}),
            json!({"type": ["string", "null"]}),
            json!({"type": ["string", "string"]}),
            json!({"type": "strng"}),
            json!({"required": []}),
            json!({"required": ["a", "a"]}),
            json!({"required": [1]}),
            json!({"enum": []}),
            json!({"enum": "a"}),
            json!({"anyOf": []}),
            json!({"anyOf": [true, false]}),
            json!({"items": [true]}),
            json!({"items": 1}),
            json!({"properties": {"a": 1}}),
            json!({"additionalProperties": {"type": "string"}}),
            json!({"examples": {}}),
            json!({"deprecated": "yes"}),
            json!({"$defs": {"a": {"type": "string"}}}),
            json!({"not": {}}),
            json!(false),
        ];
        let instances = [
            json!(null),
            json!(true),
            json!(0),
            json!(-1),
            json!(1.0),
            json!(2.5),
            json!(u64::MAX),
            json!(""),
            json!("#a0a0a0"),
            json!("ab"),
            json!("x@y.z"),
            json!([]),
            json!([1, 1]),
            json!({}),
            json!({"a": "b"}),
        ];
        for schema in &schemas {
            assert_agrees(schema, &instances);
        }
    }

    #[test]
    fn the_checked_in_schemas_are_known_valid() {
        // The generated schemas of the reference tool set: the check must apply to real tools.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../generated/schemas");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).expect("the generated schemas are checked in") {
            let path = entry.expect("a directory entry").path();
            let text = std::fs::read_to_string(&path).expect("a schema file");
            let schema: Value = serde_json::from_str(&text).expect("JSON");
            assert!(is_known_valid(&schema), "{}", path.display());
            assert!(jsonschema_valid(&schema), "{}", path.display());
            seen += 1;
        }
        assert!(seen > 10, "only {seen} schemas found");
    }

    mod props {
        use proptest::prelude::*;
        use serde_json::{Map, Value, json};

        use super::assert_agrees;

        /// Keywords of schemas: covered ones (often), uncovered ones, nonsense.
        const KEYS: &[&str] = &[
            "type",
            "type",
            "properties",
            "properties",
            "required",
            "items",
            "enum",
            "const",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minLength",
            "maxLength",
            "minItems",
            "maxItems",
            "uniqueItems",
            "minProperties",
            "maxProperties",
            "pattern",
            "format",
            "additionalProperties",
            "anyOf",
            "allOf",
            "oneOf",
            "not",
            "$defs",
            "title",
            "description",
            "default",
            "examples",
            "deprecated",
            "$ref",
            "patternProperties",
            "dependentRequired",
            "x-other",
            "a",
        ];
        const WORDS: &[&str] = &[
            "string",
            "integer",
            "number",
            "boolean",
            "array",
            "object",
            "null",
            "strng",
            "a",
            "b",
            "^a",
            "([a-z",
            "^#[0-9a-f]{2}$",
            "\\d+",
            "email",
            "#/$defs/a",
        ];

        fn leaf() -> impl Strategy<Value = Value> {
            prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::Bool),
                (-3i64..5).prop_map(|n| json!(n)),
                any::<i64>().prop_map(|n| json!(n)),
                Just(json!(u64::MAX)),
                (-4.0f64..4.0).prop_map(|n| json!(n)),
                Just(json!(1.0)),
                proptest::sample::select(WORDS).prop_map(|w| json!(w)),
            ]
        }

        fn value() -> impl Strategy<Value = Value> {
            leaf().prop_recursive(4, 40, 5, |inner| {
                prop_oneof![
                    proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                    proptest::collection::vec((proptest::sample::select(KEYS), inner), 0..5)
                        .prop_map(|entries| {
                            let map: Map<String, Value> = entries
                                .into_iter()
                                .map(|(k, v)| (k.to_owned(), v))
                                .collect();
                            Value::Object(map)
                        }),
                ]
            })
        }

        /// A valid schema of the covered keywords with one part replaced by anything.
        fn mutated() -> impl Strategy<Value = Value> {
            let base = json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["a"],
                "properties": {
                    "a": {"type": "string", "minLength": 1, "maxLength": 4, "pattern": "^a"},
                    "b": {"type": ["integer", "null"], "minimum": 0, "maximum": 9},
                    "c": {"type": "array", "items": {"type": "number"}, "minItems": 1},
                    "d": {"anyOf": [{"const": 1}, {"enum": ["x", null]}]}
                }
            });
            let paths: &[&[&str]] = &[
                &["type"],
                &["required"],
                &["additionalProperties"],
                &["properties", "a", "minLength"],
                &["properties", "a", "pattern"],
                &["properties", "b", "type"],
                &["properties", "b", "minimum"],
                &["properties", "c", "items"],
                &["properties", "c", "minItems"],
                &["properties", "d", "anyOf"],
                &["properties", "e"],
            ];
            (proptest::sample::select(paths.to_vec()), value()).prop_map(move |(path, new)| {
                let mut schema = base.clone();
                let mut node = &mut schema;
                for (i, key) in path.iter().enumerate() {
                    let Value::Object(map) = node else { break };
                    if i + 1 == path.len() {
                        map.insert((*key).to_owned(), new.clone());
                        break;
                    }
                    node = map.entry(*key).or_insert_with(|| json!({}));
                }
                schema
            })
        }

        proptest! {
            #[test]
            fn known_validity_implies_jsonschema_validity(schema in value()) {
                assert_agrees(&schema, &[]);
            }

            #[test]
            fn known_verdicts_on_mutated_schemas(
                schema in mutated(),
                instances in proptest::collection::vec(value(), 0..6),
            ) {
                let mut instances = instances;
                instances.push(json!({"a": "ab", "b": 3, "c": [1.5], "d": 1}));
                instances.push(json!({"a": "a", "b": null, "c": [2], "d": "x", "e": 1}));
                assert_agrees(&schema, &instances);
            }
        }
    }
}

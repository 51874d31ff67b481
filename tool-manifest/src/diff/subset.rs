//! Whether every instance one schema accepts, another accepts too: proved from the keywords
//! (conservatively: `false` means "not proved", never "disproved"), or disproved by a witness,
//! an instance tried against both schemas by `jsonschema`.
//!
//! The instances are built here from the schemas themselves (their `enum`s, `const`s,
//! `default`s, bounds and required properties, each branch of a composition): no maintained
//! Rust crate generates JSON instances from a JSON Schema, and the diff needs only a few dozen
//! near the boundaries the schemas declare, not a random generator.

use serde_json::{Map, Number, Value};

use super::normal::{admits, admitted_types, is_annotation, type_set};
use crate::schema::Kind;

/// Is every instance valid under `a` proved valid under `b` (both in normal form)?
pub(crate) fn proved(a: &Value, b: &Value) -> bool {
    subset(a, b, 0)
}

const DEPTH: usize = 24;

fn subset(a: &Value, b: &Value, depth: usize) -> bool {
    if depth > DEPTH {
        return false;
    }
    let b_map = match b {
        Value::Bool(true) => return true,
        Value::Bool(false) => return a == &Value::Bool(false),
        Value::Object(map) => map,
        _ => return false,
    };
    let a_map = match a {
        Value::Bool(false) => return true,
        Value::Bool(true) => &Map::new(),
        Value::Object(map) => map,
        _ => return false,
    };
    if b_map.keys().all(|k| is_annotation(k)) {
        return true;
    }
    if stripped(a_map) == stripped(b_map) {
        return true;
    }
    // A union on the left (a `oneOf` accepts no more than the `anyOf` of its branches): each
    // of its branches must be included.
    let union = ["anyOf", "oneOf"]
        .into_iter()
        .find(|k| a_map.contains_key(*k));
    if let Some(union) = union
        && let Some(Value::Array(branches)) = a_map.get(union)
    {
        let mut rest = a_map.clone();
        rest.remove(union);
        if branches.iter().all(|branch| {
            merged(&rest, branch).is_some_and(|m| subset(&Value::Object(m), b, depth + 1))
        }) {
            return true;
        }
    }
    // Several types on the left against a union on the right: one type at a time.
    if let Some(types) = type_set(a_map)
        && types.len() > 1
        && (b_map.contains_key("anyOf") || b_map.contains_key("oneOf"))
    {
        return types.iter().all(|t| {
            let mut one = a_map.clone();
            one.insert(
                "type".to_owned(),
                Value::Array(vec![Value::from(t.as_str())]),
            );
            subset(&Value::Object(one), b, depth + 1)
        });
    }
    // An intersection on the left: one conjunct included is enough.
    if let Some(Value::Array(conjuncts)) = a_map.get("allOf") {
        let mut rest = a_map.clone();
        rest.remove("allOf");
        if conjuncts
            .iter()
            .any(|c| merged(&rest, c).is_some_and(|m| subset(&Value::Object(m), b, depth + 1)))
        {
            return true;
        }
    }
    let a_types = admitted_types(a_map);
    let a_types = a_types.as_deref();
    b_map
        .iter()
        .all(|(key, expected)| keyword(a_map, a_types, key, expected, b_map, depth))
}

/// The node without its annotations.
fn stripped(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter()
        .filter(|(k, _)| !is_annotation(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `rest` and `branch` as one node, when no keyword is in both with other values.
fn merged(rest: &Map<String, Value>, branch: &Value) -> Option<Map<String, Value>> {
    let branch = match branch {
        Value::Object(b) => b,
        Value::Bool(true) => return Some(rest.clone()),
        _ => return None,
    };
    let mut out = rest.clone();
    for (k, v) in branch {
        match out.get(k) {
            Some(existing) if existing != v && !is_annotation(k) => return None,
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Some(out)
}

/// Does every instance of `a` satisfy keyword `key: expected` of `b`?
fn keyword(
    a: &Map<String, Value>,
    a_types: Option<&[Kind]>,
    key: &str,
    expected: &Value,
    b: &Map<String, Value>,
    depth: usize,
) -> bool {
    if is_annotation(key) || key == "format" {
        return true;
    }
    let values = value_set(a);
    let can = |kind: Kind| admits(a_types, kind);
    match key {
        "type" => {
            let Some(b_types) = type_set(b) else {
                return false;
            };
            a_types.is_some_and(|types| {
                types
                    .iter()
                    .all(|t| b_types.iter().any(|bt| t.satisfies(*bt)))
            })
        }
        "enum" | "const" => {
            let allowed: Vec<&Value> = match (key, expected) {
                ("const", c) => vec![c],
                (_, Value::Array(items)) => items.iter().collect(),
                _ => return false,
            };
            values.is_some_and(|values| values.iter().all(|v| allowed.iter().any(|a| equal(a, v))))
        }
        "minimum" | "exclusiveMinimum" | "maximum" | "exclusiveMaximum" | "multipleOf" => {
            if !can(Kind::Number) && !can(Kind::Integer) {
                return true;
            }
            if let Some(values) = &values {
                return values
                    .iter()
                    .all(|v| !v.is_number() || number_ok(v, key, expected));
            }
            numeric_bound(a, key, expected)
        }
        "minLength" | "maxLength" => {
            if !can(Kind::String) {
                return true;
            }
            if let Some(values) = &values {
                return values.iter().all(|v| {
                    v.as_str()
                        .is_none_or(|s| count_ok(s.chars().count() as u64, key, expected))
                });
            }
            count_bound(a, key, expected)
        }
        "pattern" => !can(Kind::String) || a.get(key) == Some(expected),
        "minItems" | "maxItems" | "uniqueItems" | "minContains" | "maxContains" => {
            if !can(Kind::Array) {
                return true;
            }
            if key == "uniqueItems" {
                return expected == &Value::Bool(false)
                    || a.get(key) == Some(&Value::Bool(true))
                    || a.get("maxItems")
                        .and_then(Value::as_u64)
                        .is_some_and(|m| m <= 1);
            }
            count_bound(a, key, expected)
        }
        "minProperties" | "maxProperties" => !can(Kind::Object) || count_bound(a, key, expected),
        "required" => {
            if !can(Kind::Object) {
                return true;
            }
            let have = names(a.get("required"));
            names(Some(expected)).iter().all(|n| have.contains(n))
        }
        "properties" => {
            if !can(Kind::Object) {
                return true;
            }
            let Value::Object(expected) = expected else {
                return false;
            };
            expected.iter().all(|(name, schema)| {
                let own = property_schema(a, name);
                subset(&own, schema, depth + 1)
            })
        }
        "additionalProperties" => {
            if !can(Kind::Object) {
                return true;
            }
            let declared = b.get("properties").and_then(Value::as_object);
            let patterns = b.get("patternProperties").and_then(Value::as_object);
            // Every property `a` lets through beyond `b`'s declared ones must fit `expected`.
            let beyond = a
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter(|(name, _)| declared.is_none_or(|d| !d.contains_key(*name)));
            let mut fits = true;
            for (name, schema) in beyond {
                if patterns.is_some() {
                    return false;
                }
                fits &= subset(schema, expected, depth + 1) || property_absent(a, name);
            }
            let a_rest = match a.get("additionalProperties") {
                None => Value::Object(Map::new()),
                Some(v) => v.clone(),
            };
            fits && !a.contains_key("patternProperties") && subset(&a_rest, expected, depth + 1)
        }
        "items" => {
            if !can(Kind::Array) {
                return true;
            }
            let own = a.get("items").cloned().unwrap_or(Value::Object(Map::new()));
            !a.contains_key("prefixItems") && subset(&own, expected, depth + 1)
        }
        "anyOf" => {
            let Value::Array(branches) = expected else {
                return false;
            };
            let whole = Value::Object(a.clone());
            branches
                .iter()
                .any(|branch| subset(&whole, branch, depth + 1))
        }
        "oneOf" => {
            let Value::Array(branches) = expected else {
                return false;
            };
            let whole = Value::Object(a.clone());
            branches.iter().enumerate().any(|(i, branch)| {
                subset(&whole, branch, depth + 1)
                    && branches
                        .iter()
                        .enumerate()
                        .all(|(j, other)| j == i || disjoint(a_types, other))
            })
        }
        "allOf" => {
            let Value::Array(conjuncts) = expected else {
                return false;
            };
            let whole = Value::Object(a.clone());
            conjuncts.iter().all(|c| subset(&whole, c, depth + 1))
        }
        // Anything else holds when `a` says the same.
        _ => a.get(key) == Some(expected),
    }
}

/// Can no instance admitted by `a_types` match `other`?
fn disjoint(a_types: Option<&[Kind]>, other: &Value) -> bool {
    let Some(a_types) = a_types else { return false };
    let Some(other) = other.as_object().and_then(admitted_types) else {
        return other == &Value::Bool(false);
    };
    !a_types.iter().any(|t| admits(Some(&other), *t))
}

/// The schema a node applies to its property `name`.
fn property_schema(a: &Map<String, Value>, name: &str) -> Value {
    if let Some(schema) = a
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|p| p.get(name))
    {
        return schema.clone();
    }
    if a.contains_key("patternProperties") {
        // Which patterns match the name is not decided here.
        return Value::Object(Map::new());
    }
    match a.get("additionalProperties") {
        Some(v) => v.clone(),
        None => Value::Object(Map::new()),
    }
}

/// A property `a` can never hold.
fn property_absent(a: &Map<String, Value>, name: &str) -> bool {
    property_schema(a, name) == Value::Bool(false)
}

/// The values a node allows, when it lists them (`const`, `enum`).
fn value_set(a: &Map<String, Value>) -> Option<Vec<&Value>> {
    match (a.get("const"), a.get("enum")) {
        (Some(c), _) => Some(vec![c]),
        (None, Some(Value::Array(values))) => Some(values.iter().collect()),
        _ => None,
    }
}

/// JSON equality with numbers compared by value (`1` and `1.0`).
pub(crate) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn names(value: Option<&Value>) -> Vec<&str> {
    match value {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn number(value: &Value) -> Option<f64> {
    value.as_f64()
}

/// Does the number `v` satisfy `key: bound`?
fn number_ok(v: &Value, key: &str, bound: &Value) -> bool {
    let (Some(v), Some(b)) = (number(v), number(bound)) else {
        return false;
    };
    match key {
        "minimum" => v >= b,
        "exclusiveMinimum" => v > b,
        "maximum" => v <= b,
        "exclusiveMaximum" => v < b,
        "multipleOf" => b > 0.0 && (v / b).fract() == 0.0,
        _ => false,
    }
}

/// Is `a`'s own numeric bound at least as strict as `key: bound`?
fn numeric_bound(a: &Map<String, Value>, key: &str, bound: &Value) -> bool {
    let Some(b) = number(bound) else { return false };
    let get = |k: &str| a.get(k).and_then(number);
    match key {
        "minimum" => {
            get("minimum").is_some_and(|m| m >= b)
                || get("exclusiveMinimum").is_some_and(|m| m >= b)
        }
        "exclusiveMinimum" => {
            get("exclusiveMinimum").is_some_and(|m| m >= b) || get("minimum").is_some_and(|m| m > b)
        }
        "maximum" => {
            get("maximum").is_some_and(|m| m <= b)
                || get("exclusiveMaximum").is_some_and(|m| m <= b)
        }
        "exclusiveMaximum" => {
            get("exclusiveMaximum").is_some_and(|m| m <= b) || get("maximum").is_some_and(|m| m < b)
        }
        "multipleOf" => get("multipleOf").is_some_and(|m| b > 0.0 && (m / b).fract() == 0.0),
        _ => false,
    }
}

fn count_ok(n: u64, key: &str, bound: &Value) -> bool {
    let Some(b) = bound.as_u64() else {
        return false;
    };
    if key.starts_with("min") {
        n >= b
    } else {
        n <= b
    }
}

/// Is `a`'s own count bound at least as strict as `key: bound`?
fn count_bound(a: &Map<String, Value>, key: &str, bound: &Value) -> bool {
    let (Some(b), Some(own)) = (bound.as_u64(), a.get(key).and_then(Value::as_u64)) else {
        return false;
    };
    if key.starts_with("min") {
        own >= b
    } else {
        own <= b
    }
}

/// Instances near what `schema` (in normal form) declares: its listed values, its defaults,
/// the edges of its bounds, each branch of a composition, objects with their required
/// properties and with each optional one. At most `LIMIT`, deterministic.
pub(crate) fn instances(schema: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    build(schema, 0, &mut out);
    let mut seen = std::collections::HashSet::new();
    out.retain(|v| seen.insert(v.to_string()));
    out.truncate(LIMIT);
    out
}

const LIMIT: usize = 96;
const BUILD_DEPTH: usize = 6;

fn build(schema: &Value, depth: usize, out: &mut Vec<Value>) {
    if depth > BUILD_DEPTH || out.len() > LIMIT * 2 {
        return;
    }
    let map = match schema {
        Value::Bool(false) => return,
        Value::Bool(true) => {
            out.extend(any_values());
            return;
        }
        Value::Object(map) => map,
        _ => return,
    };
    for key in ["default", "const"] {
        if let Some(v) = map.get(key) {
            out.push(v.clone());
        }
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        out.extend(values.iter().cloned());
        return;
    }
    if map.contains_key("const") {
        return;
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            let mut rest = map.clone();
            rest.remove(key);
            for branch in branches {
                if let Some(m) = merged(&rest, branch) {
                    build(&Value::Object(m), depth + 1, out);
                } else {
                    build(branch, depth + 1, out);
                }
            }
            if key == "allOf" {
                return;
            }
        }
    }
    let types = type_set(map).unwrap_or_else(|| Kind::ALL.to_vec());
    for kind in types {
        typed(map, kind, depth, out);
    }
}

/// A few values of every type.
fn any_values() -> Vec<Value> {
    vec![
        Value::Null,
        Value::Bool(true),
        Value::from(0),
        Value::from(0.5),
        Value::from(""),
        Value::Array(Vec::new()),
        Value::Object(Map::new()),
    ]
}

fn typed(map: &Map<String, Value>, kind: Kind, depth: usize, out: &mut Vec<Value>) {
    let num = |k: &str| map.get(k).and_then(Value::as_f64);
    let count = |k: &str| map.get(k).and_then(Value::as_u64);
    match kind {
        Kind::Null => out.push(Value::Null),
        Kind::Boolean => out.extend([Value::Bool(true), Value::Bool(false)]),
        Kind::Integer | Kind::Number => {
            let mut candidates = vec![0.0, 1.0, -1.0, 100.0, 1_000_000.0];
            for (k, d) in [
                ("minimum", 0.0),
                ("exclusiveMinimum", 1.0),
                ("maximum", 0.0),
                ("exclusiveMaximum", -1.0),
            ] {
                if let Some(b) = num(k) {
                    candidates.extend([b + d, b + d + 1.0, b + d - 1.0]);
                }
            }
            if let Some(m) = num("multipleOf") {
                candidates.push(m);
            }
            for c in candidates {
                if c.is_finite() && c.fract() == 0.0 && c.abs() < 9.0e15 {
                    // An integer as JSON writes one.
                    out.push(Value::from(c as i64));
                }
                if kind == Kind::Number {
                    out.extend(Number::from_f64(c + 0.5).map(Value::Number));
                }
            }
        }
        Kind::String => {
            let min = count("minLength").unwrap_or(0);
            let max = count("maxLength");
            out.push(Value::from("a".repeat(min.min(512) as usize)));
            out.push(Value::from("a".repeat(min.clamp(1, 512) as usize)));
            if let Some(max) = max {
                out.push(Value::from("a".repeat(max.min(512) as usize)));
                out.push(Value::from("a".repeat((max + 1).min(513) as usize)));
            }
            out.push(Value::from("example"));
        }
        Kind::Array => {
            let min = count("minItems").unwrap_or(0) as usize;
            let mut item = Vec::new();
            match map.get("items") {
                Some(items) => build(items, depth + 1, &mut item),
                None => item.extend(any_values()),
            }
            let prefix: Vec<Value> = map
                .get("prefixItems")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|p| {
                    let mut v = Vec::new();
                    build(p, depth + 1, &mut v);
                    v.into_iter().next().unwrap_or(Value::Null)
                })
                .collect();
            out.push(Value::Array(prefix.clone()));
            for first in item.iter().take(4) {
                let mut array = prefix.clone();
                let n = min.clamp(1, 16);
                array.extend(std::iter::repeat_n(first.clone(), n));
                out.push(Value::Array(array));
            }
            if item.len() > 1 {
                let mut array = prefix.clone();
                array.extend(item.iter().take(min.clamp(2, 16)).cloned());
                out.push(Value::Array(array));
            }
        }
        Kind::Object => {
            let properties = map.get("properties").and_then(Value::as_object);
            let required = names(map.get("required"));
            let sample = |name: &str| -> Vec<Value> {
                let mut v = Vec::new();
                match properties.and_then(|p| p.get(name)) {
                    Some(schema) => build(schema, depth + 1, &mut v),
                    None => v.push(Value::from("example")),
                }
                v
            };
            let mut base = Map::new();
            for name in &required {
                if let Some(first) = sample(name).into_iter().next() {
                    base.insert((*name).to_owned(), first);
                }
            }
            out.push(Value::Object(base.clone()));
            // Each required property's other values, one at a time.
            for name in &required {
                for value in sample(name).into_iter().skip(1).take(6) {
                    let mut object = base.clone();
                    object.insert((*name).to_owned(), value);
                    out.push(Value::Object(object));
                }
            }
            // Each optional property, one at a time, with a few of its values.
            for (name, _) in properties.into_iter().flatten() {
                if required.contains(&name.as_str()) {
                    continue;
                }
                for value in sample(name).into_iter().take(4) {
                    let mut object = base.clone();
                    object.insert(name.clone(), value);
                    out.push(Value::Object(object));
                }
            }
            // A property nobody declared.
            let mut object = base;
            object.insert("undeclared_property".to_owned(), Value::from("example"));
            out.push(Value::Object(object));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::normal::normalize;
    use super::*;
    use serde_json::json;

    fn p(a: Value, b: Value) -> bool {
        proved(&normalize(&a), &normalize(&b))
    }

    #[test]
    fn inclusions_are_proved() {
        assert!(p(json!({"type": "integer"}), json!({"type": "number"})));
        assert!(!p(json!({"type": "number"}), json!({"type": "integer"})));
        assert!(p(
            json!({"type": "string", "maxLength": 3}),
            json!({"type": "string"})
        ));
        assert!(p(
            json!({"type": "string", "maxLength": 3}),
            json!({"type": "string", "maxLength": 5})
        ));
        assert!(!p(
            json!({"type": "string", "maxLength": 5}),
            json!({"type": "string", "maxLength": 3})
        ));
        assert!(p(json!({"enum": ["a"]}), json!({"enum": ["a", "b"]})));
        assert!(p(
            json!({"type": "string"}),
            json!({"oneOf": [{"type": "string"}, {"type": "object"}]})
        ));
        assert!(p(
            json!({"type": ["string", "null"]}),
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        ));
        assert!(p(
            json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}),
            json!({"type": "object", "properties": {"a": {"type": "number"}}})
        ));
        assert!(!p(
            json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
            json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]})
        ));
        assert!(!p(
            json!({"type": "object"}),
            json!({"type": "object", "additionalProperties": false})
        ));
    }

    #[test]
    fn instances_reach_the_edges() {
        let s = normalize(&json!({"type": "integer", "minimum": 3, "maximum": 9}));
        let found = instances(&s);
        assert!(
            found.contains(&json!(3)) && found.contains(&json!(2)),
            "{found:?}"
        );
        assert!(
            found.contains(&json!(9)) && found.contains(&json!(10)),
            "{found:?}"
        );
        let s = normalize(
            &json!({"type": "object", "required": ["a"], "properties": {"a": {"enum": ["x", "y"]}, "b": {"type": "boolean"}}}),
        );
        let found = instances(&s);
        assert!(found.contains(&json!({"a": "x"})), "{found:?}");
        assert!(found.contains(&json!({"a": "y"})), "{found:?}");
        assert!(found.contains(&json!({"a": "x", "b": false})), "{found:?}");
    }
}

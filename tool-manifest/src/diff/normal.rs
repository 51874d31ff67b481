//! The normal form the diff compares schemas in: one spelling for each meaning the labels of
//! SPEC section 9 call "no change" (`type: ["string"]` and `"string"`, `anyOf` of plain types and
//! a type list, `anyOf [X, {type: null}]` and a nullable X, empty `required` and `properties`,
//! `additionalProperties: true`, the order of `required`, `enum` and `anyOf` branches, `oneOf`
//! over branches of disjoint types and `anyOf`, whitespace runs in descriptions), with local
//! `$ref`s inlined (a recursive reference is kept as it is, and compared as text).

use serde_json::{Map, Value};

use crate::schema::keywords::{self, Role};
use crate::schema::{self, Draft, Kind};

/// How many references deep a schema is inlined.
const REF_DEPTH: usize = 16;

/// The normal form of a draft 2020-12 schema.
pub(crate) fn normalize(schema: &Value) -> Value {
    let mut stack = Vec::new();
    node(schema, schema, &mut stack, 0)
}

/// Is this keyword an annotation (never rejects a value)? Unknown keywords are annotations too
/// (JSON Schema ignores them).
pub(crate) fn is_annotation(key: &str) -> bool {
    keywords::keyword(key).is_none_or(|k| k.role == Role::Annotation)
}

/// The keywords that identify or declare: dropped from the normal form once references are
/// inlined.
const DECLARATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$comment",
    "$defs",
    "definitions",
    "$vocabulary",
    "examples",
];

fn node(value: &Value, root: &Value, stack: &mut Vec<String>, depth: usize) -> Value {
    let map = match value {
        Value::Bool(true) => return Value::Object(Map::new()),
        Value::Object(map) => map,
        other => return other.clone(),
    };
    if depth > schema::DEPTH_LIMIT {
        return value.clone();
    }
    // A local reference: its target, normalized, with the node's other keywords beside it.
    if let Some(Value::String(reference)) = map.get("$ref")
        && !stack.contains(reference)
        && stack.len() < REF_DEPTH
        && let Some(target) = schema::pointer::resolve(root, reference)
    {
        stack.push(reference.clone());
        let target = node(target, root, stack, depth + 1);
        stack.pop();
        let mut rest = map.clone();
        rest.remove("$ref");
        let rest = node(&Value::Object(rest), root, stack, depth + 1);
        return conjoin(target, rest);
    }
    let mut out = Map::new();
    for (key, value) in map {
        if DECLARATIONS.contains(&key.as_str()) {
            continue;
        }
        out.insert(key.clone(), value.clone());
    }
    schema::draft::for_each_subschema_mut(&mut out, Draft::Draft202012, "", &mut |child, _| {
        *child = node(child, root, stack, depth + 1);
    });
    tidy(&mut out);
    Value::Object(out)
}

/// `a` and `b` together: one node when `b` carries only annotations or keywords `a` lacks,
/// else `allOf [a, b]`.
fn conjoin(a: Value, b: Value) -> Value {
    let (Value::Object(mut a_map), Value::Object(b_map)) = (a.clone(), &b) else {
        return if b == Value::Object(Map::new()) {
            a
        } else {
            tidied(vec![("allOf", Value::Array(vec![a, b]))])
        };
    };
    if b_map.is_empty() {
        return a;
    }
    if b_map
        .keys()
        .all(|key| is_annotation(key) || !a_map.contains_key(key))
    {
        for (key, value) in b_map {
            a_map.insert(key.clone(), value.clone());
        }
        tidy(&mut a_map);
        return Value::Object(a_map);
    }
    tidied(vec![("allOf", Value::Array(vec![a, b]))])
}

fn tidied(entries: Vec<(&str, Value)>) -> Value {
    let mut map: Map<String, Value> = entries
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    tidy(&mut map);
    Value::Object(map)
}

/// One spelling per meaning, at one node whose subschemas are normal already.
fn tidy(map: &mut Map<String, Value>) {
    // `type` is a sorted list of names, `number` standing for `integer` too.
    if let Some(types) = type_set(map) {
        map.insert("type".to_owned(), types_value(&types));
    }
    // What accepts everything is not written.
    for (key, trivial) in [
        ("required", Value::Array(Vec::new())),
        ("properties", Value::Object(Map::new())),
        ("patternProperties", Value::Object(Map::new())),
        ("dependentRequired", Value::Object(Map::new())),
        ("dependentSchemas", Value::Object(Map::new())),
        ("additionalProperties", Value::Object(Map::new())),
        ("unevaluatedProperties", Value::Object(Map::new())),
        ("items", Value::Object(Map::new())),
        ("unevaluatedItems", Value::Object(Map::new())),
        ("propertyNames", Value::Object(Map::new())),
        ("minLength", Value::from(0)),
        ("minItems", Value::from(0)),
        ("minProperties", Value::from(0)),
        ("uniqueItems", Value::Bool(false)),
        ("allOf", Value::Array(Vec::new())),
    ] {
        if map.get(key) == Some(&trivial) {
            map.remove(key);
        }
    }
    if let Some(Value::String(text)) = map.get_mut("description") {
        *text = collapse_whitespace(text);
    }
    if let Some(Value::String(text)) = map.get_mut("title") {
        *text = collapse_whitespace(text);
    }
    for key in ["required", "enum"] {
        if let Some(Value::Array(items)) = map.get_mut(key) {
            sort_unique(items);
        }
    }
    // One branch is the branch.
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = map.get(key)
            && branches.len() == 1
            && let Value::Object(branch) = &branches[0]
            && branch
                .keys()
                .all(|k| !map.contains_key(k) || is_annotation(k))
        {
            let branch = branch.clone();
            map.remove(key);
            for (k, v) in branch {
                map.entry(k).or_insert(v);
            }
            tidy(map);
            return;
        }
    }
    // `anyOf` of plain types is a type list; `anyOf [X, {type: null}]` is a nullable X (and
    // so is a `oneOf` of them, whose branches no value matches twice).
    let union = match (map.get("anyOf"), map.get("oneOf")) {
        (Some(_), None) => Some("anyOf"),
        (None, Some(Value::Array(b))) if disjoint(b) => Some("oneOf"),
        _ => None,
    };
    if !map.contains_key("type")
        && let Some(union) = union
        && let Some(Value::Array(branches)) = map.get(union)
    {
        if let Some(types) = plain_types(branches) {
            map.remove(union);
            map.insert("type".to_owned(), types_value(&types));
            return;
        }
        if let Some(merged) = nullable(branches)
            && map.keys().all(|k| k == union || is_annotation(k))
        {
            map.remove(union);
            for (k, v) in merged {
                map.entry(k).or_insert(v);
            }
            tidy(map);
        }
    }
}

/// Whitespace runs as one space, none at the ends.
pub(crate) fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Sorted by their JSON text, each once.
fn sort_unique(items: &mut Vec<Value>) {
    items.sort_by_cached_key(schema::canonical_text);
    items.dedup();
}

/// The types a node's `type` names, sorted, `integer` left out when `number` is there. `None`
/// without a `type` (every type) or with a malformed one.
pub(crate) fn type_set(map: &Map<String, Value>) -> Option<Vec<Kind>> {
    let mut types = match map.get("type")? {
        Value::String(name) => vec![Kind::from_word(name)?],
        Value::Array(names) => names
            .iter()
            .map(|n| n.as_str().and_then(Kind::from_word))
            .collect::<Option<Vec<_>>>()?,
        _ => return None,
    };
    types.sort();
    types.dedup();
    if types.contains(&Kind::Number) {
        types.retain(|t| *t != Kind::Integer);
    }
    Some(types)
}

fn types_value(types: &[Kind]) -> Value {
    Value::Array(types.iter().map(|t| Value::from(t.as_str())).collect())
}

/// The types of branches that each say only `type` (and annotations).
fn plain_types(branches: &[Value]) -> Option<Vec<Kind>> {
    let mut all = Vec::new();
    for branch in branches {
        let Value::Object(map) = branch else {
            return None;
        };
        if !map.keys().all(|k| k == "type" || is_annotation(k)) {
            return None;
        }
        all.extend(type_set(map)?);
    }
    all.sort();
    all.dedup();
    if all.contains(&Kind::Number) {
        all.retain(|t| *t != Kind::Integer);
    }
    Some(all)
}

/// `[X, {type: null}]` as X with `null` among its types, when X's other keywords cannot reject
/// `null` (they apply to other types only).
fn nullable(branches: &[Value]) -> Option<Map<String, Value>> {
    let [a, b] = branches else { return None };
    let is_null = |v: &Value| {
        v.as_object()
            .and_then(type_set)
            .is_some_and(|t| t == [Kind::Null])
            && v.as_object()
                .is_some_and(|m| m.keys().all(|k| k == "type" || is_annotation(k)))
    };
    let other = if is_null(a) {
        b
    } else if is_null(b) {
        a
    } else {
        return None;
    };
    let Value::Object(map) = other else {
        return None;
    };
    let mut types = type_set(map)?;
    // Keywords that apply to every type would have to accept `null` themselves.
    let typed_only = map.keys().all(|k| {
        k == "type"
            || is_annotation(k)
            || keywords::keyword_type(k).is_some_and(|applies| !applies.contains(&"null"))
    });
    if !typed_only {
        return None;
    }
    types.push(Kind::Null);
    types.sort();
    let mut merged = map.clone();
    merged.insert("type".to_owned(), types_value(&types));
    Some(merged)
}

/// The types a node admits, read from `type`, `enum` and `const`: `None` for every type.
pub(crate) fn admitted_types(map: &Map<String, Value>) -> Option<Vec<Kind>> {
    let declared = type_set(map);
    let values: Option<Vec<&Value>> = match (map.get("const"), map.get("enum")) {
        (Some(c), _) => Some(vec![c]),
        (None, Some(Value::Array(values))) => Some(values.iter().collect()),
        _ => None,
    };
    let from_values = values.map(|values| {
        let mut kinds: Vec<Kind> = values.iter().map(|v| Kind::of(v)).collect();
        kinds.sort();
        kinds.dedup();
        kinds
    });
    match (declared, from_values) {
        (Some(declared), Some(values)) => Some(
            values
                .into_iter()
                .filter(|v| declared.iter().any(|d| v.satisfies(*d)))
                .collect(),
        ),
        (Some(declared), None) => Some(declared),
        (None, values) => values,
    }
}

/// Could a value of type `kind` be admitted by a node admitting `types`?
pub(crate) fn admits(types: Option<&[Kind]>, kind: Kind) -> bool {
    types.is_none_or(|types| {
        types
            .iter()
            .any(|t| kind.satisfies(*t) || t.satisfies(kind))
    })
}

/// Do no two branches admit a common type (so that `oneOf` of them means `anyOf`)?
pub(crate) fn disjoint(branches: &[Value]) -> bool {
    let types: Vec<Option<Vec<Kind>>> = branches
        .iter()
        .map(|b| b.as_object().and_then(admitted_types))
        .collect();
    for (i, a) in types.iter().enumerate() {
        let Some(a) = a else { return false };
        for b in &types[i + 1..] {
            let Some(b) = b else { return false };
            if a.iter().any(|x| admits(Some(b), *x)) {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn same(a: Value, b: Value) {
        assert_eq!(normalize(&a), normalize(&b), "{a} vs {b}");
    }

    #[test]
    fn equivalent_spellings_have_one_normal_form() {
        same(json!({"type": ["string"]}), json!({"type": "string"}));
        same(
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
            json!({"type": ["integer", "string"]}),
        );
        same(
            json!({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]}),
            json!({"type": ["string", "null"], "maxLength": 3}),
        );
        same(
            json!({"type": "object", "required": [], "properties": {}, "additionalProperties": true}),
            json!({"type": "object"}),
        );
        same(
            json!({"required": ["b", "a"], "enum": [2, 1]}),
            json!({"required": ["a", "b"], "enum": [1, 2]}),
        );
        same(
            json!({"description": "two  words\n here "}),
            json!({"description": "two words here"}),
        );
        same(
            json!({"properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "string"}}}),
            json!({"properties": {"a": {"type": "string"}}}),
        );
    }

    #[test]
    fn different_meanings_stay_apart() {
        let a = normalize(&json!({"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]}));
        let b = normalize(&json!({"type": ["string", "null"], "enum": ["a"]}));
        assert_ne!(a, b, "the enum would reject null");
        let a = normalize(&json!({"oneOf": [{"type": "number"}, {"type": "integer"}]}));
        assert!(a.get("oneOf").is_some(), "integers match both: {a}");
    }

    #[test]
    fn a_recursive_reference_is_kept() {
        let s = json!({"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"});
        let n = normalize(&s);
        assert_eq!(
            n.pointer("/properties/next/$ref"),
            Some(&json!("#/$defs/n"))
        );
    }
}

//! What the dialects share: walking a JSON Schema, references, keyword classes, merging,
//! describing removed keywords in words, and the checks several providers make.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::Report;
use crate::model::backticked;

pub use crate::schema::keywords::{ANNOTATIONS, keyword_type};
pub use crate::schema::{DRAFT_2020_12, join};

/// Does a `$schema` URI name draft 2020-12?
pub(crate) fn is_2020_12(uri: &str) -> bool {
    crate::schema::Draft::from_uri(uri) == Some(crate::schema::Draft::Draft202012)
}

/// Calls `f` on every direct subschema of `node` (the walks below build on it). The schema is
/// read as draft 2020-12: exports are converted to it first.
pub(crate) fn for_each_child(node: &Value, ptr: &str, f: &mut dyn FnMut(&Value, &str)) {
    let Value::Object(map) = node else { return };
    crate::schema::draft::for_each_subschema(
        map,
        crate::schema::Draft::Draft202012,
        ptr,
        &mut |child, here| {
            if child.is_object() {
                f(child, &here);
            }
        },
    );
}

/// Calls `f` on every direct subschema of `node`, mutably (`f` changes only the subschema it
/// is given, so the pointers of its siblings stay valid).
pub(crate) fn for_each_child_mut(node: &mut Value, ptr: &str, f: &mut dyn FnMut(&mut Value, &str)) {
    let mut children = Vec::new();
    for_each_child(node, "", &mut |_, here| children.push(here.to_owned()));
    for here in children {
        if let Some(child) = node.pointer_mut(&here) {
            f(child, &format!("{ptr}{here}"));
        }
    }
}

/// Visits `node` and every subschema below it, pre-order.
pub(crate) fn walk(node: &Value, ptr: &str, f: &mut dyn FnMut(&Value, &str)) {
    f(node, ptr);
    for_each_child(node, ptr, &mut |child, here| walk(child, here, f));
}

/// Removes `key` from `node` and from every subschema below it.
pub(crate) fn remove_everywhere(node: &mut Value, key: &str) {
    if let Value::Object(map) = node {
        map.remove(key);
    }
    for_each_child_mut(node, "", &mut |child, _| remove_everywhere(child, key));
}

/// Resolves a local `$ref` (`#`, `#/$defs/Name`, any `#/...` pointer) against `root`.
pub(crate) fn resolve_local<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    let decoded = crate::schema::tree::percent_decode(pointer)?;
    root.pointer(&decoded)
}

/// The schema object the local `reference` names, with the keywords of `node` but its `$ref`
/// added (they win); `None` when the reference does not name a local schema object.
pub(crate) fn inline_ref(
    root: &Value,
    reference: &str,
    node: &Map<String, Value>,
) -> Option<Map<String, Value>> {
    let Some(Value::Object(target)) = resolve_local(root, reference) else {
        return None;
    };
    let mut merged = target.clone();
    let own = node.iter().filter(|(key, _)| *key != "$ref");
    merged.extend(own.map(|(key, value)| (key.clone(), value.clone())));
    Some(merged)
}

/// Checks every `$ref` and `$dynamicRef` below `schema`: local and resolvable.
pub(crate) fn check_local_refs(
    schema: &Value,
    base: &str,
    rule: &'static str,
    report: &mut Report,
) {
    walk(schema, base, &mut |node, ptr| {
        for key in ["$ref", "$dynamicRef"] {
            let Some(reference) = node.get(key) else {
                continue;
            };
            let here = join(ptr, key);
            match reference.as_str() {
                Some(r) if r.starts_with('#') => {
                    if resolve_local(schema, r).is_none() {
                        report.push(&here, rule, format!("`{key}` `{r}` does not resolve"));
                    }
                }
                Some(r) => report.push(
                    &here,
                    rule,
                    format!("`{key}` `{r}` is not local; only `#/...` references are allowed"),
                ),
                None => report.push(&here, rule, format!("`{key}` is not a string")),
            }
        }
    });
}

/// The JSON type names of a node's `type` (a string or a list).
#[doc(hidden)]
pub fn types_of(node: &Map<String, Value>) -> Vec<String> {
    match node.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// Does a node's `type` (a string or a list) name `name`?
pub(crate) fn has_type(node: &Map<String, Value>, name: &str) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == name,
        Some(Value::Array(list)) => list.iter().any(|t| t.as_str() == Some(name)),
        _ => false,
    }
}

/// The JSON type name of a value (`integer` for integral numbers).
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Does a value of JSON type `actual` satisfy the schema type `wanted`?
pub(crate) fn type_matches(wanted: &str, actual: &str) -> bool {
    wanted == actual || (wanted == "number" && actual == "integer")
}

/// Turns a node's `oneOf` into `anyOf` (a provider without `oneOf` gets its branches as
/// `anyOf`), unless the node has an `anyOf` already: that is reported under `rule`. Returns
/// whether the node had a `oneOf`.
pub(crate) fn rename_one_of(
    map: &mut Map<String, Value>,
    ptr: &str,
    rule: &'static str,
    report: &mut Report,
) -> bool {
    let Some(one_of) = map.remove("oneOf") else {
        return false;
    };
    if map.contains_key("anyOf") {
        report.push(
            &join(ptr, "oneOf"),
            rule,
            "`oneOf` next to `anyOf` cannot be expressed",
        );
    } else {
        map.insert("anyOf".to_owned(), one_of);
    }
    true
}

/// Splits a node whose `type` lists two or more non-null types into an `anyOf` with one branch
/// per type, each carrying the keywords that apply to its type (and the `enum`/`const` values of
/// its type). Annotations stay on the outer node. A `null` in the list becomes a `{"type":
/// "null"}` branch. Returns `None` when the node lists fewer than two non-null types.
pub(crate) fn split_type_union(node: &Map<String, Value>) -> Option<Map<String, Value>> {
    // One type name lists no union.
    if !node.get("type").is_some_and(Value::is_array) {
        return None;
    }
    let types = types_of(node);
    let non_null: Vec<&String> = types.iter().filter(|t| *t != "null").collect();
    if non_null.len() < 2 || node.contains_key("anyOf") || node.contains_key("oneOf") {
        return None;
    }
    let mut outer = Map::new();
    let mut branches = Vec::new();
    for t in &non_null {
        let mut branch = Map::new();
        branch.insert("type".to_owned(), Value::String((*t).clone()));
        // A branch none of whose `enum`/`const` values has its type accepts nothing: left out.
        let mut possible = true;
        for (key, value) in node {
            if let Some(applies) = keyword_type(key) {
                if applies.iter().any(|a| type_matches(a, t)) {
                    branch.insert(key.clone(), value.clone());
                }
            } else if key == "enum" {
                let mine: Vec<Value> = value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|v| type_matches(t, json_type(v)))
                    .cloned()
                    .collect();
                possible &= !mine.is_empty();
                branch.insert(key.clone(), Value::Array(mine));
            } else if key == "const" {
                possible &= type_matches(t, json_type(value));
                branch.insert(key.clone(), value.clone());
            }
        }
        if possible {
            branches.push(Value::Object(branch));
        }
    }
    if branches.is_empty() {
        return None;
    }
    if types.iter().any(|t| t == "null")
        && node
            .get("enum")
            .is_none_or(|e| e.as_array().is_some_and(|v| v.contains(&Value::Null)))
    {
        branches.push(serde_json::json!({"type": "null"}));
    }
    for (key, value) in node {
        let typed =
            keyword_type(key).is_some() || matches!(key.as_str(), "type" | "enum" | "const");
        if !typed {
            outer.insert(key.clone(), value.clone());
        }
    }
    outer.insert("anyOf".to_owned(), Value::Array(branches));
    Some(outer)
}

/// Merges the keywords of `from` into `into` (an `allOf` entry into its parent, or a parent's
/// keywords into an `anyOf` branch). `properties` are united, `required` lists joined; any other
/// keyword present on both sides with different values is a conflict, returned by name.
pub(crate) fn merge_into(
    into: &mut Map<String, Value>,
    from: &Map<String, Value>,
) -> Result<(), String> {
    for (key, value) in from {
        match (key.as_str(), into.get_mut(key)) {
            (_, None) => {
                into.insert(key.clone(), value.clone());
            }
            (_, Some(existing)) if existing == value => {}
            ("properties", Some(Value::Object(mine))) => {
                let Value::Object(theirs) = value else {
                    return Err(key.clone());
                };
                for (name, schema) in theirs {
                    match mine.get(name) {
                        None => {
                            mine.insert(name.clone(), schema.clone());
                        }
                        Some(same) if same == schema => {}
                        Some(_) => return Err(format!("properties/{name}")),
                    }
                }
            }
            ("required", Some(Value::Array(mine))) => {
                let Value::Array(theirs) = value else {
                    return Err(key.clone());
                };
                for name in theirs {
                    if !mine.contains(name) {
                        mine.push(name.clone());
                    }
                }
            }
            ("description" | "title" | "$comment" | "examples", Some(_)) => {}
            (_, Some(_)) => return Err(key.clone()),
        }
    }
    Ok(())
}

/// A root `allOf` of plain schemas merged into the root (providers refuse combinators there;
/// the merged root accepts at least what the `allOf` did). Entries that are references or that
/// conflict are refused under `rule`, at `base/allOf/<i>`.
pub(crate) fn merge_root_all_of(
    schema: &mut Value,
    base: &str,
    rule: &'static str,
    report: &mut Report,
) {
    let Value::Object(root) = schema else { return };
    let Some(Value::Array(entries)) = root.remove("allOf") else {
        return;
    };
    for (i, entry) in entries.iter().enumerate() {
        let at = format!("{base}/allOf/{i}");
        match entry {
            Value::Object(entry) if !entry.contains_key("$ref") => {
                if let Err(key) = merge_into(root, entry) {
                    report.push(
                        &at,
                        rule,
                        format!("a root `allOf` is refused and this entry cannot be merged: `{key}` conflicts"),
                    );
                }
            }
            _ => report.push(
                &at,
                rule,
                "a root `allOf` is refused and this entry cannot be merged into the root",
            ),
        }
    }
}

/// Human text for a keyword a provider cannot take, to keep in the description; `None` for
/// keywords that can be dropped without telling the model anything.
pub(crate) fn describe_keyword(key: &str, value: &Value) -> Option<String> {
    // A value's compact JSON text: for a number, the number as written.
    let n = value.to_string();
    let count = |one: &str, many: &str| {
        let noun = if value.as_f64() == Some(1.0) {
            one
        } else {
            many
        };
        format!("{n} {noun}")
    };
    let text = value.as_str().unwrap_or_default();
    let list = || {
        let values: Vec<String> = value
            .as_array()
            .into_iter()
            .flatten()
            .map(compact)
            .collect();
        values.join(", ")
    };
    // One part per entry of a keyword that maps names to something, joined by `; `.
    let each = |part: &dyn Fn(&String, &Value) -> String| {
        let parts: Vec<String> = value
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| part(k, v))
            .collect();
        parts.join("; ")
    };
    Some(match key {
        "minLength" => format!("at least {}", count("character", "characters")),
        "maxLength" => format!("at most {}", count("character", "characters")),
        "minimum" => format!("at least {n}"),
        "maximum" => format!("at most {n}"),
        "exclusiveMinimum" => format!("greater than {n}"),
        "exclusiveMaximum" => format!("less than {n}"),
        "multipleOf" => format!("a multiple of {n}"),
        "minItems" => format!("at least {}", count("item", "items")),
        "maxItems" => format!("at most {}", count("item", "items")),
        "uniqueItems" if value == &Value::Bool(true) => "items are unique".to_owned(),
        "minProperties" => format!("at least {}", count("property", "properties")),
        "maxProperties" => format!("at most {}", count("property", "properties")),
        "pattern" => format!("matches the pattern `{text}`"),
        "format" => format!("format `{text}`"),
        "const" => format!("always {n}"),
        "enum" => format!("one of {}", list()),
        "default" => format!("default: {n}"),
        "examples" if value.as_array().is_some_and(|v| !v.is_empty()) => {
            format!("for example {}", list())
        }
        "deprecated" if value == &Value::Bool(true) => "deprecated".to_owned(),
        "dependentRequired" => each(&|name, needs| {
            let needs = needs.as_array().into_iter().flatten();
            format!(
                "`{name}` requires {}",
                backticked(needs.filter_map(Value::as_str))
            )
        }),
        "dependentSchemas" => {
            each(&|name, schema| format!("with `{name}` it also matches {}", compact(schema)))
        }
        "not" => format!("must not match {n}"),
        "if" => format!("if it matches {n}"),
        "then" => format!("then it matches {n}"),
        "else" => format!("otherwise it matches {n}"),
        "contains" => format!("contains an item matching {n}"),
        "minContains" => format!("at least {}", count("matching item", "matching items")),
        "maxContains" => format!("at most {}", count("matching item", "matching items")),
        "propertyNames" => format!("property names match {n}"),
        "patternProperties" => each(&|pattern, schema| {
            format!(
                "properties named like `{pattern}` match {}",
                compact(schema)
            )
        }),
        "additionalProperties" | "unevaluatedProperties" if value.is_object() => {
            format!("other properties match {n}")
        }
        "contentEncoding" => format!("encoded as {text}"),
        "contentMediaType" => format!("media type {text}"),
        _ => return None,
    })
}

/// Compact JSON text of a value (strings quoted).
pub(crate) fn compact(value: &Value) -> String {
    value.to_string()
}

/// The order notes are written in (bounds read "at least … ; at most …"), then by keyword.
const NOTE_ORDER: &[&str] = &[
    "const",
    "enum",
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "dependentRequired",
    "dependentSchemas",
    "not",
    "if",
    "then",
    "else",
    "contentEncoding",
    "contentMediaType",
    "default",
    "examples",
    "deprecated",
];

/// Notes about removed keywords, written into the description in a fixed order.
#[derive(Debug, Default)]
pub(crate) struct Notes(Vec<(usize, String)>);

impl Notes {
    /// Describes `key: value` if it says anything the model should know.
    pub(crate) fn keyword(&mut self, key: &str, value: &Value) {
        if let Some(text) = describe_keyword(key, value) {
            self.push(key, text);
        }
    }

    /// Removes a `format` outside `accepted`, noting it unless it only restates the width of a
    /// number.
    pub(crate) fn format(&mut self, node: &mut Map<String, Value>, accepted: &[&str]) {
        let format = node
            .get("format")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let (kept, width) = (
            accepted.contains(&format),
            NUMBER_WIDTH_FORMATS.contains(&format),
        );
        if !kept
            && let Some(value) = node.remove("format")
            && !width
        {
            self.keyword("format", &value);
        }
    }

    /// A note ranked as `key`.
    pub(crate) fn push(&mut self, key: &str, text: String) {
        let rank = NOTE_ORDER
            .iter()
            .position(|k| *k == key)
            .unwrap_or(NOTE_ORDER.len());
        self.0.push((rank, text));
    }

    /// Appends the notes to the node's description.
    pub(crate) fn write(mut self, node: &mut Map<String, Value>) {
        self.0.sort_by_key(|(rank, _)| *rank);
        let texts: Vec<String> = self.0.into_iter().map(|(_, text)| text).collect();
        append_notes(node, &texts);
    }
}

/// Appends `(note; note)` to the node's description.
pub(crate) fn append_notes(node: &mut Map<String, Value>, notes: &[String]) {
    if notes.is_empty() {
        return;
    }
    let text = format!("({})", notes.join("; "));
    let description = match node.get("description").and_then(Value::as_str) {
        Some(d) if !d.trim().is_empty() => format!("{} {text}", d.trim_end()),
        _ => text,
    };
    node.insert("description".to_owned(), Value::String(description));
}

/// Formats that only restate the width of a Rust number (schemars writes them); dropping them
/// tells the model nothing it needs.
const NUMBER_WIDTH_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

/// Checks a definition's `name`: `^[A-Za-z0-9_-]{1,max}$` plus the `extra` characters; `message`
/// says what is wrong with a name that does not fit.
pub(crate) fn check_name(
    definition: &Value,
    max: usize,
    extra: &[char],
    rule: &'static str,
    message: impl Fn(&str) -> String,
    report: &mut Report,
) {
    let name = definition
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let fits = !name.is_empty()
        && name.chars().count() <= max
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || extra.contains(&c));
    if !fits {
        report.push("/name", rule, message(name));
    }
}

/// What follows `key` in `map`, for messages: `` `a`, `b` ``.
pub(crate) fn siblings(map: &Map<String, Value>, key: &str) -> String {
    backticked(map.keys().filter(|k| *k != key))
}

/// Checks the root of an input schema: `type: "object"`.
pub(crate) fn check_object_root(
    schema: Option<&Value>,
    ptr: &str,
    rule: &'static str,
    object: &str,
    report: &mut Report,
) {
    match schema {
        None => report.push(ptr, rule, "the schema is missing"),
        Some(Value::Object(map)) => {
            if map.get("type").and_then(Value::as_str) != Some(object) {
                report.push(
                    &join(ptr, "type"),
                    rule,
                    format!("the root schema must have `type` {object:?}"),
                );
            }
        }
        Some(_) => report.push(ptr, rule, "the schema is not a JSON object"),
    }
}

/// Meta-validates `schema` against JSON Schema 2020-12 and, when `compile` is set, compiles it
/// (patterns, references).
pub(crate) fn check_2020_12(
    schema: &Value,
    ptr: &str,
    rule: &'static str,
    compile: bool,
    report: &mut Report,
) {
    let meta = jsonschema::draft202012::meta::validator();
    let mut any = false;
    for error in meta.iter_errors(schema) {
        any = true;
        let at = format!("{ptr}{}", error.instance_path().as_str());
        report.push(&at, rule, format!("not valid JSON Schema 2020-12: {error}"));
    }
    if !any
        && compile
        && let Err(error) = jsonschema::draft202012::new(schema)
    {
        let at = format!("{ptr}{}", error.instance_path().as_str());
        report.push(&at, rule, format!("the schema does not compile: {error}"));
    }
}

/// Verifies that a canonical schema is valid JSON Schema 2020-12 before it is converted (a
/// provider refuses what does not even parse: a negative `maxLength`, a pattern that is not a
/// regex). Patterns and references are compiled only when every reference is local: a remote
/// one is the subject of its own rule.
pub(crate) fn check_canonical(schema: &Value, base: &str, rule: &'static str, report: &mut Report) {
    let mut refs = Report::new("");
    check_local_refs(schema, base, rule, &mut refs);
    check_2020_12(schema, base, rule, refs.len() == 0, report);
}

/// The names in a node's `required` list.
#[doc(hidden)]
pub fn required_names(node: &Map<String, Value>) -> BTreeSet<String> {
    node.get("required")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn pointers_escape_tilde_and_slash() {
        assert_eq!(join("/properties", "a/b~c"), "/properties/a~1b~0c");
    }

    #[test]
    fn local_references_resolve_with_escapes_and_percent_encoding() {
        let root = json!({"$defs": {"A B": {"type": "string"}, "x/y": {"type": "integer"}}});
        assert_eq!(
            resolve_local(&root, "#/$defs/A%20B"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(
            resolve_local(&root, "#/$defs/x~1y"),
            Some(&json!({"type": "integer"}))
        );
        assert_eq!(resolve_local(&root, "#"), Some(&root));
        assert_eq!(resolve_local(&root, "#/$defs/Nope"), None);
        assert_eq!(resolve_local(&root, "other.json#/$defs/A"), None);
        assert_eq!(resolve_local(&root, "#/$defs/%zz"), None);
    }

    #[test]
    fn merging_unites_properties_and_required_and_names_conflicts() {
        let mut into =
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        let from = json!({"properties": {"b": {"type": "integer"}}, "required": ["b", "a"], "description": "x"});
        let (Value::Object(into_map), Value::Object(from_map)) = (&mut into, &from) else {
            panic!("objects");
        };
        assert_eq!(merge_into(into_map, from_map), Ok(()));
        assert_eq!(
            into,
            json!({"type": "object", "description": "x", "required": ["a", "b"],
                   "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}})
        );
        let Value::Object(into_map) = &mut into else {
            panic!("object")
        };
        let clash = json!({"properties": {"a": {"type": "integer"}}});
        let Value::Object(clash) = &clash else {
            panic!("object")
        };
        assert_eq!(merge_into(into_map, clash), Err("properties/a".to_owned()));
        let other_type = json!({"type": "string"});
        let Value::Object(other_type) = &other_type else {
            panic!("object")
        };
        assert_eq!(merge_into(into_map, other_type), Err("type".to_owned()));
    }

    #[test]
    fn removed_keywords_are_described_in_words() {
        assert_eq!(
            describe_keyword("minLength", &json!(1)).as_deref(),
            Some("at least 1 character")
        );
        assert_eq!(
            describe_keyword("maxLength", &json!(64)).as_deref(),
            Some("at most 64 characters")
        );
        assert_eq!(
            describe_keyword("exclusiveMinimum", &json!(0.5)).as_deref(),
            Some("greater than 0.5")
        );
        assert_eq!(
            describe_keyword("maxProperties", &json!(1)).as_deref(),
            Some("at most 1 property")
        );
        assert_eq!(
            describe_keyword("dependentRequired", &json!({"a": ["b", "c"]})).as_deref(),
            Some("`a` requires `b`, `c`")
        );
        assert_eq!(describe_keyword("uniqueItems", &json!(false)), None);
        assert_eq!(describe_keyword("$comment", &json!("x")), None);
        let mut node = Map::new();
        append_notes(&mut node, &["a".to_owned(), "b".to_owned()]);
        assert_eq!(node.get("description"), Some(&json!("(a; b)")));
        append_notes(&mut node, &["c".to_owned()]);
        assert_eq!(node.get("description"), Some(&json!("(a; b) (c)")));
    }

    #[test]
    fn type_unions_split_keywords_by_type() {
        let node = json!({"type": ["string", "integer", "null"], "minLength": 1, "minimum": 0,
                          "enum": ["a", 1, null], "description": "d"});
        let Value::Object(node) = node else {
            panic!("object")
        };
        let split = split_type_union(&node).expect("two types");
        assert_eq!(
            Value::Object(split),
            json!({"description": "d", "anyOf": [
                {"type": "string", "minLength": 1, "enum": ["a"]},
                {"type": "integer", "minimum": 0, "enum": [1]},
                {"type": "null"}
            ]})
        );
        let single = json!({"type": ["string", "null"]});
        let Value::Object(single) = single else {
            panic!("object")
        };
        assert_eq!(split_type_union(&single), None);
    }
}

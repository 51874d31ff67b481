//! Reading a schema's JSON where it is kept as JSON (the provider conversions rewrite it in
//! place): its types and required names, every subschema, its references. The typed
//! [`tree`](super::tree) reads through the same functions.

use serde_json::{Map, Value};

use super::draft::{self, Draft};
use super::keywords::{Kind, is_positional};
use super::pointer::{SchemaIssue, join, resolve};

/// How deep any walk of the toolkit follows a schema (subschemas, references): a schema nested
/// deeper is not read further, and a question about it gets the cautious answer (it may hold
/// a reference; it is not self-contained).
pub const DEPTH_LIMIT: usize = 64;

/// The types a schema object's `type` lists (one name or a list), each once, in their order;
/// `None` without a `type`.
pub fn types(map: &Map<String, Value>) -> Option<Vec<Kind>> {
    let words: Vec<&Value> = match map.get("type")? {
        Value::Array(words) => words.iter().collect(),
        word => vec![word],
    };
    let mut kinds = Vec::new();
    for word in words {
        if let Some(kind) = word.as_str().and_then(Kind::from_word)
            && !kinds.contains(&kind)
        {
            kinds.push(kind);
        }
    }
    Some(kinds)
}

/// The type names a schema object's `type` lists (one name or a list), as written.
pub fn type_names(map: &Map<String, Value>) -> Vec<&str> {
    match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Does a schema object's `type` (one name or a list) name `kind`?
pub fn has_type(map: &Map<String, Value>, kind: Kind) -> bool {
    match map.get("type") {
        Some(Value::String(t)) => t == kind.name(),
        Some(Value::Array(list)) => list.iter().any(|t| t.as_str() == Some(kind.name())),
        _ => false,
    }
}

/// A schema object's `required`: the names that are strings, each once, in their order.
pub fn required(map: &Map<String, Value>) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for name in map
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(name) = name.as_str()
            && !names.contains(&name)
        {
            names.push(name);
        }
    }
    names
}

/// Calls `f` on `node` and on every subschema below it (pre-order, read in `draft`), with its
/// pointer (`at` and the path below it); not below [`DEPTH_LIMIT`].
pub fn walk<'a>(node: &'a Value, at: &str, draft: Draft, f: &mut dyn FnMut(&'a Value, &str)) {
    fn visit<'a>(
        node: &'a Value,
        at: &str,
        draft: Draft,
        depth: usize,
        f: &mut dyn FnMut(&'a Value, &str),
    ) {
        f(node, at);
        if let (Value::Object(map), true) = (node, depth < DEPTH_LIMIT) {
            draft::for_each_subschema(map, draft, at, &mut |child, here| {
                if child.is_object() {
                    visit(child, &here, draft, depth + 1, f);
                }
            });
        }
    }
    visit(node, at, draft, 0, f);
}

/// Does the schema object `map` (of the document `root`) say outright that it accepts `null`:
/// a `null` type or `const`, an `enum` listing `null` without a `type`, a branch of `anyOf` or
/// `oneOf` that does, or a local reference to a schema that does? Each referenced schema is
/// read once per question (a recursive reference adds nothing).
pub fn accepts_null(map: &Map<String, Value>, root: &Value) -> bool {
    fn says(
        map: &Map<String, Value>,
        root: &Value,
        depth: usize,
        read: &mut Vec<*const Value>,
    ) -> bool {
        let branch = |schema: &Value, read: &mut Vec<*const Value>| {
            schema
                .as_object()
                .is_some_and(|s| says(s, root, depth + 1, read))
        };
        let in_enum = map
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| e.contains(&Value::Null));
        if has_type(map, Kind::Null)
            || map.get("const") == Some(&Value::Null)
            || (in_enum && !map.contains_key("type"))
        {
            return true;
        }
        for key in ["anyOf", "oneOf"] {
            for schema in map.get(key).and_then(Value::as_array).into_iter().flatten() {
                if branch(schema, read) {
                    return true;
                }
            }
        }
        match map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| resolve(root, r))
        {
            Some(target) if depth < DEPTH_LIMIT && !read.contains(&std::ptr::from_ref(target)) => {
                read.push(target);
                branch(target, read)
            }
            _ => false,
        }
    }
    says(map, root, 0, &mut Vec::new())
}

/// True when some subschema is deeper than [`DEPTH_LIMIT`], or `found` holds for one.
fn any_node(schema: &Value, found: &dyn Fn(&Map<String, Value>) -> bool) -> bool {
    let draft = Draft::of(schema).unwrap_or(Draft::Draft202012);
    let mut any = false;
    walk(schema, "", draft, &mut |node, at| {
        let deepest = at.matches('/').count() >= DEPTH_LIMIT;
        any |= node.as_object().is_some_and(|map| deepest || found(map));
    });
    any
}

/// Does a reference keyword (`$ref`, `$dynamicRef`, `$recursiveRef`) appear in some subschema?
/// A schema deeper than [`DEPTH_LIMIT`] counts as having one.
pub fn has_reference(schema: &Value) -> bool {
    any_node(schema, &|map| {
        ["$ref", "$dynamicRef", "$recursiveRef"]
            .iter()
            .any(|key| map.contains_key(*key))
    })
}

/// Can `schema` be moved into another document unchanged: no subschema holds a keyword whose
/// meaning depends on where it sits (an identifier, an anchor, a reference, a `$schema`)? A
/// schema deeper than [`DEPTH_LIMIT`] is not.
pub fn is_self_contained(schema: &Value) -> bool {
    !any_node(schema, &|map| map.keys().any(|key| is_positional(key)))
}

/// Every `$ref` and `$dynamicRef` of `schema` (read as 2020-12) that is not a local reference
/// resolving in it, at its pointer (below the root `schema` is).
pub fn unresolved_references(schema: &Value) -> Vec<SchemaIssue> {
    let mut issues = Vec::new();
    walk(schema, "", Draft::Draft202012, &mut |node, at| {
        for key in ["$ref", "$dynamicRef"] {
            let Some(reference) = node.get(key) else {
                continue;
            };
            let message = match reference.as_str() {
                Some(r) if r.starts_with('#') => {
                    if resolve(schema, r).is_some() {
                        continue;
                    }
                    format!("`{key}` `{r}` does not resolve")
                }
                Some(r) => {
                    format!("`{key}` `{r}` is not local; only `#/...` references are allowed")
                }
                None => format!("`{key}` is not a string"),
            };
            issues.push(SchemaIssue::new(join(at, key), message));
        }
    });
    issues
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_and_positional_keywords_are_found_in_subschemas_only() {
        let plain = json!({"type": "object", "properties": {"$ref": {"type": "string"}},
                           "enum": [{"$id": "x"}]});
        assert!(!has_reference(&plain) && is_self_contained(&plain));
        let referenced = json!({"properties": {"p": {"items": {"$ref": "#/$defs/p"}}}});
        assert!(has_reference(&referenced) && !is_self_contained(&referenced));
        let identified = json!({"anyOf": [{"$id": "urn:x"}]});
        assert!(!has_reference(&identified) && !is_self_contained(&identified));
        let mut deep = json!({"type": "string"});
        for _ in 0..=DEPTH_LIMIT {
            deep = json!({ "items": deep });
        }
        assert!(has_reference(&deep) && !is_self_contained(&deep));
    }

    #[test]
    fn references_must_be_local_and_resolve() {
        let schema = json!({"$defs": {"a": {}}, "properties": {
            "ok": {"$ref": "#/$defs/a"}, "gone": {"$ref": "#/$defs/b"},
            "far": {"$ref": "https://x.invalid/s"}, "odd": {"$dynamicRef": 5}}});
        let issues: Vec<(String, String)> = unresolved_references(&schema)
            .into_iter()
            .map(|i| (i.pointer, i.message))
            .collect();
        assert_eq!(
            issues,
            [
                ("/properties/far/$ref".to_owned(), "`$ref` `https://x.invalid/s` is not local; only `#/...` references are allowed".to_owned()),
                ("/properties/gone/$ref".to_owned(), "`$ref` `#/$defs/b` does not resolve".to_owned()),
                ("/properties/odd/$dynamicRef".to_owned(), "`$dynamicRef` is not a string".to_owned()),
            ]
        );
        assert_eq!(
            required(
                &json!({"required": ["a", 1, "a", "b"]})
                    .as_object()
                    .cloned()
                    .unwrap_or_default()
            ),
            ["a", "b"]
        );
    }
}

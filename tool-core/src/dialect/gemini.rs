//! Google Gemini `functionDeclarations` with `parameters` (the OpenAPI 3.0 subset).
//!
//! Shape: `{name, description, parameters}`; a tool without parameters has no `parameters` at
//! all (Gemini refuses an `OBJECT` without `properties`). `parametersJsonSchema` is never used, so
//! a declaration never carries both.
//!
//! The converter inlines `$ref`/`$defs` (recursion is refused: the subset cannot express it),
//! turns type lists into one type plus `nullable: true`, `const` into a one-value `enum` for
//! strings, moves `anyOf` siblings into its branches, writes type names upper-case and removes
//! every keyword outside the subset, keeping what it constrains in the description text. The
//! registry keeps enforcing the canonical schema on every call.
//!
//! The subset has no free-form object: a root object without properties is offered as a
//! function without `parameters` (the only narrowing, which the provider demands). What the
//! subset cannot express at all leaves the tool out of the Gemini catalog, with the rule:
//!
//! | left out | rule |
//! |---|---|
//! | a map or a free-form object below the root (an `OBJECT` without `properties`) | `gemini.object-properties` |
//! | a value of any type (no `type`), or one that can only be `null` | `gemini.typed` |
//! | a recursive `$ref`, or one that does not resolve | `gemini.no-refs` |
//! | an array without one schema for its items (a tuple: `prefixItems`, `items` as a list) | `gemini.typed`, `gemini.keywords` |
//! | an `enum` on anything but a string | `gemini.string-enum` |
//! | `anyOf` siblings that conflict with a branch | `gemini.anyof-alone` |

use serde_json::{Map, Value, json};

use super::{
    Notes, Report, Rule, append_notes, describe_keyword, inline_ref, join, json_type, merge_into,
    rename_one_of, split_type_union, types_of, walk,
};
use crate::model::{ToolSpec, backticked};

/// The rules of Gemini function declarations, one entry each.
pub const RULES: &[Rule] = &[
    Rule {
        id: "gemini.name",
        text: "`name` is 1 to 64 characters of `[a-zA-Z0-9_:.-]`",
    },
    Rule {
        id: "gemini.unique-name",
        text: "every function of a request has its own name",
    },
    Rule {
        id: "gemini.valid-schema",
        text: "the tool's schema is valid JSON Schema 2020-12 before conversion (bounds, patterns that compile)",
    },
    Rule {
        id: "gemini.object-root",
        text: "`parameters` has `type: \"OBJECT\"` at the root",
    },
    Rule {
        id: "gemini.no-refs",
        text: "no `$ref`, `$defs` or `definitions`: references are inlined, recursion cannot be expressed",
    },
    Rule {
        id: "gemini.nullable",
        text: "`type` is one name, never a list; a value that may be null has `nullable: true`",
    },
    Rule {
        id: "gemini.keywords",
        text: "only the subset's keywords: `type`, `format`, `title`, `description`, `nullable`, `enum`, `properties`, `required`, `items`, `minItems`, `maxItems`, `minProperties`, `maxProperties`, `minLength`, `maxLength`, `pattern`, `minimum`, `maximum`, `anyOf`, `propertyOrdering`, `default`, `example`",
    },
    Rule {
        id: "gemini.typed",
        text: "every schema but a lone `anyOf` has a `type` of `STRING`, `NUMBER`, `INTEGER`, `BOOLEAN`, `ARRAY` or `OBJECT`; an `ARRAY` has `items`",
    },
    Rule {
        id: "gemini.string-enum",
        text: "`enum` only on a `STRING`, with string values",
    },
    Rule {
        id: "gemini.anyof-alone",
        text: "`anyOf` has no sibling keywords on the same schema",
    },
    Rule {
        id: "gemini.object-properties",
        text: "an `OBJECT` has non-empty `properties` (a tool without parameters omits `parameters`)",
    },
    Rule {
        id: "gemini.formats",
        text: "`format` is `date-time` or `enum` on a `STRING`, `float` or `double` on a `NUMBER`, `int32` or `int64` on an `INTEGER`",
    },
];

/// Keywords of the `parameters` subset.
pub const KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "items",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "anyOf",
    "propertyOrdering",
    "default",
    "example",
];

/// The subset's type names.
pub const TYPES: &[&str] = &["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"];

/// Bounds the size of an inlined schema (every `$ref` copies its target).
const MAX_INLINED_NODES: usize = 10_000;
const MAX_REWRITES: usize = 64;

fn formats_for(gemini_type: &str) -> &'static [&'static str] {
    match gemini_type {
        "STRING" => &["date-time", "enum"],
        "NUMBER" => &["float", "double"],
        "INTEGER" => &["int32", "int64"],
        _ => &[],
    }
}

pub(crate) fn convert(spec: &ToolSpec, report: &mut Report) -> Value {
    super::check_canonical(
        &spec.input_schema,
        "/parameters",
        "gemini.valid-schema",
        report,
    );
    let mut parameters = spec.input_schema.clone();
    let mut inliner = Inliner {
        root: &spec.input_schema,
        stack: Vec::new(),
        nodes: 0,
        report,
    };
    inliner.inline(&mut parameters, "/parameters");
    normalize(&mut parameters, "/parameters", report);

    let free_keys = spec.input_schema.get("patternProperties").is_some()
        || spec
            .input_schema
            .get("additionalProperties")
            .is_some_and(|extra| extra.is_object() || extra == &Value::Bool(true));
    let no_parameters = !free_keys
        && parameters.as_object().is_some_and(|root| {
            root.get("type").and_then(Value::as_str) == Some("OBJECT")
                && root
                    .get("properties")
                    .is_none_or(|p| p.as_object().is_some_and(Map::is_empty))
        });
    if no_parameters {
        json!({"name": spec.name, "description": spec.description})
    } else {
        json!({"name": spec.name, "description": spec.description, "parameters": parameters})
    }
}

struct Inliner<'a> {
    root: &'a Value,
    stack: Vec<String>,
    nodes: usize,
    report: &'a mut Report,
}

impl Inliner<'_> {
    fn inline(&mut self, node: &mut Value, ptr: &str) {
        self.nodes += 1;
        if self.nodes == MAX_INLINED_NODES {
            self.report.push(
                ptr,
                "gemini.no-refs",
                format!(
                    "inlining the references grows the schema past {MAX_INLINED_NODES} schemas"
                ),
            );
        }
        if self.nodes >= MAX_INLINED_NODES {
            return;
        }
        let Value::Object(map) = node else { return };
        map.remove("$defs");
        map.remove("definitions");
        let on_path = self.stack.len();
        while let Some(reference) = map
            .get("$ref")
            .map(|r| r.as_str().unwrap_or_default().to_owned())
        {
            map.remove("$ref");
            if self.stack.contains(&reference) {
                self.report.push(
                    &join(ptr, "$ref"),
                    "gemini.no-refs",
                    format!("recursive `$ref` `{reference}` cannot be inlined"),
                );
                break;
            }
            match inline_ref(self.root, &reference, map) {
                Some(mut merged) => {
                    merged.remove("$defs");
                    merged.remove("definitions");
                    *map = merged;
                    self.stack.push(reference);
                }
                None => {
                    self.report.push(
                        &join(ptr, "$ref"),
                        "gemini.no-refs",
                        format!("`$ref` `{reference}` is not a local reference to a schema object"),
                    );
                    break;
                }
            }
        }
        super::for_each_child_mut(node, ptr, &mut |child, here| self.inline(child, here));
        self.stack.truncate(on_path);
    }
}

fn set_nullable(map: &mut Map<String, Value>) {
    map.insert("nullable".to_owned(), Value::Bool(true));
}

/// Rewrites one node into the subset, then its subschemas.
fn normalize(node: &mut Value, ptr: &str, report: &mut Report) {
    let Value::Object(map) = node else {
        report.push(
            ptr,
            "gemini.typed",
            "a boolean schema cannot be expressed; write a schema with a `type`",
        );
        return;
    };
    rewrite(map, ptr, report);

    // Keywords outside the subset: removed, their meaning kept in the description.
    let mut notes = Notes::default();
    let the_type = map
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_ascii_uppercase();
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        if key == "format" {
            notes.format(map, formats_for(&the_type));
        } else if key == "examples" {
            if let Some(Value::Array(values)) = map.remove("examples")
                && let Some(first) = values.into_iter().next()
                && !map.contains_key("example")
            {
                map.insert("example".to_owned(), first);
            }
        } else if key == "items" && map.get("items").is_some_and(Value::is_array) {
            report.push(
                &join(ptr, "items"),
                "gemini.keywords",
                "`items` as a list (a tuple) cannot be expressed",
            );
        } else if !KEYWORDS.contains(&key.as_str())
            && let Some(value) = map.remove(&key)
        {
            notes.keyword(&key, &value);
        }
    }
    notes.write(map);

    distribute_any_of(map, ptr, report);

    if let Some(Value::String(t)) = map.get_mut("type") {
        *t = t.to_ascii_uppercase();
    }

    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for (name, child) in properties.iter_mut() {
            normalize(child, &join(&join(ptr, "properties"), name), report);
        }
    }
    if let Some(items) = map.get_mut("items")
        && items.is_object()
    {
        normalize(items, &join(ptr, "items"), report);
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        for (i, branch) in branches.iter_mut().enumerate() {
            normalize(branch, &format!("{ptr}/anyOf/{i}"), report);
        }
    }
}

/// Merges `allOf`, renames `oneOf`, resolves type lists, `null` branches, `const` and `enum`.
fn rewrite(map: &mut Map<String, Value>, ptr: &str, report: &mut Report) {
    for _ in 0..MAX_REWRITES {
        if let Some(all_of) = map.remove("allOf") {
            for (i, entry) in all_of.as_array().into_iter().flatten().enumerate() {
                let merged = match entry {
                    Value::Object(entry) => merge_into(map, entry),
                    _ => Err("a boolean schema".to_owned()),
                };
                if let Err(key) = merged {
                    report.push(
                        &format!("{ptr}/allOf/{i}"),
                        "gemini.keywords",
                        format!("`allOf` is not supported and this entry cannot be merged: `{key}` conflicts"),
                    );
                }
            }
            continue;
        }
        if rename_one_of(map, ptr, "gemini.keywords", report) {
            continue;
        }
        if let Some(mut split) = split_type_union(map) {
            strip_null_branches(&mut split);
            *map = split;
            continue;
        }
        break;
    }

    // A single type in a list, or `null` in the list.
    let listed_or_null = match map.get("type") {
        Some(Value::Array(_)) => true,
        Some(Value::String(t)) => t == "null",
        _ => false,
    };
    if listed_or_null {
        let types = types_of(map);
        let non_null: Vec<&String> = types.iter().filter(|t| *t != "null").collect();
        match non_null.as_slice() {
            [one] => {
                let one = (*one).clone();
                if types.len() > 1 {
                    set_nullable(map);
                }
                map.insert("type".to_owned(), Value::String(one));
            }
            [] => {
                report.push(
                    &join(ptr, "type"),
                    "gemini.typed",
                    "a value that can only be `null` cannot be expressed",
                );
                map.remove("type");
            }
            _ => {}
        }
    }
    strip_null_branches(map);
    collapse_string_choices(map);

    // `const`: a one-value `enum` for strings, the description otherwise.
    if let Some(value) = map.remove("const") {
        if !map.contains_key("type") && !value.is_null() {
            map.insert(
                "type".to_owned(),
                Value::String(json_type(&value).to_owned()),
            );
        }
        if value.is_string() {
            map.insert("enum".to_owned(), Value::Array(vec![value]));
        } else if let Some(note) = describe_keyword("const", &value) {
            append_notes(map, &[note]);
        }
    }

    // `enum`: strings only; `null` becomes `nullable`.
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && values.iter().any(Value::is_null)
    {
        values.retain(|v| !v.is_null());
        set_nullable(map);
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        let kinds: Vec<&str> = values.iter().map(json_type).collect();
        if !map.contains_key("type")
            && let Some(first) = kinds.first()
            && kinds.iter().all(|k| k == first)
        {
            map.insert("type".to_owned(), json!(first));
        }
        if !kinds.iter().all(|k| *k == "string") {
            if let Some(value) = map.remove("enum")
                && let Some(note) = describe_keyword("enum", &value)
            {
                append_notes(map, &[note]);
            }
        } else if !map.contains_key("type") {
            map.insert("type".to_owned(), json!("string"));
        }
    }

    // Every node needs a type: infer it where the keywords say it.
    if !map.contains_key("type") && !map.contains_key("anyOf") {
        if map.contains_key("properties") {
            map.insert("type".to_owned(), json!("object"));
        } else if map.contains_key("items") {
            map.insert("type".to_owned(), json!("array"));
        }
    }
}

/// Removes `{"type": "null"}` branches of an `anyOf`, making the node nullable instead. A single
/// remaining branch replaces the `anyOf`.
fn strip_null_branches(map: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = map.get_mut("anyOf") else {
        return;
    };
    let before = branches.len();
    branches.retain(|b| b.get("type").and_then(Value::as_str) != Some("null"));
    if branches.len() == before {
        return;
    }
    if branches.len() == 1
        && let Some(Value::Object(only)) = branches.pop()
    {
        map.remove("anyOf");
        let mut single = only;
        if merge_into(&mut single, map).is_ok() {
            // The property's own words win over those of the type it refers to.
            for key in ["description", "title"] {
                if let Some(own) = map.get(key) {
                    single.insert(key.to_owned(), own.clone());
                }
            }
            *map = single;
        } else {
            map.insert(
                "anyOf".to_owned(),
                Value::Array(vec![Value::Object(single)]),
            );
        }
    }
    set_nullable(map);
}

/// An `anyOf` of single string values (what schemars writes for an enum with documented
/// variants) becomes one string `enum`; the variants' descriptions go into the description.
fn collapse_string_choices(map: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = map.get("anyOf") else {
        return;
    };
    let mut values = Vec::new();
    let mut notes = Vec::new();
    for branch in branches {
        let Value::Object(branch) = branch else {
            return;
        };
        let value = match (branch.get("const"), branch.get("enum")) {
            (Some(Value::String(v)), None) => v.clone(),
            (None, Some(Value::Array(list))) => match list.as_slice() {
                [Value::String(v)] => v.clone(),
                _ => return,
            },
            _ => return,
        };
        let plain = branch.iter().all(|(key, v)| match key.as_str() {
            "type" => v == "string",
            "const" | "enum" | "description" | "title" => true,
            _ => false,
        });
        if !plain {
            return;
        }
        if let Some(description) = branch.get("description").and_then(Value::as_str) {
            notes.push(format!("`{value}`: {description}"));
        }
        values.push(Value::String(value));
    }
    if values.is_empty() || map.get("type").is_some_and(|t| t != "string") {
        return;
    }
    map.remove("anyOf");
    map.insert("type".to_owned(), json!("string"));
    map.insert("enum".to_owned(), Value::Array(values));
    append_notes(map, &notes);
}

/// `anyOf` may not have siblings: move them into every branch (`{A, anyOf: [B, C]}` is
/// `anyOf: [A and B, A and C]`). A branch keeps its own description and title.
fn distribute_any_of(map: &mut Map<String, Value>, ptr: &str, report: &mut Report) {
    let Some(Value::Array(_)) = map.get("anyOf") else {
        return;
    };
    if map.len() == 1 {
        return;
    }
    let Some(Value::Array(mut branches)) = map.remove("anyOf") else {
        return;
    };
    let siblings = std::mem::take(map);
    for (i, branch) in branches.iter_mut().enumerate() {
        let Value::Object(branch) = branch else {
            continue;
        };
        if let (Some(Value::String(outer)), Some(Value::String(own))) =
            (siblings.get("description"), branch.get("description"))
            && outer != own
        {
            let combined = format!("{} {own}", outer.trim_end());
            branch.insert("description".to_owned(), Value::String(combined));
        }
        if let Err(key) = merge_into(branch, &siblings) {
            report.push(
                &format!("{ptr}/anyOf/{i}"),
                "gemini.anyof-alone",
                format!("the sibling `{key}` of `anyOf` conflicts with this branch and cannot be moved into it"),
            );
        }
    }
    map.insert("anyOf".to_owned(), Value::Array(branches));
}

pub(crate) fn check(definition: &Value, report: &mut Report) {
    super::check_name(
        definition,
        64,
        &[':', '.'],
        "gemini.name",
        |name| format!("function name `{name}` must be 1 to 64 characters of `[a-zA-Z0-9_:.-]`"),
        report,
    );
    let Some(parameters) = definition.get("parameters") else {
        return;
    };
    super::check_object_root(
        Some(parameters),
        "/parameters",
        "gemini.object-root",
        "OBJECT",
        report,
    );
    walk(parameters, "/parameters", &mut |node, ptr| {
        let Value::Object(map) = node else {
            report.push(ptr, "gemini.typed", "a boolean schema cannot be expressed");
            return;
        };
        for key in map.keys() {
            if KEYWORDS.contains(&key.as_str()) {
                continue;
            }
            let rule = if matches!(key.as_str(), "$ref" | "$defs" | "definitions") {
                "gemini.no-refs"
            } else {
                "gemini.keywords"
            };
            report.push(
                &join(ptr, key),
                rule,
                format!("keyword `{key}` is not part of the `parameters` subset"),
            );
        }
        if map.contains_key("anyOf") {
            if map.len() > 1 {
                report.push(
                    &join(ptr, "anyOf"),
                    "gemini.anyof-alone",
                    format!(
                        "`anyOf` has sibling keywords {}",
                        super::siblings(map, "anyOf")
                    ),
                );
            }
            return;
        }
        let the_type = match map.get("type") {
            Some(Value::String(t)) if TYPES.contains(&t.as_str()) => t.as_str(),
            found => {
                let (at, rule, message) = match found {
                    Some(Value::Array(_)) => (
                        join(ptr, "type"),
                        "gemini.nullable",
                        "`type` must be one name; use `nullable: true` for null".to_owned(),
                    ),
                    Some(other) => (
                        join(ptr, "type"),
                        "gemini.typed",
                        format!("`type` {other} is not one of {}", backticked(TYPES)),
                    ),
                    None => (
                        ptr.to_owned(),
                        "gemini.typed",
                        "the schema has no `type`".to_owned(),
                    ),
                };
                report.push(&at, rule, message);
                return;
            }
        };
        if the_type == "ARRAY" && !map.get("items").is_some_and(Value::is_object) {
            report.push(ptr, "gemini.typed", "an `ARRAY` must have `items`");
        }
        if the_type == "OBJECT"
            && map
                .get("properties")
                .is_none_or(|p| p.as_object().is_none_or(Map::is_empty))
        {
            report.push(
                ptr,
                "gemini.object-properties",
                "an `OBJECT` must have non-empty `properties` (maps and free-form objects cannot be expressed)",
            );
        }
        if let Some(values) = map.get("enum") {
            let strings = values
                .as_array()
                .is_some_and(|v| v.iter().all(Value::is_string));
            if the_type != "STRING" || !strings {
                report.push(
                    &join(ptr, "enum"),
                    "gemini.string-enum",
                    "`enum` is accepted only on a `STRING`, with string values",
                );
            }
        }
        if let Some(format) = map.get("format") {
            let ok = format
                .as_str()
                .is_some_and(|f| formats_for(the_type).contains(&f));
            if !ok {
                report.push(
                    &join(ptr, "format"),
                    "gemini.formats",
                    format!(
                        "format {} is not accepted on a `{the_type}`",
                        super::compact(format)
                    ),
                );
            }
        }
    });
}

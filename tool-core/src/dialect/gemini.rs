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

use super::checks::{Verdict, check_name, check_object_root, compact, siblings, walk};
use super::lower::{
    self, Combinators, Nulls, Profile, References, append_notes, describe_keyword, merge_into,
    set_nullable, strip_null_branches,
};
use super::report::{Report, Rule};
use crate::model::ToolSpec;
use crate::schema::join;
use crate::schema::keywords::Kind;
use crate::schema::walk::type_names;
use crate::text::backticked;

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

fn formats_for(gemini_type: &str) -> &'static [&'static str] {
    match gemini_type {
        "STRING" => &["date-time", "enum"],
        "NUMBER" => &["float", "double"],
        "INTEGER" => &["int32", "int64"],
        _ => &[],
    }
}

/// How the `parameters` subset takes a schema: every reference inlined, the subset's keywords
/// kept (formats by type), `null` written `nullable: true`, type names upper-case.
const GEMINI: Profile = Profile {
    typed: Some("gemini.typed"),
    keywords_rule: "gemini.keywords",
    refs_rule: "gemini.no-refs",
    root_rule: "gemini.object-root",
    keywords: Some(KEYWORDS),
    kept: &[],
    formats: |node| formats_for(&node_type(node)),
    tuples: (
        &["items"],
        "`items` as a list (a tuple) cannot be expressed",
    ),
    example: true,
    references: References::Inlined,
    combinators: Combinators::Everywhere,
    nulls: Nulls::Flag,
    closed: None,
    items_written: false,
    adjust,
    finish,
};

/// The subset's name of a node's type (`STRING`), empty without one.
fn node_type(node: &Map<String, Value>) -> String {
    node.get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_ascii_uppercase()
}

/// The declaration of a tool; `verdict` is its canonical schema's.
pub(crate) fn convert(spec: &ToolSpec, verdict: &Verdict, report: &mut Report) -> Value {
    verdict.report("/parameters", "gemini.valid-schema", report);
    let parameters = lower::lower(&spec.input_schema, "/parameters", &GEMINI, report);

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

/// Resolves type lists, `null` branches, `const` and `enum` the subset's way.
fn adjust(map: &mut Map<String, Value>, ptr: &str, report: &mut Report) {
    // A single type in a list, or `null` in the list.
    let listed_or_null = match map.get("type") {
        Some(Value::Array(_)) => true,
        Some(Value::String(t)) => t == "null",
        _ => false,
    };
    if listed_or_null {
        let types = type_names(map);
        let non_null: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
        match non_null.as_slice() {
            [one] => {
                let one = (*one).to_owned();
                let types = types.len();
                if types > 1 {
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
                Value::String(Kind::of(&value).name().to_owned()),
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
        let kinds: Vec<&str> = values.iter().map(|v| Kind::of(v).name()).collect();
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

/// After the notes: `anyOf` siblings moved into its branches, type names upper-case.
fn finish(map: &mut Map<String, Value>, ptr: &str, report: &mut Report) {
    distribute_any_of(map, ptr, report);
    if let Some(Value::String(t)) = map.get_mut("type") {
        *t = t.to_ascii_uppercase();
    }
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
    check_name(
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
    check_object_root(
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
                    format!("`anyOf` has sibling keywords {}", siblings(map, "anyOf")),
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
                        compact(format)
                    ),
                );
            }
        }
    });
}

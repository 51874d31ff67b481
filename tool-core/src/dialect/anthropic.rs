//! Anthropic tool-use definitions.
//!
//! Shape: `{name, description, input_schema}`. The schema stays JSON Schema 2020-12 and must be
//! valid, or the whole request fails.
//!
//! The definitions are **not** `strict`: strict (grammar-constrained) tools refuse numeric
//! bounds, `minLength`/`maxLength`, `maxItems`, recursion and more than 24 optional parameters,
//! so strict mode would mean dropping constraints from what the model is shown. Non-strict
//! definitions keep the whole canonical schema in front of the model, and the registry validates
//! every call against that same schema before any tool code runs.

use serde_json::{Value, json};

use super::checks::{
    Verdict, check_export, check_local_refs, check_name, check_object_root, compact, is_2020_12,
    walk,
};
use super::lower::merge_root_all_of;
use super::report::{Report, Rule};
use crate::model::ToolSpec;
use crate::schema::draft::{self, Draft};
use crate::schema::join;

/// The rules of Anthropic, one entry each.
pub const RULES: &[Rule] = &[
    Rule {
        id: "anthropic.name",
        text: "`name` matches `^[a-zA-Z0-9_-]{1,64}$`",
    },
    Rule {
        id: "anthropic.unique-name",
        text: "every tool of a request has its own name",
    },
    Rule {
        id: "anthropic.object-root",
        text: "`input_schema` has `type: \"object\"` at the root and no `oneOf`, `allOf` or `anyOf` there",
    },
    Rule {
        id: "anthropic.draft",
        text: "no `$schema` of another draft than 2020-12 (one such tool breaks the request)",
    },
    Rule {
        id: "anthropic.local-refs",
        text: "every `$ref` is local (`#/...`) and resolves",
    },
    Rule {
        id: "anthropic.valid-schema",
        text: "`input_schema` is valid JSON Schema 2020-12 and compiles (patterns, references)",
    },
];

pub(crate) fn convert(spec: &ToolSpec, report: &mut Report) -> Value {
    let mut schema = spec.input_schema.clone();
    remove_2020_12_markers(&mut schema);
    merge_root_all_of(
        &mut schema,
        "/input_schema",
        "anthropic.object-root",
        report,
    );
    let mut definition =
        json!({"name": spec.name, "description": spec.description, "input_schema": schema});
    if !spec.input_examples.is_empty()
        && let Value::Object(fields) = &mut definition
    {
        fields.insert(
            "input_examples".to_owned(),
            Value::Array(spec.input_examples.clone()),
        );
    }
    definition
}

/// `$schema` naming 2020-12 says nothing the provider does not assume: drop it. Any other draft
/// is left in place for the checker to refuse (its keywords mean other things).
fn remove_2020_12_markers(node: &mut Value) {
    let Value::Object(map) = node else { return };
    if map
        .get("$schema")
        .and_then(Value::as_str)
        .is_some_and(is_2020_12)
    {
        map.remove("$schema");
    }
    draft::for_each_subschema_mut(map, Draft::Draft202012, "", &mut |child, _| {
        if child.is_object() {
            remove_2020_12_markers(child);
        }
    });
}

/// Checks a definition; `canonical` is the tool's canonical schema and its verdict, when known.
pub(crate) fn check(
    definition: &Value,
    canonical: Option<(&Value, &Verdict)>,
    report: &mut Report,
) {
    let schema = definition.get("input_schema");
    check_name(
        definition,
        64,
        &[],
        "anthropic.name",
        |name| format!("tool name `{name}` must match `^[a-zA-Z0-9_-]{{1,64}}$`"),
        report,
    );
    check_object_root(
        schema,
        "/input_schema",
        "anthropic.object-root",
        "object",
        report,
    );
    let Some(schema) = schema else { return };
    for combinator in ["oneOf", "allOf", "anyOf"] {
        if schema.get(combinator).is_some() {
            report.push(
                &format!("/input_schema/{combinator}"),
                "anthropic.object-root",
                format!("`{combinator}` is refused at the root of `input_schema`"),
            );
        }
    }

    let mut foreign = false;
    walk(schema, "/input_schema", &mut |node, ptr| {
        if let Some(draft) = node.get("$schema") {
            foreign = true;
            report.push(
                &join(ptr, "$schema"),
                "anthropic.draft",
                format!(
                    "`$schema` {} is not draft 2020-12; write the schema in 2020-12 without `$schema`",
                    compact(draft)
                ),
            );
        }
    });
    let rules = ("anthropic.local-refs", "anthropic.valid-schema");
    if foreign {
        check_local_refs(schema, "/input_schema", rules.0, report);
    } else {
        check_export(schema, "/input_schema", rules, canonical, report);
    }
}

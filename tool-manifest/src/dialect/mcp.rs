//! MCP `tools/list` definitions.
//!
//! Shape: `{name, title, description, inputSchema, outputSchema?, annotations}`. The schemas stay
//! JSON Schema 2020-12; only what a client could trip over is changed (`$schema` removed, the
//! no-parameter shape made explicit).
//!
//! Annotations are always written in full, because MCP's defaults are surprising
//! (`destructiveHint` defaults to **true**, `openWorldHint` to true):
//!
//! | hint | value |
//! |---|---|
//! | `readOnlyHint` | true exactly for `read-only` tools |
//! | `destructiveHint` | true exactly for `destructive` tools |
//! | `idempotentHint` | the declared `idempotent`; MCP's default, false, when not declared |
//! | `openWorldHint` | the declared `open_world`; MCP's default, true, when not declared |
//!
//! The two hints are never guessed from anything else (a category, a name).

use serde_json::{Map, Value, json};

use super::{
    Report, Rule, check_2020_12, check_local_refs, check_object_root, join, remove_everywhere, walk,
};
use crate::model::{Safety, ToolSpec};

/// The rules of MCP, one entry each.
pub const RULES: &[Rule] = &[
    Rule {
        id: "mcp.name",
        text: "`name` is 1 to 128 characters of `[A-Za-z0-9_.-]`",
    },
    Rule {
        id: "mcp.unique-name",
        text: "every tool of a server has its own name",
    },
    Rule {
        id: "mcp.object-root",
        text: "`inputSchema` (and `outputSchema` when present) has `type: \"object\"` at the root",
    },
    Rule {
        id: "mcp.no-parameters",
        text: "a tool with no parameters has `{\"type\": \"object\", \"additionalProperties\": false}`",
    },
    Rule {
        id: "mcp.annotations",
        text: "`annotations` carries `title` and all four hints explicitly, matching the declared safety",
    },
    Rule {
        id: "mcp.no-schema-url",
        text: "no `$schema` keyword a client may try to fetch",
    },
    Rule {
        id: "mcp.local-refs",
        text: "every `$ref` is local (`#/...`) and resolves; a client never fetches a remote one",
    },
    Rule {
        id: "mcp.valid-schema",
        text: "the schemas are valid JSON Schema 2020-12",
    },
];

/// The explicit hints of a tool.
pub fn annotations(spec: &ToolSpec) -> Value {
    let read_only = spec.safety == Safety::ReadOnly;
    json!({
        "title": spec.title,
        "readOnlyHint": read_only,
        "destructiveHint": !read_only,
        "idempotentHint": spec.idempotent.unwrap_or(false),
        "openWorldHint": spec.open_world.unwrap_or(true),
    })
}

pub(crate) fn convert(spec: &ToolSpec, _report: &mut Report) -> Value {
    let mut definition = json!({
        "name": spec.name,
        "title": spec.title,
        "description": spec.description,
        "inputSchema": schema(&spec.input_schema, true),
        "annotations": annotations(spec),
    });
    if let (Some(output), Value::Object(fields)) = (&spec.output_schema, &mut definition) {
        fields.insert("outputSchema".to_owned(), schema(output, false));
    }
    definition
}

fn schema(canonical: &Value, input: bool) -> Value {
    let mut schema = canonical.clone();
    remove_everywhere(&mut schema, "$schema");
    if input && let Value::Object(root) = &mut schema {
        let no_properties = root
            .get("properties")
            .is_none_or(|p| p.as_object().is_some_and(Map::is_empty));
        let open = root.get("additionalProperties");
        let closable = open.is_none() && !root.contains_key("patternProperties");
        if no_properties && closable {
            root.remove("properties");
            if root
                .get("required")
                .is_some_and(|r| r.as_array().is_some_and(Vec::is_empty))
            {
                root.remove("required");
            }
            root.insert("additionalProperties".to_owned(), Value::Bool(false));
        }
    }
    schema
}

pub(crate) fn check(definition: &Value, spec: &ToolSpec, report: &mut Report) {
    let input = definition.get("inputSchema");
    let output = definition.get("outputSchema");
    let found = definition.get("annotations");
    super::check_name(
        definition,
        128,
        &['.'],
        "mcp.name",
        |name| format!("tool name `{name}` must be 1 to 128 characters of `[A-Za-z0-9_.-]`"),
        report,
    );

    check_object_root(input, "/inputSchema", "mcp.object-root", "object", report);
    if let Some(Value::Object(root)) = input {
        let no_properties = root
            .get("properties")
            .is_none_or(|p| p.as_object().is_some_and(Map::is_empty));
        let closed = root.get("additionalProperties") == Some(&Value::Bool(false));
        let maps = root
            .get("additionalProperties")
            .is_some_and(Value::is_object)
            || root.contains_key("patternProperties");
        if no_properties && !closed && !maps {
            report.push(
                "/inputSchema",
                "mcp.no-parameters",
                "a tool with no parameters must have `\"additionalProperties\": false`",
            );
        }
    }
    if output.is_some() {
        check_object_root(output, "/outputSchema", "mcp.object-root", "object", report);
    }

    for (key, schema) in [("inputSchema", input), ("outputSchema", output)] {
        let Some(schema) = schema else { continue };
        let base = format!("/{key}");
        walk(schema, &base, &mut |node, ptr| {
            if node.get("$schema").is_some() {
                report.push(
                    &join(ptr, "$schema"),
                    "mcp.no-schema-url",
                    "`$schema` must not be present",
                );
            }
        });
        let before = report.len();
        check_local_refs(schema, &base, "mcp.local-refs", report);
        let refs_resolve = report.len() == before;
        check_2020_12(schema, &base, "mcp.valid-schema", refs_resolve, report);
    }

    let expected = annotations(spec);
    for key in [
        "title",
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ] {
        let want = expected.get(key);
        let have = found.and_then(|a| a.get(key));
        if have.is_none() {
            report.push(
                &format!("/annotations/{key}"),
                "mcp.annotations",
                format!("`{key}` must be written explicitly"),
            );
        } else if have != want {
            report.push(
                &format!("/annotations/{key}"),
                "mcp.annotations",
                format!(
                    "`{key}` must be {}, as the tool declares",
                    want.map(super::compact).unwrap_or_default(),
                ),
            );
        }
    }
}

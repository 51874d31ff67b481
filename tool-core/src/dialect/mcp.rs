//! MCP `tools/list` definitions.
//!
//! Shape: `{name, title, description, inputSchema, outputSchema?, annotations}`. The schemas stay
//! JSON Schema 2020-12 and accept exactly what the canonical ones accept; only what a client
//! could trip over is changed (`$schema` removed, a tool that takes no arguments written
//! `{"type": "object", "additionalProperties": false}`). A schema without properties that
//! leaves `additionalProperties` open accepts any object, and is exported open: clients that
//! validate arguments against `inputSchema` must accept what the tool accepts.
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
//!
//! A tool that declares a `version` or a deprecation carries them in `_meta`, under the
//! toolkit's own prefix ([`META_PREFIX`]: MCP asks for a reverse-DNS prefix, and reserves those
//! whose second label is `modelcontextprotocol` or `mcp`):
//!
//! ```json
//! "_meta": {
//!   "dev.toolwright/version": "2.1.0",
//!   "dev.toolwright/deprecated": {"since": "2.0.0", "sunset": "2027-06-30", "replacement": "drawing_create", "note": "…"}
//! }
//! ```
//!
//! `deprecated` holds the declared fields only; a tool that declares neither has no `_meta`.

use serde_json::{Map, Value, json};

use super::checks::{Verdict, check_export, check_name, check_object_root, compact, walk};
use super::report::{Report, Rule};
use crate::model::{Safety, ToolSpec};
use crate::schema::draft::{self, Draft};
use crate::schema::join;

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
        text: "a tool with no parameters (its schema accepts only `{}`) has `{\"type\": \"object\", \"additionalProperties\": false}`; a schema open to other properties is never closed",
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
    Rule {
        id: "mcp.meta",
        text: "`_meta` carries the declared `version` and deprecation under `dev.toolwright/`, and every `_meta` key is a valid name (`prefix/name`) outside MCP's reserved prefixes",
    },
];

/// The prefix of the toolkit's own `_meta` keys.
pub const META_PREFIX: &str = "dev.toolwright/";

/// The `_meta` key of a tool's declared `version`.
pub const META_VERSION: &str = "dev.toolwright/version";

/// The `_meta` key of a tool's declared deprecation: `{since, sunset?, replacement?, note?}`.
pub const META_DEPRECATED: &str = "dev.toolwright/deprecated";

/// The `_meta` of a tool: its declared version and deprecation; `None` when it declares
/// neither.
pub fn meta(spec: &ToolSpec) -> Option<Value> {
    let mut meta = Map::new();
    if let Some(version) = &spec.version {
        meta.insert(META_VERSION.to_owned(), Value::String(version.clone()));
    }
    if let Some(deprecated) = &spec.deprecated {
        meta.insert(META_DEPRECATED.to_owned(), json!(deprecated));
    }
    (!meta.is_empty()).then_some(Value::Object(meta))
}

/// Is `key` a valid `_meta` key, outside the prefixes MCP reserves? `prefix/name` or `name`:
/// the prefix's labels, separated by dots, start with a letter and end with a letter or a
/// digit (hyphens inside); a prefix whose second label is `modelcontextprotocol` or `mcp` is
/// MCP's. The name, unless empty, starts and ends with a letter or digit (`-`, `_`, `.` inside).
pub fn is_valid_meta_key(key: &str) -> bool {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    let inner = |c: char, extra: &[char]| c.is_ascii_alphanumeric() || extra.contains(&c);
    let name_ok = name.is_empty()
        || (name.starts_with(|c: char| c.is_ascii_alphanumeric())
            && name.ends_with(|c: char| c.is_ascii_alphanumeric())
            && name.chars().all(|c| inner(c, &['-', '_', '.'])));
    let prefix_ok = prefix.is_none_or(|prefix| {
        let labels: Vec<&str> = prefix.split('.').collect();
        let label_ok = |label: &&str| {
            label.starts_with(|c: char| c.is_ascii_alphabetic())
                && label.ends_with(|c: char| c.is_ascii_alphanumeric())
                && label.chars().all(|c| inner(c, &['-']))
        };
        let reserved = labels
            .get(1)
            .is_some_and(|second| matches!(*second, "modelcontextprotocol" | "mcp"));
        labels.iter().all(label_ok) && !reserved
    });
    name_ok && prefix_ok
}

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
    if let Value::Object(fields) = &mut definition {
        if let Some(output) = &spec.output_schema {
            fields.insert("outputSchema".to_owned(), schema(output, false));
        }
        if let Some(meta) = meta(spec) {
            fields.insert("_meta".to_owned(), meta);
        }
    }
    definition
}

/// Removes `$schema` from `node` and from every subschema below it.
fn remove_schema_keywords(node: &mut Value) {
    let Value::Object(map) = node else { return };
    map.remove("$schema");
    draft::for_each_subschema_mut(map, Draft::Draft202012, "", &mut |child, _| {
        if child.is_object() {
            remove_schema_keywords(child);
        }
    });
}

fn schema(canonical: &Value, input: bool) -> Value {
    let mut schema = canonical.clone();
    remove_schema_keywords(&mut schema);
    if input
        && let Value::Object(root) = &mut schema
        && takes_no_arguments(root)
    {
        root.remove("properties");
        if root
            .get("required")
            .is_some_and(|r| r.as_array().is_some_and(Vec::is_empty))
        {
            root.remove("required");
        }
    }
    schema
}

/// Does a root schema accept only `{}`: no properties, and closed to any other?
fn takes_no_arguments(root: &Map<String, Value>) -> bool {
    let no_properties = root
        .get("properties")
        .is_none_or(|p| p.as_object().is_some_and(Map::is_empty));
    no_properties && is_closed(root) && !root.contains_key("patternProperties")
}

fn is_closed(root: &Map<String, Value>) -> bool {
    root.get("additionalProperties") == Some(&Value::Bool(false))
}

/// Checks a definition of `spec`; `verdicts` are those of its canonical input and output
/// schemas, when known.
pub(crate) fn check(
    definition: &Value,
    spec: &ToolSpec,
    verdicts: Option<(&Verdict, Option<&Verdict>)>,
    report: &mut Report,
) {
    let input = definition.get("inputSchema");
    let output = definition.get("outputSchema");
    let found = definition.get("annotations");
    check_name(
        definition,
        128,
        &['.'],
        "mcp.name",
        |name| format!("tool name `{name}` must be 1 to 128 characters of `[A-Za-z0-9_.-]`"),
        report,
    );

    check_object_root(input, "/inputSchema", "mcp.object-root", "object", report);
    if let (Some(Value::Object(root)), Value::Object(canonical)) = (input, &spec.input_schema) {
        if takes_no_arguments(canonical) && !is_closed(root) {
            report.push(
                "/inputSchema",
                "mcp.no-parameters",
                "a tool with no parameters must have `\"additionalProperties\": false`",
            );
        } else if !is_closed(canonical) && is_closed(root) {
            report.push(
                "/inputSchema/additionalProperties",
                "mcp.no-parameters",
                "the tool accepts other properties: `\"additionalProperties\": false` would refuse them",
            );
        }
    }
    if output.is_some() {
        check_object_root(output, "/outputSchema", "mcp.object-root", "object", report);
    }

    let canonical = [
        verdicts.map(|(input, _)| (&spec.input_schema, input)),
        verdicts.and_then(|(_, output)| spec.output_schema.as_ref().zip(output)),
    ];
    for ((key, schema), canonical) in [("inputSchema", input), ("outputSchema", output)]
        .into_iter()
        .zip(canonical)
    {
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
        let rules = ("mcp.local-refs", "mcp.valid-schema");
        check_export(schema, &base, rules, canonical, report);
    }

    check_meta(definition.get("_meta"), spec, report);

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
                    want.map(compact).unwrap_or_default(),
                ),
            );
        }
    }
}

/// `mcp.meta`: every key of `_meta` valid, and the toolkit's keys as the tool declares.
fn check_meta(found: Option<&Value>, spec: &ToolSpec, report: &mut Report) {
    let expected = meta(spec);
    let found = match found {
        None if expected.is_none() => return,
        None => {
            report.push(
                "/_meta",
                "mcp.meta",
                "`_meta` must carry the tool's declared version and deprecation",
            );
            return;
        }
        Some(Value::Object(found)) => found,
        Some(_) => {
            report.push("/_meta", "mcp.meta", "`_meta` must be an object");
            return;
        }
    };
    for key in found.keys().filter(|key| !is_valid_meta_key(key)) {
        report.push(
            &join("/_meta", key),
            "mcp.meta",
            format!(
                "`_meta` key `{key}` must be `prefix/name` with a reverse-DNS prefix outside MCP's reserved ones (`{META_PREFIX}…`)"
            ),
        );
    }
    for key in [META_VERSION, META_DEPRECATED] {
        let want = expected.as_ref().and_then(|m| m.get(key));
        let have = found.get(key);
        if have != want {
            let message = match want {
                Some(want) => format!("`{key}` must be {}, as the tool declares", compact(want)),
                None => format!("`{key}` must be absent: the tool declares none"),
            };
            report.push(&join("/_meta", key), "mcp.meta", message);
        }
    }
}

//! Provider exports of a small fixture set: snapshots, and what holds for every dialect.

use serde_json::{Value, json};
use tool_manifest::dialect::{self, Dialect};
use tool_manifest::{Mode, Safety, ToolSpec};

fn spec(name: &str, safety: Safety, category: Option<&str>, input: Value) -> ToolSpec {
    ToolSpec {
        name: name.to_owned(),
        title: format!("The {name} tool"),
        description: format!("Does what {name} says."),
        safety,
        mode: if safety.is_read_only() {
            Mode::Parallel
        } else {
            Mode::Sequential
        },
        category: category.map(str::to_owned),
        input_schema: input,
        output_schema: None,
        errors: Vec::new(),
        examples: Vec::new(),
        source: format!("tools/{name}.toml"),
    }
}

/// Four tools covering the manifest subset and a schemars-style code-first schema.
fn fixtures() -> Vec<ToolSpec> {
    let drawing_create = spec(
        "drawing_create",
        Safety::Destructive,
        Some("drawings"),
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["pane_id", "kind", "anchors"],
            "properties": {
                "pane_id": {"type": "string", "description": "The pane to draw on.", "minLength": 1},
                "kind": {"type": "string", "enum": ["trend_line", "horizontal_line"], "description": "What to draw."},
                "anchors": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 2,
                    "description": "Where the drawing is anchored.",
                    "items": {
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["time", "price"],
                        "properties": {
                            "time": {"type": "integer", "description": "Unix seconds.", "minimum": 0},
                            "price": {"type": "number", "exclusiveMinimum": 0}
                        }
                    }
                },
                "style": {
                    "type": "object",
                    "additionalProperties": false,
                    "description": "How it looks.",
                    "properties": {
                        "color": {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"},
                        "width": {"type": "integer", "minimum": 1, "maximum": 10},
                        "line_style": {"type": "string", "enum": ["solid", "dashed"]}
                    }
                },
                "label": {"type": "string", "maxLength": 64, "description": "Text shown next to it."},
                "extend": {"type": "boolean", "default": false}
            }
        }),
    );
    let mut panes_list = spec(
        "panes_list",
        Safety::ReadOnly,
        Some("panes"),
        json!({"type": "object", "additionalProperties": false}),
    );
    panes_list.output_schema = Some(json!({
        "type": "object",
        "required": ["panes"],
        "properties": {"panes": {"type": "array", "items": {"type": "string"}}}
    }));
    let settings_update = spec(
        "settings_update",
        Safety::Destructive,
        Some("settings"),
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["key", "value", "note"],
            "properties": {
                "key": {"type": "string", "enum": ["theme", "grid", "volume"]},
                "value": {"type": ["string", "number", "boolean"], "description": "The new value."},
                "note": {"type": ["string", "null"], "description": "Why."}
            }
        }),
    );
    let web_search = spec(
        "web_search",
        Safety::ReadOnly,
        Some("web"),
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "WebSearchInput",
            "type": "object",
            "required": ["query"],
            "properties": {
                "query": {"type": "string", "description": "What to look for."},
                "limit": {"type": ["integer", "null"], "format": "uint32", "minimum": 0, "description": "How many results."},
                "since": {"type": "string", "format": "date"},
                "site": {"type": "string", "format": "uri"},
                "filter": {"anyOf": [{"$ref": "#/$defs/Filter"}, {"type": "null"}], "description": "Narrow the results."},
                "kind": {"$ref": "#/$defs/Kind", "description": "Which index."}
            },
            "$defs": {
                "Filter": {
                    "type": "object",
                    "properties": {
                        "language": {"type": "string", "const": "en"},
                        "safe": {"type": "boolean"}
                    },
                    "required": ["safe"]
                },
                "Kind": {
                    "oneOf": [
                        {"type": "string", "const": "news", "description": "Recent news."},
                        {"type": "string", "const": "pages", "description": "Any page."}
                    ]
                }
            }
        }),
    );
    vec![web_search, settings_update, panes_list, drawing_create]
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("json")
}

#[test]
fn mcp_export_of_the_fixture_set() {
    let export = dialect::export(Dialect::Mcp, &fixtures()).expect("exports");
    insta::assert_snapshot!("mcp", pretty(&export));
}

#[test]
fn openai_export_of_the_fixture_set() {
    let export = dialect::export(Dialect::OpenAi, &fixtures()).expect("exports");
    insta::assert_snapshot!("openai", pretty(&export));
}

#[test]
fn anthropic_export_of_the_fixture_set() {
    let export = dialect::export(Dialect::Anthropic, &fixtures()).expect("exports");
    insta::assert_snapshot!("anthropic", pretty(&export));
}

#[test]
fn gemini_export_of_the_fixture_set() {
    let export = dialect::export(Dialect::Gemini, &fixtures()).expect("exports");
    insta::assert_snapshot!("gemini", pretty(&export));
}

#[test]
fn exports_are_sorted_by_name_and_deterministic() {
    let mut reversed = fixtures();
    reversed.reverse();
    for dialect in Dialect::ALL {
        let a = dialect::export(*dialect, &fixtures()).expect("exports");
        let b = dialect::export(*dialect, &reversed).expect("exports");
        assert_eq!(a, b, "{dialect}: input order must not matter");
        let names: Vec<&str> = a
            .as_array()
            .expect("array")
            .iter()
            .map(|d| d["name"].as_str().expect("name"))
            .collect();
        assert_eq!(
            names,
            [
                "drawing_create",
                "panes_list",
                "settings_update",
                "web_search"
            ]
        );
    }
}

#[test]
fn every_exported_definition_passes_its_checker_again() {
    let specs = fixtures();
    for dialect in Dialect::ALL {
        for spec in &specs {
            let definition = dialect::convert(*dialect, spec).expect("converts");
            let violations = dialect::check(*dialect, &definition, spec);
            assert!(
                violations.is_empty(),
                "{dialect} {}: {violations:?}",
                spec.name
            );
        }
    }
}

#[test]
fn dialect_names_round_trip_and_unknown_ones_list_the_accepted() {
    for dialect in Dialect::ALL {
        assert_eq!(dialect.as_str().parse::<Dialect>(), Ok(*dialect));
        assert_eq!(dialect.to_string(), dialect.as_str());
    }
    let err = "claude".parse::<Dialect>().expect_err("not a dialect");
    assert_eq!(
        err.to_string(),
        "unknown dialect `claude`, expected one of `mcp`, `openai`, `anthropic`, `gemini`"
    );
}

#[test]
fn every_dialect_has_a_table_of_distinct_rules_named_after_it() {
    for dialect in Dialect::ALL {
        let rules = dialect.rules();
        assert!(!rules.is_empty());
        let mut ids: Vec<&str> = rules.iter().map(|r| r.id).collect();
        for id in &ids {
            assert!(
                id.starts_with(&format!("{}.", dialect.as_str())),
                "{id} belongs to {dialect}"
            );
        }
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), rules.len(), "{dialect}: duplicate rule ids");
        assert!(rules.iter().all(|r| !r.text.is_empty()));
    }
}

#[test]
fn duplicate_names_fail_every_export() {
    let mut specs = fixtures();
    specs.push(specs[0].clone());
    for dialect in Dialect::ALL {
        let err = dialect::export(*dialect, &specs).expect_err("duplicate");
        let unique = format!("{}.unique-name", dialect.as_str());
        assert!(
            err.violations
                .iter()
                .any(|v| v.rule == unique && v.tool == "web_search" && v.pointer == "/name"),
            "{dialect}: {err}"
        );
    }
}

#[test]
fn an_export_error_lists_every_violation_one_per_line() {
    let specs = vec![
        spec(
            "bad name!",
            Safety::ReadOnly,
            None,
            json!({"type": "object"}),
        ),
        spec(
            "not_an_object",
            Safety::ReadOnly,
            None,
            json!({"type": "string"}),
        ),
    ];
    let err = dialect::export(Dialect::Anthropic, &specs).expect_err("two bad tools");
    let text = err.to_string();
    assert_eq!(text.lines().count(), err.violations.len(), "{text}");
    assert!(text.contains(
        "anthropic: tool `bad name!` at `/name`: tool name `bad name!` must match `^[a-zA-Z0-9_-]{1,64}$` (rule `anthropic.name`)"
    ), "{text}");
    assert!(
        text.contains("tool `not_an_object` at `/input_schema/type`"),
        "{text}"
    );
}

#[test]
fn rule_ids_of_violations_are_in_the_table() {
    // A schema that breaks many rules at once: every reported rule must exist in the table.
    let bad = spec(
        "bad.name with spaces",
        Safety::ReadOnly,
        None,
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "map": {"type": "object", "additionalProperties": {"type": "integer"}},
                "tree": {"$ref": "#/$defs/Tree"},
                "any": {},
                "remote": {"$ref": "https://example.com/schema.json"}
            },
            "$defs": {"Tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}}
        }),
    );
    for dialect in Dialect::ALL {
        let violations = dialect::convert(*dialect, &bad).expect_err("broken");
        for v in &violations {
            assert!(dialect.rule(v.rule).is_some(), "{dialect}: {v}");
            assert_eq!(v.tool, "bad.name with spaces");
        }
    }
}

//! Anthropic: one test per rule of `anthropic::RULES`.

mod dialect_support;

use dialect_support::{assert_has, spec, tool};
use serde_json::{Value, json};
use toolwright_core::ToolSpec;
use toolwright_core::dialect::{self, Dialect, Violation, anthropic};

fn converted(spec: &ToolSpec) -> Value {
    dialect::convert(Dialect::Anthropic, spec)
        .unwrap_or_else(|v| panic!("expected a definition, got {v:?}"))
        .definition
}

fn refused(spec: &ToolSpec) -> Vec<Violation> {
    dialect::convert(Dialect::Anthropic, spec).expect_err("expected a refusal")
}

const TESTED: &[&str] = &[
    "anthropic.name",
    "anthropic.unique-name",
    "anthropic.object-root",
    "anthropic.draft",
    "anthropic.local-refs",
    "anthropic.valid-schema",
];

#[test]
fn every_rule_of_the_table_has_a_test() {
    let ids: Vec<&str> = anthropic::RULES.iter().map(|r| r.id).collect();
    assert_eq!(ids, TESTED);
}

#[test]
fn the_shape_is_name_description_input_schema_and_not_strict() {
    let definition = converted(&tool(
        json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}}),
    ));
    assert_eq!(
        definition,
        json!({
            "name": "a_tool",
            "description": "Does a thing.",
            "input_schema": {"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}}
        })
    );
}

#[test]
fn input_examples_are_exported_as_declared() {
    let mut spec = tool(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
    spec.input_examples = vec![json!({"a": "x"}), json!({})];
    let definition = converted(&spec);
    assert_eq!(definition["input_examples"], json!([{"a": "x"}, {}]));
    spec.input_examples.clear();
    assert!(converted(&spec).get("input_examples").is_none());
}

#[test]
fn name() {
    let object = json!({"type": "object"});
    assert_has(
        &refused(&spec("chart.tool", object.clone())),
        "anthropic.name",
        "/name",
    );
    assert_has(
        &refused(&spec(&"a".repeat(65), object.clone())),
        "anthropic.name",
        "/name",
    );
    converted(&spec("Chart-tool_2", object.clone()));
    converted(&spec(&"a".repeat(64), object));
}

#[test]
fn unique_name() {
    let a = tool(json!({"type": "object"}));
    let err = dialect::export(Dialect::Anthropic, &[a.clone(), a]).expect_err("duplicate");
    assert_has(&err.violations, "anthropic.unique-name", "/name");
}

#[test]
fn object_root() {
    assert_has(
        &refused(&tool(json!({"type": "array"}))),
        "anthropic.object-root",
        "/input_schema/type",
    );
    // Tool arguments are always an object: a root without `type` says so, the `anyOf` is
    // still refused.
    assert_has(
        &refused(&tool(json!({"anyOf": [{"type": "object"}]}))),
        "anthropic.object-root",
        "/input_schema/anyOf",
    );
    let one_of = refused(&tool(json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "oneOf": [{"required": ["a"]}, {"required": ["b"]}]
    })));
    assert_has(&one_of, "anthropic.object-root", "/input_schema/oneOf");
    // A root `allOf` of plain schemas is merged.
    let merged = converted(&tool(json!({
        "type": "object",
        "allOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]}, {"properties": {"b": {"type": "integer"}}}]
    })));
    assert_eq!(
        merged["input_schema"],
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]})
    );
    let referenced = refused(&tool(json!({
        "type": "object",
        "allOf": [{"$ref": "#/$defs/Base"}],
        "$defs": {"Base": {"type": "object"}}
    })));
    assert_has(
        &referenced,
        "anthropic.object-root",
        "/input_schema/allOf/0",
    );
}

#[test]
fn draft() {
    // A draft-07 schema is converted to 2020-12 for the export: `definitions` become `$defs`,
    // an array `items` becomes `prefixItems`.
    let old = converted(&tool(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "definitions": {"p": {"type": "array", "items": [{"type": "number"}]}},
        "properties": {"a": {"$ref": "#/definitions/p"}}
    })));
    assert_eq!(
        old["input_schema"],
        json!({
            "type": "object",
            "$defs": {"p": {"type": "array", "prefixItems": [{"type": "number"}]}},
            "properties": {"a": {"$ref": "#/$defs/p"}}
        })
    );
    let nested = tool(json!({
        "type": "object",
        "properties": {"a": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "string"}}
    }));
    assert_has(
        &refused(&nested),
        "anthropic.draft",
        "/input_schema/properties/a/$schema",
    );
    // 2020-12 says nothing new: removed.
    let current = converted(&tool(
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}),
    ));
    assert_eq!(current["input_schema"], json!({"type": "object"}));
}

#[test]
fn local_refs() {
    let remote = tool(
        json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}),
    );
    assert_has(
        &refused(&remote),
        "anthropic.local-refs",
        "/input_schema/properties/a/$ref",
    );
    let dangling = tool(json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}}));
    assert_has(
        &refused(&dangling),
        "anthropic.local-refs",
        "/input_schema/properties/a/$ref",
    );
    // Recursion through local references is valid JSON Schema.
    converted(&tool(json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Tree"}},
        "$defs": {"Tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}}
    })));
}

#[test]
fn valid_schema() {
    let bad_type = tool(json!({"type": "object", "properties": {"a": {"type": 3}}}));
    assert_has(
        &refused(&bad_type),
        "anthropic.valid-schema",
        "/input_schema/properties/a/type",
    );
    let bad_required = tool(json!({"type": "object", "required": "a"}));
    assert_has(
        &refused(&bad_required),
        "anthropic.valid-schema",
        "/input_schema/required",
    );
    let bad_pattern = tool(
        json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}}}),
    );
    let violations = refused(&bad_pattern);
    assert!(
        violations
            .iter()
            .any(|v| v.rule == "anthropic.valid-schema" && v.pointer.starts_with("/input_schema")),
        "{violations:#?}"
    );
}

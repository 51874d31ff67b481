//! MCP: one test per rule of `mcp::RULES`.

mod dialect_support;

use dialect_support::{assert_has, spec_with, tool};
use serde_json::{Value, json};
use toolwright_core::dialect::{self, Dialect, Violation, mcp};
use toolwright_core::{Deprecation, Safety, ToolSpec};

fn converted(spec: &ToolSpec) -> Value {
    dialect::convert(Dialect::Mcp, spec)
        .unwrap_or_else(|v| panic!("expected a definition, got {v:?}"))
        .definition
}

fn refused(spec: &ToolSpec) -> Vec<Violation> {
    dialect::convert(Dialect::Mcp, spec).expect_err("expected a refusal")
}

const TESTED: &[&str] = &[
    "mcp.name",
    "mcp.unique-name",
    "mcp.object-root",
    "mcp.no-parameters",
    "mcp.annotations",
    "mcp.no-schema-url",
    "mcp.local-refs",
    "mcp.valid-schema",
    "mcp.meta",
];

#[test]
fn every_rule_of_the_table_has_a_test() {
    let ids: Vec<&str> = mcp::RULES.iter().map(|r| r.id).collect();
    assert_eq!(ids, TESTED);
}

#[test]
fn name() {
    let object = json!({"type": "object", "additionalProperties": false});
    assert_has(
        &refused(&spec_with("has space", Safety::ReadOnly, object.clone())),
        "mcp.name",
        "/name",
    );
    assert_has(
        &refused(&spec_with(
            &"a".repeat(129),
            Safety::ReadOnly,
            object.clone(),
        )),
        "mcp.name",
        "/name",
    );
    assert_has(
        &refused(&spec_with("", Safety::ReadOnly, object.clone())),
        "mcp.name",
        "/name",
    );
    converted(&spec_with(
        "chart.pane-list_2",
        Safety::ReadOnly,
        object.clone(),
    ));
    converted(&spec_with(&"a".repeat(128), Safety::ReadOnly, object));
}

#[test]
fn unique_name() {
    let a = tool(json!({"type": "object"}));
    let err = dialect::export(Dialect::Mcp, &[a.clone(), a]).expect_err("duplicate");
    assert_has(&err.violations, "mcp.unique-name", "/name");
}

#[test]
fn object_root() {
    assert_has(
        &refused(&tool(json!({"type": "string"}))),
        "mcp.object-root",
        "/inputSchema/type",
    );
    assert_has(
        &refused(&tool(json!([1, 2]))),
        "mcp.object-root",
        "/inputSchema",
    );
    let mut with_output = tool(json!({"type": "object"}));
    with_output.output_schema = Some(json!({"type": "array", "items": {"type": "string"}}));
    assert_has(
        &refused(&with_output),
        "mcp.object-root",
        "/outputSchema/type",
    );
}

#[test]
fn no_parameters() {
    // A tool that takes no arguments says so, and is written in MCP's form for it.
    for input in [
        json!({"type": "object", "additionalProperties": false}),
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false}),
    ] {
        let definition = converted(&tool(input));
        assert_eq!(
            definition["inputSchema"],
            json!({"type": "object", "additionalProperties": false})
        );
    }
    // A schema without properties that leaves `additionalProperties` open accepts any object:
    // the export keeps it open (an export never narrows), `{"x": 1}` stays valid.
    for input in [
        json!({"type": "object"}),
        json!({"type": "object", "properties": {}}),
        json!({}),
    ] {
        let definition = converted(&tool(input.clone()));
        let schema = &definition["inputSchema"];
        assert_eq!(schema["type"], "object", "{input}");
        assert_ne!(
            schema.get("additionalProperties"),
            Some(&json!(false)),
            "{input}"
        );
        let validator = jsonschema::draft202012::new(schema).expect("compiles");
        assert!(validator.is_valid(&json!({"x": 1})), "{input}: {schema}");
    }
    // The checker refuses either change written by hand: closing an open schema, opening a
    // closed one.
    let open = tool(json!({"type": "object"}));
    let mut definition = converted(&open);
    definition["inputSchema"] = json!({"type": "object", "additionalProperties": false});
    assert_has(
        &dialect::check(Dialect::Mcp, &definition, &open),
        "mcp.no-parameters",
        "/inputSchema/additionalProperties",
    );
    let closed = tool(json!({"type": "object", "additionalProperties": false}));
    let mut definition = converted(&closed);
    definition["inputSchema"] = json!({"type": "object"});
    assert_has(
        &dialect::check(Dialect::Mcp, &definition, &closed),
        "mcp.no-parameters",
        "/inputSchema",
    );
}

#[test]
fn annotations() {
    let read = converted(&spec_with(
        "reader",
        Safety::ReadOnly,
        json!({"type": "object"}),
    ));
    assert_eq!(
        read["annotations"],
        json!({"title": "A tool", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": false, "openWorldHint": true}),
        "undeclared hints are MCP's defaults, written out"
    );
    let write = converted(&spec_with(
        "writer",
        Safety::Destructive,
        json!({"type": "object"}),
    ));
    assert_eq!(write["annotations"]["readOnlyHint"], json!(false));
    assert_eq!(write["annotations"]["destructiveHint"], json!(true));

    // The declared hints, exactly; a category says nothing about them.
    let mut local = spec_with("searcher", Safety::ReadOnly, json!({"type": "object"}));
    local.category = Some("web".to_owned());
    local.open_world = Some(false);
    local.idempotent = Some(true);
    let hints = &converted(&local)["annotations"];
    assert_eq!(hints["openWorldHint"], json!(false));
    assert_eq!(hints["idempotentHint"], json!(true));

    // A hint left to MCP's default, or contradicting the safety, is refused.
    let writer = spec_with("writer", Safety::Destructive, json!({"type": "object"}));
    let mut definition = converted(&writer);
    definition["annotations"]
        .as_object_mut()
        .expect("object")
        .remove("destructiveHint");
    definition["annotations"]["readOnlyHint"] = json!(true);
    let violations = dialect::check(Dialect::Mcp, &definition, &writer);
    assert_has(
        &violations,
        "mcp.annotations",
        "/annotations/destructiveHint",
    );
    assert_has(&violations, "mcp.annotations", "/annotations/readOnlyHint");
}

#[test]
fn no_schema_url() {
    let definition = converted(&tool(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}}
    })));
    assert!(!definition.to_string().contains("$schema"), "{definition}");
    assert_eq!(
        definition["inputSchema"]["$defs"]["A"],
        json!({"type": "string"})
    );

    let spec = tool(json!({"type": "object"}));
    let mut definition = converted(&spec);
    definition["inputSchema"]["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    assert_has(
        &dialect::check(Dialect::Mcp, &definition, &spec),
        "mcp.no-schema-url",
        "/inputSchema/$schema",
    );
}

#[test]
fn local_refs() {
    let remote = tool(json!({
        "type": "object",
        "properties": {"a": {"$ref": "https://example.com/a.json"}}
    }));
    assert_has(
        &refused(&remote),
        "mcp.local-refs",
        "/inputSchema/properties/a/$ref",
    );
    let dangling = tool(json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/Missing"}}
    }));
    assert_has(
        &refused(&dangling),
        "mcp.local-refs",
        "/inputSchema/properties/a/$ref",
    );
    converted(&tool(json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"type": "string"}}
    })));
}

#[test]
fn valid_schema() {
    let bad_type = tool(json!({"type": "object", "properties": {"a": {"type": "strin"}}}));
    assert_has(
        &refused(&bad_type),
        "mcp.valid-schema",
        "/inputSchema/properties/a/type",
    );
    let negative =
        tool(json!({"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}}));
    assert_has(
        &refused(&negative),
        "mcp.valid-schema",
        "/inputSchema/properties/a/minLength",
    );
}

#[test]
fn meta() {
    let object = json!({"type": "object", "additionalProperties": false});
    // Nothing declared: no `_meta` at all.
    let plain = converted(&tool(object.clone()));
    assert!(plain.get("_meta").is_none(), "{plain}");

    let mut declared = tool(object);
    declared.version = Some("2.1.0".to_owned());
    let mut deprecation = Deprecation::new("2.0.0");
    deprecation.replacement = Some("b_tool".to_owned());
    declared.deprecated = Some(deprecation);
    let definition = converted(&declared);
    assert_eq!(
        definition["_meta"],
        json!({
            "dev.toolwright/version": "2.1.0",
            "dev.toolwright/deprecated": {"since": "2.0.0", "replacement": "b_tool"}
        })
    );
    assert!(dialect::check(Dialect::Mcp, &definition, &declared).is_empty());

    // What the tool declares must be there, as declared.
    let mut missing = definition.clone();
    missing.as_object_mut().expect("an object").remove("_meta");
    assert_has(
        &dialect::check(Dialect::Mcp, &missing, &declared),
        "mcp.meta",
        "/_meta",
    );
    let mut changed = definition.clone();
    changed["_meta"]["dev.toolwright/version"] = json!("2.2.0");
    assert_has(
        &dialect::check(Dialect::Mcp, &changed, &declared),
        "mcp.meta",
        "/_meta/dev.toolwright~1version",
    );
    assert_has(
        &dialect::check(
            Dialect::Mcp,
            &definition,
            &tool(json!({"type": "object", "additionalProperties": false})),
        ),
        "mcp.meta",
        "/_meta/dev.toolwright~1deprecated",
    );
    // Other keys are welcome when they are valid and not MCP's.
    let mut other = definition.clone();
    other["_meta"]["com.example/owner"] = json!("charts");
    assert!(dialect::check(Dialect::Mcp, &other, &declared).is_empty());
    for key in [
        "io.modelcontextprotocol/x",
        "dev.mcp/x",
        "-bad/x",
        "a/-x",
        "a..b/x",
    ] {
        let mut reserved = definition.clone();
        reserved["_meta"][key] = json!(1);
        assert_has(
            &dialect::check(Dialect::Mcp, &reserved, &declared),
            "mcp.meta",
            &format!("/_meta/{}", key.replace('~', "~0").replace('/', "~1")),
        );
    }
    for key in ["com.example.mcp/x", "x", "a.b-c/d_e.f", "dev.toolwright/"] {
        assert!(mcp::is_valid_meta_key(key), "{key}");
    }
    let mut not_an_object = definition;
    not_an_object["_meta"] = json!([1]);
    assert_has(
        &dialect::check(Dialect::Mcp, &not_an_object, &declared),
        "mcp.meta",
        "/_meta",
    );
}

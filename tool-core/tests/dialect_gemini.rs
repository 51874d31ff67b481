//! Gemini: one test per rule of `gemini::RULES`.

mod dialect_support;

use dialect_support::{assert_has, spec, tool};
use serde_json::{Value, json};
use toolwright_core::dialect::{self, Dialect, Violation, gemini};

/// The converted `parameters`; the checker has passed.
fn parameters(input: Value) -> Value {
    let definition = dialect::convert(Dialect::Gemini, &tool(input))
        .unwrap_or_else(|v| panic!("expected a definition, got {v:#?}"))
        .definition;
    definition["parameters"].clone()
}

/// The converted schema of the single property `p`.
fn property(schema: Value) -> Value {
    parameters(json!({"type": "object", "required": ["p"], "properties": {"p": schema}}))["properties"]["p"]
        .clone()
}

fn refused(input: Value) -> Vec<Violation> {
    dialect::convert(Dialect::Gemini, &tool(input)).expect_err("expected a refusal")
}

fn refused_property(schema: Value) -> Vec<Violation> {
    refused(json!({"type": "object", "properties": {"p": schema}}))
}

fn check_by_hand(parameters: Value) -> Vec<Violation> {
    let spec = tool(json!({"type": "object"}));
    let definition =
        json!({"name": "a_tool", "description": "Does a thing.", "parameters": parameters});
    dialect::check(Dialect::Gemini, &definition, &spec)
}

const TESTED: &[&str] = &[
    "gemini.name",
    "gemini.unique-name",
    "gemini.valid-schema",
    "gemini.object-root",
    "gemini.no-refs",
    "gemini.nullable",
    "gemini.keywords",
    "gemini.typed",
    "gemini.string-enum",
    "gemini.anyof-alone",
    "gemini.object-properties",
    "gemini.formats",
];

#[test]
fn every_rule_of_the_table_has_a_test() {
    let ids: Vec<&str> = gemini::RULES.iter().map(|r| r.id).collect();
    assert_eq!(ids, TESTED);
}

#[test]
fn the_shape_is_a_function_declaration_with_upper_case_types() {
    let definition = dialect::convert(
        Dialect::Gemini,
        &tool(json!({
            "type": "object",
            "required": ["n"],
            "properties": {"n": {"type": "integer", "minimum": 1}, "tags": {"type": "array", "items": {"type": "string"}}}
        })),
    )
    .expect("converts")
    .definition;
    assert_eq!(
        definition,
        json!({
            "name": "a_tool",
            "description": "Does a thing.",
            "parameters": {
                "type": "OBJECT",
                "required": ["n"],
                "properties": {
                    "n": {"type": "INTEGER", "minimum": 1},
                    "tags": {"type": "ARRAY", "items": {"type": "STRING"}}
                }
            }
        })
    );
}

#[test]
fn name() {
    let input = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    for bad in ["a/b", "has space", ""] {
        let violations =
            dialect::convert(Dialect::Gemini, &spec(bad, input.clone())).expect_err("bad name");
        assert_has(&violations, "gemini.name", "/name");
    }
    let long = "a".repeat(65);
    assert_has(
        &dialect::convert(Dialect::Gemini, &spec(&long, input.clone())).expect_err("too long"),
        "gemini.name",
        "/name",
    );
    dialect::convert(Dialect::Gemini, &spec("chart:pane.list-2", input)).expect("valid name");
}

#[test]
fn unique_name() {
    let a = tool(json!({"type": "object"}));
    let err = dialect::export(Dialect::Gemini, &[a.clone(), a]).expect_err("duplicate");
    assert_has(&err.violations, "gemini.unique-name", "/name");
}

#[test]
fn object_root() {
    assert_has(
        &refused(json!({"type": "string"})),
        "gemini.object-root",
        "/parameters/type",
    );
}

#[test]
fn no_refs() {
    let p = parameters(json!({
        "type": "object",
        "required": ["a"],
        "properties": {"a": {"$ref": "#/$defs/A", "description": "Outer."}, "b": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"type": "object", "description": "Inner.", "required": ["x"], "properties": {"x": {"$ref": "#/$defs/X"}}}, "X": {"type": "integer"}}
    }));
    assert!(p.get("$defs").is_none(), "{p}");
    assert_eq!(
        p["properties"]["a"],
        json!({"type": "OBJECT", "description": "Outer.", "required": ["x"], "properties": {"x": {"type": "INTEGER"}}})
    );
    assert_eq!(p["properties"]["b"]["description"], json!("Inner."));

    let recursive = refused(json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Tree"}},
        "$defs": {"Tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}}
    }));
    assert_has(
        &recursive,
        "gemini.no-refs",
        "/parameters/properties/tree/properties/kids/items/$ref",
    );
    assert_has(
        &refused_property(json!({"$ref": "https://example.com/a.json"})),
        "gemini.no-refs",
        "/parameters/properties/p/$ref",
    );
}

#[test]
fn nullable() {
    assert_eq!(
        property(json!({"type": ["string", "null"], "description": "Maybe."})),
        json!({"type": "STRING", "nullable": true, "description": "Maybe."})
    );
    assert_eq!(
        property(
            json!({"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}], "description": "Maybe."})
        ),
        json!({"type": "INTEGER", "minimum": 0, "nullable": true, "description": "Maybe."})
    );
    assert_eq!(
        property(json!({"type": ["string", "null"], "enum": ["a", null]})),
        json!({"type": "STRING", "nullable": true, "enum": ["a"]})
    );
    assert_eq!(
        property(json!({"type": ["string", "integer", "null"]})),
        json!({"anyOf": [{"type": "STRING", "nullable": true}, {"type": "INTEGER", "nullable": true}]})
    );
    assert_has(
        &check_by_hand(
            json!({"type": "OBJECT", "properties": {"p": {"type": ["STRING", "NULL"]}}}),
        ),
        "gemini.nullable",
        "/parameters/properties/p/type",
    );
}

#[test]
fn keywords() {
    let p = parameters(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": false,
        "required": ["price", "mode", "version", "tags"],
        "properties": {
            "price": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 100, "description": "Price."},
            "mode": {"type": "string", "const": "fast"},
            "version": {"type": "integer", "const": 2},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "examples": [["a", "b"]]},
            "merged": {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"required": ["a"]}]}
        }
    }));
    assert!(
        p.get("$schema").is_none() && p.get("additionalProperties").is_none(),
        "{p}"
    );
    let props = &p["properties"];
    assert_eq!(
        props["price"],
        json!({"type": "NUMBER", "description": "Price. (greater than 0; less than 100)"})
    );
    assert_eq!(props["mode"], json!({"type": "STRING", "enum": ["fast"]}));
    assert_eq!(
        props["version"],
        json!({"type": "INTEGER", "description": "(always 2)"})
    );
    assert_eq!(
        props["tags"],
        json!({"type": "ARRAY", "items": {"type": "STRING"}, "example": ["a", "b"], "description": "(items are unique)"})
    );
    assert_eq!(
        props["merged"],
        json!({"type": "OBJECT", "required": ["a"], "properties": {"a": {"type": "STRING"}}})
    );
    assert_has(
        &check_by_hand(
            json!({"type": "OBJECT", "additionalProperties": false, "properties": {"p": {"type": "STRING"}}}),
        ),
        "gemini.keywords",
        "/parameters/additionalProperties",
    );
}

#[test]
fn typed() {
    assert_eq!(
        property(json!({"enum": ["a", "b"]})),
        json!({"type": "STRING", "enum": ["a", "b"]})
    );
    assert_eq!(
        property(json!({"properties": {"x": {"type": "boolean"}}})),
        json!({"type": "OBJECT", "properties": {"x": {"type": "BOOLEAN"}}})
    );
    assert_has(
        &refused_property(json!({"description": "Anything."})),
        "gemini.typed",
        "/parameters/properties/p",
    );
    assert_has(
        &refused_property(json!({"type": "array"})),
        "gemini.typed",
        "/parameters/properties/p",
    );
    assert_has(
        &refused_property(json!({"type": "null"})),
        "gemini.typed",
        "/parameters/properties/p/type",
    );
}

#[test]
fn string_enum() {
    assert_eq!(
        property(json!({"type": "integer", "enum": [1, 5, 15]})),
        json!({"type": "INTEGER", "description": "(one of 1, 5, 15)"})
    );
    assert_eq!(
        property(
            json!({"oneOf": [{"const": "news", "description": "Recent."}, {"const": "pages"}]})
        ),
        json!({"type": "STRING", "enum": ["news", "pages"], "description": "(`news`: Recent.)"})
    );
    assert_has(
        &check_by_hand(
            json!({"type": "OBJECT", "properties": {"p": {"type": "INTEGER", "enum": [1, 2]}}}),
        ),
        "gemini.string-enum",
        "/parameters/properties/p/enum",
    );
}

#[test]
fn anyof_alone() {
    assert_eq!(
        property(json!({
            "description": "A shape.",
            "type": "object",
            "properties": {"r": {"type": "number"}, "w": {"type": "number"}},
            "anyOf": [{"required": ["r"]}, {"required": ["w"]}]
        })),
        json!({"anyOf": [
            {"description": "A shape.", "type": "OBJECT", "required": ["r"], "properties": {"r": {"type": "NUMBER"}, "w": {"type": "NUMBER"}}},
            {"description": "A shape.", "type": "OBJECT", "required": ["w"], "properties": {"r": {"type": "NUMBER"}, "w": {"type": "NUMBER"}}}
        ]})
    );
    assert_has(
        &refused_property(
            json!({"type": "string", "anyOf": [{"type": "integer"}, {"type": "string"}]}),
        ),
        "gemini.anyof-alone",
        "/parameters/properties/p/anyOf/0",
    );
}

#[test]
fn object_properties() {
    // A tool without parameters has no `parameters` at all.
    let definition = dialect::convert(
        Dialect::Gemini,
        &tool(json!({"type": "object", "additionalProperties": false})),
    )
    .expect("converts")
    .definition;
    assert_eq!(
        definition,
        json!({"name": "a_tool", "description": "Does a thing."})
    );
    assert_has(
        &refused(json!({"type": "object", "additionalProperties": {"type": "integer"}})),
        "gemini.object-properties",
        "/parameters",
    );
    assert_has(
        &refused_property(json!({"type": "object", "additionalProperties": {"type": "integer"}})),
        "gemini.object-properties",
        "/parameters/properties/p",
    );
}

#[test]
fn formats() {
    let p = parameters(json!({
        "type": "object",
        "properties": {
            "at": {"type": "string", "format": "date-time"},
            "site": {"type": "string", "format": "uri"},
            "n": {"type": "integer", "format": "int64"},
            "small": {"type": "integer", "format": "uint8", "minimum": 0},
            "x": {"type": "number", "format": "double"}
        }
    }));
    let props = &p["properties"];
    assert_eq!(
        props["at"],
        json!({"type": "STRING", "format": "date-time"})
    );
    assert_eq!(
        props["site"],
        json!({"type": "STRING", "description": "(format `uri`)"})
    );
    assert_eq!(props["n"], json!({"type": "INTEGER", "format": "int64"}));
    assert_eq!(props["small"], json!({"type": "INTEGER", "minimum": 0}));
    assert_eq!(props["x"], json!({"type": "NUMBER", "format": "double"}));
    assert_has(
        &check_by_hand(
            json!({"type": "OBJECT", "properties": {"p": {"type": "STRING", "format": "email"}}}),
        ),
        "gemini.formats",
        "/parameters/properties/p/format",
    );
}

#[test]
fn valid_schema() {
    let negative = refused(
        json!({"type": "object", "properties": {"p": {"type": "string", "maxLength": -1}}}),
    );
    assert_has(
        &negative,
        "gemini.valid-schema",
        "/parameters/properties/p/maxLength",
    );
    let bad_regex = refused(
        json!({"type": "object", "properties": {"p": {"type": "string", "pattern": "(open"}}}),
    );
    assert_has(
        &bad_regex,
        "gemini.valid-schema",
        "/parameters/properties/p/pattern",
    );
}

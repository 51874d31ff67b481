//! OpenAI strict mode: one test per rule of `openai::RULES`, and the nullable bookkeeping the
//! registry relies on.

#![cfg(feature = "generator")]

mod dialect_support;

use dialect_support::{assert_has, spec, tool};
use serde_json::{Map, Value, json};
use toolwright_manifest::ToolSpec;
use toolwright_manifest::dialect::{self, Dialect, Violation, openai};

/// The converted `parameters`; the checker has passed.
fn parameters(input: Value) -> Value {
    let definition = dialect::convert(Dialect::OpenAi, &tool(input))
        .unwrap_or_else(|v| panic!("expected a definition, got {v:#?}"));
    definition["parameters"].clone()
}

fn refused(input: Value) -> Vec<Violation> {
    dialect::convert(Dialect::OpenAi, &tool(input)).expect_err("expected a refusal")
}

/// An object with the given properties, all required.
fn object(properties: Value) -> Value {
    let required: Vec<String> = properties
        .as_object()
        .expect("object")
        .keys()
        .cloned()
        .collect();
    json!({"type": "object", "additionalProperties": false, "properties": properties, "required": required})
}

const TESTED: &[&str] = &[
    "openai.name",
    "openai.unique-name",
    "openai.max-functions",
    "openai.valid-schema",
    "openai.object-root",
    "openai.closed-objects",
    "openai.all-required",
    "openai.typed",
    "openai.refs",
    "openai.keywords",
    "openai.formats",
    "openai.limits",
];

#[test]
fn every_rule_of_the_table_has_a_test() {
    let ids: Vec<&str> = openai::RULES.iter().map(|r| r.id).collect();
    assert_eq!(ids, TESTED);
}

#[test]
fn the_shape_is_the_responses_api_function_tool() {
    let definition =
        dialect::convert(Dialect::OpenAi, &tool(json!({"type": "object"}))).expect("converts");
    assert_eq!(
        definition,
        json!({
            "type": "function",
            "name": "a_tool",
            "description": "Does a thing.",
            "parameters": {"type": "object", "properties": {}, "required": [], "additionalProperties": false},
            "strict": true
        })
    );
}

#[test]
fn name() {
    let input = json!({"type": "object"});
    for bad in ["chart.tool", "has space", ""] {
        let violations =
            dialect::convert(Dialect::OpenAi, &spec(bad, input.clone())).expect_err("bad name");
        assert_has(&violations, "openai.name", "/name");
    }
    let long = "a".repeat(65);
    assert_has(
        &dialect::convert(Dialect::OpenAi, &spec(&long, input.clone())).expect_err("too long"),
        "openai.name",
        "/name",
    );
    dialect::convert(Dialect::OpenAi, &spec("Chart-tool_2", input)).expect("valid name");
}

#[test]
fn unique_name() {
    let a = tool(json!({"type": "object"}));
    let err = dialect::export(Dialect::OpenAi, &[a.clone(), a]).expect_err("duplicate");
    assert_has(&err.violations, "openai.unique-name", "/name");
}

#[test]
fn max_functions() {
    let many: Vec<ToolSpec> = (0..129)
        .map(|i| spec(&format!("tool_{i:03}"), json!({"type": "object"})))
        .collect();
    let err = dialect::export(Dialect::OpenAi, &many).expect_err("too many");
    assert_eq!(err.violations.len(), 1, "{err}");
    assert_eq!(err.violations[0].rule, "openai.max-functions");
    assert_eq!(err.violations[0].tool, "tool_128");
    dialect::export(Dialect::OpenAi, &many[..128]).expect("128 is the limit");
    // The limit is per request: the checked-in catalog of a larger set is still written, and
    // a duplicate name is still refused there.
    let catalog = dialect::export_catalog(Dialect::OpenAi, &many).expect("no request limit");
    assert_eq!(catalog.as_array().map(Vec::len), Some(129));
    let mut twice = many.clone();
    twice.push(many[0].clone());
    let err = dialect::export_catalog(Dialect::OpenAi, &twice).expect_err("duplicate");
    assert_has(&err.violations, "openai.unique-name", "/name");
}

#[test]
fn object_root() {
    assert_has(
        &refused(json!({"type": "string"})),
        "openai.object-root",
        "/parameters/type",
    );
    let any_of = refused(
        json!({"anyOf": [object(json!({"a": {"type": "string"}})), object(json!({"b": {"type": "string"}}))]}),
    );
    assert_has(&any_of, "openai.object-root", "/parameters/anyOf");
}

#[test]
fn closed_objects() {
    // Open objects with declared properties are closed.
    let converted = parameters(json!({
        "type": "object",
        "required": ["style"],
        "properties": {"style": {"type": "object", "required": ["color"], "properties": {"color": {"type": "string"}}}}
    }));
    assert_eq!(converted["additionalProperties"], json!(false));
    assert_eq!(
        converted["properties"]["style"]["additionalProperties"],
        json!(false)
    );
    // Maps and free-form objects cannot be expressed: refused with the pointer.
    let map = refused(json!({
        "type": "object",
        "properties": {"scores": {"type": "object", "additionalProperties": {"type": "integer"}}}
    }));
    assert_has(
        &map,
        "openai.closed-objects",
        "/parameters/properties/scores",
    );
    let root_map = refused(json!({"type": "object", "additionalProperties": {"type": "string"}}));
    assert_has(&root_map, "openai.closed-objects", "/parameters");
    let free = refused(json!({"type": "object", "properties": {"extra": {"type": "object"}}}));
    assert_has(
        &free,
        "openai.closed-objects",
        "/parameters/properties/extra",
    );
    let pattern = refused(json!({
        "type": "object",
        "properties": {"tags": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}}}
    }));
    assert_has(
        &pattern,
        "openai.closed-objects",
        "/parameters/properties/tags",
    );
}

#[test]
fn all_required() {
    let schema = json!({
        "type": "object",
        "required": ["id"],
        "properties": {
            "id": {"type": "string"},
            "label": {"type": "string", "description": "Shown text."},
            "kind": {"type": "string", "enum": ["a", "b"]},
            "style": {"type": "object", "description": "Looks.", "properties": {"width": {"type": "integer"}}, "required": ["width"]},
            "anchor": {"$ref": "#/$defs/Anchor"},
            "note": {"type": ["string", "null"]},
            "fixed": {"type": "string", "const": "x"},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]}
        },
        "$defs": {"Anchor": {"type": "object", "properties": {"t": {"type": "integer"}}, "required": ["t"]}}
    });
    let p = parameters(schema.clone());
    assert_eq!(
        p["required"],
        json!([
            "anchor", "either", "fixed", "id", "kind", "label", "note", "style"
        ])
    );
    let props = &p["properties"];
    assert_eq!(props["id"], json!({"type": "string"}));
    assert_eq!(
        props["label"],
        json!({"type": ["string", "null"], "description": "Shown text."})
    );
    assert_eq!(
        props["kind"],
        json!({"type": ["string", "null"], "enum": ["a", "b", null]})
    );
    assert_eq!(
        props["style"],
        json!({"description": "Looks.", "anyOf": [
            {"type": "object", "properties": {"width": {"type": "integer"}}, "required": ["width"], "additionalProperties": false},
            {"type": "null"}
        ]})
    );
    assert_eq!(
        props["anchor"],
        json!({"anyOf": [{"$ref": "#/$defs/Anchor"}, {"type": "null"}]})
    );
    assert_eq!(
        props["note"],
        json!({"type": ["string", "null"]}),
        "already nullable: unchanged"
    );
    assert_eq!(
        props["fixed"],
        json!({"anyOf": [{"type": "string", "const": "x"}, {"type": "null"}]})
    );
    assert_eq!(
        props["either"],
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]})
    );

    // Exactly the properties that became nullable, as locations in the canonical schema.
    assert_eq!(
        dialect::openai_nullable_pointers(&schema),
        [
            "/properties/anchor",
            "/properties/either",
            "/properties/fixed",
            "/properties/kind",
            "/properties/label",
            "/properties/style",
        ]
    );
    // The checker refuses a property missing from `required`.
    let spec = tool(schema);
    let mut definition = dialect::convert(Dialect::OpenAi, &spec).expect("converts");
    definition["parameters"]["required"] = json!(["id"]);
    assert_has(
        &dialect::check(Dialect::OpenAi, &definition, &spec),
        "openai.all-required",
        "/parameters/properties/label",
    );
}

#[test]
fn nulls_are_stripped_exactly_where_strict_mode_added_them() {
    let schema = json!({
        "type": "object",
        "required": ["id", "note", "items"],
        "properties": {
            "id": {"type": "string"},
            "label": {"type": "string"},
            "note": {"type": ["string", "null"]},
            "maybe": {"type": ["string", "null"]},
            "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}}
        },
        "$defs": {"Item": {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}, "tag": {"type": "string"}}}}
    });
    let sent = json!({
        "id": null, "label": null, "note": null, "maybe": null,
        "items": [{"n": 1, "tag": null}, {"n": null, "tag": "x"}]
    });
    assert_eq!(
        dialect::strip_openai_nulls(&schema, &sent),
        json!({
            "id": null, "note": null, "maybe": null,
            "items": [{"n": 1}, {"n": null, "tag": "x"}]
        })
    );
    assert_eq!(
        dialect::openai_nullable_pointers(&schema),
        ["/$defs/Item/properties/tag", "/properties/label"]
    );
}

#[test]
fn typed() {
    let any = refused(
        json!({"type": "object", "properties": {"anything": {"description": "Any value."}}}),
    );
    assert_has(&any, "openai.typed", "/parameters/properties/anything");
    let boolean = refused(json!({"type": "object", "properties": {"yes": true}}));
    assert_has(&boolean, "openai.typed", "/parameters/properties/yes");
    // A bare enum or const is typed enough.
    parameters(
        json!({"type": "object", "required": ["a"], "properties": {"a": {"enum": ["x", "y"]}}}),
    );
}

#[test]
fn refs() {
    // A `$ref` with siblings is inlined, the siblings win.
    let p = parameters(json!({
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"$ref": "#/$defs/Kind", "description": "Which kind."}},
        "$defs": {"Kind": {"type": "string", "enum": ["a", "b"], "description": "A kind."}}
    }));
    assert_eq!(
        p["properties"]["kind"],
        json!({"type": "string", "enum": ["a", "b"], "description": "Which kind."})
    );
    // Recursion through a plain `$ref` is supported and kept.
    let p = parameters(json!({
        "type": "object",
        "required": ["tree"],
        "properties": {"tree": {"$ref": "#/$defs/Tree"}},
        "$defs": {"Tree": {"type": "object", "required": ["kids"], "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}}
    }));
    assert_eq!(p["properties"]["tree"], json!({"$ref": "#/$defs/Tree"}));
    assert_eq!(p["$defs"]["Tree"]["additionalProperties"], json!(false));
    // Remote and dangling references are refused.
    let remote = refused(
        json!({"type": "object", "required": ["a"], "properties": {"a": {"$ref": "https://example.com/a.json"}}}),
    );
    assert_has(&remote, "openai.refs", "/parameters/properties/a/$ref");
    let dangling = refused(
        json!({"type": "object", "required": ["a"], "properties": {"a": {"$ref": "#/$defs/Nope", "description": "x"}}}),
    );
    assert_has(&dangling, "openai.refs", "/parameters/properties/a/$ref");
}

#[test]
fn keywords() {
    let p = parameters(json!({
        "type": "object",
        "required": ["name", "tags", "when", "pick"],
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 3, "description": "A name."},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "minItems": 1},
            "when": {"allOf": [{"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}}, {"required": ["b"], "properties": {"b": {"type": "integer"}}}]},
            "pick": {"oneOf": [{"type": "string"}, {"type": "integer"}], "not": {"const": "none"}}
        }
    }));
    let props = &p["properties"];
    assert_eq!(
        props["name"],
        json!({"type": "string", "description": "A name. (at least 1 character; at most 3 characters)"})
    );
    assert_eq!(
        props["tags"],
        json!({"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "(items are unique)"})
    );
    assert_eq!(
        props["when"],
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"], "additionalProperties": false})
    );
    assert_eq!(
        props["pick"],
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "(must not match {\"const\":\"none\"})"})
    );
    // What cannot be merged or expressed is refused with the pointer.
    let conflict = refused(json!({
        "type": "object", "required": ["a"],
        "properties": {"a": {"allOf": [{"type": "string"}, {"type": "integer"}]}}
    }));
    assert_has(
        &conflict,
        "openai.keywords",
        "/parameters/properties/a/allOf/1",
    );
    let tuple = refused(json!({
        "type": "object", "required": ["pair"],
        "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}}
    }));
    assert_has(
        &tuple,
        "openai.keywords",
        "/parameters/properties/pair/prefixItems",
    );
    // The checker names a keyword left in by hand.
    let spec = tool(json!({"type": "object"}));
    let mut definition = dialect::convert(Dialect::OpenAi, &spec).expect("converts");
    definition["parameters"]["minProperties"] = json!(1);
    assert_has(
        &dialect::check(Dialect::OpenAi, &definition, &spec),
        "openai.keywords",
        "/parameters/minProperties",
    );
}

#[test]
fn formats() {
    let p = parameters(json!({
        "type": "object",
        "required": ["day", "site", "count"],
        "properties": {
            "day": {"type": "string", "format": "date"},
            "site": {"type": "string", "format": "uri"},
            "count": {"type": "integer", "format": "int64"}
        }
    }));
    assert_eq!(
        p["properties"]["day"],
        json!({"type": "string", "format": "date"})
    );
    assert_eq!(
        p["properties"]["site"],
        json!({"type": "string", "description": "(format `uri`)"})
    );
    assert_eq!(p["properties"]["count"], json!({"type": "integer"}));

    let spec = tool(json!({"type": "object"}));
    let mut definition = dialect::convert(Dialect::OpenAi, &spec).expect("converts");
    definition["parameters"]["properties"] = json!({"site": {"type": "string", "format": "uri"}});
    definition["parameters"]["required"] = json!(["site"]);
    assert_has(
        &dialect::check(Dialect::OpenAi, &definition, &spec),
        "openai.formats",
        "/parameters/properties/site/format",
    );
}

#[test]
fn limits() {
    // 11 levels of nested objects.
    let mut deep = json!({"type": "string"});
    for _ in 0..11 {
        deep = object(json!({"inner": deep}));
    }
    assert_has(&refused(deep), "openai.limits", "/parameters");
    let mut ten = json!({"type": "string"});
    for _ in 0..10 {
        ten = object(json!({"inner": ten}));
    }
    parameters(ten);

    let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
    assert_has(
        &refused(object(json!({"pick": {"type": "string", "enum": values}}))),
        "openai.limits",
        "/parameters",
    );

    let mut many = Map::new();
    for i in 0..5001 {
        many.insert(format!("p{i}"), json!({"type": "boolean"}));
    }
    assert_has(
        &refused(object(Value::Object(many))),
        "openai.limits",
        "/parameters",
    );

    let long: Vec<String> = (0..200).map(|i| format!("{i:0>700}")).collect();
    assert_has(
        &refused(object(json!({"pick": {"type": "string", "enum": long}}))),
        "openai.limits",
        "/parameters",
    );
}

#[test]
fn valid_schema() {
    let negative = refused(
        json!({"type": "object", "properties": {"p": {"type": "string", "maxLength": -1}}}),
    );
    assert_has(
        &negative,
        "openai.valid-schema",
        "/parameters/properties/p/maxLength",
    );
    let bad_regex = refused(
        json!({"type": "object", "properties": {"p": {"type": "string", "pattern": "(open"}}}),
    );
    assert_has(
        &bad_regex,
        "openai.valid-schema",
        "/parameters/properties/p/pattern",
    );
}

#[test]
fn what_strict_mode_sends_validates_against_the_canonical_schema_once_stripped() {
    let canonical = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["pane_id", "anchors"],
        "properties": {
            "pane_id": {"type": "string", "minLength": 1},
            "anchors": {"type": "array", "items": {
                "type": "object", "additionalProperties": false, "required": ["time"],
                "properties": {"time": {"type": "integer"}, "price": {"type": "number"}}
            }},
            "style": {"type": "object", "additionalProperties": false, "properties": {"width": {"type": "integer", "minimum": 1}}},
            "label": {"type": "string"},
            "kind": {"type": "string", "enum": ["a", "b"]}
        }
    });
    let strict = parameters(canonical.clone());
    let strict_validator =
        jsonschema::draft202012::new(&strict).expect("converted schema compiles");
    let canonical_validator = jsonschema::draft202012::new(&canonical).expect("canonical compiles");

    // What a strict-mode model sends: every property present, `null` for the optional ones.
    let sent = json!({
        "pane_id": "main",
        "anchors": [{"time": 1, "price": null}],
        "style": {"width": null},
        "label": null,
        "kind": null
    });
    assert!(
        strict_validator.is_valid(&sent),
        "strict mode accepts its own output"
    );
    assert!(
        !canonical_validator.is_valid(&sent),
        "the canonical schema refuses the nulls"
    );
    let stripped = dialect::strip_openai_nulls(&canonical, &sent);
    assert_eq!(
        stripped,
        json!({"pane_id": "main", "anchors": [{"time": 1}], "style": {}})
    );
    assert!(canonical_validator.is_valid(&stripped));

    // A null where the field was required stays, and stays invalid.
    let required_null = json!({"pane_id": null, "anchors": []});
    assert_eq!(
        dialect::strip_openai_nulls(&canonical, &required_null),
        required_null
    );
    assert!(!canonical_validator.is_valid(&required_null));
    assert!(!strict_validator.is_valid(
        &json!({"pane_id": null, "anchors": [], "style": null, "label": null, "kind": null})
    ));
}

//! OpenAI: one test per rule of `openai::RULES`, the two APIs' shapes, the fallback to
//! `"strict": false` for what strict mode cannot express, and the nullable bookkeeping the
//! registry relies on.

mod dialect_support;

use dialect_support::{assert_has, spec, tool};
use serde_json::{Map, Value, json};
use toolwright_core::ToolSpec;
use toolwright_core::dialect::{self, Dialect, Violation, openai};

/// The converted `parameters` of a strict function (Chat Completions shape); the checker has
/// passed.
fn parameters(input: Value) -> Value {
    let definition = dialect::convert(Dialect::OpenAi, &tool(input))
        .unwrap_or_else(|v| panic!("expected a definition, got {v:#?}"))
        .definition;
    assert_eq!(
        definition["function"]["strict"],
        json!(true),
        "{definition:#}"
    );
    definition["function"]["parameters"].clone()
}

/// The strict-mode rules a tool breaks; it is exported with `"strict": false` and its schema
/// as it is (or as little changed as every function needs), which is returned too.
fn non_strict(input: Value) -> (Vec<Violation>, Value) {
    let converted = dialect::convert(Dialect::OpenAi, &tool(input))
        .unwrap_or_else(|v| panic!("expected a definition, got {v:#?}"));
    let function = &converted.definition["function"];
    assert_eq!(function["strict"], json!(false), "{function:#}");
    assert!(!converted.is_strict());
    assert!(!converted.non_strict.is_empty());
    (converted.non_strict, function["parameters"].clone())
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
    "openai.shape",
    "openai.name",
    "openai.unique-name",
    "openai.max-functions",
    "openai.valid-schema",
    "openai.object-root",
    "openai.array-items",
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
    for rule in openai::STRICT_RULES {
        assert!(ids.contains(rule), "{rule}");
        let text = openai::RULES.iter().find(|r| r.id == *rule).map(|r| r.text);
        assert!(
            text.is_some_and(|t| t.starts_with("strict mode: ")),
            "{rule}"
        );
    }
}

#[test]
fn shape() {
    let spec = tool(json!({"type": "object"}));
    let function = json!({
        "name": "a_tool",
        "description": "Does a thing.",
        "parameters": {"type": "object", "properties": {}, "required": [], "additionalProperties": false},
        "strict": true
    });
    // Chat Completions nests the function, Responses flattens it: the same function.
    let chat = dialect::convert(Dialect::OpenAi, &spec)
        .expect("converts")
        .definition;
    assert_eq!(chat, json!({"type": "function", "function": function}));
    let responses = dialect::convert(Dialect::OpenAiResponses, &spec)
        .expect("converts")
        .definition;
    let mut flat = function.clone();
    flat["type"] = json!("function");
    assert_eq!(responses, flat);
    // One API's shape is refused as the other's.
    assert_has(
        &dialect::check(Dialect::OpenAi, &responses, &spec),
        "openai.shape",
        "/function",
    );
    let found = dialect::check(Dialect::OpenAiResponses, &chat, &spec);
    assert_has(&found, "openai.shape", "/function");
    assert_has(&found, "openai.name", "/name");
    let mut untyped = chat.clone();
    untyped["type"] = json!("custom");
    assert_has(
        &dialect::check(Dialect::OpenAi, &untyped, &spec),
        "openai.shape",
        "/type",
    );
    // Every violation of a Chat Completions tool points into its `function`.
    let violations = dialect::convert(
        Dialect::OpenAi,
        &dialect_support::spec("bad name", json!({"type": "string"})),
    )
    .expect_err("refused");
    assert_has(&violations, "openai.name", "/function/name");
    assert_has(
        &violations,
        "openai.object-root",
        "/function/parameters/type",
    );
}

/// Notion's tools declare one free-form object in `$defs` (shared by every tool): strict mode
/// cannot express it, a function without strict mode can.
const FREE_FORM_IN_DEFS: &str = r##"{
  "type": "object",
  "$defs": {"parentRequest": {"type": "object", "additionalProperties": true, "description": "The parent."}},
  "properties": {
    "parent": {"$ref": "#/$defs/parentRequest"},
    "title": {"type": "string", "minLength": 1}
  },
  "required": ["parent"]
}"##;

#[test]
fn a_tool_strict_mode_cannot_express_is_offered_without_it() {
    let schema: Value = serde_json::from_str(FREE_FORM_IN_DEFS).expect("JSON");
    let spec = tool(schema.clone());
    let chat = dialect::convert(Dialect::OpenAi, &spec).expect("a function");
    assert_eq!(
        chat.definition,
        json!({"type": "function", "function": {
            "name": "a_tool",
            "description": "Does a thing.",
            "parameters": schema,
            "strict": false
        }}),
        "the schema as it is: nothing made nullable, nothing closed"
    );
    assert_has(
        &chat.non_strict,
        "openai.closed-objects",
        "/function/parameters/$defs/parentRequest",
    );
    assert!(
        chat.non_strict
            .iter()
            .all(|v| openai::STRICT_RULES.contains(&v.rule) && v.tool == "a_tool"),
        "{:#?}",
        chat.non_strict
    );
    // The same decision for the Responses API, in its shape.
    let responses = dialect::convert(Dialect::OpenAiResponses, &spec).expect("a function");
    assert_eq!(responses.definition["strict"], json!(false));
    assert_eq!(
        responses.definition["parameters"],
        chat.definition["function"]["parameters"]
    );
    assert_has(
        &responses.non_strict,
        "openai.closed-objects",
        "/parameters/$defs/parentRequest",
    );
    // What the schema accepts, the export accepts.
    let export =
        jsonschema::draft202012::new(&chat.definition["function"]["parameters"]).expect("compiles");
    assert!(export.is_valid(&json!({"parent": {"page_id": "p", "x": 1}, "extra": true})));
    // A catalog and an export both carry it, and the catalog says why it is not strict.
    let catalog = dialect::catalog(Dialect::OpenAi, std::slice::from_ref(&spec));
    assert_eq!(catalog.excluded, []);
    assert_eq!(catalog.non_strict_tools(), ["a_tool"]);
    assert_eq!(catalog.definitions, json!([chat.definition]));
    assert_eq!(
        dialect::export(Dialect::OpenAi, std::slice::from_ref(&spec)),
        Ok(json!([chat.definition]))
    );
    // Where strict mode is required, it is left out instead, for the same reasons.
    let strict = catalog.strict_only();
    assert_eq!(strict.definitions, json!([]));
    assert_eq!(strict.excluded, chat.non_strict);
    assert_eq!(strict.non_strict, []);
}

#[test]
fn name() {
    let input = json!({"type": "object"});
    for bad in ["chart.tool", "has space", ""] {
        let violations =
            dialect::convert(Dialect::OpenAi, &spec(bad, input.clone())).expect_err("bad name");
        assert_has(&violations, "openai.name", "/function/name");
    }
    let long = "a".repeat(65);
    assert_has(
        &dialect::convert(Dialect::OpenAi, &spec(&long, input.clone())).expect_err("too long"),
        "openai.name",
        "/function/name",
    );
    dialect::convert(Dialect::OpenAi, &spec("Chart-tool_2", input)).expect("valid name");
}

#[test]
fn unique_name() {
    let a = tool(json!({"type": "object"}));
    let err = dialect::export(Dialect::OpenAi, &[a.clone(), a]).expect_err("duplicate");
    assert_has(&err.violations, "openai.unique-name", "/function/name");
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
    let catalog = dialect::catalog(Dialect::OpenAi, &many);
    assert_eq!(catalog.definitions.as_array().map(Vec::len), Some(129));
    assert_eq!(catalog.excluded, [], "no request limit");
    let mut twice = many.clone();
    twice.push(many[0].clone());
    let catalog = dialect::catalog(Dialect::OpenAi, &twice);
    assert_has(&catalog.excluded, "openai.unique-name", "/function/name");
    assert_eq!(
        catalog.excluded_tools(),
        ["tool_000"],
        "the duplicate is left out"
    );
}

#[test]
fn object_root() {
    // No function of either mode takes a root that is not an object, or a combinator there.
    assert_has(
        &refused(json!({"type": "string"})),
        "openai.object-root",
        "/function/parameters/type",
    );
    let any_of = refused(
        json!({"anyOf": [object(json!({"a": {"type": "string"}})), object(json!({"b": {"type": "string"}}))]}),
    );
    assert_has(&any_of, "openai.object-root", "/function/parameters/anyOf");
    let one_of = refused(
        json!({"type": "object", "properties": {"a": {"type": "object"}},
        "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}),
    );
    assert_has(&one_of, "openai.object-root", "/function/parameters/oneOf");
    // A root `allOf` is merged, and a root without `properties` gets `{}`: without strict mode
    // too, and neither narrows the schema.
    let (_, p) = non_strict(
        json!({"type": "object", "additionalProperties": {"type": "string"},
        "allOf": [{"properties": {"a": {"type": "string"}}}]}),
    );
    assert_eq!(
        p,
        json!({"type": "object", "additionalProperties": {"type": "string"}, "properties": {"a": {"type": "string"}}})
    );
    let (_, p) = non_strict(json!({"type": "object", "additionalProperties": true}));
    assert_eq!(
        p,
        json!({"type": "object", "additionalProperties": true, "properties": {}})
    );
    // The checker refuses a root written without `properties`.
    let spec = tool(json!({"type": "object", "additionalProperties": true}));
    let mut definition = dialect::convert(Dialect::OpenAi, &spec)
        .expect("converts")
        .definition;
    definition["function"]["parameters"] = json!({"type": "object"});
    assert_has(
        &dialect::check(Dialect::OpenAi, &definition, &spec),
        "openai.object-root",
        "/function/parameters",
    );
}

#[test]
fn array_items() {
    // Strict mode cannot say "any item"; without it, `items: {}` says it, as the schema did.
    let (violations, p) = non_strict(json!({
        "type": "object",
        "properties": {"list": {"type": "array"}, "rest": {"type": "array", "prefixItems": [{"type": "string"}], "items": true}}
    }));
    assert_has(
        &violations,
        "openai.array-items",
        "/function/parameters/properties/list",
    );
    assert_eq!(
        p["properties"]["list"],
        json!({"type": "array", "items": {}})
    );
    assert_eq!(
        p["properties"]["rest"],
        json!({"type": "array", "prefixItems": [{"type": "string"}], "items": {}})
    );
    // The checker refuses an array without `items` in either mode.
    for strict in [true, false] {
        let spec = tool(json!({"type": "object"}));
        let mut definition = dialect::convert(Dialect::OpenAi, &spec)
            .expect("converts")
            .definition;
        definition["function"]["strict"] = json!(strict);
        definition["function"]["parameters"] = json!({"type": "object", "properties": {"l": {"type": ["array", "null"]}},
            "required": ["l"], "additionalProperties": false});
        assert_has(
            &dialect::check(Dialect::OpenAi, &definition, &spec),
            "openai.array-items",
            "/function/parameters/properties/l",
        );
    }
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
    // Maps and free-form objects cannot be expressed in strict mode: the tool is exported
    // without it, its schema as it is, and the rule named with the pointer.
    let map_schema = json!({
        "type": "object",
        "properties": {"scores": {"type": "object", "additionalProperties": {"type": "integer"}}}
    });
    let (map, p) = non_strict(map_schema.clone());
    assert_has(
        &map,
        "openai.closed-objects",
        "/function/parameters/properties/scores",
    );
    assert_eq!(p, map_schema);
    let (root_map, _) =
        non_strict(json!({"type": "object", "additionalProperties": {"type": "string"}}));
    assert_has(&root_map, "openai.closed-objects", "/function/parameters");
    let (free, _) =
        non_strict(json!({"type": "object", "properties": {"extra": {"type": "object"}}}));
    assert_has(
        &free,
        "openai.closed-objects",
        "/function/parameters/properties/extra",
    );
    let (pattern, _) = non_strict(json!({
        "type": "object",
        "properties": {"tags": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}}}
    }));
    assert_has(
        &pattern,
        "openai.closed-objects",
        "/function/parameters/properties/tags",
    );
    // The checker refuses an open object in a strict function, and not in another.
    let spec = tool(json!({"type": "object"}));
    let mut definition = dialect::convert(Dialect::OpenAi, &spec)
        .expect("converts")
        .definition;
    definition["function"]["parameters"] = json!({"type": "object", "properties": {}});
    assert_has(
        &dialect::check(Dialect::OpenAi, &definition, &spec),
        "openai.closed-objects",
        "/function/parameters",
    );
    definition["function"]["strict"] = json!(false);
    assert_eq!(dialect::check(Dialect::OpenAi, &definition, &spec), []);
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
    let mut definition = dialect::convert(Dialect::OpenAi, &spec)
        .expect("converts")
        .definition;
    definition["function"]["parameters"]["required"] = json!(["id"]);
    assert_has(
        &dialect::check(Dialect::OpenAi, &definition, &spec),
        "openai.all-required",
        "/function/parameters/properties/label",
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
        dialect::strip_openai_nulls(&schema, &sent).into_owned(),
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
    let (any, p) = non_strict(
        json!({"type": "object", "properties": {"anything": {"description": "Any value."}}}),
    );
    assert_has(
        &any,
        "openai.typed",
        "/function/parameters/properties/anything",
    );
    assert_eq!(
        p["properties"]["anything"],
        json!({"description": "Any value."})
    );
    let (boolean, _) = non_strict(json!({"type": "object", "properties": {"yes": true}}));
    assert_has(
        &boolean,
        "openai.typed",
        "/function/parameters/properties/yes",
    );
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
    // Remote and dangling references are refused, with or without strict mode.
    let remote = refused(
        json!({"type": "object", "required": ["a"], "properties": {"a": {"$ref": "https://example.com/a.json"}}}),
    );
    assert_has(
        &remote,
        "openai.refs",
        "/function/parameters/properties/a/$ref",
    );
    let dangling = refused(
        json!({"type": "object", "required": ["a"], "properties": {"a": {"$ref": "#/$defs/Nope", "description": "x"}}}),
    );
    assert_has(
        &dangling,
        "openai.refs",
        "/function/parameters/properties/a/$ref",
    );
    // The checker refuses a `$ref` with siblings in a strict function only.
    let schema = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A", "description": "x"}},
        "required": ["a"], "additionalProperties": false, "$defs": {"A": {"type": "string"}}});
    let spec = tool(schema.clone());
    let mut definition = dialect::convert(Dialect::OpenAi, &spec)
        .expect("converts")
        .definition;
    definition["function"]["parameters"] = schema;
    assert_has(
        &dialect::check(Dialect::OpenAi, &definition, &spec),
        "openai.refs",
        "/function/parameters/properties/a/$ref",
    );
    definition["function"]["strict"] = json!(false);
    assert_eq!(dialect::check(Dialect::OpenAi, &definition, &spec), []);
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
    // What strict mode cannot merge or express is named with the pointer; without strict
    // mode, the schema is kept.
    let (conflict, p) = non_strict(json!({
        "type": "object", "required": ["a"],
        "properties": {"a": {"allOf": [{"type": "string"}, {"type": "integer"}]}}
    }));
    assert_has(
        &conflict,
        "openai.keywords",
        "/function/parameters/properties/a/allOf/1",
    );
    assert_eq!(
        p["properties"]["a"],
        json!({"allOf": [{"type": "string"}, {"type": "integer"}]})
    );
    let (tuple, p) = non_strict(json!({
        "type": "object", "required": ["pair"],
        "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}}
    }));
    assert_has(
        &tuple,
        "openai.keywords",
        "/function/parameters/properties/pair/prefixItems",
    );
    assert_eq!(
        p["properties"]["pair"],
        json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": {}})
    );
    // The checker names a keyword left in by hand in a strict function.
    let spec = tool(json!({"type": "object"}));
    let mut definition = dialect::convert(Dialect::OpenAi, &spec)
        .expect("converts")
        .definition;
    definition["function"]["parameters"]["minProperties"] = json!(1);
    assert_has(
        &dialect::check(Dialect::OpenAi, &definition, &spec),
        "openai.keywords",
        "/function/parameters/minProperties",
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
    let mut definition = dialect::convert(Dialect::OpenAi, &spec)
        .expect("converts")
        .definition;
    definition["function"]["parameters"]["properties"] =
        json!({"site": {"type": "string", "format": "uri"}});
    definition["function"]["parameters"]["required"] = json!(["site"]);
    assert_has(
        &dialect::check(Dialect::OpenAi, &definition, &spec),
        "openai.formats",
        "/function/parameters/properties/site/format",
    );
}

#[test]
fn limits() {
    // Past strict mode's limits, the function is exported without it.
    let limit = |input: Value| {
        let (violations, p) = non_strict(input.clone());
        assert_has(&violations, "openai.limits", "/function/parameters");
        assert_eq!(p, input);
    };
    // 11 levels of nested objects.
    let mut deep = json!({"type": "string"});
    for _ in 0..11 {
        deep = object(json!({"inner": deep}));
    }
    limit(deep);
    let mut ten = json!({"type": "string"});
    for _ in 0..10 {
        ten = object(json!({"inner": ten}));
    }
    parameters(ten);

    let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
    limit(object(json!({"pick": {"type": "string", "enum": values}})));

    let mut many = Map::new();
    for i in 0..5001 {
        many.insert(format!("p{i}"), json!({"type": "boolean"}));
    }
    limit(object(Value::Object(many)));

    let long: Vec<String> = (0..200).map(|i| format!("{i:0>700}")).collect();
    limit(object(json!({"pick": {"type": "string", "enum": long}})));
}

#[test]
fn valid_schema() {
    let negative = refused(
        json!({"type": "object", "properties": {"p": {"type": "string", "maxLength": -1}}}),
    );
    assert_has(
        &negative,
        "openai.valid-schema",
        "/function/parameters/properties/p/maxLength",
    );
    let bad_regex = refused(
        json!({"type": "object", "properties": {"p": {"type": "string", "pattern": "(open"}}}),
    );
    assert_has(
        &bad_regex,
        "openai.valid-schema",
        "/function/parameters/properties/p/pattern",
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
    let stripped = dialect::strip_openai_nulls(&canonical, &sent).into_owned();
    assert_eq!(
        stripped,
        json!({"pane_id": "main", "anchors": [{"time": 1}], "style": {}})
    );
    assert!(canonical_validator.is_valid(&stripped));

    // A null where the field was required stays, and stays invalid.
    let required_null = json!({"pane_id": null, "anchors": []});
    assert!(
        matches!(
            dialect::strip_openai_nulls(&canonical, &required_null),
            std::borrow::Cow::Borrowed(same) if same == &required_null
        ),
        "nothing to strip: the arguments are borrowed"
    );
    assert!(!canonical_validator.is_valid(&required_null));
    assert!(!strict_validator.is_valid(
        &json!({"pane_id": null, "anchors": [], "style": null, "label": null, "kind": null})
    ));
}

/// A call is copied only when it holds a `null` to remove, and a schema reused through `$ref`
/// is followed: its optional properties are nullable wherever it is used.
#[test]
fn the_null_stripper_borrows_what_it_leaves_and_follows_references() {
    use std::borrow::Cow;
    use toolwright_core::dialect::NullStripper;

    let plain = json!({"type": "object", "properties": {
        "a": {"type": "object", "properties": {"b": {"type": "string"}}},
        "c": {"type": "integer"}
    }, "required": ["a"]});
    let stripper = NullStripper::new(&plain);
    assert!(!stripper.is_empty());
    assert_eq!(
        stripper.strip(&json!({"a": {"b": null}})).into_owned(),
        json!({"a": {}})
    );
    assert_eq!(
        stripper.strip(&json!({"a": {}, "c": null})).into_owned(),
        json!({"a": {}})
    );
    let kept = json!({"a": null, "x": null});
    assert!(matches!(stripper.strip(&kept), Cow::Borrowed(_)));

    // `c` reuses `a`'s schema: `/c/b` is nullable too, though no pointer names it.
    let reused = json!({"type": "object", "properties": {
        "a": {"type": "object", "properties": {"b": {"type": "string"}}},
        "c": {"$ref": "#/properties/a"}
    }});
    let stripper = NullStripper::new(&reused);
    assert_eq!(
        stripper.strip(&json!({"c": {"b": null}})).into_owned(),
        json!({"c": {}})
    );

    let closed =
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
    assert!(NullStripper::new(&closed).is_empty());
}

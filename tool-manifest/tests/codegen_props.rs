//! Whatever schema a spec holds, the generator and the docs renderer answer without panicking,
//! and what the generator accepts is Rust that keeps every text of the spec exactly.

mod codegen_support;

use codegen_support::assert_rust;
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolwright_manifest::{ToolSpec, codegen, docs};

/// Words a schema is made of: supported keywords, unsupported ones, odd property names.
const KEYS: &[&str] = &[
    "type",
    "type",
    "type",
    "properties",
    "properties",
    "required",
    "items",
    "enum",
    "const",
    "title",
    "description",
    "default",
    "additionalProperties",
    "minimum",
    "minLength",
    "anyOf",
    "$ref",
    "type",
    "self",
    "r#x",
    "paneId",
    "1st",
    "a b",
    "Self",
    "",
    "~/",
];
const TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "array", "object", "null", "strng",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|n| json!(n)),
        proptest::sample::select(TYPES).prop_map(|t| json!(t)),
        "[a-zA-Z_ \\-\"#\n`|*/]{0,12}".prop_map(Value::String),
    ]
}

fn schema_like() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((proptest::sample::select(KEYS), inner), 0..6).prop_map(
                |entries| {
                    let map: Map<String, Value> = entries
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect();
                    Value::Object(map)
                }
            ),
            proptest::sample::subsequence(TYPES, 1..3).prop_map(|t| json!(t)),
        ]
    })
}

fn spec(name: &str, input_schema: Value) -> ToolSpec {
    serde_json::from_value(json!({
        "name": name,
        "title": "A tool | with \"quotes\"",
        "description": "Line one.\n\n    indented\n```\ncode\n```",
        "safety": "read-only",
        "mode": "parallel",
        "inputSchema": input_schema,
        "errors": [{"code": "A_1", "message": "m", "retryable": true, "recommendedAction": "r"},
                   {"code": "A1", "message": "m", "retryable": false, "recommendedAction": "r"}],
        "examples": [{"description": "e", "input": {}}]
    }))
    .expect("a spec")
}

proptest! {
    #[test]
    fn generation_never_panics_and_accepted_output_is_rust(
        properties in proptest::collection::btree_map("[a-zA-Z_0-9]{0,6}", schema_like(), 0..5),
        required in proptest::collection::vec("[a-z]{0,2}", 0..3),
        raw in schema_like(),
    ) {
        let object = json!({"type": "object", "properties": properties, "required": required});
        for schema in [object, raw] {
            let tool = spec("match", schema);
            match codegen::generate(std::slice::from_ref(&tool)) {
                Ok(code) => {
                    assert_rust(&code);
                    prop_assert_eq!(codegen::generate(std::slice::from_ref(&tool)).ok(), Some(code));
                }
                Err(e) => prop_assert!(e.to_string().starts_with("tool `match`: input schema at `/")),
            }
            for (name, text) in docs::render(std::slice::from_ref(&tool)) {
                prop_assert!(text.ends_with('\n') && !text.ends_with("\n\n"), "{}", name);
            }
        }
    }
}

/// Property names: plain, camelCase, keywords, not identifiers, colliding after conversion.
const NAMES: &[&str] = &[
    "pane_id", "paneId", "PaneId", "type", "self", "Self", "1st", "a-b", "a b", "", "_", "kind",
    "anchors", "entries", "data", "input", "error", "string", "option",
];

/// Schemas of the shapes the properties cover: types, enums, nullables, arrays, objects, maps.
fn supported() -> impl Strategy<Value = Value> {
    let words = proptest::collection::vec("[a-zA-Z0-9_ \\-]{0,6}", 1..5).prop_map(|mut w| {
        w.sort();
        w.dedup();
        w
    });
    let leaf = prop_oneof![
        Just(json!({"type": "string"})),
        words.prop_map(|w| json!({"type": "string", "enum": w, "title": "Word kind"})),
        Just(json!({"type": "integer", "minimum": 0, "default": 3})),
        Just(json!({"type": "number", "enum": [1.5, 2]})),
        Just(json!({"type": "boolean", "description": "a flag"})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"type": ["string", "number", "boolean"]})),
        Just(json!({"type": "object"})),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            inner
                .clone()
                .prop_map(|items| json!({"type": "array", "items": items, "minItems": 1})),
            inner
                .clone()
                .prop_map(|values| json!({"type": "object", "additionalProperties": values})),
            (
                proptest::collection::btree_map(proptest::sample::select(NAMES), inner, 0..4),
                any::<bool>(),
                any::<bool>(),
                proptest::option::of("[A-Z][a-z]{0,5}( [a-z]{1,4})?"),
            )
                .prop_map(|(properties, require_all, closed, title)| {
                    let required: Vec<&str> = if require_all {
                        properties.keys().copied().collect()
                    } else {
                        Vec::new()
                    };
                    let mut schema = json!({
                        "type": if closed { json!("object") } else { json!(["object", "null"]) },
                        "properties": properties,
                        "required": required,
                    });
                    if closed {
                        schema["additionalProperties"] = json!(false);
                    }
                    if let Some(title) = title {
                        schema["title"] = json!(title);
                    }
                    schema
                }),
        ]
    })
}

proptest! {
    #[test]
    fn every_supported_schema_generates_rust(
        properties in proptest::collection::btree_map(proptest::sample::select(NAMES), supported(), 0..5),
        require_all in any::<bool>(),
    ) {
        let required: Vec<&str> = if require_all { properties.keys().copied().collect() } else { Vec::new() };
        let schema = json!({"type": "object", "properties": properties, "required": required});
        let tool = spec("self_check", schema.clone());
        let code = codegen::generate(std::slice::from_ref(&tool));
        prop_assert!(code.is_ok(), "{} rejected: {}", schema, code.unwrap_or_else(|e| e.to_string()));
        let code = code.unwrap_or_default();
        let file = assert_rust(&code);
        // Every type name in the module is declared once.
        let names = file.types;
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        prop_assert_eq!(unique.len(), names.len(), "duplicate type names: {:?}", names);
    }
}

/// Text made of what Markdown, comments and string literals treat specially.
fn hostile_text() -> impl Strategy<Value = String> {
    let pieces = proptest::sample::select(vec![
        "```", "~~~", "`", "~", "rust", "text", "> ", ">", "- ", "* ", "1. ", "2) ", " ", "    ",
        "\t", "\n", "\r", "\r\n", "\"", "#", "\\", "*/", "/*", "//", "!", "\0", "\u{7}",
        "\u{202e}", "\u{2069}", "\u{2028}", "é", "panic!()", "<div>",
    ]);
    proptest::collection::vec(pieces, 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn any_text_is_kept_exactly_and_the_code_parses(
        description in hostile_text(),
        message in hostile_text(),
        property in hostile_text(),
    ) {
        let mut tool = spec("self", json!({
            "type": "object",
            "description": description,
            "properties": {"x": {"type": "string", "description": property, "default": message}}
        }));
        tool.description = description.clone();
        tool.title = message.clone();
        tool.errors[0].message = message.clone();
        let code = codegen::generate(std::slice::from_ref(&tool)).expect("generates");
        let file = assert_rust(&code);
        prop_assert_eq!(file.meta("description"), [description, "e".to_owned()]);
        prop_assert_eq!(file.meta("title"), [message.clone()]);
        prop_assert_eq!(&file.meta("message")[0], &message);
        let schema: Value = serde_json::from_str(&file.meta("input_schema")[0]).expect("JSON");
        prop_assert_eq!(&schema, &tool.input_schema);
    }
}

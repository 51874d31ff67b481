//! The generated Rust: snapshots of three tools, Rust that parses whatever the manifests hold
//! (the reference tool sets, adversarial names and strings, quotes and hashes, large values),
//! determinism, the Rust type of every mapping rule, and the builder's
//! write-only-when-changed behaviour.

mod codegen_support;

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use toolwright_manifest::build::BuildError;
use toolwright_manifest::codegen::{self, CodegenError};
use toolwright_manifest::{Builder, ToolSpec};

use codegen_support::assert_rust;

fn spec(value: Value) -> ToolSpec {
    let source = format!("tools/{}.toml", value["name"].as_str().expect("a name"));
    let mut spec: ToolSpec = serde_json::from_value(value).expect("a valid spec");
    spec.source = source;
    spec
}

/// A destructive tool with two plain string fields and one error.
fn simple() -> ToolSpec {
    spec(json!({
        "name": "drawing_delete",
        "title": "Delete a drawing",
        "description": "Deletes one drawing from a pane.",
        "safety": "destructive",
        "mode": "sequential",
        "category": "drawings",
        "inputSchema": {
            "type": "object",
            "required": ["pane_id", "drawing_id"],
            "additionalProperties": false,
            "properties": {
                "pane_id": {"type": "string", "description": "The pane."},
                "drawing_id": {"type": "string", "description": "The drawing to delete."}
            }
        },
        "errors": [{
            "code": "DRAWING_NOT_FOUND",
            "message": "The drawing does not exist.",
            "retryable": true,
            "recommendedAction": "List the drawings and use one of their IDs."
        }],
        "examples": [{"description": "Delete one drawing", "input": {"pane_id": "main", "drawing_id": "d1"}}]
    }))
}

/// A string enum, nested objects, an array of objects, optional fields and a name collision.
fn rich() -> ToolSpec {
    spec(json!({
        "name": "drawing_create",
        "title": "Create a drawing",
        "description": "Draws on a pane.\n\nThe anchors are bar times and prices.",
        "safety": "destructive",
        "mode": "sequential",
        "category": "drawings",
        "timeoutMs": 1500,
        "maxOutputBytes": 4096,
        "inputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "description": "Where and what to draw.",
            "required": ["pane_id", "kind", "anchors"],
            "additionalProperties": false,
            "properties": {
                "pane_id": {"type": "string", "description": "The pane.", "pattern": "^[a-z]+$"},
                "kind": {
                    "type": "string",
                    "description": "What to draw.",
                    "enum": ["trend_line", "horizontal_line"]
                },
                "anchors": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "required": ["time", "price"],
                        "properties": {
                            "time": {"type": "integer", "minimum": 0},
                            "price": {"type": "number"}
                        }
                    }
                },
                "style": {
                    "type": "object",
                    "description": "How it looks.",
                    "properties": {
                        "color": {"type": "string"},
                        "kind": {"type": "string", "enum": ["solid", "dashed"]},
                        "line": {
                            "type": "object",
                            "title": "Line options",
                            "properties": {"width": {"type": "integer", "default": 1}}
                        }
                    }
                },
                "label": {"type": ["string", "null"], "description": "Optional text."}
            }
        },
        "errors": [
            {
                "code": "PANE_NOT_FOUND",
                "message": "The pane does not exist.",
                "retryable": true,
                "recommendedAction": "Use one of the listed pane IDs."
            },
            {
                "code": "DATE_OUT_OF_RANGE",
                "message": "A time is outside the loaded bars.",
                "retryable": true,
                "recommendedAction": "Use a time inside the loaded range."
            }
        ],
        "examples": [{
            "description": "A trend line",
            "input": {"pane_id": "main", "kind": "trend_line", "anchors": [{"time": 1, "price": 2.5}, {"time": 2, "price": 3}]}
        }]
    }))
}

/// No input properties, no errors.
fn empty() -> ToolSpec {
    spec(json!({
        "name": "panes_list",
        "title": "List panes",
        "description": "Lists the panes.",
        "safety": "read-only",
        "mode": "parallel",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
        "errors": [],
        "examples": [{"description": "Every pane", "input": {}}]
    }))
}

fn generate(specs: &[ToolSpec]) -> String {
    codegen::generate(specs).expect("the specs generate")
}

/// The code of `specs` with `options`.
fn generate_with(specs: &[ToolSpec], options: &codegen::Options) -> String {
    codegen::generate_with(specs, options)
        .expect("the specs generate")
        .code
}

/// [`generate`], the types deriving `JsonSchema` too.
fn generate_deriving(specs: &[ToolSpec]) -> String {
    let mut options = codegen::Options::default();
    options.derive_json_schema = true;
    generate_with(specs, &options)
}

#[test]
fn simple_tool() {
    insta::assert_snapshot!(generate(&[simple()]));
}

#[test]
fn the_version_and_deprecation_are_frozen_in_the_metadata() {
    let mut deprecated = simple();
    deprecated.version = Some("2.1.0".to_owned());
    let mut deprecation = toolwright_manifest::Deprecation::new("2.0.0");
    deprecation.sunset = Some("2027-06-30".to_owned());
    deprecation.replacement = Some("drawings_clear".to_owned());
    deprecation.note = Some("Clear them all: \"#".to_owned());
    deprecated.deprecated = Some(deprecation);
    let code = generate(&[deprecated]);
    assert_rust(&code);
    assert!(
        code.contains(
            "    .version(\"2.1.0\")\n    .deprecated(\n        ::toolwright_runtime::__private::DeprecationMeta::new(\"2.0.0\")\n        .sunset(\"2027-06-30\")\n        .replacement(\"drawings_clear\")\n        .note(\"Clear them all: \\\"#\")\n    )\n    .source(\"tools/drawing_delete.toml\");\n"
        ),
        "{code}"
    );
    // Only what is declared: `since` alone is one call.
    let mut since_only = simple();
    since_only.deprecated = Some(toolwright_manifest::Deprecation::new("2026-01-15"));
    let code = generate(&[since_only]);
    assert!(
        code.contains(
            "    .deprecated(\n        ::toolwright_runtime::__private::DeprecationMeta::new(\"2026-01-15\")\n    )\n"
        ),
        "{code}"
    );
    assert!(!code.contains(".version("), "{code}");
    assert!(!generate(&[simple()]).contains(".deprecated("));
}

#[test]
fn a_declared_deferral_is_frozen_in_the_metadata() {
    let mut deferred = simple();
    deferred.defer_loading = true;
    let code = generate(&[deferred]);
    assert_rust(&code);
    assert!(
        code.contains("    .defer_loading()\n    .source(\"tools/drawing_delete.toml\");\n"),
        "{code}"
    );
    // Only when declared: an eager tool's metadata has no call.
    assert!(!generate(&[simple()]).contains(".defer_loading("));
}

#[test]
fn tool_with_enum_nested_objects_and_optional_fields() {
    insta::assert_snapshot!(generate(&[rich()]));
}

#[test]
fn tool_without_properties_or_errors() {
    insta::assert_snapshot!(generate(&[empty()]));
}

#[test]
fn output_starts_with_the_generated_line_and_parses() {
    let code = generate(&[simple(), rich(), empty()]);
    assert!(code.starts_with("// @generated by tool-manifest. Do not edit.\n"));
    assert_rust(&code);
    assert!(code.contains(
        "}\n\n/// Every tool declared by the manifests, sorted by name.\npub static ALL: &[&::toolwright_runtime::__private::ToolMeta] = &[\n    &drawing_create::META,\n    &drawing_delete::META,\n    &panes_list::META,\n];\n"
    ));
    assert_eq!(
        generate(&[]),
        "// @generated by tool-manifest. Do not edit.\n\n/// Every tool declared by the manifests, sorted by name.\npub static ALL: &[&::toolwright_runtime::__private::ToolMeta] = &[];\n"
    );
}

/// A tool whose every name and string is hostile to Rust syntax.
fn adversarial() -> ToolSpec {
    let long =
        "a_very_long_property_name_that_does_not_fit_on_one_line_with_its_attribute_around_it";
    let strings = "quote \" backslash \\ hash \"# \"## comment */ /* open // line \u{e9}\u{6f22}\u{1f600} tab\t nul\0 bell\u{7}";
    let mut nested = json!({"type": "string"});
    for _ in 0..12 {
        nested = json!({"type": ["object", "null"], "additionalProperties": {"type": "array", "items": nested}});
    }
    let description = format!(
        "/ starts with a slash.\n\n{strings}\r\nCR\ralone \u{202e}reversed\u{202c} and \u{2066}isolated\u{2069}\n\n```\nfn main() {{}}\n```\n\n    indented\n\t tabbed\n\n{}",
        "long ".repeat(40)
    );
    spec(json!({
        "name": "match",
        "title": strings,
        "description": description,
        "safety": "destructive",
        "mode": "sequential",
        "category": format!("category {strings} {}", "x".repeat(80)),
        "inputSchema": {
            "type": "object",
            "description": description,
            "required": ["type", "self", long],
            "properties": {
                "type": {"type": "string", "description": strings},
                "match": {"type": "integer", "default": 4102444800_u64, "minimum": -5000000000_i64},
                "self": {"type": "string", "enum": ["Self", "self", "", "1st", strings, "a-b", "a_b", long]},
                "Self": {"type": ["string", "null"]},
                "crate": {"type": ["string", "integer", "boolean"]},
                "fn": {"type": "object"},
                "r#x": {"type": "number", "examples": [0.5, -1.5, 1e300], "multipleOf": 0.25},
                "1st": {"type": "boolean"},
                "": {"type": "string"},
                "\"quoted\" \\ name": {"type": "string", "pattern": "^[\"\\\\]*$"},
                long: {"type": "string", "title": strings, "default": strings, "examples": [strings, strings, strings]},
                "deep": nested,
                "obj": {
                    "type": "object",
                    "title": "Obj",
                    "default": {"a": [1, {"b": null, "c": true}], "d": {}, "e": [], "f": "g"},
                    "properties": {"x": {"type": "integer"}},
                    "additionalProperties": false
                }
            }
        },
        "outputSchema": {"type": "object", "description": strings},
        "errors": [
            {"code": "A_VERY_LONG_ERROR_CODE_THAT_PUSHES_ITS_MATCH_ARM_PAST_THE_MARGIN_OF_THE_LINE", "message": strings, "retryable": true, "recommendedAction": strings},
            {"code": "SELF", "message": description, "retryable": false, "recommendedAction": "r"},
            {"code": "1", "message": "", "retryable": false, "recommendedAction": ""}
        ],
        "examples": [
            {"description": strings, "input": {"type": strings, "self": "self"}},
            {"description": "", "input": {"type": "", "self": "Self"}}
        ]
    }))
}

#[test]
fn adversarial_names_and_strings_are_rust() {
    let tool = adversarial();
    let code = generate(std::slice::from_ref(&tool));
    let file = assert_rust(&code);
    // Keywords are raw identifiers or renamed; every JSON property is kept.
    for expected in [
        "pub mod r#match {",
        "pub r#type: String,",
        "pub self_2: InputSelf,",
        "pub r#fn: Option<",
        "#[serde(rename = \"\\\"quoted\\\" \\\\ name\")]",
        // Characters a comment must not hold are escaped.
        "    /// alone \\u{202e}reversed\\u{202c} and \\u{2066}isolated\\u{2069}\n",
        " nul\\u{0} bell\\u{7}\n",
        // Fences and indentation that would make a doctest.
        "/// \\```\n/// fn main() {}\n/// \\```\n///\n///    indented\n///    tabbed\n",
        // Long lines stay whole.
        "        #[serde(rename = \"a_very_long_property_name_that_does_not_fit_on_one_line_with_its_attribute_around_it\")]\n",
        "Error::AVeryLongErrorCodeThatPushesItsMatchArmPastTheMarginOfTheLine => \"A_VERY_LONG_ERROR_CODE_THAT_PUSHES_ITS_MATCH_ARM_PAST_THE_MARGIN_OF_THE_LINE\",\n",
    ] {
        assert!(code.contains(expected), "no {expected:?} in\n{code}");
    }
    // Numbers that need a suffix in `json!`, in the schemars attributes of the derive.
    let derived = generate_deriving(std::slice::from_ref(&tool));
    assert_rust(&derived);
    for expected in [
        "\"default\" = 4102444800u64",
        "\"minimum\" = -5000000000i64",
    ] {
        assert!(derived.contains(expected), "no {expected:?} in\n{derived}");
    }
    // A comment cannot be closed or opened by a description: there are no block comments.
    assert!(!code.contains("/**"), "{code}");
    // The metadata holds every text exactly.
    assert_eq!(file.meta("description")[0], tool.description);
    assert_eq!(file.meta("title"), std::slice::from_ref(&tool.title));
    let messages: Vec<String> = tool.errors.iter().map(|e| e.message.clone()).collect();
    assert_eq!(file.meta("message"), messages);
    let schema: Value = serde_json::from_str(&file.meta("input_schema")[0]).expect("JSON");
    assert_eq!(schema, tool.input_schema);
    // The file is the same whichever way it is produced again.
    assert_eq!(code, generate(&[adversarial()]));
}

#[test]
fn many_tools_are_rust() {
    let specs: Vec<ToolSpec> = (0..40)
        .map(|i| {
            let mut tool = rich();
            tool.name = format!("tool_{i:02}_{}", "n".repeat(i));
            tool
        })
        .collect();
    assert_eq!(assert_rust(&generate(&specs)).meta("name").len(), 40);
}

#[test]
fn output_is_deterministic_and_independent_of_input_order() {
    let forward = generate(&[simple(), rich(), empty()]);
    assert_eq!(forward, generate(&[simple(), rich(), empty()]));
    assert_eq!(forward, generate(&[empty(), rich(), simple()]));
    assert_eq!(forward, generate(&[rich(), empty(), simple()]));
}

#[test]
fn names_follow_the_rules_of_the_contract() {
    let code = generate(&[rich()]);
    // `style.kind` collides with the top-level `Kind`: the parent's name is prefixed.
    assert!(code.contains("pub kind: Option<StyleKind>"), "{code}");
    // A `title` names the type; array items of `anchors` are `Anchor`.
    assert!(code.contains("pub line: Option<LineOptions>"), "{code}");
    assert!(code.contains("pub anchors: Vec<Anchor>"), "{code}");
    // `[T, "null"]` not required keeps absent (`None`) apart from `null` (`Some(None)`).
    assert!(code.contains("pub label: Option<Option<String>>"), "{code}");
    // The canonical schema has no `$schema` key.
    assert!(!code.contains("$schema"), "{code}");
}

#[test]
fn keyword_tool_and_property_names_become_raw_identifiers() {
    let mut tool = empty();
    tool.name = "match".to_owned();
    tool.input_schema = json!({
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"type": "string"}, "paneId": {"type": "integer"}}
    });
    let code = generate(&[tool]);
    assert!(code.contains("pub mod r#match {"), "{code}");
    assert!(
        code.contains("#[serde(rename = \"type\")]\n        pub r#type: String,"),
        "{code}"
    );
    assert!(code.contains("#[serde(rename = \"paneId\")]"), "{code}");
    assert!(code.contains("pub pane_id: Option<i64>"), "{code}");
    assert!(code.contains("&r#match::META"), "{code}");
}

fn codegen_error(schema: Value) -> CodegenError {
    let mut tool = empty();
    tool.input_schema = schema;
    codegen::generate(&[tool]).expect_err("refused")
}

/// The Rust field generated for property `x` of schema `property` (required when `required`),
/// with the nested items of the module.
fn field_of(property: Value, required: bool) -> String {
    let mut tool = empty();
    tool.input_schema = json!({
        "type": "object",
        "required": if required { json!(["x"]) } else { json!([]) },
        "properties": {"x": property},
        "$defs": {"point": {"type": "object", "properties": {"y": {"type": "number"}}}}
    });
    let code = generate(&[tool]);
    assert_rust(&code);
    code
}

/// One row per rule of the mapping table in `codegen`'s module docs: the schema and a piece of
/// the generated code. The docs table and this list are checked to have the same rows.
const RULES: &[(&str, &str, bool, &str)] = &[
    (
        "`true`, `{}`, annotations only",
        r#"{"description": "any"}"#,
        true,
        "pub x: ::toolwright_runtime::__private::serde_json::Value,",
    ),
    (
        "`string` (any `format`, `contentEncoding`)",
        r#"{"type": "string", "format": "uuid", "contentEncoding": "base64"}"#,
        true,
        "pub x: String,",
    ),
    (
        "`string` with `enum`, or an `enum` of strings",
        r#"{"enum": ["a", "b"]}"#,
        true,
        "pub x: X,",
    ),
    (
        "`enum` of mixed types",
        r#"{"enum": ["a", 1]}"#,
        true,
        "pub x: ::toolwright_runtime::__private::serde_json::Value,",
    ),
    (
        "`const`",
        r#"{"const": "fast"}"#,
        true,
        "pub enum X {\n        #[serde(rename = \"fast\")]\n        Fast,\n    }",
    ),
    (
        "`integer`",
        r#"{"type": "integer"}"#,
        true,
        "#[serde(deserialize_with = \"::toolwright_runtime::__private::integral\")]\n        pub x: i64,",
    ),
    (
        "`integer` beyond `i64`",
        r#"{"type": "integer", "minimum": 0, "maximum": 18446744073709551615}"#,
        true,
        "pub x: u64,",
    ),
    (
        "`number` / `boolean` / `null`",
        r#"{"type": "null"}"#,
        true,
        "pub x: (),",
    ),
    (
        "`array` with `items`",
        r#"{"type": "array", "items": {"type": "boolean"}}"#,
        true,
        "pub x: Vec<bool>,",
    ),
    (
        "`array` without `items`",
        r#"{"type": "array"}"#,
        true,
        "pub x: Vec<::toolwright_runtime::__private::serde_json::Value>,",
    ),
    (
        "`prefixItems` (draft-07: array `items`), all present, no more allowed",
        r#"{"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false, "minItems": 2}"#,
        true,
        "pub struct X(pub String, #[serde(deserialize_with = \"::toolwright_runtime::__private::integral\")] pub i64);",
    ),
    (
        "`prefixItems` with items missing or more allowed",
        r#"{"type": "array", "prefixItems": [{"type": "string"}]}"#,
        true,
        "pub x: Vec<::toolwright_runtime::__private::serde_json::Value>,",
    ),
    (
        "`object` with `properties`",
        r#"{"type": "object", "properties": {"y": {"type": "boolean"}}}"#,
        true,
        "pub x: X,",
    ),
    (
        "… and `additionalProperties: false` (no `patternProperties`)",
        r#"{"type": "object", "properties": {"y": {"type": "boolean"}}, "additionalProperties": false}"#,
        true,
        "#[serde(crate = \"::toolwright_runtime::__private::serde\", deny_unknown_fields)]",
    ),
    (
        "… and other properties allowed",
        r#"{"type": "object", "properties": {"y": {"type": "boolean"}}, "additionalProperties": {"type": "integer"}}"#,
        true,
        "#[serde(flatten, deserialize_with = \"::toolwright_runtime::__private::integral\")]\n        pub extra: ::std::collections::BTreeMap<String, i64>,",
    ),
    (
        "`object` with only an `additionalProperties` schema",
        r#"{"type": "object", "additionalProperties": {"type": "string"}}"#,
        true,
        "pub x: ::std::collections::BTreeMap<String, String>,",
    ),
    (
        "`object` with one `patternProperties` schema, no other property",
        r#"{"type": "object", "patternProperties": {"^a": {"type": "string"}}, "additionalProperties": false}"#,
        true,
        "pub x: ::std::collections::BTreeMap<String, String>,",
    ),
    (
        "`object` alone, `propertyNames`, other `patternProperties`",
        r#"{"type": "object", "propertyNames": {"maxLength": 3}}"#,
        true,
        "pub x: ::toolwright_runtime::__private::serde_json::Map<String, ::toolwright_runtime::__private::serde_json::Value>,",
    ),
    (
        "`[T, \"null\"]`, `anyOf`/`oneOf` of `T` and `{type: null}`",
        r#"{"anyOf": [{"type": "string"}, {"type": "null"}]}"#,
        true,
        "pub x: Option<String>,",
    ),
    (
        "optional nullable property",
        r#"{"type": ["string", "null"]}"#,
        false,
        "deserialize_with = \"::toolwright_runtime::__private::present\")]\n        pub x: Option<Option<String>>,",
    ),
    (
        "`default` of an optional property (valid for its schema)",
        r#"{"type": "string", "default": "x"}"#,
        false,
        "#[serde(default = \"Input::default_x\", skip_serializing_if = \"Option::is_none\")]",
    ),
    (
        "`anyOf`/`oneOf` of objects told apart by a `const` (or one-value `enum`) property",
        r#"{"oneOf": [{"type": "object", "required": ["kind"], "properties": {"kind": {"const": "a"}, "n": {"type": "number"}}}, {"type": "object", "required": ["kind"], "properties": {"kind": {"enum": ["b"]}}}]}"#,
        true,
        "tag = \"kind\")]",
    ),
    (
        "`anyOf`/`oneOf` of branches of distinct JSON types",
        r#"{"anyOf": [{"type": "string"}, {"type": "integer"}]}"#,
        true,
        "#[serde(crate = \"::toolwright_runtime::__private::serde\", untagged)]",
    ),
    (
        "`type` listing several types",
        r#"{"type": ["string", "integer"]}"#,
        true,
        "#[serde(crate = \"::toolwright_runtime::__private::serde\", untagged)]",
    ),
    (
        "other `anyOf`/`oneOf`, several types",
        r#"{"anyOf": [{"type": "number"}, {"type": "integer"}]}"#,
        true,
        "pub x: ::toolwright_runtime::__private::serde_json::Value,",
    ),
    (
        "`allOf`",
        r#"{"allOf": [{"description": "no type"}, {"type": "boolean"}]}"#,
        true,
        "pub x: bool,",
    ),
    (
        "`$ref` to a node of the schema",
        r##"{"$ref": "#/$defs/point"}"##,
        true,
        "pub x: Point,",
    ),
];

#[test]
fn every_mapping_rule_generates_its_type() {
    for (rule, schema, required, expected) in RULES {
        let schema: Value = serde_json::from_str(schema).expect("a schema");
        let code = field_of(schema, *required);
        assert!(
            code.contains(expected),
            "{rule}: expected {expected:?} in\n{code}"
        );
    }
}

#[test]
fn the_mapping_table_of_the_docs_lists_the_tested_rules() {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/codegen.rs"))
            .expect("the codegen module");
    let rows: Vec<&str> = docs
        .lines()
        .filter_map(|line| line.strip_prefix("//! | "))
        .filter_map(|row| row.split(" | ").next())
        .filter(|cell| *cell != "schema" && !cell.starts_with("---"))
        .collect();
    for (rule, ..) in RULES {
        let first = rule.split(" beyond").next().unwrap_or(rule);
        assert!(
            rows.iter().any(|row| row.starts_with(first)),
            "the rule {rule:?} is not in the docs table: {rows:#?}"
        );
    }
    for row in &rows {
        assert!(
            RULES
                .iter()
                .any(|(rule, ..)| rule.starts_with(row) || row.starts_with(rule))
                || *row == ROOT_RULE,
            "the docs row {row:?} has no test"
        );
    }
}

/// The enum generated for property `x` and the field, from `pub enum X ` to its closing brace.
fn enum_and_field(property: Value) -> (String, String) {
    let code = field_of(property, false);
    let start = code.find("pub enum X ").expect("an enum `X`");
    let end = start + code[start..].find("\n    }\n").expect("its end");
    let field = code
        .lines()
        .find(|line| line.contains("pub x: "))
        .expect("the field")
        .trim()
        .to_owned();
    (code[start..end].to_owned(), field)
}

#[test]
fn a_type_array_is_mapped_as_the_any_of_of_its_types() {
    for (types, any_of) in [
        (
            json!({"type": ["integer", "string"]}),
            json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        ),
        (
            json!({"type": ["string", "boolean", "null"], "minLength": 1}),
            json!({"anyOf": [{"type": "string", "minLength": 1}, {"type": "boolean"}, {"type": "null"}]}),
        ),
        (
            json!({"type": ["integer", "array"], "minimum": 0, "maximum": 18446744073709551615_u64, "items": {"type": "string"}}),
            json!({"anyOf": [{"type": "integer", "minimum": 0, "maximum": 18446744073709551615_u64}, {"type": "array", "items": {"type": "string"}}]}),
        ),
    ] {
        let (from_types, field) = enum_and_field(types.clone());
        assert_eq!(
            (from_types, field),
            enum_and_field(any_of.clone()),
            "{types} and {any_of}"
        );
    }
    let (union, field) = enum_and_field(json!({"type": ["string", "integer", "null"]}));
    assert_eq!(field, "pub x: Option<Option<X>>,");
    assert!(
        union.contains("String(String),") && union.contains("integral\")] i64),"),
        "{union}"
    );
    let code = field_of(json!({"type": ["string", "null"]}), true);
    assert!(code.contains("pub x: Option<String>,"), "{code}");
}

/// The fallbacks of a tool with `properties`, as `(pointer, reason)`.
fn fallbacks(properties: Value) -> Vec<(String, String)> {
    let mut tool = empty();
    tool.input_schema = json!({
        "type": "object",
        "properties": properties,
        "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}}
    });
    let generated =
        codegen::generate_with(&[tool], &codegen::Options::default()).expect("generated");
    generated
        .fallbacks
        .iter()
        .map(|f| {
            assert_eq!(f.tool, "panes_list");
            (f.pointer.clone(), f.reason.clone())
        })
        .collect()
}

#[test]
fn each_property_that_falls_back_to_value_is_reported_once_with_why() {
    let found = fallbacks(json!({
        "anything": {"description": "any value at all"},
        "free": true,
        "mixed": {"enum": ["a", 1]},
        "overlap": {"type": ["integer", "number"]},
        "either": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "string", "pattern": "^a"}]},
        "tree": {"$ref": "#/$defs/node"},
        "again": {"$ref": "#/$defs/node"},
        "huge": {"type": "integer", "minimum": -1e40, "maximum": 1e40},
        "config": {"const": {"a": 1}},
        "loose": {"type": "array", "prefixItems": [{"type": "string"}]},
        "typed": {"allOf": [{"enum": ["a", 1]}, {"type": "string"}]},
    }));
    assert_eq!(
        found,
        [
            ("/$defs/node/properties/next".to_owned(), "a recursive reference to `#/$defs/node`".to_owned()),
            ("/properties/config".to_owned(), "a `const` object or array".to_owned()),
            ("/properties/either".to_owned(), "the `anyOf` branches are neither of distinct JSON types nor objects told apart by a constant property".to_owned()),
            ("/properties/huge".to_owned(), "an `integer` whose bounds no Rust integer type spans".to_owned()),
            ("/properties/loose".to_owned(), "each item of a `prefixItems` array whose items may be missing or followed by more".to_owned()),
            ("/properties/mixed".to_owned(), "an `enum` of values other than strings".to_owned()),
            ("/properties/overlap".to_owned(), "the types `integer` and `number` overlap: no Rust enum tells their values apart".to_owned()),
        ]
    );
}

/// The rule tested by [`a_root_that_is_not_an_object_is_an_alias`].
const ROOT_RULE: &str = "a root that is not an object schema";

#[test]
fn a_root_that_is_not_an_object_is_an_alias() {
    let mut tool = empty();
    tool.input_schema = json!({"type": "array", "items": {"type": "string"}});
    let code = generate(&[tool]);
    assert_rust(&code);
    assert!(
        code.contains("pub type Input = Vec<String>;"),
        "{ROOT_RULE}: {code}"
    );
}

#[test]
fn a_schema_of_another_draft_is_refused_with_its_pointer() {
    let error = codegen_error(json!({"$schema": "http://json-schema.org/draft-04/schema#"}));
    assert_eq!(error.pointer, "/$schema");
    assert!(error.message.contains("unsupported `$schema`"), "{error}");
    assert!(
        error
            .to_string()
            .starts_with("tool `panes_list`: input schema at `/$schema`"),
        "{error}"
    );
}

#[test]
fn tools_named_self_super_or_crate_get_modules_no_tool_can_name() {
    let tools: Vec<ToolSpec> = ["self", "super", "crate", "self_", "match"]
        .iter()
        .map(|name| {
            let mut tool = empty();
            tool.name = (*name).to_owned();
            tool
        })
        .collect();
    let code = generate(&tools);
    let file = assert_rust(&code);
    for module in ["_self", "_super", "_crate", "self_", "r#match"] {
        assert!(
            code.contains(&format!("\npub mod {module} {{\n")),
            "{module}:\n{code}"
        );
    }
    assert!(
        code.contains("= &[\n    &_crate::META,\n    &r#match::META,\n    &_self::META,\n    &self_::META,\n    &_super::META,\n];\n"),
        "{code}"
    );
    // The metadata keeps the real names.
    assert_eq!(
        file.meta("name"),
        ["crate", "match", "self", "self_", "super"]
    );
}

#[test]
fn invalid_and_duplicate_names_are_errors() {
    let mut tool = empty();
    tool.name = "Panes".to_owned();
    let error = codegen::generate(&[tool]).expect_err("not a tool name");
    assert!(error.message.contains("not a valid tool name"), "{error}");

    let error = codegen::generate(&[empty(), empty()]).expect_err("declared twice");
    assert_eq!(error.tool, "panes_list");
    assert!(error.message.contains("twice"), "{error}");
}

/// Text that once ended a raw string literal early or made one impossible: a quote followed by
/// 255 hashes, in every string a manifest gives.
#[test]
fn a_quote_and_hashes_are_plain_string_literals() {
    let hashes = format!("\"{}", "#".repeat(255));
    let mut tool = spec(json!({
        "name": "quote_hashes",
        "title": hashes,
        "description": hashes,
        "safety": "read-only",
        "mode": "parallel",
        "category": hashes,
        "inputSchema": {
            "type": "object",
            "description": hashes,
            "properties": {"text": {"type": "string", "description": hashes, "default": hashes, "examples": [hashes]}}
        },
        "outputSchema": {"type": "object", "description": hashes},
        "errors": [{"code": "A", "message": hashes, "retryable": true, "recommendedAction": hashes}],
        "examples": [{"description": hashes, "input": {"text": hashes}}]
    }));
    tool.source = hashes.clone();
    let code = generate(std::slice::from_ref(&tool));
    assert!(!code.contains("r#\""), "no raw string:\n{code}");
    let file = assert_rust(&code);
    for field in [
        "title",
        "description",
        "category",
        "message",
        "recommended_action",
        "source",
    ] {
        let found = file.meta(field);
        assert!(found.contains(&hashes), "{field}: {found:?}");
    }
    for field in ["input_schema", "output_schema", "input"] {
        let text = &file.meta(field)[0];
        assert!(text.contains(&hashes), "{field}: {text}");
        serde_json::from_str::<Value>(text).expect("JSON text");
    }
}

/// Values that `json!` cannot take as tokens (its recursion passes the compiler's limit) are
/// JSON text parsed when the schema is derived (with `derive_json_schema`).
#[test]
fn large_schema_values_are_json_text() {
    let numbers: Vec<u32> = (1..=126).collect();
    let object: serde_json::Map<String, Value> =
        (1..=45).map(|i| (format!("k{i:02}"), json!(i))).collect();
    let mut tool = empty();
    tool.input_schema = json!({
        "type": "object",
        "properties": {
            "levels": {"type": "array", "items": {"type": "integer"}, "default": numbers, "examples": [numbers]},
            "weights": {"type": "object", "additionalProperties": {"type": "integer"}, "default": object}
        }
    });
    let code = generate_deriving(&[tool]);
    assert_rust(&code);
    let parse =
        ".parse::<::toolwright_runtime::__private::serde_json::Value>().unwrap_or_default()";
    let numbers_text = serde_json::to_string(&numbers).expect("JSON");
    let object_text = serde_json::to_string(&object).expect("JSON");
    for expected in [
        format!(
            "#[schemars(extend(\"default\" = {numbers_text:?}{parse}, \"examples\" = {:?}{parse}))]",
            format!("[{numbers_text}]")
        ),
        format!("#[schemars(extend(\"default\" = {object_text:?}{parse}))]"),
    ] {
        assert!(code.contains(&expected), "no {expected}\n{code}");
    }
}

const PANES_LIST: &str = r#"
name = "panes_list"
title = "List panes"
description = "Lists the panes."
safety = "read-only"
mode = "parallel"

[input]
type = "object"
properties = {}
additionalProperties = false
"#;

fn builder(root: &Path) -> Builder {
    Builder::new()
        .crate_dir(root)
        .out_dir(root.join("out"))
        .emit_rerun_if_changed(false)
}

fn modified(path: &Path) -> SystemTime {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .expect("the generated file exists")
}

#[test]
fn builder_writes_once_and_leaves_an_unchanged_file_alone() {
    let root = tempfile::tempdir().expect("a temp dir");
    fs::create_dir(root.path().join("tools")).expect("tools dir");
    fs::write(root.path().join("tools/panes_list.toml"), PANES_LIST).expect("manifest");

    let out = builder(root.path()).compile().expect("compiles");
    assert_eq!(out, root.path().join("out/tools.rs"));
    let code = fs::read_to_string(&out).expect("written");
    assert!(
        code.contains(r#".source("tools/panes_list.toml");"#),
        "{code}"
    );

    // Pretend the file is old: a rewrite would move its modification time.
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    fs::File::options()
        .write(true)
        .open(&out)
        .and_then(|f| f.set_modified(old))
        .expect("set mtime");
    builder(root.path()).compile().expect("compiles again");
    assert_eq!(modified(&out), old, "an unchanged file is not rewritten");
    assert_eq!(fs::read_to_string(&out).expect("still there"), code);

    // A changed manifest changes the file.
    fs::write(
        root.path().join("tools/panes_list.toml"),
        PANES_LIST.replace("Lists the panes.", "Lists every pane."),
    )
    .expect("manifest");
    builder(root.path())
        .compile()
        .expect("compiles after the change");
    assert_ne!(modified(&out), old);
    assert!(
        fs::read_to_string(&out)
            .expect("rewritten")
            .contains("Lists every pane.")
    );
}

#[test]
fn builder_options_choose_the_directories_and_the_file_name() {
    let root = tempfile::tempdir().expect("a temp dir");
    fs::create_dir_all(root.path().join("spec/agent")).expect("dir");
    fs::write(root.path().join("spec/agent/panes_list.toml"), PANES_LIST).expect("manifest");
    let out = Builder::new()
        .crate_dir(root.path())
        .manifest_dir("spec/agent")
        .out_dir(root.path().join("gen"))
        .out_file("agent_tools.rs")
        .emit_rerun_if_changed(false)
        .compile()
        .expect("compiles");
    assert_eq!(out, root.path().join("gen/agent_tools.rs"));
    let code = fs::read_to_string(&out).expect("written");
    assert!(
        code.contains(r#".source("spec/agent/panes_list.toml");"#),
        "{code}"
    );
}

#[test]
fn builder_reports_every_manifest_mistake_at_once() {
    let root = tempfile::tempdir().expect("a temp dir");
    fs::create_dir(root.path().join("tools")).expect("tools dir");
    fs::write(
        root.path().join("tools/a_tool.toml"),
        PANES_LIST
            .replace("panes_list", "a_tool")
            .replace("read-only", "readonly"),
    )
    .expect("manifest");
    fs::write(
        root.path().join("tools/b_tool.toml"),
        PANES_LIST
            .replace("panes_list", "b_tool")
            .replace("mode =", "mood ="),
    )
    .expect("manifest");
    let error = builder(root.path())
        .compile()
        .expect_err("two broken manifests");
    assert!(
        matches!(error, BuildError::Manifests(ref d) if d.0.len() >= 2),
        "{error}"
    );
    let text = error.to_string();
    assert!(text.contains("a_tool.toml:"), "{text}");
    assert!(text.contains("b_tool.toml:"), "{text}");
    // `main() -> Result<(), BuildError>` prints `Debug`: it must read the same.
    assert_eq!(format!("{error:?}"), text);
    assert!(!root.path().join("out/tools.rs").exists());
}

#[test]
fn builder_mistakes_name_files_relative_to_the_crate() {
    let root = tempfile::tempdir().expect("a temp dir");
    fs::create_dir(root.path().join("tools")).expect("tools dir");
    fs::write(
        root.path().join("tools/panes_list.toml"),
        PANES_LIST.replace(
            "[input]\ntype = \"object\"\nproperties = {}\nadditionalProperties = false\n",
            "input = { file = \"panes_list.input.json\" }\n",
        ),
    )
    .expect("manifest");
    fs::write(
        root.path().join("tools/panes_list.input.json"),
        "{\n  \"type\": \"int\"\n}\n",
    )
    .expect("schema file");
    let error = builder(root.path())
        .compile()
        .expect_err("an invalid schema file");
    let text = error.to_string();
    assert_eq!(
        text,
        "the tool manifests have mistakes:\nerror: tools/panes_list.input.json:2:11: the input schema is not valid JSON Schema (2020-12) at `/type`: `type` must be one of \"array\", \"boolean\", \"integer\", \"null\", \"number\", \"object\", \"string\", or a list of them, found \"int\""
    );
    // A manifest directory outside the crate keeps the path it was given.
    let outside = tempfile::tempdir().expect("a temp dir");
    fs::write(
        outside.path().join("panes_list.toml"),
        PANES_LIST.replace("read-only", "readonly"),
    )
    .expect("manifest");
    let error = builder(root.path())
        .manifest_dir(outside.path())
        .compile()
        .expect_err("a broken manifest");
    assert!(
        error.to_string().contains(&format!(
            "{}:",
            outside.path().join("panes_list.toml").display()
        )),
        "{error}"
    );
}

#[test]
fn builder_reports_schemas_outside_the_subset() {
    let root = tempfile::tempdir().expect("a temp dir");
    fs::create_dir(root.path().join("tools")).expect("tools dir");
    let manifest = PANES_LIST.replace("properties = {}", "properties = { x = { oneOf = [] } }");
    fs::write(root.path().join("tools/panes_list.toml"), manifest).expect("manifest");
    let error = builder(root.path())
        .compile()
        .expect_err("oneOf is not supported");
    // The generator refuses it (the manifest loader may refuse it first, at its line).
    assert!(
        matches!(error, BuildError::Codegen(_) | BuildError::Manifests(_)),
        "{error}"
    );
    assert!(error.to_string().contains("/properties/x"), "{error}");
}

#[test]
fn the_null_of_a_nullable_enum_is_the_none_of_its_option() {
    let mut tool = empty();
    tool.input_schema = json!({
        "type": "object",
        "required": ["side"],
        "properties": {"side": {"type": ["string", "null"], "enum": ["buy", "sell", null]}}
    });
    let code = generate(&[tool]);
    assert!(code.contains("pub side: Option<Side>"), "{code}");
    assert!(code.contains("Buy,") && code.contains("Sell,"), "{code}");
}

/// A tool with a map argument: OpenAI's strict mode cannot express it, Gemini cannot at all.
const LABELS_SET: &str = r#"name = "labels_set"
title = "Set labels"
description = "Sets labels."
safety = "destructive"
mode = "sequential"

[input]
type = "object"
required = ["labels"]
properties.labels = { type = "object", additionalProperties = { type = "string" } }
"#;

#[test]
fn required_strict_makes_a_function_strict_mode_cannot_express_an_error() {
    let root = tempfile::tempdir().expect("a temp dir");
    fs::create_dir_all(root.path().join("tools")).expect("dir");
    fs::write(root.path().join("tools/labels_set.toml"), LABELS_SET).expect("manifest");
    let err = builder(root.path())
        .required_strict(true)
        .compile()
        .expect_err("strict mode is required");
    let BuildError::NotStrict(error) = &err else {
        panic!("a strict-mode error: {err}");
    };
    assert!(
        error.violations.iter().any(|v| v.tool == "labels_set"
            && v.rule == "openai.closed-objects"
            && v.pointer == "/function/parameters/properties/labels"),
        "{err}"
    );
    assert!(err.to_string().contains("`required_strict`"), "{err}");
    // Not offered to OpenAI at all: nothing to require.
    builder(root.path())
        .providers(&[toolwright_manifest::dialect::Dialect::Mcp])
        .required_strict(true)
        .compile()
        .expect("no OpenAI function");
    // A set whose every function is strict builds.
    fs::write(root.path().join("tools/labels_set.toml"), PANES_LIST).expect("manifest");
    fs::rename(
        root.path().join("tools/labels_set.toml"),
        root.path().join("tools/panes_list.toml"),
    )
    .expect("rename");
    builder(root.path())
        .required_strict(true)
        .compile()
        .expect("every function is strict");
}

#[test]
fn a_required_provider_that_cannot_express_a_tool_fails_the_build_others_warn() {
    let root = tempfile::tempdir().expect("a temp dir");
    fs::create_dir_all(root.path().join("tools")).expect("dir");
    fs::write(root.path().join("tools/labels_set.toml"), LABELS_SET).expect("manifest");
    // Only warnings (printed for cargo): the code is generated.
    builder(root.path())
        .compile()
        .expect("a warning, not an error");
    let err = builder(root.path())
        .required_providers(&[toolwright_manifest::dialect::Dialect::Gemini])
        .compile()
        .expect_err("Gemini is required");
    let BuildError::Providers(error) = &err else {
        panic!("a provider error: {err}");
    };
    assert!(
        error
            .violations
            .iter()
            .all(|v| v.tool == "labels_set" && v.rule.starts_with("gemini.")),
        "{err}"
    );
    // OpenAI takes it, without strict mode.
    builder(root.path())
        .required_providers(&[toolwright_manifest::dialect::Dialect::OpenAi])
        .compile()
        .expect("OpenAI takes a map in a function that is not strict");
    builder(root.path())
        .required_providers(&[toolwright_manifest::dialect::Dialect::Mcp])
        .compile()
        .expect("MCP takes a map");
}

/// The schema of a generated type is the manifest's: the types derive schemars' `JsonSchema`
/// only when asked to.
#[test]
fn the_types_derive_json_schema_only_when_asked() {
    let code = generate(&[rich()]);
    assert!(
        !code.contains("JsonSchema") && !code.contains("schemars"),
        "{code}"
    );

    let derived = generate_deriving(&[rich()]);
    let file = assert_rust(&derived);
    let derives = derived
        .matches("::toolwright_runtime::__private::schemars::JsonSchema)]")
        .count();
    let crates = derived
        .matches("#[schemars(crate = \"::toolwright_runtime::__private::schemars\")]")
        .count();
    // Every type but `Error`, which is no input.
    assert_eq!(derives, file.types.len() - 1, "{derived}");
    assert_eq!(crates, derives, "{derived}");
    assert!(derived.contains("#[schemars(extend(\"pattern\" = \"^[a-z]+$\"))]"));

    // The builder passes the option on.
    let root = tempfile::tempdir().expect("a temp dir");
    fs::create_dir(root.path().join("tools")).expect("tools dir");
    fs::write(root.path().join("tools/panes_list.toml"), PANES_LIST).expect("manifest");
    let read = |builder: Builder| {
        fs::read_to_string(builder.compile().expect("compiles")).expect("written")
    };
    assert!(!read(builder(root.path())).contains("JsonSchema"));
    assert!(read(builder(root.path()).derive_json_schema(true)).contains("JsonSchema"));
}

fn externs(pairs: &[(&str, &str)]) -> codegen::Options {
    let mut options = codegen::Options::default();
    for (generated, rust) in pairs {
        options
            .extern_types
            .insert((*generated).to_owned(), (*rust).to_owned());
    }
    options
}

#[test]
fn an_extern_type_replaces_the_generated_type_and_what_it_holds() {
    let options = externs(&[
        ("drawing_create::Anchor", "crate::chart::Anchor"),
        ("*::Kind", "crate::chart::Kind"),
        ("drawing_create::Style", "::chart::Style"),
    ]);
    let code = generate_with(&[rich(), simple()], &options);
    let file = assert_rust(&code);
    for expected in [
        "pub anchors: Vec<crate::chart::Anchor>,",
        "pub kind: crate::chart::Kind,",
        "pub style: Option<::chart::Style>,",
    ] {
        assert!(code.contains(expected), "no {expected:?} in\n{code}");
    }
    // No type of its own, nor for the types inside `Style` (`StyleKind`, `LineOptions`).
    assert_eq!(file.types, ["Input", "Error", "Input", "Error"], "{code}");
    // The metadata keeps the manifest's schema.
    let schema: Value = serde_json::from_str(&file.meta("input_schema")[0]).expect("JSON");
    let mut declared = rich().input_schema;
    declared.as_object_mut().map(|o| o.remove("$schema"));
    assert_eq!(schema, declared);
}

#[test]
fn a_tools_own_extern_type_wins_over_one_for_every_tool() {
    let options = externs(&[
        ("*::Kind", "crate::every::Kind"),
        ("drawing_create::Kind", "crate::own::Kind"),
    ]);
    let code = generate_with(&[rich()], &options);
    assert!(code.contains("pub kind: crate::own::Kind,"), "{code}");
    assert!(!code.contains("crate::every::Kind"), "{code}");
}

#[test]
fn an_extern_type_may_be_a_whole_input_or_a_nullable_enum() {
    let options = externs(&[
        ("panes_list::Input", "crate::NoArgs"),
        ("drawing_create::Kind", "crate::r#type::Kind"),
    ]);
    let mut tool = rich();
    tool.input_schema["properties"]["kind"]["enum"] = json!(["trend_line", null]);
    tool.input_schema["properties"]["kind"]
        .as_object_mut()
        .expect("an object")
        .remove("type");
    let code = generate_with(&[empty(), tool], &options);
    assert_rust(&code);
    assert!(code.contains("pub type Input = crate::NoArgs;"), "{code}");
    assert!(
        code.contains("pub kind: Option<crate::r#type::Kind>,"),
        "{code}"
    );
}

#[test]
fn an_extern_type_that_replaces_nothing_or_is_no_path_is_an_error() {
    let error = |generated: &str, rust: &str| {
        codegen::generate_with(&[rich()], &externs(&[(generated, rust)]))
            .expect_err("refused")
            .to_string()
    };
    let cases = [
        (
            "drawing_create::Anchr",
            "crate::Anchor",
            "extern type `drawing_create::Anchr`: `drawing_create` has no generated type `Anchr`",
        ),
        (
            "drawing_delete::Anchor",
            "crate::Anchor",
            "extern type `drawing_delete::Anchor`: no tool is named `drawing_delete`",
        ),
        (
            "*::Nothing",
            "crate::Nothing",
            "extern type `*::Nothing`: no tool has a generated type `Nothing`",
        ),
        (
            "Anchor",
            "crate::Anchor",
            "extern type `Anchor`: expected the path of a generated type, `tool::Type` or `*::Type`",
        ),
        (
            "drawing_create::Anchor",
            "crate::Anchor<u8>",
            "extern type `drawing_create::Anchor`: `crate::Anchor<u8>` is not the path of a Rust type",
        ),
        (
            "drawing_create::Anchor",
            "",
            "extern type `drawing_create::Anchor`: `` is not the path of a Rust type",
        ),
        (
            "drawing_create::Anchor",
            "r#crate::Anchor",
            "`r#crate::Anchor` is not the path of a Rust type",
        ),
    ];
    for (generated, rust, expected) in cases {
        let message = error(generated, rust);
        assert!(message.contains(expected), "{message}");
    }
    // The build fails with it.
    let root = tempfile::tempdir().expect("a temp dir");
    fs::create_dir(root.path().join("tools")).expect("tools dir");
    fs::write(root.path().join("tools/panes_list.toml"), PANES_LIST).expect("manifest");
    let failed = builder(root.path())
        .extern_type("panes_list::Pane", "crate::Pane")
        .compile();
    assert!(
        matches!(&failed, Err(BuildError::Codegen(e)) if e.message.contains("no generated type `Pane`")),
        "{failed:?}"
    );
}

#[test]
fn the_error_enum_reads_its_codes() {
    let code = generate(&[rich(), empty()]);
    for expected in [
        "pub fn from_code(code: &str) -> Option<Self> {",
        "\"PANE_NOT_FOUND\" => Some(Error::PaneNotFound),",
        "\"DATE_OUT_OF_RANGE\" => Some(Error::DateOutOfRange),",
        "_ => None,",
        // A tool without codes reads none.
        "pub fn from_code(_code: &str) -> Option<Self> {",
        "impl<'a> ::core::convert::TryFrom<&'a str> for Error {",
        "Self::from_code(code).ok_or(code)",
    ] {
        assert!(code.contains(expected), "no {expected:?} in\n{code}");
    }
}

//! The report `InputSchema::check` gives on edge inputs: numbers at the limits of `i64`, `u64` and
//! `f64`, integer-valued floats, characters outside the Basic Multilingual Plane, `~` and `/` and
//! index-like text in keys, the empty key, long keys, composition keywords, schemas as schemars
//! writes them.

use serde_json::{Value, json};
use toolwright_runtime::validate::INPUT_INVALID_PREFIX;
use toolwright_runtime::validate::InputSchema;

/// The report for `instance`, without its prefix; `None` when the instance is valid.
fn report(schema: &Value, instance: &Value) -> Option<String> {
    let compiled = InputSchema::compile(schema).unwrap_or_else(|e| panic!("{schema}: {e}"));
    let verdict = compiled.is_valid(instance);
    let checked = compiled.check(instance);
    assert_eq!(
        verdict,
        checked.is_ok(),
        "is_valid and check disagree: {schema} on {instance}"
    );
    checked.err().map(|errors| {
        let text = errors.report();
        text.strip_prefix(INPUT_INVALID_PREFIX)
            .unwrap_or_else(|| panic!("no prefix: {text}"))
            .to_owned()
    })
}

fn assert_reports(cases: &[(Value, Value, Option<&str>)]) {
    for (schema, instance, expected) in cases {
        assert_eq!(
            report(schema, instance).as_deref(),
            *expected,
            "schema {schema}\ninstance {instance}"
        );
    }
}

/// Numbers: integers are the integer-valued numbers, and every comparison is exact, also past
/// 2^53 and across integers and floats.
#[test]
fn numbers_compare_exactly() {
    assert_reports(&[
        (json!({"type": "integer"}), json!(1.0), None),
        (json!({"type": "integer"}), json!(1e300), None),
        (
            json!({"type": ["integer", "string"]}),
            json!(1.5),
            Some("/: Expected integer or string"),
        ),
        (json!({"enum": [1, "a", null]}), json!(1.0), None),
        (json!({"enum": [[1], {"a": 1}]}), json!([1.0]), None),
        (
            json!({"const": {"a": [1, 2]}}),
            json!({"a": [1.0, 2]}),
            None,
        ),
        (
            json!({"uniqueItems": true}),
            json!([1, 1.0]),
            Some("/: Expected unique items"),
        ),
        (
            json!({"uniqueItems": true}),
            json!([0, -0.0]),
            Some("/: Expected unique items"),
        ),
        (
            json!({"uniqueItems": true}),
            json!((0..20).map(|i| json!({"k": i % 19})).collect::<Vec<_>>()),
            Some("/: Expected unique items"),
        ),
        (json!({"uniqueItems": true}), json!([1, 1.5, "1"]), None),
        (json!({"multipleOf": 0.1}), json!(0.3), None),
        (json!({"multipleOf": 0.01}), json!(1.1), None),
        (
            json!({"multipleOf": 0.01}),
            json!(1.105),
            Some("/: Expected number to be a multiple of 0.01"),
        ),
        (
            json!({"multipleOf": 3}),
            json!(9_223_372_036_854_775_806u64),
            None,
        ),
        (
            json!({"multipleOf": 3}),
            json!(9_223_372_036_854_775_807u64),
            Some("/: Expected number to be a multiple of 3"),
        ),
        (json!({"multipleOf": 1e-16}), json!(1e-15), None),
        (
            json!({"minimum": 9_007_199_254_740_993u64}),
            json!(9_007_199_254_740_992.0),
            Some("/: Expected number to be greater or equal to 9007199254740993"),
        ),
        (
            json!({"maximum": -1}),
            json!(u64::MAX),
            Some("/: Expected number to be less or equal to -1"),
        ),
        (json!({"exclusiveMaximum": 1e300}), json!(i64::MIN), None),
    ]);
}

/// Lengths count characters (code points), not bytes or UTF-16 units; patterns are ECMA-262
/// regular expressions, where `\d` and `\w` are ASCII only and `\p{L}` is any letter.
#[test]
fn strings_count_characters_and_patterns_are_ecma_262() {
    assert_reports(&[
        (
            json!({"minLength": 2}),
            json!("🦀"),
            Some("/: Expected string length greater or equal to 2"),
        ),
        (json!({"maxLength": 2}), json!("éé"), None),
        (
            json!({"maxLength": 2}),
            json!("🦀🦀🦀"),
            Some("/: Expected string length less or equal to 2"),
        ),
        (
            json!({"minLength": 2.0, "maxLength": 1}),
            json!("ab"),
            Some("/: Expected string length less or equal to 1"),
        ),
        (json!({"pattern": "^\\p{L}+$"}), json!("éa"), None),
        (
            json!({"pattern": "^\\d+$"}),
            json!("١٢"),
            Some("/: Expected string to match pattern \"^\\\\d+$\""),
        ),
        (
            json!({"pattern": "^\\w+$"}),
            json!("é"),
            Some("/: Expected string to match pattern \"^\\\\w+$\""),
        ),
        (json!({"pattern": "^.$"}), json!("🦀"), None),
    ]);
}

/// Pointers: `~` and `/` escaped, the empty key, keys that read as indices, keyword names used as
/// property names.
#[test]
fn pointers_on_odd_keys() {
    assert_reports(&[
        (
            json!({"items": false}),
            json!([1, 2]),
            Some("/0: Unexpected value; /1: Unexpected value"),
        ),
        (
            json!({"properties": {"a/b": false, "~": false}}),
            json!({"a/b": 1, "~": 2}),
            Some("/a~1b: Unexpected value; /~0: Unexpected value"),
        ),
        (
            json!({"additionalProperties": false}),
            json!({"~1": 1, "a/b": 2}),
            Some("/a~1b: Unexpected property; /~01: Unexpected property"),
        ),
        // The empty key's pointer is `/`, as is the root's.
        (
            json!({"additionalProperties": false}),
            json!({"": 1, "a": 2}),
            Some("/: Unexpected property; /a: Unexpected property"),
        ),
        (
            json!({"required": [""]}),
            json!({}),
            Some("/: Expected required property"),
        ),
        (
            json!({"properties": {"": {"type": "string"}}}),
            json!({"": 1}),
            Some("/: Expected string"),
        ),
        // Keys that read as indices sort as numbers, before the other keys of their object.
        (
            json!({"additionalProperties": false, "required": ["2"]}),
            json!({"10": null, "1~": null}),
            Some(
                "/2: Expected required property; /10: Unexpected property; /1~0: Unexpected property",
            ),
        ),
        (
            json!({"additionalProperties": false}),
            json!({"1a": null, "2": null, "10": null, "+3": null, "02": null}),
            Some(
                "/02: Unexpected property; /2: Unexpected property; /+3: Unexpected property; \
                 /10: Unexpected property; /1a: Unexpected property",
            ),
        ),
        (
            json!({"items": {"type": "string"}, "properties": {"1a": {"type": "string"}}}),
            json!({"1a": 1, "0": [1, 2, 3]}),
            Some("/1a: Expected string"),
        ),
        (
            json!({"properties": {"additionalProperties": false}}),
            json!({"additionalProperties": {}}),
            Some("/additionalProperties: Unexpected value"),
        ),
    ]);
}

/// A `false` schema under a property or definition named `additionalProperties` is told from the
/// keyword by the last segment of its schema path only, so a non-empty object it rejects is
/// reported as the keyword's would be: one unexpected property per key (the object as a whole is
/// what is unexpected; once it is empty, the report says so).
#[test]
fn a_false_schema_named_like_the_keyword() {
    assert_reports(&[
        (
            json!({"properties": {"additionalProperties": false}}),
            json!({"additionalProperties": {"x": 1}}),
            Some("/additionalProperties/x: Unexpected property"),
        ),
        (
            json!({"$defs": {"additionalProperties": false}, "properties": {"x": {"$ref": "#/$defs/additionalProperties"}}}),
            json!({"x": {"k": 1}}),
            Some("/x/k: Unexpected property"),
        ),
    ]);
}

/// `required` beside `properties` and `additionalProperties: false`: each missing property at its
/// own pointer, each undeclared one too. A required property that is present but undeclared
/// makes the schema unsatisfiable; `jsonschema` then reports it both missing and unexpected when
/// it is the only required name.
#[test]
fn required_and_unexpected_properties() {
    assert_reports(&[
        (
            json!({"additionalProperties": false, "properties": {"a": {}}, "required": ["a", "b"]}),
            json!({"b": 1}),
            Some("/a: Expected required property; /b: Unexpected property"),
        ),
        (
            json!({"additionalProperties": false, "properties": {}, "required": ["a"]}),
            json!({"a": null}),
            Some("/a: Expected required property; /a: Unexpected property"),
        ),
        (
            json!({"additionalProperties": false, "properties": {"b": {}}, "required": ["a"]}),
            json!({"a": 1, "b": 2}),
            Some("/a: Expected required property; /a: Unexpected property"),
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            json!("x"),
            Some("/: Expected object"),
        ),
        (json!(false), json!({"a": 1}), Some("/: Unexpected value")),
    ]);
}

/// References and composition: errors under a `$ref` at the pointer of the value; `anyOf` and
/// `oneOf` as one error at the value they apply to.
#[test]
fn references_and_composition() {
    assert_reports(&[
        (
            json!({"$defs": {"n": {"type": "number", "minimum": 0}}, "items": {"$ref": "#/$defs/n", "maximum": 1}}),
            json!([-1, 2, "x"]),
            Some(
                "/0: Expected number to be greater or equal to 0; \
                 /1: Expected number to be less or equal to 1; /2: Expected number",
            ),
        ),
        // schemars' nullable reference.
        (
            json!({"$defs": {"S": {"type": "object", "properties": {"w": {"type": "integer"}}, "required": ["w"]}},
                   "properties": {"s": {"anyOf": [{"$ref": "#/$defs/S"}, {"type": "null"}]}}}),
            json!({"s": {"w": 1.5}}),
            Some("/s: Expected value to match at least one allowed schema"),
        ),
        // schemars' tagged variants.
        (
            json!({"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "number"}}, "required": ["kind"]},
                {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "string"}}, "required": ["kind"]}
            ]}),
            json!({"kind": "b", "y": 1}),
            Some("/: Expected value to match exactly one allowed schema, it matches none"),
        ),
        (
            json!({"oneOf": [
                {"properties": {"kind": {"const": 1}}, "required": ["kind"]},
                {"properties": {"kind": {"const": 1.0}}, "required": ["kind"]}
            ]}),
            json!({"kind": 1}),
            Some("/: Expected value to match exactly one allowed schema, it matches several"),
        ),
        (
            json!({"oneOf": [{"type": "number"}, {"type": "integer"}]}),
            json!(2.0),
            Some("/: Expected value to match exactly one allowed schema, it matches several"),
        ),
        (
            json!({"oneOf": [{"type": "number"}, {"type": "integer"}]}),
            json!(2.5),
            None,
        ),
        (
            json!({"anyOf": [{"minimum": 3}, {"maximum": 1}], "type": "integer"}),
            json!(2),
            Some("/: Expected value to match at least one allowed schema"),
        ),
        (
            json!({"anyOf": [false]}),
            json!(null),
            Some("/: Expected value to match at least one allowed schema"),
        ),
        (
            json!({"oneOf": [true, {}]}),
            json!(null),
            Some("/: Expected value to match exactly one allowed schema, it matches several"),
        ),
    ]);
}

#[test]
fn twelve_errors_show_five_then_how_many_more() {
    assert_reports(&[(
        json!({"items": {"minLength": 1}}),
        json!((0..12).map(|_| "").collect::<Vec<_>>()),
        Some(
            "/0: Expected string length greater or equal to 1; \
             /1: Expected string length greater or equal to 1; \
             /2: Expected string length greater or equal to 1; \
             /3: Expected string length greater or equal to 1; \
             /4: Expected string length greater or equal to 1; … and 7 more",
        ),
    )]);
}

#[test]
fn long_keys_are_cut_in_pointers() {
    let long = "k".repeat(100);
    let cut = format!("/{}…", "k".repeat(64));
    let schema = json!({"additionalProperties": false, "required": [long.clone() + "x"]});
    let instance = json!({ long.clone(): 1, "a": {long: 2} });
    assert_eq!(
        report(&schema, &instance).as_deref(),
        Some(
            format!(
                "/a: Unexpected property; {cut}: Unexpected property; {cut}: Expected required property"
            )
            .as_str()
        )
    );
}

/// A schema as schemars writes one for a code-first tool: definitions, references, a nullable
/// reference, a `oneOf` of constants.
#[test]
fn schemars_style_schema() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {
            "Anchor": {
                "additionalProperties": false,
                "properties": {
                    "price": {"format": "double", "type": "number"},
                    "time": {"format": "int64", "type": "integer", "minimum": 0}
                },
                "required": ["time", "price"],
                "type": "object"
            },
            "Kind": {
                "oneOf": [
                    {"const": "trend_line", "type": "string"},
                    {"const": "horizontal_line", "type": "string"}
                ]
            },
            "Style": {
                "properties": {"width": {"format": "uint8", "minimum": 0, "maximum": 255, "type": "integer"}},
                "required": ["width"],
                "type": "object"
            }
        },
        "additionalProperties": false,
        "properties": {
            "anchors": {"items": {"$ref": "#/$defs/Anchor"}, "type": "array"},
            "kind": {"$ref": "#/$defs/Kind"},
            "pane_id": {"type": "string"},
            "style": {"anyOf": [{"$ref": "#/$defs/Style"}, {"type": "null"}]},
            "label": {"type": ["string", "null"]}
        },
        "required": ["pane_id", "kind", "anchors"],
        "title": "DrawArgs",
        "type": "object"
    });
    assert_reports(&[
        (
            schema.clone(),
            json!({"pane_id": "main", "kind": "trend_line", "anchors": [{"time": 1, "price": 2.5}]}),
            None,
        ),
        (
            schema.clone(),
            json!({"pane_id": "main", "kind": "ray", "anchors": [{"time": -1, "price": "x", "z": 0}, {}]}),
            Some(
                "/anchors/0/price: Expected number; \
                 /anchors/0/time: Expected number to be greater or equal to 0; \
                 /anchors/0/z: Unexpected property; /anchors/1/price: Expected required property; \
                 /anchors/1/time: Expected required property; … and 1 more",
            ),
        ),
        (
            schema.clone(),
            json!({"pane_id": 1, "kind": "horizontal_line", "anchors": [], "style": null, "label": null}),
            Some("/pane_id: Expected string"),
        ),
        (
            schema.clone(),
            json!({"pane_id": "p", "kind": "trend_line", "anchors": [], "style": {"width": 256}}),
            Some("/style: Expected value to match at least one allowed schema"),
        ),
        (
            schema.clone(),
            json!({"pane_id": "p", "kind": "trend_line", "anchors": [], "style": {}, "label": 3}),
            Some(
                "/label: Expected null or string; \
                 /style: Expected value to match at least one allowed schema",
            ),
        ),
        (
            schema.clone(),
            json!({"kind": null, "anchors": {}, "extra": true}),
            Some(
                "/anchors: Expected array; /extra: Unexpected property; \
                 /kind: Expected value to match exactly one allowed schema, it matches none; \
                 /pane_id: Expected required property",
            ),
        ),
        (schema, json!([]), Some("/: Expected object")),
    ]);
}

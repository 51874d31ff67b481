//! The mapping rules end to end: the types generated from `mapping_rules`, `draft07_ranges` and
//! `draft2019_pairs` take every valid instance, keep every property the schema allows (also
//! through `Registry::execute`), read integers written as integral floats, and tell `null` from
//! absence.

use generated_check::tools::{draft07_ranges, draft2019_pairs, mapping_rules};
use serde_json::{Value, json};
use toolwright_runtime::{Failure, Registry, RunPolicy, tool, tool_def};

/// Bound to `tools/mapping_rules.toml`: returns its input as it was deserialized.
// The function is not named after the tool: a `#[tool]` function shares its module with nothing
// else of its name, and `mapping_rules` is the generated module here.
#[tool(manifest = mapping_rules, safety = "read-only", mode = "parallel")]
fn echo_mapping_rules(
    _ctx: &(),
    input: mapping_rules::Input,
) -> Result<mapping_rules::Input, Failure<mapping_rules::Error>> {
    Ok(input)
}

fn execute(args: &Value) -> Value {
    let registry: Registry<()> = Registry::builder()
        .tool(tool_def!(echo_mapping_rules))
        .build()
        .expect("a valid tool");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let result =
        runtime.block_on(registry.execute(&RunPolicy::full(), &mut (), "mapping_rules", args));
    serde_json::to_value(&result).expect("an envelope serializes")
}

fn full() -> Value {
    json!({
        "count": 3, "big": 18446744073709551615_u64, "ratio": 0.5, "note": null, "label": null,
        "shape": {"kind": "square", "side": 2, "colour": "red"},
        "id": 7, "either": 5, "labels": {"a": 1}, "inputs": {"environment": "prod"},
        "options": {"verbose": true, "color": "red"}, "point": [1.5, 2], "tags": ["x"],
        "counts": {"total": 3, "north": 1, "south": 2},
        "anything": null, "mode": "fast", "mixed": "a", "by_pattern": {"x-a": "b"},
        "pair": {"left": 1}, "both": {"left": 3, "right": 4}, "nothing": null,
        "unknown": {"kept": [1, 2]}
    })
}

#[test]
fn every_shape_takes_its_values_and_gives_them_back() {
    let input: mapping_rules::Input = serde_json::from_value(full()).expect("a valid input");
    assert_eq!(input.count, 3);
    assert_eq!(
        input.big,
        Some(u64::MAX),
        "an integer beyond `i64` is a `u64` by its bounds"
    );
    assert_eq!(input.note, None);
    assert_eq!(input.label, Some(None), "`null` is not absence");
    let mapping_rules::Shape::Square(square) = &input.shape else {
        panic!("the `kind` tag picks the variant: {:?}", input.shape);
    };
    assert_eq!(square.side, 2);
    assert_eq!(square.extra.get("colour"), Some(&json!("red")));
    assert_eq!(input.id, Some(mapping_rules::Id::Integer(7)));
    assert_eq!(
        input.either,
        Some(Some(mapping_rules::Either::Integer(5))),
        "a `type` list is an enum of its types, as `anyOf` is"
    );
    assert_eq!(input.point.as_ref().map(|p| (p.0, p.1)), Some((1.5, 2)));
    assert_eq!(input.extra.get("unknown"), Some(&json!({"kept": [1, 2]})));
    assert_eq!(input.nothing, Some(()));
    let back = serde_json::to_value(&input).expect("serializes");
    assert_eq!(back, full(), "nothing is dropped or changed");

    let absent: mapping_rules::Input = serde_json::from_value(
        json!({"count": 0, "note": "n", "shape": {"kind": "circle", "radius": 1.0}}),
    )
    .expect("the required arguments alone");
    assert_eq!(absent.label, None);
    assert!(
        serde_json::to_value(&absent)
            .expect("serializes")
            .get("label")
            .is_none()
    );
}

#[test]
fn integral_floats_are_integers() {
    let mut args = full();
    args["count"] = json!(2.0);
    args["labels"] = json!({"a": 1e2});
    args["point"] = json!([1.5, 2.0]);
    args["shape"] = json!({"kind": "square", "side": 4.0});
    args["id"] = json!(5.0);
    args["counts"] = json!({"total": 3.0, "east": 1e1});
    let input: mapping_rules::Input = serde_json::from_value(args).expect("JSON Schema integers");
    assert_eq!(input.count, 2);
    assert_eq!(input.labels.as_ref().and_then(|l| l.get("a")), Some(&100));
    assert_eq!(input.point.as_ref().map(|p| p.1), Some(2));
    assert_eq!(input.id, Some(mapping_rules::Id::Integer(5)));
    let counts = input.counts.as_ref().expect("given");
    assert_eq!(
        (counts.total, counts.extra.get("east")),
        (Some(3), Some(&10))
    );
    let error = serde_json::from_value::<mapping_rules::Input>(
        json!({"count": 2.5, "note": null, "shape": {"kind": "circle", "radius": 1}}),
    )
    .expect_err("2.5 is no integer");
    assert!(error.to_string().contains("2.5"), "{error}");
}

#[test]
fn extra_properties_reach_the_tool_through_the_registry() {
    let args = json!({
        "count": 1.0, "note": "n", "shape": {"kind": "circle", "radius": 2},
        "inputs": {"environment": "prod"}, "options": {"verbose": false, "depth": 3},
        "top": "level"
    });
    let result = execute(&args);
    let text = result.to_string();
    for kept in [
        "\"environment\":\"prod\"",
        "\"depth\":3",
        "\"top\":\"level\"",
        "\"count\":1",
    ] {
        assert!(text.contains(kept), "{kept} is kept end to end: {text}");
    }
}

#[test]
fn a_valid_integer_beyond_the_generated_type_is_refused_with_its_range() {
    // `count` has a `minimum` and no `maximum`: the schema takes 1e19, an `i64` cannot.
    let result =
        execute(&json!({"count": 1e19, "note": null, "shape": {"kind": "circle", "radius": 1}}));
    assert_eq!(result["success"], json!(false), "{result}");
    assert_eq!(
        result["error"]["code"],
        json!("TOOL_INPUT_INVALID"),
        "{result}"
    );
    assert_eq!(
        result["error"]["message"],
        json!(
            "The tool input is invalid: /count: Expected integer from -9223372036854775808 to 9223372036854775807"
        )
    );
    assert_eq!(result["stateChanged"], json!(false));
}

#[test]
fn invalid_arguments_are_refused_before_deserialization() {
    let result =
        execute(&json!({"count": -1, "note": null, "shape": {"kind": "circle", "radius": 1}}));
    let text = result.to_string();
    assert!(
        text.contains("TOOL_INPUT_INVALID") && text.contains("/count"),
        "{text}"
    );
}

#[test]
fn a_draft_07_schema_is_validated_and_typed_under_draft_07_rules() {
    let meta = &draft07_ranges::META;
    let schema = meta.input_schema.to_value().expect("JSON");
    assert_eq!(
        schema["$schema"],
        json!("http://json-schema.org/draft-07/schema#"),
        "kept: the registry reads the draft"
    );
    let validator =
        toolwright_runtime::validate::InputSchema::compile(&schema).expect("compiles as draft-07");
    assert!(validator.is_valid(&json!({"span": [1, 2], "labelled": ["a", 3]})));
    assert!(
        !validator.is_valid(&json!({"span": [1, 2, 3]})),
        "additionalItems: false"
    );
    assert!(
        !validator.is_valid(&json!({"span": [1, 2], "card": "c"})),
        "dependencies: card needs billing"
    );
    let input: draft07_ranges::Input =
        serde_json::from_value(json!({"span": [1, 5.0], "labelled": ["a", 1, 2]})).expect("valid");
    assert_eq!((input.span.0, input.span.1), (1, 5));
    assert_eq!(input.labelled, Some(vec![json!("a"), json!(1), json!(2)]));
}

#[test]
fn a_2019_09_schema_is_validated_under_its_rules() {
    let schema = draft2019_pairs::META.input_schema.to_value().expect("JSON");
    let validator =
        toolwright_runtime::validate::InputSchema::compile(&schema).expect("compiles as 2019-09");
    assert!(validator.is_valid(&json!({"pair": [1, "one"], "count": 2})));
    assert!(
        !validator.is_valid(&json!({"count": 2})),
        "dependentRequired"
    );
    assert!(
        !validator.is_valid(&json!({"pair": [1, "one"], "other": 1})),
        "unevaluatedProperties"
    );
    let input: draft2019_pairs::Input =
        serde_json::from_value(json!({"pair": [1.0, "one"], "count": 2})).expect("valid");
    assert_eq!(input.pair.map(|p| p.0), Some(1));
}

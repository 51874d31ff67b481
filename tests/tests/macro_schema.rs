//! The input schema of a code-first tool is schemars' draft 2020-12 schema of its input type.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolwright_runtime::handler::{Mode, Safety, ToolDef, ToolSpec};
use toolwright_runtime::{ToolError, tool, tool_def};

/// The arguments of `drawing_create`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct DrawArgs {
    /// The pane to draw on.
    pane_id: String,
    kind: Kind,
    /// Where the drawing is anchored.
    anchors: Vec<Anchor>,
    #[serde(default)]
    style: Option<Style>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Kind {
    TrendLine,
    HorizontalLine,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Anchor {
    time: i64,
    price: f64,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Style {
    color: String,
}

/// Draws a line on a pane.
#[tool(safety = "destructive", mode = "sequential")]
fn drawing_create(input: DrawArgs) -> Result<String, ToolError> {
    Ok(input.pane_id)
}

#[test]
fn the_schema_is_what_schemars_gives_without_the_dialect_key() {
    let def: ToolDef<()> = tool_def!(drawing_create);
    let schema = def.meta.input_schema.to_value().expect("a derived schema");

    let mut expected = schemars::schema_for!(DrawArgs).to_value();
    let dialect = expected
        .as_object_mut()
        .and_then(|root| root.remove("$schema"));
    assert_eq!(
        dialect,
        Some(json!("https://json-schema.org/draft/2020-12/schema"))
    );
    assert_eq!(schema, expected);
    assert!(schema.get("$schema").is_none());
    insta::assert_json_snapshot!(schema);
}

#[test]
fn the_schema_is_the_same_on_every_call() {
    let def: ToolDef<()> = tool_def!(drawing_create);
    let first = def.meta.input_schema.to_value().expect("a derived schema");
    let second = def.meta.input_schema.to_value().expect("a derived schema");
    assert_eq!(first, second);
}

#[test]
fn a_code_first_tool_converts_to_a_spec_like_a_manifest_tool() {
    let def: ToolDef<()> = tool_def!(drawing_create);
    let spec = ToolSpec::from_meta(def.meta).expect("a spec");
    assert_eq!(spec.name, "drawing_create");
    assert_eq!(spec.description, "Draws a line on a pane.");
    assert_eq!(
        (spec.safety, spec.mode),
        (Safety::Destructive, Mode::Sequential)
    );
    assert_eq!(
        spec.input_schema["required"],
        json!(["pane_id", "kind", "anchors"])
    );
    assert_eq!(spec.input_schema["additionalProperties"], json!(false));
}

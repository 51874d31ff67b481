//! Code-first tools: schemas exactly as schemars derives them (`$defs`/`$ref`, `$ref` with a
//! description next to it, `anyOf` with null, `oneOf` of documented variants, number formats,
//! maps, recursion), through every dialect.

#![allow(dead_code)]

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use toolwright_core::dialect::{self, Dialect};
use toolwright_core::{Mode, Safety, ToolSpec};

/// How a line is drawn.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Style {
    /// Hex color like `#ff0000`.
    #[schemars(regex(pattern = r"^#[0-9a-fA-F]{6}$"))]
    color: Option<String>,
    /// Line width in pixels.
    #[schemars(range(min = 1, max = 10))]
    width: Option<u8>,
}

/// The kind of drawing.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Kind {
    /// A line through two anchors.
    TrendLine,
    /// A line at one price.
    HorizontalLine,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum LineStyle {
    Solid,
    Dashed,
}

/// A point on the chart.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Anchor {
    /// Unix seconds.
    time: i64,
    price: f64,
}

/// Draws on a pane.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DrawInput {
    /// The pane to draw on.
    #[schemars(length(min = 1))]
    pane_id: String,
    /// What to draw.
    kind: Kind,
    /// Where it is anchored.
    anchors: Vec<Anchor>,
    /// How it looks.
    style: Option<Style>,
    line_style: Option<LineStyle>,
    /// Shown next to it.
    #[serde(default)]
    label: String,
}

/// A node of a tree.
#[derive(Deserialize, JsonSchema)]
struct Node {
    name: String,
    /// The children.
    children: Vec<Node>,
}

#[derive(Deserialize, JsonSchema)]
struct TreeInput {
    /// The root.
    root: Node,
}

#[derive(Deserialize, JsonSchema)]
struct MapInput {
    /// Scores by name.
    scores: BTreeMap<String, i32>,
}

/// What to do.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
enum Action {
    /// Move by an offset.
    Move { dx: i32, dy: i32 },
    /// Back to the start.
    Reset,
}

#[derive(Deserialize, JsonSchema)]
struct ActInput {
    action: Action,
    /// Tags to attach.
    tags: Option<std::collections::BTreeSet<String>>,
}

#[derive(Deserialize, JsonSchema)]
struct PairInput {
    /// A range as two numbers.
    range: (i64, i64),
}

fn spec<T: JsonSchema>(name: &str) -> ToolSpec {
    let schema = serde_json::to_value(schemars::schema_for!(T)).expect("schema is JSON");
    let mut spec = ToolSpec::new(name, Safety::Destructive, Mode::Sequential, schema);
    spec.description = format!("The {name} tool.");
    spec.source = "src/tools.rs".to_owned();
    spec
}

fn outcome(dialect: Dialect, spec: &ToolSpec) -> String {
    match dialect::convert(dialect, spec) {
        Ok(converted) => {
            let mut text = serde_json::to_string_pretty(&converted.definition).expect("json");
            for v in &converted.non_strict {
                text.push_str(&format!("\nnot strict: {v}"));
            }
            text
        }
        Err(violations) => violations
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[test]
fn a_derived_struct_converts_for_every_dialect() {
    let draw = spec::<DrawInput>("drawing_create");
    for dialect in Dialect::ALL {
        let definition = dialect::convert(*dialect, &draw)
            .unwrap_or_else(|v| panic!("{dialect}: {v:#?}"))
            .definition;
        insta::assert_snapshot!(
            format!("draw_{}", dialect.as_str()),
            serde_json::to_string_pretty(&definition).expect("json")
        );
    }
}

#[test]
fn recursion_converts_where_the_provider_can_express_it() {
    let tree = spec::<TreeInput>("tree_set");
    let mut text = String::new();
    for dialect in Dialect::ALL {
        text.push_str(&format!("== {dialect}\n{}\n", outcome(*dialect, &tree)));
    }
    insta::assert_snapshot!("tree", text);
    assert!(dialect::convert(Dialect::OpenAi, &tree).is_ok());
    assert!(dialect::convert(Dialect::Gemini, &tree).is_err());
}

#[test]
fn maps_are_refused_where_the_provider_cannot_express_them() {
    let map = spec::<MapInput>("scores_set");
    for dialect in [Dialect::Mcp, Dialect::Anthropic] {
        dialect::convert(dialect, &map).unwrap_or_else(|v| panic!("{dialect}: {v:#?}"));
    }
    // OpenAI takes it without strict mode, and says why.
    let openai = dialect::convert(Dialect::OpenAi, &map).expect("a function");
    assert_eq!(openai.definition["function"]["strict"], false);
    assert_eq!(
        openai.non_strict[0].pointer,
        "/function/parameters/properties/scores"
    );
    assert_eq!(openai.non_strict[0].rule, "openai.closed-objects");
    let gemini = dialect::convert(Dialect::Gemini, &map).expect_err("a map");
    assert_eq!(gemini[0].pointer, "/parameters/properties/scores");
    assert_eq!(gemini[0].rule, "gemini.object-properties");
}

#[test]
fn strict_mode_nulls_follow_the_derived_optionals() {
    let draw = spec::<DrawInput>("drawing_create");
    let pointers = dialect::openai_nullable_pointers(&draw.input_schema);
    // `Option<T>` fields are already nullable; only `#[serde(default)]` makes a field optional
    // that does not accept null.
    assert_eq!(pointers, ["/properties/label"]);
    let sent: Value = serde_json::json!({
        "pane_id": "main", "kind": "trend_line", "anchors": [], "style": null,
        "line_style": null, "label": null
    });
    let stripped = dialect::strip_openai_nulls(&draw.input_schema, &sent).into_owned();
    let input: DrawInput = serde_json::from_value(stripped).expect("deserializes once stripped");
    assert_eq!(input.label, "");
}

#[test]
fn tagged_enums_and_sets_convert_tuples_go_where_they_can_be_expressed() {
    let act = spec::<ActInput>("act");
    let pair = spec::<PairInput>("pair_set");
    let mut text = String::new();
    for dialect in Dialect::ALL {
        text.push_str(&format!("== {dialect} act\n{}\n", outcome(*dialect, &act)));
        text.push_str(&format!(
            "== {dialect} pair_set\n{}\n",
            outcome(*dialect, &pair)
        ));
    }
    insta::assert_snapshot!("act_and_pair", text);
    for dialect in Dialect::ALL {
        dialect::convert(*dialect, &act).unwrap_or_else(|v| panic!("{dialect}: {v:#?}"));
    }
    let refused = dialect::convert(Dialect::Gemini, &pair).expect_err("a tuple");
    assert!(
        refused
            .iter()
            .any(|v| v.pointer.starts_with("/parameters/properties/range")),
        "{refused:#?}"
    );
    // OpenAI takes a tuple without strict mode.
    let openai = dialect::convert(Dialect::OpenAi, &pair).expect("a function");
    assert!(
        openai.non_strict.iter().any(|v| v
            .pointer
            .starts_with("/function/parameters/properties/range")),
        "{:#?}",
        openai.non_strict
    );
}

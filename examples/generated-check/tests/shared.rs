//! The tools of `shared/` take the crate's own types where they share a shape
//! (`Builder::extern_type` in `build.rs`): the generated code uses them, writes no type of its
//! own for them, and a call reaches the tool through them.

use generated_check::shapes::{Anchor, Interval, Mark};
use generated_check::shared::{bars_chart, bars_mark};
use serde_json::{Value, json};
use toolwright_runtime::{Failure, Registry, RunPolicy, tool, tool_def};

/// The anchors and interval of `bars_chart`, and the whole input of `bars_mark`, are the
/// crate's types: one `Anchor` and one `Interval` for both tools.
fn shapes(chart: bars_chart::Input, mark: bars_mark::Input) -> (Vec<Anchor>, Interval, Mark) {
    (chart.anchors, chart.interval, mark)
}

#[test]
fn the_shared_shapes_are_the_crates_types() {
    let chart: bars_chart::Input =
        serde_json::from_str(bars_chart::META.examples[0].input).expect("the example reads");
    let mark: bars_mark::Input =
        serde_json::from_str(bars_mark::META.examples[0].input).expect("the example reads");
    let (anchors, interval, mark) = shapes(chart.clone(), mark);
    assert_eq!(
        anchors[0],
        Anchor {
            time: 1_735_776_000,
            price: 182.5
        }
    );
    assert_eq!(interval, Interval::D1);
    assert_eq!(mark.at.price, 182.5);
    assert_eq!(mark.interval, Interval::H1);
    assert_eq!(mark.label.as_deref(), Some("entry"));
    // They write what they read: the manifest's words.
    let back = serde_json::to_value(&chart).expect("serializes");
    let example: Value = serde_json::from_str(bars_chart::META.examples[0].input).expect("JSON");
    assert_eq!(back, example);
}

#[test]
fn the_metadata_keeps_the_manifests_schema() {
    let schema = bars_mark::META.input_schema.to_value().expect("JSON");
    assert_eq!(
        schema["properties"]["interval"]["enum"],
        json!(["1m", "1h", "1d"])
    );
    assert_eq!(schema["required"], json!(["at", "interval"]));
}

#[tool(manifest = bars_mark)]
fn mark(_ctx: &mut (), input: Mark) -> Result<Mark, Failure<bars_mark::Error>> {
    Ok(input)
}

#[test]
fn a_call_reads_the_crates_types_integral_floats_included() {
    let registry: Registry<()> = Registry::builder()
        .tool(tool_def!(mark))
        .build()
        .expect("a valid tool");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    // `1735776000.0` is an integer for the schema; `Anchor::time` is a plain `i64`, read again
    // as the integer it is.
    let args = json!({"at": {"time": 1_735_776_000.0, "price": 1.5}, "interval": "1m"});
    let result =
        runtime.block_on(registry.execute(&RunPolicy::full(), &mut (), "bars_mark", &args));
    let envelope = serde_json::to_value(&result).expect("an envelope serializes");
    assert_eq!(
        envelope["data"],
        json!({"at": {"time": 1_735_776_000, "price": 1.5}, "interval": "1m"}),
        "{envelope}"
    );
}

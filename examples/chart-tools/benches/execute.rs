//! What the registry costs: `execute` of a valid `drawing_create` call against deserializing the
//! same arguments and calling the chart method directly, and the invalid-input path (a
//! `drawing_create` call with more than five schema errors).
//!
//! Both sides of each comparison do the same work around the call: they run inside one
//! `block_on` of the same current-thread runtime, and delete the new drawing afterwards so the
//! chart does not grow. Compare the medians: `execute/valid` over `direct/valid` is the price of
//! the policy check, schema validation, the envelope and JSON output.

use chart_tools::chart::{Anchor, Chart, StyleChange};
use chart_tools::tools::drawing_create;
use criterion::{Criterion, criterion_group, criterion_main};
use serde::Deserialize as _;
use serde_json::{Value, json};
use std::hint::black_box;
use tool_runtime::RunPolicy;

fn valid_input() -> Value {
    serde_json::from_str(drawing_create::META.examples[0].input).expect("the example is JSON")
}

/// Thirteen schema errors; the report lists five.
fn invalid_input() -> Value {
    json!({
        "kind": "rays",
        "colour": 1,
        "anchors": [{"time": -1, "price": "x"}, {}, {}],
        "style": {"width": 0, "color": "red"},
        "text": ""
    })
}

/// What the tool does, without the registry: deserialize, convert (with the tool's own
/// conversions of the generated enums), call.
fn direct(chart: &mut Chart, arguments: &Value) -> String {
    let input = drawing_create::Input::deserialize(arguments).expect("valid arguments");
    let anchors = input
        .anchors
        .into_iter()
        .map(|a| Anchor {
            time: a.time,
            price: a.price,
        })
        .collect();
    let style = input.style.map(|s| StyleChange {
        color: s.color,
        width: s.width,
        line_style: s.line_style.map(Into::into),
    });
    chart
        .drawing_create(
            &input.pane_id,
            input.kind.into(),
            anchors,
            style,
            input.text,
        )
        .expect("the example succeeds")
        .id
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let registry = chart_tools::registry().expect("the registry builds");
    let policy = RunPolicy::full();
    let mut chart = Chart::demo();
    let valid = valid_input();
    let invalid = invalid_input();

    let mut group = c.benchmark_group("drawing_create");
    group.bench_function("direct/valid", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let id = direct(&mut chart, black_box(&valid));
                chart.drawing_delete(&id).expect("the new drawing");
            })
        })
    });
    group.bench_function("execute/valid", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let result = registry
                    .execute(&policy, &mut chart, "drawing_create", black_box(&valid))
                    .await;
                let id = result
                    .data()
                    .and_then(|d| d["id"].as_str())
                    .expect("a drawing");
                chart.drawing_delete(id).expect("the new drawing");
            })
        })
    });
    group.bench_function("direct/invalid", |b| {
        b.iter(|| {
            runtime.block_on(async {
                drawing_create::Input::deserialize(black_box(&invalid)).expect_err("invalid")
            })
        })
    });
    group.bench_function("execute/invalid", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let result = registry
                    .execute(&policy, &mut chart, "drawing_create", black_box(&invalid))
                    .await;
                assert_eq!(result.code(), Some("TOOL_INPUT_INVALID"));
                result
            })
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

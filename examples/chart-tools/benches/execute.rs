//! What the registry costs: `execute` of a valid `drawing_create` call against deserializing the
//! same arguments and calling the chart method directly, and the invalid-input path (a
//! `drawing_create` call with more than five schema errors).
//!
//! Both sides of each comparison do the same work around the call: they run inside one
//! `block_on` of the same current-thread runtime, and delete the new drawing afterwards (by its
//! ID: the chart numbers drawings `d1`, `d2`, … in creation order, and a wrong guess fails the
//! delete) so the chart does not grow. Compare the medians: `execute/valid` over `direct/valid`
//! is the price of the policy check, the argument bounds, schema validation, the envelope and
//! the output written as JSON text.
//!
//! `*/valid_to_text` adds what a host does next, on both sides: the direct output, and the
//! envelope, written as the JSON text sent to the model.
//!
//! `execute/valid` runs without a tracing subscriber (the call's span is created disabled);
//! `execute/valid_traced_json` runs the same call with a subscriber that writes every closed span
//! as a JSON line (tracing-subscriber's JSON formatter, as `chart-tools --trace json`) to a
//! sink: over `direct/valid`, the two give the price of tracing. The traced case runs last.

use chart_tools::chart::{Chart, Drawing};
use chart_tools::tools::drawing_create;
use criterion::{Criterion, criterion_group, criterion_main};
use serde::Deserialize as _;
use serde_json::{Value, json};
use std::hint::black_box;
use toolwright_runtime::RunPolicy;
use tracing_subscriber::fmt::format::FmtSpan;
use tracing_subscriber::layer::SubscriberExt as _;

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

/// What the tool does, without the registry: deserialize (the input holds the chart's own
/// anchor, kind and style types), call.
fn direct(chart: &mut Chart, arguments: &Value) -> Drawing {
    let input = drawing_create::Input::deserialize(arguments).expect("valid arguments");
    chart
        .drawing_create(
            &input.pane_id,
            input.kind,
            input.anchors,
            input.style,
            input.text,
        )
        .expect("the example succeeds")
}

/// The IDs the chart gives new drawings, in order.
struct DrawingIds(u32);

impl DrawingIds {
    /// Starts after the drawings `chart` has made so far (it makes and deletes one to see).
    fn after(chart: &mut Chart, arguments: &Value) -> Self {
        let id = direct(chart, arguments).id;
        chart.drawing_delete(&id).expect("the new drawing");
        DrawingIds(id.trim_start_matches('d').parse().expect("a numbered ID"))
    }

    fn next(&mut self) -> String {
        self.0 += 1;
        format!("d{}", self.0)
    }
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

    let mut ids = DrawingIds::after(&mut chart, &valid);

    let mut group = c.benchmark_group("drawing_create");
    group.bench_function("direct/valid", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let output = direct(&mut chart, black_box(&valid));
                chart.drawing_delete(&ids.next()).expect("the new drawing");
                output
            })
        })
    });
    group.bench_function("execute/valid", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let result = registry
                    .execute(&policy, &mut chart, "drawing_create", black_box(&valid))
                    .await;
                chart.drawing_delete(&ids.next()).expect("the new drawing");
                result
            })
        })
    });
    group.bench_function("direct/valid_to_text", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let output = direct(&mut chart, black_box(&valid));
                chart.drawing_delete(&ids.next()).expect("the new drawing");
                serde_json::to_string(&output).expect("JSON")
            })
        })
    });
    group.bench_function("execute/valid_to_text", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let result = registry
                    .execute(&policy, &mut chart, "drawing_create", black_box(&valid))
                    .await;
                chart.drawing_delete(&ids.next()).expect("the new drawing");
                serde_json::to_string(&result).expect("JSON")
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
    // Last: once a subscriber was installed, the callsites keep the interest it gave them, and
    // the cases after it would no longer run as in a process that never had one.
    let json = tracing_subscriber::registry().with(
        tracing_subscriber::fmt::layer()
            .json()
            .with_span_events(FmtSpan::CLOSE)
            .with_span_list(false)
            .with_writer(std::io::sink),
    );
    tracing::subscriber::with_default(json, || {
        group.bench_function("execute/valid_traced_json", |b| {
            b.iter(|| {
                runtime.block_on(async {
                    let result = registry
                        .execute(&policy, &mut chart, "drawing_create", black_box(&valid))
                        .await;
                    chart.drawing_delete(&ids.next()).expect("the new drawing");
                    result
                })
            })
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! Validation alone: `InputSchema` against the `jsonschema` crate's own validator, on the same
//! schema (`drawing_create`'s input schema, as generated) and the same inputs, in the same run.
//!
//! Pairs (compare the medians of each pair; the ratio `ours ÷ baseline` is what the docs report):
//!
//! - `valid/input_schema_check` vs `valid/jsonschema_is_valid`: a valid input; `check` answers
//!   `Ok(())` and the validator answers `true`;
//! - `valid/input_schema_check` vs `valid/jsonschema_validate`: the same, against the crate's
//!   `validate`, which (like `check`) returns a `Result`;
//! - `invalid/input_schema_check` vs `invalid/jsonschema_iter_errors_display`: an input with 7
//!   errors; `check` gathers every error with its pointer and message, sorted; the baseline
//!   gathers every error of `iter_errors` with its pointer and the crate's own message;
//! - `invalid/input_schema_check` vs `invalid/jsonschema_iter_errors`: the same, against
//!   collecting the crate's error values without rendering them.
//!
//! `invalid/input_schema_report` adds the bounded report text the model receives.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolwright_runtime::validate::InputSchema;

/// The input schema of `drawing_create`, as the generator writes it.
const SCHEMA: &str = include_str!("../../generated/schemas/drawing_create.json");

fn inputs() -> (Value, Value) {
    let valid = json!({
        "pane_id": "main",
        "kind": "trend_line",
        "anchors": [
            {"time": 1738281600, "price": 138.29},
            {"time": 1750032000, "price": 182.61}
        ],
        "style": {"color": "#26a69a", "width": 2, "line_style": "dashed"},
        "text": "Support"
    });
    // 7 errors: empty pane, unknown kind, an anchor without price, a negative time, a
    // non-number price, a bad color, an unexpected property.
    let invalid = json!({
        "pane_id": "",
        "kind": "circle",
        "anchors": [{"time": -1, "price": "x"}, {"time": 2}],
        "style": {"color": "red"},
        "colour": "red"
    });
    (valid, invalid)
}

fn bench(c: &mut Criterion) {
    let schema: Value = serde_json::from_str(SCHEMA).expect("the generated schema is JSON");
    let ours = InputSchema::compile(&schema).expect("the schema compiles");
    let theirs = jsonschema::draft202012::options()
        .should_validate_formats(false)
        .build(&schema)
        .expect("the schema compiles");
    let (valid, invalid) = inputs();
    assert!(ours.check(&valid).is_ok() && theirs.is_valid(&valid));
    let errors = ours
        .check(&invalid)
        .expect_err("invalid input")
        .errors()
        .len();
    assert_eq!(errors, 7, "the invalid input has 7 errors");

    let mut group = c.benchmark_group("validate");
    group.bench_function("valid/jsonschema_is_valid", |b| {
        b.iter(|| black_box(theirs.is_valid(black_box(&valid))));
    });
    group.bench_function("valid/jsonschema_validate", |b| {
        b.iter(|| black_box(theirs.validate(black_box(&valid)).is_ok()));
    });
    group.bench_function("valid/input_schema_check", |b| {
        b.iter(|| black_box(ours.check(black_box(&valid)).is_ok()));
    });
    group.bench_function("invalid/jsonschema_iter_errors", |b| {
        b.iter(|| black_box(theirs.iter_errors(black_box(&invalid)).count()));
    });
    group.bench_function("invalid/jsonschema_iter_errors_display", |b| {
        b.iter(|| {
            let errors: Vec<(String, String)> = theirs
                .iter_errors(black_box(&invalid))
                .map(|e| (e.instance_path().as_str().to_owned(), e.to_string()))
                .collect();
            black_box(errors)
        });
    });
    group.bench_function("invalid/input_schema_check", |b| {
        b.iter(|| black_box(ours.check(black_box(&invalid))));
    });
    group.bench_function("invalid/input_schema_report", |b| {
        b.iter(|| {
            let report = ours
                .check(black_box(&invalid))
                .map_err(|e| e.report())
                .expect_err("invalid input");
            black_box(report)
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

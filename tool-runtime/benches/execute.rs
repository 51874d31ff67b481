//! What the registry costs on top of deserializing and calling a tool directly.
//!
//! - `direct`: `T::deserialize(&value)` + the tool function, the baseline;
//! - `execute/valid`: the same call through `Registry::execute` (policy check, validation, time
//!   limit, panic guard, envelope);
//! - `execute/invalid_7_errors`: a call whose arguments have 7 errors (the report lists 5).
//!
//! Compare the medians: `execute/valid ÷ direct` is the registry's overhead factor.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde::Deserialize;
use serde_json::{Value, json};
use toolwright_runtime::handler::{
    BoxFuture, CallResult, ErrorMeta, Handler, IntoToolOutput, Mode, Safety, StaticSchema, ToolDef,
    ToolMeta,
};
use toolwright_runtime::{Failure, Registry, RunPolicy, ToolError};

struct Chart {
    panes: Vec<String>,
}

const SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "pane_id": {"type": "string", "minLength": 1},
    "kind": {"enum": ["trend_line", "horizontal_line"]},
    "color": {"type": "string", "pattern": "^#[0-9a-f]{6}$"},
    "anchors": {
      "type": "array",
      "maxItems": 10,
      "items": {
        "type": "object",
        "properties": {
          "time": {"type": "integer", "minimum": 0},
          "price": {"type": "number"}
        },
        "required": ["time", "price"],
        "additionalProperties": false
      }
    }
  },
  "required": ["pane_id", "kind", "anchors"],
  "additionalProperties": false
}"#;

static ERRORS: &[ErrorMeta] = &[ErrorMeta::new(
    "PANE_NOT_FOUND",
    "Pane not found.",
    true,
    "Call panes_list to get the valid pane IDs, then retry.",
)];

static DRAWING_CREATE: ToolMeta = ToolMeta::new(
    "drawing_create",
    Safety::Destructive,
    Mode::Sequential,
    StaticSchema::Json(SCHEMA),
)
.title("Create a drawing")
.description("Draws on a pane.")
.errors(ERRORS)
.source("benches/execute.rs");

#[derive(Deserialize)]
struct Anchor {
    time: u64,
    price: f64,
}

#[derive(Deserialize)]
struct Input {
    pane_id: String,
    kind: String,
    #[serde(default)]
    color: Option<String>,
    anchors: Vec<Anchor>,
}

#[derive(Clone, Copy)]
struct PaneNotFound;

impl toolwright_runtime::DeclaredError for PaneNotFound {
    const ERRORS: &'static [ErrorMeta] = ERRORS;

    fn code(&self) -> &'static str {
        "PANE_NOT_FOUND"
    }
}

async fn drawing_create(chart: &mut Chart, input: Input) -> Result<Value, Failure<PaneNotFound>> {
    if !chart.panes.contains(&input.pane_id) {
        return Err(Failure::new(PaneNotFound));
    }
    let last = input
        .anchors
        .last()
        .map_or(0.0, |a| a.price + a.time as f64);
    Ok(
        json!({"kind": input.kind, "color": input.color, "anchors": input.anchors.len(), "last": last}),
    )
}

fn adapter<'a>(chart: &'a mut Chart, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        let input = Input::deserialize(args).map_err(|e| ToolError::Input(e.to_string()))?;
        let output = drawing_create(chart, input)
            .await
            .map_err(ToolError::from)?;
        output.into_tool_output(Safety::Destructive)
    })
}

fn bench(c: &mut Criterion) {
    let registry = Registry::builder()
        .tool(ToolDef {
            meta: &DRAWING_CREATE,
            handler: Handler::Exclusive(adapter),
        })
        .build()
        .expect("valid tool");
    let policy = RunPolicy::full();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let mut chart = Chart {
        panes: vec!["main".to_owned(), "lower".to_owned()],
    };
    let valid = json!({
        "pane_id": "main",
        "kind": "trend_line",
        "color": "#ff8800",
        "anchors": [{"time": 1, "price": 10.5}, {"time": 2, "price": 11.0}, {"time": 3, "price": 12.25}]
    });
    let invalid = json!({
        "pane_id": "",
        "kind": "circle",
        "color": "red",
        "colour": "red",
        "anchors": [{"time": -1, "price": "x"}, {"time": 2}]
    });

    let mut group = c.benchmark_group("drawing_create");
    group.bench_function("direct", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let input = Input::deserialize(black_box(&valid)).expect("valid input");
                black_box(drawing_create(&mut chart, input).await.is_ok())
            })
        });
    });
    group.bench_function("execute/valid", |b| {
        b.iter(|| {
            runtime.block_on(registry.execute(
                &policy,
                &mut chart,
                "drawing_create",
                black_box(&valid),
            ))
        });
    });
    group.bench_function("execute/invalid_7_errors", |b| {
        b.iter(|| {
            runtime.block_on(registry.execute(
                &policy,
                &mut chart,
                "drawing_create",
                black_box(&invalid),
            ))
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

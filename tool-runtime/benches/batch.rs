//! `execute_batch` of 100 parallel read-only calls against 100 direct calls of the same function,
//! in the same run.
//!
//! - `direct_100`: for each call, `Input::deserialize(&arguments)` + the tool function + the
//!   output serialized to JSON (what the tool's adapter does), the baseline;
//! - `execute_batch_100`: the same 100 calls through `Registry::execute_batch` (sequential-or-not
//!   decision, policy check, validation, panic guard, time limit, envelope, concurrent join).
//!
//! The overhead per call is `(execute_batch_100 − direct_100) ÷ 100`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolwright_runtime::envelope::ToolData;
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, IntoToolOutput, Mode, Safety, StaticSchema, ToolDef, ToolMeta,
};
use toolwright_runtime::{Registry, RunPolicy, ToolCall, ToolError};

const CALLS: usize = 100;

struct Chart {
    panes: Vec<String>,
}

const SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "pane_id": {"type": "string", "minLength": 1},
    "limit": {"type": "integer", "minimum": 1}
  },
  "required": ["pane_id"],
  "additionalProperties": false
}"#;

static PANE_GET: ToolMeta = ToolMeta::new(
    "pane_get",
    Safety::ReadOnly,
    Mode::Parallel,
    StaticSchema::Json(SCHEMA),
)
.title("Get a pane")
.description("Reads a pane.")
.source("benches/batch.rs");

#[derive(Deserialize)]
struct Input {
    pane_id: String,
    #[serde(default)]
    limit: Option<u32>,
}

#[derive(Serialize)]
struct Output {
    pane: String,
    found: bool,
    count: usize,
}

fn pane_get(chart: &Chart, input: Input) -> Result<Output, ToolError> {
    let found = chart.panes.contains(&input.pane_id);
    let count = chart.panes.len().min(input.limit.unwrap_or(10) as usize);
    Ok(Output {
        pane: input.pane_id,
        found,
        count,
    })
}

fn adapter<'a>(chart: &'a Chart, args: &'a Value) -> BoxFuture<'a, CallResult> {
    let result = Input::deserialize(args)
        .map_err(|e| ToolError::Input(e.to_string()))
        .and_then(|input| pane_get(chart, input))
        .and_then(|output| output.into_tool_output(Safety::ReadOnly));
    Box::pin(std::future::ready(result))
}

fn bench(c: &mut Criterion) {
    let registry = Registry::builder()
        .tool(ToolDef {
            meta: &PANE_GET,
            handler: Handler::Shared(adapter),
        })
        .build()
        .expect("valid tool");
    let policy = RunPolicy::read_only();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let mut chart = Chart {
        panes: vec!["main".to_owned(), "lower".to_owned()],
    };
    let calls: Vec<ToolCall> = (0..CALLS)
        .map(|i| {
            let pane = if i.is_multiple_of(2) { "main" } else { "lower" };
            ToolCall::new(
                format!("call_{i}"),
                "pane_get",
                json!({"pane_id": pane, "limit": i + 1}),
            )
        })
        .collect();
    let results = runtime.block_on(registry.execute_batch(&policy, &mut chart, &calls));
    assert_eq!(results.len(), CALLS);
    assert!(
        results
            .iter()
            .all(toolwright_runtime::ToolResult::is_success),
        "every call succeeds"
    );

    let mut group = c.benchmark_group("batch");
    group.bench_function("direct_100", |b| {
        b.iter(|| {
            let outputs: Vec<ToolData> = calls
                .iter()
                .map(|call| {
                    let input = Input::deserialize(black_box(&call.arguments)).expect("valid");
                    let output = pane_get(&chart, input).expect("the tool succeeds");
                    output
                        .into_tool_output(Safety::ReadOnly)
                        .expect("serializable")
                        .data
                })
                .collect();
            black_box(outputs)
        });
    });
    group.bench_function("execute_batch_100", |b| {
        b.iter(|| {
            black_box(runtime.block_on(registry.execute_batch(
                &policy,
                &mut chart,
                black_box(&calls),
            )))
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

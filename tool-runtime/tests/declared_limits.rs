//! Time limits and output budgets a tool declares (`timeout`, `max_output_bytes`): the
//! declaration replaces the host's default, the host may lower it and never raise it, and a
//! success over its budget becomes a retryable `TOOL_FAILED` that asks for a narrower request.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolwright_runtime::handler::{
    BoxFuture, CallResult, ErrorMeta, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta,
    ToolOutput,
};
use toolwright_runtime::registry::RegistryProblem;
use toolwright_runtime::{Registry, RunPolicy, ToolCall, ToolError, ToolResult, tool, tool_def};

/// The chart the tools read and write.
#[derive(Debug, Default)]
struct Chart {
    bars: usize,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Bars {
    /// How many bars to return.
    count: usize,
}

/// Returns `count` bars: `["bar-0000",…]`, 11 bytes of JSON a bar, plus one.
#[tool(
    safety = "read-only",
    mode = "parallel",
    timeout = "50ms",
    max_output_bytes = 100
)]
fn bars_query(chart: &Chart, input: Bars) -> Result<Vec<String>, ToolError> {
    let _ = chart;
    Ok((0..input.count).map(|i| format!("bar-{i:04}")).collect())
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Pause {
    /// How long to wait, in milliseconds.
    millis: u64,
}

/// Waits, then answers.
#[tool(safety = "read-only", mode = "parallel", timeout = "50ms")]
async fn slow_read(_chart: &Chart, input: Pause) -> Result<u64, ToolError> {
    tokio::time::sleep(Duration::from_millis(input.millis)).await;
    Ok(input.millis)
}

/// Adds `count` bars and returns them all.
#[tool(safety = "destructive", mode = "sequential", max_output_bytes = 100)]
fn bars_add(chart: &mut Chart, input: Bars) -> Result<Vec<String>, ToolError> {
    chart.bars += input.count;
    Ok((0..chart.bars).map(|i| format!("bar-{i:04}")).collect())
}

/// Returns `count` bars and declares nothing.
#[tool(safety = "read-only", mode = "parallel")]
fn bars_plain(_chart: &Chart, input: Bars) -> Result<Vec<String>, ToolError> {
    Ok((0..input.count).map(|i| format!("bar-{i:04}")).collect())
}

/// A tool declared as a manifest declares it (frozen metadata with the limits), with a declared
/// error about a request too large.
static RANGE_QUERY: ToolMeta = ToolMeta::new(
    "range_query",
    Safety::ReadOnly,
    Mode::Parallel,
    StaticSchema::Json(
        r#"{"type":"object","properties":{"count":{"type":"integer","minimum":0}},"required":["count"],"additionalProperties":false}"#,
    ),
)
.description("Returns `count` bars.")
.errors(&[
    ErrorMeta::new(
        "RANGE_TOO_LARGE",
        "The range holds too many bars.",
        true,
        "Ask for at most 500 bars at a time.",
    ),
    ErrorMeta::new(
        "DATE_OUT_OF_RANGE",
        "The range is outside the loaded bars.",
        true,
        "Ask for a range inside the loaded bars.",
    ),
])
.source("tools/range_query.toml")
.timeout_ms(40)
.max_output_bytes(64);

fn range_query<'a>(_chart: &'a Chart, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        let count = args["count"].as_u64().unwrap_or_default();
        if count == 999 {
            tokio::time::sleep(Duration::from_secs(5)).await;
        }
        Ok(ToolOutput {
            data: json!("x".repeat(usize::try_from(count).unwrap_or_default())).into(),
            state_changed: false,
        })
    })
}

fn range_def() -> ToolDef<Chart> {
    ToolDef {
        meta: &RANGE_QUERY,
        handler: Handler::Shared(range_query),
    }
}

fn builder() -> toolwright_runtime::RegistryBuilder<Chart> {
    Registry::builder()
        .tool(tool_def!(bars_query))
        .tool(tool_def!(slow_read))
        .tool(tool_def!(bars_add))
        .tool(tool_def!(bars_plain))
        .tool(range_def())
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime")
}

fn execute(registry: &Registry<Chart>, chart: &mut Chart, name: &str, args: Value) -> ToolResult {
    runtime().block_on(registry.execute(&RunPolicy::full(), chart, name, &args))
}

fn envelope(result: &ToolResult) -> Value {
    serde_json::to_value(result).expect("serializes")
}

#[test]
fn declared_limits_replace_the_hosts_defaults() {
    let registry = builder()
        .default_timeout(Duration::from_secs(10))
        .default_max_output_bytes(30)
        .build()
        .expect("valid");
    assert_eq!(
        registry.timeout_of("slow_read"),
        Some(Duration::from_millis(50))
    );
    assert_eq!(
        registry.timeout_of("range_query"),
        Some(Duration::from_millis(40))
    );
    assert_eq!(
        registry.timeout_of("bars_add"),
        Some(Duration::from_secs(10))
    );
    assert_eq!(registry.max_output_bytes_of("bars_query"), Some(100));
    assert_eq!(registry.max_output_bytes_of("bars_plain"), Some(30));

    let mut chart = Chart::default();
    // Eight bars are 89 bytes: within the declared 100, over the default 30.
    let eight = execute(&registry, &mut chart, "bars_query", json!({"count": 8}));
    assert!(eight.is_success(), "{}", envelope(&eight));
    let plain = execute(&registry, &mut chart, "bars_plain", json!({"count": 8}));
    assert_eq!(plain.code(), Some("TOOL_FAILED"), "{}", envelope(&plain));

    let slow = execute(&registry, &mut chart, "slow_read", json!({"millis": 2000}));
    assert_eq!(
        envelope(&slow)["error"]["message"],
        "The tool `slow_read` did not finish within 50 ms."
    );
    let quick = execute(&registry, &mut chart, "slow_read", json!({"millis": 1}));
    assert!(quick.is_success(), "{}", envelope(&quick));
}

#[test]
fn without_a_default_budget_undeclared_outputs_are_not_bounded() {
    let registry = builder().build().expect("valid");
    assert_eq!(registry.max_output_bytes_of("bars_plain"), None);
    let mut chart = Chart::default();
    let many = execute(
        &registry,
        &mut chart,
        "bars_plain",
        json!({"count": 10_000}),
    );
    assert!(many.is_success());
}

#[test]
fn an_output_over_its_budget_asks_for_a_narrower_request() {
    let registry = builder().build().expect("valid");
    let mut chart = Chart::default();
    // Nine bars are 100 bytes, exactly the budget; ten are 111.
    let nine = execute(&registry, &mut chart, "bars_query", json!({"count": 9}));
    assert!(nine.is_success(), "{}", envelope(&nine));
    let ten = execute(&registry, &mut chart, "bars_query", json!({"count": 10}));
    assert_eq!(
        envelope(&ten),
        json!({
            "success": false,
            "error": {
                "code": "TOOL_FAILED",
                "message": "The output of `bars_query` is 111 bytes, more than its budget of 100 bytes, so it was not returned: a narrower request is needed.",
                "retryable": true,
                "recommendedAction": "Retry with a narrower request (a shorter range, fewer items, a lower limit) so the output fits."
            },
            "stateChanged": false
        })
    );
    // The declared error about a request too large lends its hint; the one about where a
    // range lies does not.
    let wide = execute(&registry, &mut chart, "range_query", json!({"count": 100}));
    let error = &envelope(&wide)["error"];
    assert_eq!(
        error["recommendedAction"],
        "Retry with a narrower request (a shorter range, fewer items, a lower limit) so the output fits. Ask for at most 500 bars at a time."
    );
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("is 102 bytes, more than its budget of 64 bytes")),
        "{error}"
    );
    let exactly = execute(&registry, &mut chart, "range_query", json!({"count": 62}));
    assert!(exactly.is_success(), "64 bytes fit a budget of 64");
}

#[test]
fn a_write_over_its_budget_keeps_its_state_change() {
    let registry = builder().build().expect("valid");
    let mut chart = Chart::default();
    let first = execute(&registry, &mut chart, "bars_add", json!({"count": 2}));
    assert!(first.is_success() && first.state_changed());
    let over = execute(&registry, &mut chart, "bars_add", json!({"count": 20}));
    assert_eq!(over.code(), Some("TOOL_FAILED"));
    assert!(
        over.state_changed(),
        "the write happened: {}",
        envelope(&over)
    );
    assert_eq!(chart.bars, 22);
    let error = over.error().expect("a failure");
    assert!(error.retryable);
    assert!(
        error.recommended_action.contains("do not repeat it"),
        "{error:?}"
    );
}

#[test]
fn a_host_may_lower_a_declared_limit() {
    let registry = builder()
        .timeout("slow_read", Duration::from_millis(20))
        .max_output_bytes("bars_query", 50)
        .build()
        .expect("lowering is allowed");
    let mut chart = Chart::default();
    let slow = execute(&registry, &mut chart, "slow_read", json!({"millis": 2000}));
    assert_eq!(
        envelope(&slow)["error"]["message"],
        "The tool `slow_read` did not finish within 20 ms."
    );
    let eight = execute(&registry, &mut chart, "bars_query", json!({"count": 8}));
    assert!(
        eight
            .error()
            .is_some_and(|e| e.message.contains("budget of 50 bytes")),
        "{}",
        envelope(&eight)
    );
}

#[test]
fn raising_a_declared_limit_is_a_build_error() {
    let error = builder()
        .timeout("slow_read", Duration::from_millis(60))
        .timeout("range_query", Duration::from_millis(40))
        .max_output_bytes("bars_query", 101)
        .max_output_bytes("bars_plain", 0)
        .max_output_bytes("nothing", 10)
        .build()
        .expect_err("raised limits");
    let messages: Vec<String> = error.problems().iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "the output budget of `bars_plain` must be greater than zero",
            "the output budget of `bars_query` is set to 101 bytes, above the 100 bytes its declaration (`declared_limits::bars_query`) allows; a host may lower a declared limit, never raise it",
            "an output budget is set for `nothing`, which is not a registered tool",
            "the time limit of `slow_read` is set to 60 ms, above the 50 ms its declaration (`declared_limits::slow_read`) allows; a host may lower a declared limit, never raise it",
        ]
    );
    assert!(matches!(
        error.problems()[1],
        RegistryProblem::AboveDeclared { .. }
    ));
}

#[test]
fn batches_enforce_each_calls_own_limits() {
    let registry = builder().build().expect("valid");
    let mut chart = Chart::default();
    let calls = [
        ToolCall::new("1", "bars_query", json!({"count": 3})),
        ToolCall::new("2", "bars_query", json!({"count": 50})),
        ToolCall::new("3", "range_query", json!({"count": 999})),
        ToolCall::new("4", "slow_read", json!({"millis": 5})),
    ];
    let results =
        runtime().block_on(registry.execute_batch(&RunPolicy::full(), &mut chart, &calls));
    let codes: Vec<Option<&str>> = results.iter().map(ToolResult::code).collect();
    assert_eq!(
        codes,
        [None, Some("TOOL_FAILED"), Some("TOOL_TIMEOUT"), None]
    );
    assert!(
        results[2]
            .error()
            .is_some_and(|e| e.message.ends_with("within 40 ms.")),
        "{results:?}"
    );
}

#[test]
fn a_declared_limit_of_zero_is_a_build_error() {
    static ZERO: ToolMeta = ToolMeta::new(
        "zero",
        Safety::ReadOnly,
        Mode::Parallel,
        StaticSchema::Json(r#"{"type":"object"}"#),
    )
    .source("zero")
    .timeout_ms(0)
    .max_output_bytes(0);
    let error = Registry::<Chart>::builder()
        .tool(ToolDef {
            meta: &ZERO,
            handler: Handler::Shared(range_query),
        })
        .build()
        .expect_err("zero limits");
    let messages: Vec<String> = error.problems().iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "the output budget of `zero` must be greater than zero",
            "the time limit of `zero` must be greater than zero",
        ]
    );
}

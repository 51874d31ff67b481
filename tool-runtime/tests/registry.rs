//! The registry end to end: building, resolving a run's tools, and `execute` (SPEC sections 2, 3).

mod registry_tools;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use registry_tools::*;
use serde_json::{Value, json};
use toolwright_runtime::approval::Decision;
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput,
    ToolSpec,
};
use toolwright_runtime::registry::RegistryProblem;
use toolwright_runtime::{Registry, RunPolicy, ToolResult};

fn execute(
    registry: &Registry<Chart>,
    policy: &RunPolicy,
    chart: &mut Chart,
    name: &str,
    args: Value,
) -> ToolResult {
    runtime().block_on(registry.execute(policy, chart, name, &args))
}

fn error_json(result: &ToolResult) -> Value {
    serde_json::to_value(result).expect("an envelope serializes")
}

fn valid_drawing() -> Value {
    json!({"pane_id": "main", "kind": "trend_line", "anchors": [{"time": 1, "price": 10.5}]})
}

#[test]
fn the_spec_example_envelope_is_byte_for_byte() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    let args =
        json!({"pane_id": "main", "kind": "trend_line", "anchors": [{"time": 1, "price": "high"}]});
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "drawing_create",
        args,
    );
    let pretty = serde_json::to_string_pretty(&result).expect("serialize");
    assert_eq!(
        pretty,
        r#"{
  "success": false,
  "error": {
    "code": "TOOL_INPUT_INVALID",
    "message": "The tool input is invalid: /anchors/0/price: Expected number",
    "retryable": true,
    "recommendedAction": "Correct the invalid field and retry the request."
  },
  "stateChanged": false
}"#
    );
    assert_eq!(chart.entered(), 0, "invalid input never reaches tool code");
}

#[test]
fn a_destructive_success_reports_a_change() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "drawing_create",
        valid_drawing(),
    );
    assert_eq!(
        serde_json::to_string(&result).expect("serialize"),
        r#"{"success":true,"data":{"anchors":1,"id":"d1"},"stateChanged":true}"#
    );
    assert_eq!(chart.drawings, ["d1"]);
}

#[test]
fn a_destructive_tool_may_report_no_change() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "drawings_clear",
        json!({}),
    );
    assert_eq!(result, ToolResult::success(json!({"cleared": 0}), false));
    execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "drawing_create",
        valid_drawing(),
    );
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "drawings_clear",
        json!({}),
    );
    assert_eq!(result, ToolResult::success(json!({"cleared": 1}), true));
}

#[test]
fn a_read_only_tool_never_reports_a_change() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    // The adapter claims a change; the registry knows the tool is read-only.
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "settings_get",
        json!({}),
    );
    assert_eq!(result, ToolResult::success(json!({"theme": "dark"}), false));
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "panes_list",
        json!({}),
    );
    assert_eq!(result, ToolResult::success(json!(["main", "lower"]), false));
}

#[test]
fn resolve_lists_the_tools_of_a_run_sorted() {
    let registry = chart_registry();
    let names = |policy: &RunPolicy| {
        registry
            .resolve(policy)
            .iter()
            .map(|m| m.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(&RunPolicy::full()),
        [
            "drawing_create",
            "drawings_clear",
            "panes_list",
            "read_hang",
            "read_panic",
            "settings_get",
            "web_search",
            "write_hang",
            "write_panic"
        ]
    );
    assert_eq!(
        names(&RunPolicy::read_only()),
        [
            "panes_list",
            "read_hang",
            "read_panic",
            "settings_get",
            "web_search"
        ]
    );
    assert_eq!(
        names(
            &RunPolicy::read_only()
                .disable("web_search")
                .disable("no_such_tool")
        ),
        ["panes_list", "read_hang", "read_panic", "settings_get"]
    );
    let specs: Vec<String> = registry
        .resolve_specs(&RunPolicy::read_only().disable("web_search"))
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(
        specs,
        ["panes_list", "read_hang", "read_panic", "settings_get"]
    );
    assert!(
        names(&RunPolicy::full().disable("drawing_create"))
            .iter()
            .all(|n| *n != "drawing_create")
    );
}

#[test]
fn a_read_only_run_refuses_a_forged_write_without_running_or_validating_it() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    for args in [
        valid_drawing(),
        json!({"garbage": true}),
        json!("not even an object"),
    ] {
        let result = execute(
            &registry,
            &RunPolicy::read_only(),
            &mut chart,
            "drawing_create",
            args,
        );
        assert_eq!(
            serde_json::to_string(&result).expect("serialize"),
            r#"{"success":false,"error":{"code":"TOOL_NOT_ALLOWED","message":"The tool `drawing_create` changes state and this run is read-only.","retryable":false,"recommendedAction":"Do not retry: this run is read-only. Use only the tools offered in this run."},"stateChanged":false}"#
        );
    }
    assert_eq!(chart.entered(), 0);
    assert!(chart.drawings.is_empty());
}

#[test]
fn a_disabled_tool_is_refused() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    let policy = RunPolicy::full().disable("panes_list");
    let result = execute(&registry, &policy, &mut chart, "panes_list", json!({}));
    assert_eq!(result.code(), Some("TOOL_NOT_ALLOWED"));
    assert!(!result.state_changed());
    let error = result.error().expect("a failure");
    assert_eq!(
        error.message,
        "The tool `panes_list` is disabled by the user."
    );
    assert!(!error.retryable);
    assert_eq!(chart.entered(), 0);
}

#[test]
fn the_approver_is_consulted_for_each_valid_destructive_call_only() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&asked);
    let policy = RunPolicy::full().with_approval(move |request| {
        counter.fetch_add(1, Ordering::SeqCst);
        assert_eq!(request.meta.safety, Safety::Destructive);
        if request.arguments["pane_id"] == "main" {
            Decision::Approve
        } else {
            Decision::deny("")
        }
    });
    let denied = json!({"pane_id": "lower", "kind": "trend_line", "anchors": []});
    let result = execute(&registry, &policy, &mut chart, "drawing_create", denied);
    assert_eq!(result.code(), Some("TOOL_NOT_ALLOWED"));
    assert_eq!(
        result.error().map(|e| e.message.as_str()),
        Some("The call to `drawing_create` was not approved.")
    );
    assert!(!result.state_changed());
    assert_eq!(chart.entered(), 0);

    let result = execute(
        &registry,
        &policy,
        &mut chart,
        "drawing_create",
        valid_drawing(),
    );
    assert!(result.is_success());
    assert_eq!(asked.load(Ordering::SeqCst), 2);

    // An invalid call is answered by validation and never shown to the approver.
    let invalid = json!({"pane_id": "main", "kind": "circle", "anchors": []});
    let result = execute(&registry, &policy, &mut chart, "drawing_create", invalid);
    assert_eq!(result.code(), Some("TOOL_INPUT_INVALID"));
    assert_eq!(
        asked.load(Ordering::SeqCst),
        2,
        "invalid calls are not shown"
    );

    let result = execute(&registry, &policy, &mut chart, "panes_list", json!({}));
    assert!(result.is_success());
    assert_eq!(
        asked.load(Ordering::SeqCst),
        2,
        "read-only calls are not asked about"
    );
}

#[test]
fn an_unknown_tool_lists_close_names() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "drawing_craete",
        json!({}),
    );
    assert_eq!(
        serde_json::to_string(&result).expect("serialize"),
        r#"{"success":false,"error":{"code":"TOOL_NOT_FOUND","message":"The tool `drawing_craete` does not exist. Close names: `drawing_create`, `drawings_clear`.","retryable":true,"recommendedAction":"Call one of the offered tools by its exact name."},"stateChanged":false}"#
    );
    // Close names come from the tools of the run only.
    let result = execute(
        &registry,
        &RunPolicy::read_only(),
        &mut chart,
        "drawing_craete",
        json!({}),
    );
    assert_eq!(
        result.error().map(|e| e.message.as_str()),
        Some("The tool `drawing_craete` does not exist.")
    );
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "panes",
        json!({}),
    );
    assert_eq!(
        result.error().map(|e| e.message.as_str()),
        Some("The tool `panes` does not exist. Close names: `panes_list`.")
    );
    let long = "x".repeat(500);
    let result = execute(&registry, &RunPolicy::full(), &mut chart, &long, json!({}));
    let message = &result.error().expect("a failure").message;
    assert!(
        message.chars().count() < 120,
        "a forged name is quoted by prefix: {message}"
    );
    assert_eq!(chart.entered(), 0);
}

#[test]
fn missing_and_unexpected_properties_are_reported_at_their_own_pointer() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    let args = json!({"kind": "trend_line", "anchors": [], "colour": "red"});
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "drawing_create",
        args,
    );
    assert_eq!(
        result.error().map(|e| e.message.as_str()),
        Some(
            "The tool input is invalid: /colour: Unexpected property; /pane_id: Expected required property"
        )
    );
    let args = json!({"pane_id": "", "kind": "circle", "anchors": [{"time": -1, "price": 1, "x": 1, "y": 2}]});
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "drawing_create",
        args,
    );
    assert_eq!(
        result.error().map(|e| e.message.as_str()),
        Some(
            "The tool input is invalid: /anchors/0/time: Expected number to be greater or equal to 0; \
             /anchors/0/x: Unexpected property; /anchors/0/y: Unexpected property; \
             /kind: Expected one of \"trend_line\", \"horizontal_line\"; \
             /pane_id: Expected string length greater or equal to 1"
        )
    );
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "drawing_create",
        json!([1]),
    );
    assert_eq!(
        result.error().map(|e| e.message.as_str()),
        Some("The tool input is invalid: /: Expected object")
    );
    assert_eq!(chart.entered(), 0);
}

#[test]
fn more_than_five_errors_say_how_many_more() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    let anchors: Vec<Value> = (0..12).map(|i| json!({"time": i, "price": "p"})).collect();
    let args = json!({"pane_id": "main", "kind": "trend_line", "anchors": anchors});
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "drawing_create",
        args,
    );
    assert_eq!(
        result.error().map(|e| e.message.as_str()),
        Some(
            "The tool input is invalid: /anchors: Expected at most 10 items; /anchors/0/price: Expected number; \
             /anchors/1/price: Expected number; /anchors/2/price: Expected number; \
             /anchors/3/price: Expected number; … and 8 more"
        )
    );
    assert_eq!(chart.entered(), 0);
}

/// Each property takes one of a few strings: `type` and `enum`/`const` side by side.
static STYLE_SET: ToolMeta = meta(
    "style_set",
    Safety::ReadOnly,
    Mode::Parallel,
    r#"{
      "type": "object",
      "properties": {
        "line_style": {"type": "string", "enum": ["solid", "dashed"]},
        "unit": {"type": "string", "const": "px"},
        "width": {"type": "integer", "minimum": 1},
        "dashes": {"type": "array", "items": {"type": "string", "enum": ["long", "short"]}}
      },
      "additionalProperties": false
    }"#,
    &[],
);

fn style_set<'a>(chart: &'a Chart, _args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        chart.entered.fetch_add(1, Ordering::SeqCst);
        Ok(ToolOutput {
            data: json!("set").into(),
            state_changed: false,
        })
    })
}

#[test]
fn a_value_failing_its_type_and_its_choices_is_reported_once() {
    let registry = Registry::builder()
        .tool(ToolDef {
            meta: &STYLE_SET,
            handler: Handler::Shared(style_set),
        })
        .build()
        .expect("the tool is valid");
    let mut chart = Chart::new();
    let args = json!({"line_style": 5, "unit": 1, "width": 0.5});
    let result = execute(&registry, &RunPolicy::full(), &mut chart, "style_set", args);
    // `width` fails `type` and `minimum`, which do not merge.
    assert_eq!(
        result.error().map(|e| e.message.as_str()),
        Some(
            "The tool input is invalid: /line_style: Expected one of \"solid\", \"dashed\"; \
             /unit: Expected \"px\"; /width: Expected integer; \
             /width: Expected number to be greater or equal to 1"
        )
    );
    // Seven items, each failing both: seven errors, so two more than the five listed.
    let args = json!({"dashes": [1, 2, 3, 4, 5, 6, 7]});
    let result = execute(&registry, &RunPolicy::full(), &mut chart, "style_set", args);
    assert_eq!(
        result.error().map(|e| e.message.as_str()),
        Some(
            "The tool input is invalid: /dashes/0: Expected one of \"long\", \"short\"; \
             /dashes/1: Expected one of \"long\", \"short\"; \
             /dashes/2: Expected one of \"long\", \"short\"; \
             /dashes/3: Expected one of \"long\", \"short\"; \
             /dashes/4: Expected one of \"long\", \"short\"; … and 2 more"
        )
    );
    assert_eq!(chart.entered(), 0);
    let args = json!({"line_style": "dashed", "unit": "px", "width": 2, "dashes": ["long"]});
    let result = execute(&registry, &RunPolicy::full(), &mut chart, "style_set", args);
    assert!(result.error().is_none(), "{result:?}");
    assert_eq!(chart.entered(), 1);
}

#[test]
fn long_values_are_never_echoed() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    let secret = "s".repeat(10_000);
    let args = json!({"pane_id": "main", "kind": secret, "anchors": [], secret.clone(): 1});
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "drawing_create",
        args,
    );
    let message = &result.error().expect("a failure").message;
    assert!(
        !message.contains(&"s".repeat(100)),
        "the report echoes a long value"
    );
    assert!(message.len() < 10_000);
}

#[test]
fn declared_errors_carry_their_message_detail_and_hint() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    let args = json!({"pane_id": "upper", "kind": "trend_line", "anchors": []});
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "drawing_create",
        args,
    );
    assert_eq!(
        serde_json::to_string(&result).expect("serialize"),
        r#"{"success":false,"error":{"code":"PANE_NOT_FOUND","message":"Pane not found. Valid pane IDs: main, lower.","retryable":true,"recommendedAction":"Call panes_list to get the valid pane IDs, then retry."},"stateChanged":false}"#
    );
}

#[test]
fn undeclared_codes_and_plain_failures_are_tool_failed() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    let args = json!({"pane_id": "undeclared", "kind": "trend_line", "anchors": []});
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "drawing_create",
        args,
    );
    let json = error_json(&result);
    assert_eq!(json["error"]["code"], "TOOL_FAILED");
    assert_eq!(json["error"]["retryable"], false);
    assert_eq!(
        json["error"]["message"],
        "The tool `drawing_create` failed with the undeclared error code `SOMETHING_ELSE`."
    );
    // The tool ran and failed without a declared code: a destructive tool may have changed
    // state half-way.
    assert_eq!(json["stateChanged"], true);

    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "settings_get",
        json!({"key": "fail"}),
    );
    assert_eq!(result.code(), Some("TOOL_FAILED"));
    assert_eq!(
        result.error().map(|e| e.message.as_str()),
        Some("The tool `settings_get` failed: the settings store is unavailable")
    );

    // A destructive tool that fails without a declared code may have changed state.
    let args = json!({"pane_id": "broken", "kind": "trend_line", "anchors": []});
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "drawing_create",
        args,
    );
    assert_eq!(result.code(), Some("TOOL_FAILED"));
    assert!(result.state_changed());
    assert_eq!(
        result.error().map(|e| e.message.as_str()),
        Some("The tool `drawing_create` failed: the chart store went away")
    );
}

#[test]
fn a_typed_input_that_rejects_valid_json_is_input_invalid() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "web_search",
        json!({"q": "x"}),
    );
    assert_eq!(result.code(), Some("TOOL_INPUT_INVALID"));
    assert_eq!(
        result.error().map(|e| e.message.as_str()),
        Some("The tool input is invalid: /: missing field `query`")
    );
    assert!(result.error().is_some_and(|e| e.retryable));
    assert_eq!(chart.entered(), 0);
}

#[test]
fn panics_and_timeouts_are_data_and_never_reassuring_for_writes() {
    let registry = chart_registry();
    let mut chart = Chart::new();
    for when in ["call", "poll"] {
        let result = execute(
            &registry,
            &RunPolicy::full(),
            &mut chart,
            "read_panic",
            json!({"when": when}),
        );
        assert_eq!(result.code(), Some("TOOL_FAILED"), "{when}");
        assert!(!result.state_changed());
        let result = execute(
            &registry,
            &RunPolicy::full(),
            &mut chart,
            "write_panic",
            json!({"when": when}),
        );
        assert_eq!(result.code(), Some("TOOL_FAILED"), "{when}");
        assert!(
            result.state_changed(),
            "a panicked write may have changed state"
        );
        assert_eq!(
            result.error().map(|e| e.message.as_str()),
            Some("The tool `write_panic` failed unexpectedly.")
        );
    }
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "write_hang",
        json!({}),
    );
    assert_eq!(
        serde_json::to_string(&result).expect("serialize"),
        r#"{"success":false,"error":{"code":"TOOL_TIMEOUT","message":"The tool `write_hang` did not finish within 20 ms.","retryable":true,"recommendedAction":"The tool may have changed state before it was stopped: check the current state, then retry only if needed."},"stateChanged":true}"#
    );
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "read_hang",
        json!({}),
    );
    assert_eq!(result.code(), Some("TOOL_TIMEOUT"));
    assert!(!result.state_changed());
    // The registry still works after all of that.
    let result = execute(
        &registry,
        &RunPolicy::full(),
        &mut chart,
        "panes_list",
        json!({}),
    );
    assert!(result.is_success());
}

#[test]
fn the_registry_is_send_and_sync_and_its_futures_are_send() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    fn send<T: Send>(_: &T) {}
    let registry = chart_registry();
    send_sync(&registry);
    let mut chart = Chart::new();
    let policy = RunPolicy::full();
    let args = json!({});
    let future = registry.execute(&policy, &mut chart, "panes_list", &args);
    send(&future);
    drop(future);
    let calls = [toolwright_runtime::ToolCall::new(
        "1",
        "panes_list",
        json!({}),
    )];
    let future = registry.execute_batch(&policy, &mut chart, &calls);
    send(&future);
}

#[test]
fn a_registry_runs_on_a_multi_threaded_runtime() {
    let registry = Arc::new(chart_registry());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .expect("runtime");
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let registry = Arc::clone(&registry);
            rt.spawn(async move {
                let mut chart = Chart::new();
                registry
                    .execute(
                        &RunPolicy::full(),
                        &mut chart,
                        "drawing_create",
                        &valid_drawing(),
                    )
                    .await
            })
        })
        .collect();
    for handle in handles {
        let result = rt.block_on(handle).expect("the task completes");
        assert!(result.is_success());
    }
}

#[test]
fn specs_and_get_describe_every_tool() {
    let registry = chart_registry();
    let specs = registry.specs();
    assert_eq!(specs.len(), registry.len());
    let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    let drawing = specs
        .iter()
        .find(|s| s.name == "drawing_create")
        .expect("listed");
    assert_eq!(
        drawing,
        &ToolSpec::from_meta(&DRAWING_CREATE).expect("valid")
    );
    let def = registry.get("drawing_create").expect("registered");
    assert_eq!(def.safety(), Safety::Destructive);
    assert_eq!(def.mode(), Mode::Sequential);
    assert!(registry.get("nope").is_none());
    assert_eq!(
        registry.timeout_of("write_hang"),
        Some(std::time::Duration::from_millis(20))
    );
    assert_eq!(
        registry.timeout_of("panes_list"),
        Some(toolwright_runtime::registry::DEFAULT_TIMEOUT)
    );
}

// ---- building ----

fn build_error(
    builder: toolwright_runtime::RegistryBuilder<Chart>,
) -> toolwright_runtime::registry::RegistryError {
    builder.build().expect_err("the registry must not build")
}

#[test]
fn two_tools_with_one_name_do_not_build() {
    let error = build_error(
        Registry::builder()
            .tool(panes_list_def())
            .tool(panes_list_def()),
    );
    assert_eq!(error.problems().len(), 1);
    assert_eq!(
        error.to_string(),
        "two tools are named `panes_list`: `panes_list` and `panes_list`"
    );
}

#[test]
fn a_registry_error_debugs_as_it_displays() {
    // What `main` prints when it returns the error: the readable problems, not the structure.
    let error = build_error(
        Registry::builder()
            .tool(panes_list_def())
            .tool(panes_list_def())
            .timeout("web_search", std::time::Duration::from_secs(1)),
    );
    assert_eq!(error.problems().len(), 2);
    assert_eq!(format!("{error:?}"), error.to_string());
    assert!(
        format!("{error:?}").starts_with(
            "the tool registry cannot be built (2 problems):\n- two tools are named `panes_list`"
        ),
        "{error:?}"
    );
}

static DECLARED_ONLY: ToolMeta = ToolMeta::new(
    "comparison_create",
    Safety::Destructive,
    Mode::Sequential,
    StaticSchema::Json(EMPTY_OBJECT),
)
.title("Create a comparison")
.description("Adds a comparison.")
.source("tools/comparison_create.toml");

#[test]
fn a_declared_tool_without_implementation_does_not_build() {
    let error = build_error(
        Registry::builder()
            .tool(panes_list_def())
            .declared(&[&PANES_LIST, &DECLARED_ONLY]),
    );
    assert_eq!(
        error.to_string(),
        "tool `comparison_create` is declared in `tools/comparison_create.toml` but has no implementation; register it with `.tool(...)`"
    );
    // Declared and implemented: builds.
    let registry = Registry::builder()
        .tool(panes_list_def())
        .declared(&[&PANES_LIST])
        .build()
        .expect("every declared tool is implemented");
    assert_eq!(registry.len(), 1);
}

static DRIFTED: ToolMeta = meta(
    "drawing_create",
    Safety::ReadOnly,
    Mode::Parallel,
    DRAWING_SCHEMA,
    DRAWING_ERRORS,
)
.source("src/drawing.rs");

#[test]
fn an_implementation_that_drifts_from_its_manifest_does_not_build() {
    let def = ToolDef {
        meta: &DRIFTED,
        handler: Handler::Shared(|_, _| {
            Box::pin(async { Err(toolwright_runtime::ToolError::failed("x")) })
        }),
    };
    let error = build_error(Registry::builder().tool(def).declared(&[&DRAWING_CREATE]));
    assert_eq!(
        error.to_string(),
        "tool `drawing_create` is declared destructive, sequential in `drawing_create` but its implementation (`src/drawing.rs`) is read-only, parallel"
    );
}

static READ_ONLY_EXCLUSIVE: ToolMeta = meta(
    "panes_peek",
    Safety::ReadOnly,
    Mode::Sequential,
    EMPTY_OBJECT,
    &[],
);
static PARALLEL_EXCLUSIVE: ToolMeta = meta(
    "panes_poke",
    Safety::Destructive,
    Mode::Parallel,
    EMPTY_OBJECT,
    &[],
);

#[test]
fn read_only_or_parallel_tools_cannot_take_the_context_exclusively() {
    let peek = ToolDef {
        meta: &READ_ONLY_EXCLUSIVE,
        handler: drawings_clear_def().handler,
    };
    let poke = ToolDef {
        meta: &PARALLEL_EXCLUSIVE,
        handler: drawings_clear_def().handler,
    };
    let error = build_error(Registry::builder().tool(peek).tool(poke));
    assert_eq!(
        error.to_string(),
        "the tool registry cannot be built (2 problems):\n\
         - tool `panes_peek` is read-only and sequential but its handler takes the context exclusively (`&mut C`); only sequential, destructive tools may; take `&C` instead\n\
         - tool `panes_poke` is destructive and parallel but its handler takes the context exclusively (`&mut C`); only sequential, destructive tools may; take `&C` instead"
    );
    assert!(matches!(
        error.problems()[0],
        RegistryProblem::ExclusiveHandler { .. }
    ));
}

static BAD_SCHEMA: ToolMeta = meta(
    "bad_schema",
    Safety::ReadOnly,
    Mode::Parallel,
    r#"{"type":"object","properties":{"a":{"type":"strang"}}}"#,
    &[],
)
.source("panes_list");
static NOT_JSON: ToolMeta =
    meta("not_json", Safety::ReadOnly, Mode::Parallel, "{", &[]).source("panes_list");
static BAD_NAME: ToolMeta = meta(
    "Bad-Name",
    Safety::ReadOnly,
    Mode::Parallel,
    EMPTY_OBJECT,
    &[],
)
.source("panes_list");

#[test]
fn a_duplicate_of_a_broken_tool_is_still_a_duplicate() {
    let handler = panes_list_def().handler;
    let error = build_error(
        Registry::builder()
            .tool(ToolDef {
                meta: &BAD_SCHEMA,
                handler,
            })
            .tool(ToolDef {
                meta: &BAD_SCHEMA,
                handler,
            })
            .tool(ToolDef {
                meta: &BAD_SCHEMA,
                handler,
            }),
    );
    let duplicates = error
        .problems()
        .iter()
        .filter(|p| matches!(p, RegistryProblem::DuplicateName { .. }))
        .count();
    assert_eq!(duplicates, 1, "{error}");
    assert_eq!(error.problems().len(), 2, "{error}");
}

#[test]
fn schemas_that_do_not_compile_name_their_tool() {
    let handler = panes_list_def().handler;
    let error = build_error(
        Registry::builder()
            .tool(ToolDef {
                meta: &BAD_SCHEMA,
                handler,
            })
            .tool(ToolDef {
                meta: &NOT_JSON,
                handler,
            })
            .tool(ToolDef {
                meta: &BAD_NAME,
                handler,
            }),
    );
    let problems = error.problems();
    assert_eq!(problems.len(), 3, "{error}");
    let text = error.to_string();
    assert!(
        text.contains(
            "- tool name `Bad-Name` (`panes_list`) is not valid, expected `^[a-z][a-z0-9_]{0,63}$`"
        ),
        "{text}"
    );
    assert!(
        text.contains("- the input schema of tool `bad_schema` (`panes_list`) does not compile: "),
        "{text}"
    );
    assert!(
        text.contains("- the metadata of tool `not_json` (`panes_list`) is not valid JSON: "),
        "{text}"
    );
}

#[test]
fn time_limits_must_name_registered_tools_and_be_positive() {
    let error = build_error(
        Registry::builder()
            .tool(panes_list_def())
            .timeout("panes_lst", std::time::Duration::from_secs(1))
            .timeout("panes_list", std::time::Duration::ZERO),
    );
    assert_eq!(
        error.to_string(),
        "the tool registry cannot be built (2 problems):\n\
         - the time limit of `panes_list` must be greater than zero\n\
         - a time limit is set for `panes_lst`, which is not a registered tool"
    );
    let error = build_error(
        Registry::builder()
            .tool(panes_list_def())
            .default_timeout(std::time::Duration::ZERO),
    );
    assert_eq!(
        error.to_string(),
        "the time limit of `*` must be greater than zero"
    );
}

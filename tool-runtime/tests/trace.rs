//! The spans of tool calls (`toolwright_runtime::trace`), captured by a small layer that keeps every
//! closed span's name, fields and parent.

use std::time::Duration;

use serde_json::{Value, json};
use toolwright_runtime::approval::{Decision, Decisions};
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput,
};
use toolwright_runtime::limits::Limits;
use toolwright_runtime::{Registry, RunPolicy, ToolCall, ToolError};

mod support;
use support::spans::{Closed, traced};

// ---- the tools ----

#[derive(Debug, Default)]
struct Chart {
    drawings: Vec<String>,
}

const SCHEMA: &str =
    r#"{"type":"object","properties":{"text":{"type":"string"}},"additionalProperties":false}"#;

const fn meta(name: &'static str, safety: Safety, mode: Mode) -> ToolMeta {
    ToolMeta::new(name, safety, mode, StaticSchema::Json(SCHEMA))
        .description("A test tool.")
        .source(name)
}

static READ: ToolMeta = meta("drawings_list", Safety::ReadOnly, Mode::Parallel);
static WRITE: ToolMeta = meta("drawing_create", Safety::Destructive, Mode::Sequential);
static HANG: ToolMeta = meta("hang", Safety::Destructive, Mode::Sequential);
static PANIC: ToolMeta = meta("explode", Safety::ReadOnly, Mode::Parallel);
static REFUSE: ToolMeta = meta("refuse", Safety::Destructive, Mode::Sequential);

fn read<'a>(chart: &'a Chart, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        Ok(ToolOutput {
            data: json!({"drawings": chart.drawings, "echo": args.get("text")}).into(),
            state_changed: false,
        })
    })
}

fn write<'a>(chart: &'a mut Chart, args: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        let text = args["text"].as_str().unwrap_or("line").to_owned();
        chart.drawings.push(text);
        Ok(ToolOutput {
            data: json!({"id": chart.drawings.len()}).into(),
            state_changed: true,
        })
    })
}

fn hang<'a>(_: &'a mut Chart, _: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        tokio::time::sleep(Duration::from_secs(60)).await;
        Ok(ToolOutput {
            data: Value::Null.into(),
            state_changed: true,
        })
    })
}

fn explode<'a>(_: &'a Chart, _: &'a Value) -> BoxFuture<'a, CallResult> {
    panic!("the tool blew up")
}

fn refuse<'a>(_: &'a mut Chart, _: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move { Err(ToolError::not_allowed("Not in this host.")) })
}

fn builder() -> toolwright_runtime::RegistryBuilder<Chart> {
    Registry::builder()
        .tool(ToolDef {
            meta: &READ,
            handler: Handler::Shared(read),
        })
        .tool(ToolDef {
            meta: &WRITE,
            handler: Handler::Exclusive(write),
        })
        .tool(ToolDef {
            meta: &HANG,
            handler: Handler::Exclusive(hang),
        })
        .tool(ToolDef {
            meta: &PANIC,
            handler: Handler::Shared(explode),
        })
        .tool(ToolDef {
            meta: &REFUSE,
            handler: Handler::Exclusive(refuse),
        })
        .timeout("hang", Duration::from_millis(20))
}

fn registry() -> Registry<Chart> {
    builder().build().expect("valid tools")
}

// ---- one call ----

#[test]
fn a_success_has_the_gen_ai_attributes() {
    let registry = registry();
    let mut chart = Chart::default();
    let (result, spans) = traced(async || {
        registry
            .execute(&RunPolicy::full(), &mut chart, "drawings_list", &json!({}))
            .await
    });
    assert!(result.is_success());
    let span = spans.only_call();
    assert_eq!(span.name, "execute_tool");
    assert_eq!(span.parent, None);
    for (field, value) in [
        ("otel.name", json!("execute_tool drawings_list")),
        ("otel.kind", json!("internal")),
        ("gen_ai.operation.name", json!("execute_tool")),
        ("gen_ai.tool.name", json!("drawings_list")),
        ("gen_ai.tool.type", json!("function")),
        ("tool.safety", json!("read-only")),
        ("tool.mode", json!("parallel")),
        ("tool.state_changed", json!(false)),
        (
            "tool.output_bytes",
            json!(result.data().expect("data").json().len()),
        ),
    ] {
        assert_eq!(span.field(field), Some(&value), "{field}: {span:#?}");
    }
    for absent in [
        "error.type",
        "otel.status_code",
        "tool.refusal",
        "gen_ai.tool.call.id",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
    ] {
        assert_eq!(span.field(absent), None, "{absent}: {span:#?}");
    }
}

#[test]
fn each_refusal_is_named_with_its_error_type() {
    let registry = Registry::builder()
        .tool(ToolDef {
            meta: &READ,
            handler: Handler::Shared(read),
        })
        .tool(ToolDef {
            meta: &WRITE,
            handler: Handler::Exclusive(write),
        })
        .tool(ToolDef {
            meta: &REFUSE,
            handler: Handler::Exclusive(refuse),
        })
        .limits({
            let mut limits = Limits::default();
            limits.max_batch_calls = 1;
            limits
        })
        .build()
        .expect("valid");
    let deny = RunPolicy::full().with_approval(|_| Decision::deny("No."));
    let defer = RunPolicy::full().with_approval(|_| Decision::Defer);
    let cases: Vec<(RunPolicy, &str, Value, &str, &str)> = vec![
        (
            RunPolicy::read_only(),
            "drawing_create",
            json!({}),
            "TOOL_NOT_ALLOWED",
            "read_only_run",
        ),
        (
            RunPolicy::full().disable("drawings_list"),
            "drawings_list",
            json!({}),
            "TOOL_NOT_ALLOWED",
            "disabled",
        ),
        (
            RunPolicy::full().withhold("drawings_list", "Withheld for now."),
            "drawings_list",
            json!({}),
            "TOOL_NOT_ALLOWED",
            "withheld",
        ),
        (
            deny,
            "drawing_create",
            json!({}),
            "TOOL_NOT_ALLOWED",
            "denied",
        ),
        (
            defer,
            "drawing_create",
            json!({}),
            "TOOL_NOT_ALLOWED",
            "approval_pending",
        ),
        (
            RunPolicy::full(),
            "drawing_create",
            json!({"text": 1}),
            "TOOL_INPUT_INVALID",
            "input_invalid",
        ),
        (
            RunPolicy::full(),
            "drawing_craete",
            json!({}),
            "TOOL_NOT_FOUND",
            "not_found",
        ),
        (
            RunPolicy::full(),
            "refuse",
            json!({}),
            "TOOL_NOT_ALLOWED",
            "refused_by_tool",
        ),
    ];
    for (policy, name, arguments, code, reason) in cases {
        let mut chart = Chart::default();
        let (result, spans) = traced(async || {
            registry
                .execute(&policy, &mut chart, name, &arguments)
                .await
        });
        assert_eq!(result.code(), Some(code), "{name}");
        let span = spans.only_call();
        assert_eq!(span.str("error.type"), Some(code), "{span:#?}");
        assert_eq!(span.str("otel.status_code"), Some("error"), "{span:#?}");
        assert_eq!(span.str("tool.refusal"), Some(reason), "{span:#?}");
        assert_eq!(span.field("tool.state_changed"), Some(&json!(false)));
        assert!(chart.drawings.is_empty(), "nothing ran for {reason}");
    }
    // The calls past the bound of a message are refused too, each with its span.
    let mut chart = Chart::default();
    let calls = [
        ToolCall::new("a", "drawings_list", json!({})),
        ToolCall::new("b", "drawings_list", json!({})),
    ];
    let (_, spans) = traced(async || {
        registry
            .execute_batch(&RunPolicy::full(), &mut chart, &calls)
            .await
    });
    assert_eq!(spans.calls().len(), 2);
    let past = spans
        .calls()
        .into_iter()
        .find(|s| s.str("gen_ai.tool.call.id") == Some("b"))
        .expect("the second call's span");
    assert_eq!(past.str("tool.refusal"), Some("too_many_calls"));
}

#[test]
fn timeouts_and_panics_are_error_types_and_a_write_may_have_changed_state() {
    let registry = registry();
    let mut chart = Chart::default();
    let (_, spans) = traced(async || {
        registry
            .execute(&RunPolicy::full(), &mut chart, "hang", &json!({}))
            .await;
        registry
            .execute(&RunPolicy::full(), &mut chart, "explode", &json!({}))
            .await;
    });
    let calls = spans.calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].str("error.type"), Some("TOOL_TIMEOUT"));
    assert_eq!(calls[0].field("tool.state_changed"), Some(&json!(true)));
    assert_eq!(calls[0].str("tool.refusal"), None);
    assert_eq!(calls[1].str("error.type"), Some("TOOL_FAILED"));
    assert_eq!(calls[1].field("tool.state_changed"), Some(&json!(false)));
}

// ---- batches ----

#[test]
fn a_batch_span_holds_one_span_per_call() {
    let registry = registry();
    let mut chart = Chart::default();
    let calls = [
        ToolCall::new("call_1", "drawings_list", json!({})),
        ToolCall::new("call_2", "drawing_create", json!({"text": "support"})),
        ToolCall::new("call_3", "nope", json!({})),
    ];
    let (results, spans) = traced(async || {
        registry
            .execute_batch(&RunPolicy::full(), &mut chart, &calls)
            .await
    });
    assert_eq!(results.len(), 3);
    let all = spans.spans();
    let batch: Vec<&Closed> = all.iter().filter(|s| s.name == "execute_batch").collect();
    assert_eq!(batch.len(), 1);
    assert_eq!(batch[0].str("tool.batch.entry"), Some("execute_batch"));
    assert_eq!(batch[0].field("tool.batch.calls"), Some(&json!(3)));
    assert_eq!(batch[0].field("tool.batch.sequential"), Some(&json!(true)));
    let calls = spans.calls();
    let ids: Vec<Option<&str>> = calls.iter().map(|s| s.str("gen_ai.tool.call.id")).collect();
    assert_eq!(ids, [Some("call_1"), Some("call_2"), Some("call_3")]);
    for call in &calls {
        assert_eq!(call.parent.as_deref(), Some("execute_batch"), "{call:#?}");
    }
    assert_eq!(calls[1].field("tool.state_changed"), Some(&json!(true)));
    assert_eq!(calls[1].str("tool.safety"), Some("destructive"));
    assert_eq!(calls[2].str("tool.refusal"), Some("not_found"));
    assert_eq!(calls[2].str("tool.safety"), None);
}

#[test]
fn a_deferred_call_and_its_resume_have_their_own_spans() {
    let registry = registry();
    let mut chart = Chart::default();
    let policy = RunPolicy::full().with_approval(|_| Decision::Defer);
    let calls = [
        ToolCall::new("c1", "drawings_list", json!({})),
        ToolCall::new("c2", "drawing_create", json!({"text": "a"})),
    ];
    let (outcome, spans) = traced(async || registry.run_batch(&policy, &mut chart, &calls).await);
    let paused = outcome.paused().expect("the write waits");
    let batch = spans
        .spans()
        .into_iter()
        .find(|s| s.name == "execute_batch")
        .expect("the batch span");
    assert_eq!(batch.str("tool.batch.entry"), Some("run_batch"));
    assert_eq!(batch.field("tool.batch.pending"), Some(&json!(1)));
    let deferred = spans
        .calls()
        .into_iter()
        .find(|s| s.str("gen_ai.tool.call.id") == Some("c2"))
        .expect("the deferred call's span");
    assert_eq!(deferred.str("tool.approval"), Some("deferred"));
    assert_eq!(deferred.str("error.type"), None);

    let mut decisions = Decisions::new();
    decisions.insert(paused.pending()[0].approval_id.clone(), Decision::Approve);
    let ledger = toolwright_runtime::approval::MemoryApprovalStore::new();
    let (outcome, spans) = traced(async || {
        registry
            .resume_batch(&policy, &mut chart, paused, &decisions, &ledger)
            .await
    });
    assert!(outcome.complete().is_some());
    let call = spans.only_call();
    assert_eq!(call.str("gen_ai.tool.call.id"), Some("c2"));
    assert_eq!(call.parent.as_deref(), Some("execute_batch"));
    assert_eq!(
        call.parent_fields.get("tool.batch.entry"),
        Some(&json!("resume_batch"))
    );
    assert_eq!(call.field("tool.state_changed"), Some(&json!(true)));
    assert_eq!(chart.drawings, ["a"]);
}

// ---- what is recorded of arguments and results ----

#[test]
fn arguments_and_results_are_recorded_only_when_the_host_opts_in_and_redacted() {
    let arguments = json!({"text": "key sk-live-123 here"});
    let plain = registry();
    let mut chart = Chart::default();
    let (_, spans) = traced(async || {
        plain
            .execute(&RunPolicy::full(), &mut chart, "drawings_list", &arguments)
            .await
    });
    let span = spans.only_call();
    assert_eq!(span.field("gen_ai.tool.call.arguments"), None);
    assert_eq!(span.field("gen_ai.tool.call.result"), None);

    let recording = builder()
        .trace_content(|text: &str| text.replace("sk-live-123", "[REDACTED]"))
        .build()
        .expect("valid");
    let (_, spans) = traced(async || {
        recording
            .execute(&RunPolicy::full(), &mut chart, "drawings_list", &arguments)
            .await
    });
    let span = spans.only_call();
    assert_eq!(
        span.str("gen_ai.tool.call.arguments"),
        Some(r#"{"text":"key [REDACTED] here"}"#)
    );
    assert_eq!(
        span.str("gen_ai.tool.call.result"),
        Some(
            r#"{"success":true,"data":{"drawings":[],"echo":"key [REDACTED] here"},"stateChanged":false}"#
        )
    );

    // Arguments past the bounds are never written out, whatever the opt-in.
    let mut deep = json!(0);
    for _ in 0..100 {
        deep = json!([deep]);
    }
    let (_, spans) = traced(async || {
        recording
            .execute(
                &RunPolicy::full(),
                &mut chart,
                "drawings_list",
                &json!({"text": deep}),
            )
            .await
    });
    assert_eq!(
        spans.only_call().str("gen_ai.tool.call.arguments"),
        Some("(not recorded: /: Expected nesting of at most 64 levels)")
    );
}

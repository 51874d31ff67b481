//! The spans of tool calls (`toolwright_runtime::trace`), captured by a small layer that keeps every
//! closed span's name, fields and parent.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use toolwright_runtime::approval::{Decision, Decisions};
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput,
};
use toolwright_runtime::limits::Limits;
use toolwright_runtime::{Registry, RunPolicy, ToolCall, ToolError};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;

/// One closed span.
#[derive(Debug, Clone, Default)]
struct Closed {
    name: String,
    fields: BTreeMap<String, Value>,
    parent: Option<String>,
    /// The parent's `gen_ai.tool.call.id` or `tool.batch.entry`, to tell parents apart.
    parent_fields: BTreeMap<String, Value>,
}

impl Closed {
    fn field(&self, name: &str) -> Option<&Value> {
        self.fields.get(name)
    }

    fn str(&self, name: &str) -> Option<&str> {
        self.field(name).and_then(Value::as_str)
    }
}

struct Fields<'a>(&'a mut BTreeMap<String, Value>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), json!(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().to_owned(), json!(value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), json!(value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_owned(), json!(value));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_owned(), json!(format!("{value:?}")));
    }
}

/// The fields of an open span, kept in its extensions.
struct Open(BTreeMap<String, Value>);

/// Collects closed spans of the runtime's target.
#[derive(Clone, Default)]
struct Collector(Arc<Mutex<Vec<Closed>>>);

impl Collector {
    fn spans(&self) -> Vec<Closed> {
        self.0.lock().expect("spans").clone()
    }

    fn calls(&self) -> Vec<Closed> {
        self.spans()
            .into_iter()
            .filter(|s| s.name == "execute_tool")
            .collect()
    }

    fn only_call(&self) -> Closed {
        let calls = self.calls();
        assert_eq!(calls.len(), 1, "{calls:#?}");
        calls.into_iter().next().expect("one call")
    }
}

impl<S> Layer<S> for Collector
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(Open(fields));
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(open) = span.extensions_mut().get_mut::<Open>()
        {
            values.record(&mut Fields(&mut open.0));
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else {
            return;
        };
        if span.metadata().target() != toolwright_runtime::trace::TARGET {
            return;
        }
        let fields = span
            .extensions()
            .get::<Open>()
            .map(|o| o.0.clone())
            .unwrap_or_default();
        let parent = span.parent();
        let parent_fields = parent
            .as_ref()
            .and_then(|p| p.extensions().get::<Open>().map(|o| o.0.clone()))
            .unwrap_or_default();
        self.0.lock().expect("spans").push(Closed {
            name: span.name().to_owned(),
            fields,
            parent: parent.map(|p| p.name().to_owned()),
            parent_fields,
        });
    }
}

/// Runs `f` with the collector as the thread's subscriber, on a current-thread runtime.
fn traced<T>(f: impl AsyncFnOnce() -> T) -> (T, Collector) {
    let collector = Collector::default();
    let subscriber = tracing_subscriber::registry().with(collector.clone());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let out = tracing::subscriber::with_default(subscriber, || runtime.block_on(f()));
    (out, collector)
}

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
    let mut ledger = toolwright_runtime::approval::ApprovalLedger::new();
    let (outcome, spans) = traced(async || {
        registry
            .resume_batch(&policy, &mut chart, paused, &decisions, &mut ledger)
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

// ---- over MCP ----

#[cfg(feature = "mcp")]
mod mcp {
    use super::*;
    use rmcp::ServiceExt as _;
    use rmcp::model::{CallToolRequestParams, RequestParamsMeta as _};
    use toolwright_runtime::mcp::McpServer;

    pub(super) const TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    /// Calls `drawings_list` over an in-process MCP session, with `traceparent` in `_meta`.
    pub(super) async fn call_with_traceparent(traceparent: Option<&str>) {
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let server = McpServer::new(
            Arc::new(registry()),
            RunPolicy::full(),
            Chart::default(),
            "t",
            "1",
        )
        .expect("a server");
        let (input, output) = tokio::io::split(server_io);
        tokio::spawn(server.serve_lines(input, output));
        let client = ().serve(client_io).await.expect("the client connects");
        let mut params = CallToolRequestParams::new("drawings_list");
        if let Some(traceparent) = traceparent {
            params.set_traceparent(traceparent);
        }
        let result = client.call_tool(params).await.expect("a result");
        assert_eq!(result.is_error, Some(false));
        client.cancel().await.expect("the client closes");
    }

    #[test]
    fn a_tools_call_records_the_request_and_its_traceparent() {
        let (_, spans) = traced(async || call_with_traceparent(Some(TRACEPARENT)).await);
        let span = spans.only_call();
        assert_eq!(span.str("mcp.method.name"), Some("tools/call"));
        assert!(span.field("jsonrpc.request.id").is_some(), "{span:#?}");
        assert_eq!(span.str("mcp.traceparent"), Some(TRACEPARENT));
        assert_eq!(span.str("gen_ai.tool.name"), Some("drawings_list"));
        assert_eq!(span.field("tool.state_changed"), Some(&json!(false)));

        let (_, spans) = traced(async || call_with_traceparent(None).await);
        assert_eq!(spans.only_call().field("mcp.traceparent"), None);
    }
}

/// With the feature `otel` and a `tracing_opentelemetry` layer, the span joins the client's
/// trace: its trace id and parent are the `traceparent`'s (a call without one stays in a trace
/// of its own).
#[cfg(feature = "otel")]
#[test]
fn with_otel_the_traceparent_is_the_spans_parent() {
    use opentelemetry::trace::{SpanId, TraceId, TracerProvider as _};
    use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};

    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    tracing::subscriber::with_default(subscriber, || {
        runtime.block_on(mcp::call_with_traceparent(Some(mcp::TRACEPARENT)));
        runtime.block_on(mcp::call_with_traceparent(None));
    });
    provider.force_flush().expect("flushed");
    let spans = exporter.get_finished_spans().expect("spans");
    let calls: Vec<_> = spans
        .iter()
        .filter(|s| s.name == "execute_tool drawings_list")
        .collect();
    assert_eq!(calls.len(), 2, "{spans:#?}");
    let client_trace = TraceId::from_hex("0af7651916cd43dd8448eb211c80319c").expect("hex");
    let (joined, alone): (Vec<&&SpanData>, Vec<&&SpanData>) = calls
        .iter()
        .partition(|s| s.span_context.trace_id() == client_trace);
    assert_eq!((joined.len(), alone.len()), (1, 1), "{calls:#?}");
    let (joined, alone) = (joined[0], alone[0]);
    assert_eq!(
        joined.parent_span_id,
        SpanId::from_hex("b7ad6b7169203331").expect("hex")
    );
    assert_ne!(
        alone.span_context.trace_id(),
        joined.span_context.trace_id()
    );
}

//! The spans of calls over MCP (`toolwright-mcp` with its feature `otel`): a `tools/call`
//! records its request and the `traceparent` of its `_meta` on the registry's `execute_tool`
//! span, and that `traceparent` is the span's OpenTelemetry parent.

use std::sync::Arc;

use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, RequestParamsMeta as _};
use serde_json::{Value, json};
use toolwright_mcp::McpServer;
use toolwright_runtime::handler::{
    BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput,
};
use toolwright_runtime::{Registry, RunPolicy};
use tracing_subscriber::layer::SubscriberExt as _;

// The runtime's span collector: the same fields, read the same way. (This crate is not
// published, so it may read another crate's test files.)
#[path = "../../tool-runtime/tests/support/spans.rs"]
mod spans;
use spans::traced;

#[derive(Debug, Default)]
struct Chart {
    drawings: Vec<String>,
}

static READ: ToolMeta = ToolMeta::new(
    "drawings_list",
    Safety::ReadOnly,
    Mode::Parallel,
    StaticSchema::Json(r#"{"type":"object","additionalProperties":false}"#),
)
.description("Lists the drawings.")
.source("drawings_list");

fn read<'a>(chart: &'a Chart, _: &'a Value) -> BoxFuture<'a, CallResult> {
    Box::pin(async move {
        Ok(ToolOutput {
            data: json!({"drawings": chart.drawings}).into(),
            state_changed: false,
        })
    })
}

fn registry() -> Registry<Chart> {
    Registry::builder()
        .tool(ToolDef {
            meta: &READ,
            handler: Handler::Shared(read),
        })
        .build()
        .expect("valid tools")
}

const TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

/// Calls `drawings_list` over an in-process MCP session, with `traceparent` in `_meta`.
async fn call_with_traceparent(traceparent: Option<&str>) {
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

/// With the feature `otel` and a `tracing_opentelemetry` layer, the span joins the client's
/// trace: its trace id and parent are the `traceparent`'s (a call without one stays in a trace
/// of its own).
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
        runtime.block_on(call_with_traceparent(Some(TRACEPARENT)));
        runtime.block_on(call_with_traceparent(None));
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

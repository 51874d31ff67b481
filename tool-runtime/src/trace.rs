//! Spans: one per tool call, one around the calls of each message, written with the `tracing`
//! crate in the OpenTelemetry GenAI semantic conventions.
//!
//! The library installs no subscriber: without one a span costs a check of a static level, and
//! the host decides where spans go (a JSON formatter, OpenTelemetry through
//! `tracing-opentelemetry`, …). Every span has the target [`TARGET`] and the level `INFO`.
//!
//! # `execute_tool`: one call
//!
//! Every call that reaches the registry (through [`Registry::execute`], a batch, the approvals
//! API or the MCP server) gets a span named `execute_tool`; its `otel.name` is
//! `execute_tool {tool}`, the name an OpenTelemetry exporter gives it. Its fields:
//!
//! | field | value |
//! |---|---|
//! | `gen_ai.operation.name` | `execute_tool` |
//! | `gen_ai.tool.name` | the tool's name, as called (at most 64 characters of it) |
//! | `gen_ai.tool.call.id` | the provider's call id, when the call has one |
//! | `gen_ai.tool.type` | `function` |
//! | `otel.kind` | `internal` |
//! | `tool.safety`, `tool.mode` | what the tool declares (absent for an unknown tool) |
//! | `tool.state_changed` | the envelope's `stateChanged` |
//! | `tool.output_bytes` | on success: the size of `data` as JSON text |
//! | `error.type`, `otel.status_code` | on failure: the envelope's code, and `error` |
//! | `tool.refusal` | when the call was answered without running: `read_only_run`, `disabled`, `withheld` (the host withholds the tool for now: a pinned tool that drifted), `denied`, `approval_pending`, `approval_invalid`, `input_invalid`, `not_found`, `too_many_calls`, or `refused_by_tool` (the tool itself refused, `ToolError::NotAllowed`) |
//! | `tool.approval` | `deferred` when the approver deferred the call and it waits for a person (its batch paused on it, or the MCP server asked the client's user); its resumed run gets a span of its own |
//! | `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result` | only when the host opted in ([`RegistryBuilder::trace_content`]): the arguments and the envelope as JSON text, passed through the host's redaction function, then cut to [`CONTENT_LIMIT`] bytes; arguments past the registry's `Limits` are not written out |
//! | `mcp.method.name`, `jsonrpc.request.id` | over MCP: `tools/call` and the request's id |
//! | `mcp.traceparent` | over MCP: the W3C `traceparent` of the request's `_meta`, as sent (at most 256 bytes of visible ASCII) |
//!
//! Over MCP, a request's `_meta.traceparent` (and `tracestate`) also becomes the span's
//! OpenTelemetry parent when the feature `otel` of `toolwright-mcp` is enabled and the subscriber has a
//! `tracing_opentelemetry` layer: the call's span then belongs to the client's trace. Without the
//! feature (or without such a layer), the parent is recorded as the `mcp.traceparent` field
//! only.
//!
//! # `execute_batch`: the calls of one message
//!
//! [`Registry::execute_batch`], [`Registry::run_batch`] and [`Registry::resume_batch`] open a
//! span named `execute_batch` (fields `tool.batch.entry`: which of the three;
//! `tool.batch.calls`; `tool.batch.sequential`; `tool.batch.pending`: the approvals still
//! waiting at its end). The calls' spans are its children.
//!
//! [`Registry::execute`]: crate::Registry::execute
//! [`Registry::execute_batch`]: crate::Registry::execute_batch
//! [`Registry::run_batch`]: crate::Registry::run_batch
//! [`Registry::resume_batch`]: crate::Registry::resume_batch
//! [`RegistryBuilder::trace_content`]: crate::RegistryBuilder::trace_content

use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use toolwright_core::ToolMeta;
use tracing::Span;
use tracing::field::Empty;

use crate::envelope::ToolResult;
use crate::limits::{Limits, cut_to_bytes};

/// The host's redaction of what a span records (`toolwright_secrets::Redactor::redact`, say): the
/// registry depends on no redactor of its own.
pub type Redact = Arc<dyn Fn(&str) -> String + Send + Sync>;

/// The target of every span of the runtime (filter on it to keep only these).
pub const TARGET: &str = "toolwright_runtime";

/// The name of the span of one call.
pub const CALL_SPAN: &str = "execute_tool";

/// The name of the span around the calls of one message.
pub const BATCH_SPAN: &str = "execute_batch";

/// The most bytes of arguments or of a result a span records (after redaction).
pub const CONTENT_LIMIT: usize = 8 * 1024;

/// The most characters of a tool name a span records.
const NAME_LIMIT: usize = 64;

/// The longest `traceparent` recorded.
const TRACEPARENT_LIMIT: usize = 256;

/// A tool name as called, cut to [`NAME_LIMIT`] characters without allocating.
struct ToolName<'a>(&'a str);

impl fmt::Display for ToolName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(NAME_LIMIT) {
            None => f.write_str(self.0),
            Some((end, _)) => write!(f, "{}…", &self.0[..end]),
        }
    }
}

/// `execute_tool {tool}`.
struct SpanName<'a>(&'a str);

impl fmt::Display for SpanName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{CALL_SPAN} {}", ToolName(self.0))
    }
}

/// The span of one call of `name`, its declaration recorded when `meta` finds the tool (looked
/// up only when the span is enabled).
pub(crate) fn call_span<'m>(
    name: &str,
    call_id: &str,
    meta: impl FnOnce() -> Option<&'m ToolMeta>,
) -> Span {
    let span = tracing::info_span!(
        target: TARGET,
        CALL_SPAN,
        otel.name = %SpanName(name),
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = CALL_SPAN,
        gen_ai.tool.name = %ToolName(name),
        gen_ai.tool.call.id = (!call_id.is_empty()).then_some(call_id),
        gen_ai.tool.type = "function",
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        tool.safety = Empty,
        tool.mode = Empty,
        tool.state_changed = Empty,
        tool.output_bytes = Empty,
        tool.refusal = Empty,
        tool.approval = Empty,
        error.type = Empty,
        mcp.method.name = Empty,
        jsonrpc.request.id = Empty,
        mcp.traceparent = Empty,
    );
    if !span.is_disabled()
        && let Some(meta) = meta()
    {
        span.record("tool.safety", meta.safety.as_str());
        span.record("tool.mode", meta.mode.as_str());
    }
    span
}

/// The span around the calls of one message.
pub(crate) fn batch_span(entry: &'static str, calls: usize, sequential: bool) -> Span {
    tracing::info_span!(
        target: TARGET,
        BATCH_SPAN,
        otel.name = BATCH_SPAN,
        otel.kind = "internal",
        tool.batch.entry = entry,
        tool.batch.calls = calls,
        tool.batch.sequential = sequential,
        tool.batch.pending = Empty,
    )
}

/// Records the arguments of a call, redacted, when the host opted in and they are within the
/// bounds (past them, writing them out could take any time or stack).
pub(crate) fn record_arguments(
    span: &Span,
    content: Option<&Redact>,
    limits: &Limits,
    arguments: &Value,
) {
    let Some(redact) = content.filter(|_| !span.is_disabled()) else {
        return;
    };
    let text = match limits.check_arguments(arguments) {
        Ok(()) => redacted(redact, &arguments.to_string()),
        Err(exceeded) => format!("(not recorded: {exceeded})"),
    };
    span.record("gen_ai.tool.call.arguments", text.as_str());
}

/// Records how a call ended: its state change, its error code and why it did not run (`refusal`,
/// [`crate::call::Refusal::label`]), and (when the host opted in) the envelope, redacted.
pub(crate) fn record_result(
    span: &Span,
    content: Option<&Redact>,
    result: &ToolResult,
    refusal: Option<&str>,
) {
    if span.is_disabled() {
        return;
    }
    span.record("tool.state_changed", result.state_changed());
    match result {
        ToolResult::Success { data, .. } => {
            span.record("tool.output_bytes", data.json().len());
        }
        ToolResult::Failure { error, .. } => {
            span.record("error.type", error.code.as_str());
            span.record("otel.status_code", "error");
            if let Some(reason) = refusal {
                span.record("tool.refusal", reason);
            }
        }
    }
    if let Some(redact) = content
        && let Ok(text) = serde_json::to_string(result)
    {
        span.record("gen_ai.tool.call.result", redacted(redact, &text).as_str());
    }
}

/// Marks a call the approver deferred, whose batch paused on it.
pub(crate) fn record_deferred(span: &Span) {
    span.record("tool.approval", "deferred");
}

/// Records the W3C `traceparent` a request carried (over MCP: its `_meta`) on a call's span,
/// when it is short visible ASCII.
pub fn record_traceparent(span: &Span, traceparent: &str) {
    if traceparent.len() <= TRACEPARENT_LIMIT && traceparent.bytes().all(|b| b.is_ascii_graphic()) {
        span.record("mcp.traceparent", traceparent);
    }
}

/// The text a span records: redacted first (so that a cut never splits a secret the redactor
/// would have recognised), then cut to [`CONTENT_LIMIT`] bytes.
fn redacted(redact: &Redact, text: &str) -> String {
    let mut text = redact(text);
    cut_to_bytes(&mut text, CONTENT_LIMIT);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cut_and_content_is_redacted_before_it_is_cut() {
        let long = "x".repeat(100);
        assert_eq!(ToolName(&long).to_string(), format!("{}…", "x".repeat(64)));
        assert_eq!(
            SpanName("panes_list").to_string(),
            "execute_tool panes_list"
        );
        let redact: Redact = Arc::new(|text: &str| text.replace("secret", "[REDACTED]"));
        // Cut first, the secret would be split at the limit and its head kept.
        let text = format!("{}secret and more", "a".repeat(CONTENT_LIMIT - 5));
        let recorded = redacted(&redact, &text);
        assert!(recorded.ends_with("a[R…"), "{recorded}");
        assert!(!recorded.contains("se"));
        assert_eq!(recorded.len(), CONTENT_LIMIT);
    }
}

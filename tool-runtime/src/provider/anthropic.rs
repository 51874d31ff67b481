//! Anthropic Messages: `content[]` blocks of type `tool_use` in, one user message of
//! `tool_result` blocks out.
//!
//! A call is `{"type": "tool_use", "id", "name", "input"}`, `input` being a JSON value (an
//! object when valid: any other value, `null` included, makes that call `TOOL_INPUT_INVALID`
//! at `/`); other blocks (text, thinking, server tools) are skipped. The calls are
//! answered by one message `{"role": "user", "content": [{"type": "tool_result", "tool_use_id",
//! "content": <the envelope as JSON text>, "is_error": <true when success is false>}, …]}`, the
//! blocks in call order (Anthropic wants every result in the one user message that follows).

use serde_json::{Value, json};

use super::{At, ResponseError, envelope_text, paired};
use crate::envelope::ToolResult;
use crate::tool_call::ToolCall;

/// The tool uses of a Messages response, in order.
///
/// # Errors
/// When the response is not a Messages response: no `content` array, a block without a string
/// `type`, or a `tool_use` block without a string `id` or `name`, or without an `input` key
/// (`"input": null` is that call's invalid input, not a malformed response).
pub fn calls(response: &Value) -> Result<Vec<ToolCall>, ResponseError> {
    let root = At::root(response);
    let mut calls = Vec::new();
    for block in root.required("content")?.items()? {
        if block.required_string("type")? != "tool_use" {
            continue;
        }
        let id = block.required_string("id")?;
        let name = block.required_string("name")?;
        let input = block.present("input")?;
        calls.push(ToolCall::from_arguments(id, name, input.value().clone()));
    }
    Ok(calls)
}

/// The one user message answering every call (no message for no calls).
pub fn results(calls: &[ToolCall], results: &[ToolResult]) -> Vec<Value> {
    if calls.is_empty() {
        return Vec::new();
    }
    let blocks: Vec<Value> = paired(calls, results)
        .map(|(call, result)| {
            json!({
                "type": "tool_result",
                "tool_use_id": call.id,
                "content": envelope_text(&result),
                "is_error": !result.is_success(),
            })
        })
        .collect();
    vec![json!({"role": "user", "content": blocks})]
}

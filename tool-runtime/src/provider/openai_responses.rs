//! OpenAI Responses: `output[]` items of type `function_call` in, `function_call_output` items
//! out.
//!
//! A call is `{"type": "function_call", "call_id", "name", "arguments"}`, `arguments` being JSON
//! text; other output items (messages, reasoning) are skipped. Each call is answered by its own
//! item `{"type": "function_call_output", "call_id": <call_id>, "output": <the envelope as JSON
//! text>}`, in call order.

use serde_json::{Value, json};

use super::{At, ResponseError, envelope_text, paired};
use crate::envelope::ToolResult;
use crate::tool_call::ToolCall;

/// The function calls of a Responses response, in order.
///
/// # Errors
/// When the response is not a Responses response: no `output` array, an item without a string
/// `type`, or a `function_call` without a string `call_id`, `name` or `arguments`.
pub fn calls(response: &Value) -> Result<Vec<ToolCall>, ResponseError> {
    let root = At::root(response);
    let mut calls = Vec::new();
    for item in root.required("output")?.items()? {
        if item.required_string("type")? != "function_call" {
            continue;
        }
        let id = item.required_string("call_id")?;
        let name = item.required_string("name")?;
        let arguments = item.required_string("arguments")?;
        calls.push(ToolCall::from_json_text(id, name, arguments));
    }
    Ok(calls)
}

/// One `{"type": "function_call_output", "call_id", "output"}` item per call, in call order.
pub fn results(calls: &[ToolCall], results: &[ToolResult]) -> Vec<Value> {
    paired(calls, results)
        .map(|(call, result)| {
            json!({
                "type": "function_call_output",
                "call_id": call.id,
                "output": envelope_text(&result),
            })
        })
        .collect()
}

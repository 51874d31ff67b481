//! OpenAI Chat Completions: `choices[].message.tool_calls[]` in, `role: "tool"` messages out.
//!
//! A call is `{"id", "type": "function", "function": {"name", "arguments"}}`, `arguments` being
//! JSON text. Each call is answered by its own message
//! `{"role": "tool", "tool_call_id": <id>, "content": <the envelope as JSON text>}`, in call
//! order. Only one choice of a response may hold tool calls (with `n` > 1, pass the choice the
//! conversation keeps).

use serde_json::{Value, json};

use super::{At, ResponseError, envelope_text, one_candidate, paired};
use crate::envelope::ToolResult;
use crate::tool_call::ToolCall;

/// The tool calls of a Chat Completions response, in order.
///
/// # Errors
/// When the response is not a Chat Completions response: no `choices` array, a choice without
/// a `message`, a tool call without a string `id`, `function.name` or `function.arguments`, a
/// tool call of another type than `function`, or tool calls in more than one choice.
pub fn calls(response: &Value) -> Result<Vec<ToolCall>, ResponseError> {
    let root = At::root(response);
    let choices = root.required("choices")?;
    let mut per_choice = Vec::new();
    for choice in choices.items()? {
        let message = choice.required("message")?;
        let Some(tool_calls) = message.field("tool_calls")? else {
            per_choice.push(Vec::new());
            continue;
        };
        let mut calls = Vec::new();
        for call in tool_calls.items()? {
            let id = call.required_string("id")?;
            if let Some(kind) = call.field("type")? {
                let kind_text = kind.string()?;
                if kind_text != "function" {
                    return Err(kind.error(format!(
                        "expected \"function\", found \"{}\"",
                        crate::validate::bounded(kind_text, 40)
                    )));
                }
            }
            let function = call.required("function")?;
            let name = function.required_string("name")?;
            let arguments = function.required_string("arguments")?;
            calls.push(ToolCall::from_json_text(id, name, arguments));
        }
        per_choice.push(calls);
    }
    one_candidate(&choices, "choices", per_choice)
}

/// One `{"role": "tool", "tool_call_id", "content"}` message per call, in call order.
pub fn results(calls: &[ToolCall], results: &[ToolResult]) -> Vec<Value> {
    paired(calls, results)
        .map(|(call, result)| {
            json!({
                "role": "tool",
                "tool_call_id": call.id,
                "content": envelope_text(&result),
            })
        })
        .collect()
}

//! Google Gemini `generateContent`: `functionCall` parts in, one user message of
//! `functionResponse` parts out.
//!
//! A call is a part `{"functionCall": {"name", "args", "id"?}}` of a candidate's content
//! (`args` absent reads as `{}`); other parts are skipped. Gemini pairs answers with calls by
//! order and name, and by `id` when the call had one: a call without an `id` gets the empty id
//! here, and its answer carries none. The calls are answered by one message
//! `{"role": "user", "parts": [{"functionResponse": {"name", "response": <the envelope, a JSON
//! object>, "id"?}}, …]}`, the parts in call order. Only one candidate may hold calls.

use serde_json::{Map, Value, json};

use super::{At, ResponseError, envelope_object, one_candidate, paired};
use crate::envelope::ToolResult;
use crate::tool_call::ToolCall;

/// The function calls of a `generateContent` response, in order.
///
/// # Errors
/// When the response is not a `generateContent` response: no `candidates` array (unless the
/// prompt was blocked: `promptFeedback` without candidates has no calls), a content or part
/// that is not an object, a `functionCall` without a string `name`, or with an `id` that is not
/// a string, or calls in more than one candidate.
pub fn calls(response: &Value) -> Result<Vec<ToolCall>, ResponseError> {
    let root = At::root(response);
    let Some(candidates) = root.field("candidates")? else {
        if root.field("promptFeedback")?.is_some() {
            return Ok(Vec::new());
        }
        return Err(root.error("missing \"candidates\""));
    };
    let mut per_candidate = Vec::new();
    for candidate in candidates.items()? {
        let mut calls = Vec::new();
        let parts = match candidate.field("content")? {
            Some(content) => content.field("parts")?,
            None => None,
        };
        for part in parts.map(|p| p.items()).transpose()?.unwrap_or_default() {
            let Some(call) = part.field("functionCall")? else {
                continue;
            };
            let name = call.required_string("name")?;
            let id = match call.field("id")? {
                Some(id) => id.string()?,
                None => "",
            };
            let arguments = match call.field("args")? {
                Some(args) => args.value().clone(),
                None => Value::Object(Map::new()),
            };
            calls.push(ToolCall::from_arguments(id, name, arguments));
        }
        per_candidate.push(calls);
    }
    one_candidate(&candidates, "candidates", per_candidate)
}

/// The one user message answering every call (no message for no calls).
pub fn results(calls: &[ToolCall], results: &[ToolResult]) -> Vec<Value> {
    if calls.is_empty() {
        return Vec::new();
    }
    let parts: Vec<Value> = paired(calls, results)
        .map(|(call, result)| {
            let mut response = Map::new();
            response.insert("name".to_owned(), Value::String(call.name.clone()));
            response.insert("response".to_owned(), envelope_object(&result));
            if !call.id.is_empty() {
                response.insert("id".to_owned(), Value::String(call.id.clone()));
            }
            json!({"functionResponse": response})
        })
        .collect();
    vec![json!({"role": "user", "parts": parts})]
}

//! Provider adapters: a model provider's response in, [`ToolCall`]s out; envelopes in, the
//! provider's result message(s) out. No transport: the host sends and receives; the adapters
//! read and write `serde_json::Value`s.
//!
//! | provider | tools offered as ([`Provider::dialect`]) | calls read from | results written as |
//! |---|---|---|---|
//! | [`openai`] (Chat Completions) | `tools`: `{"type":"function","function":{"name","description","parameters","strict"}}` | `choices[].message.tool_calls[]` (`id`, `function.name`, `function.arguments` JSON text) | one `{"role":"tool","tool_call_id","content"}` message per call |
//! | [`openai_responses`] (Responses) | `tools`: `{"type":"function","name","description","parameters","strict"}` | `output[]` items of type `function_call` (`call_id`, `name`, `arguments` JSON text) | one `{"type":"function_call_output","call_id","output"}` item per call |
//! | [`anthropic`] (Messages) | `tools`: `{"name","description","input_schema"}` | `content[]` blocks of type `tool_use` (`id`, `name`, `input`) | one `{"role":"user","content":[{"type":"tool_result","tool_use_id","content","is_error"}…]}` message |
//! | [`gemini`] (`generateContent`) | `tools[].functionDeclarations`: `{"name","description","parameters"?}` | `candidates[].content.parts[].functionCall` (`name`, `args`, `id` when present) | one `{"role":"user","parts":[{"functionResponse":{"name","response","id"?}}…]}` message |
//!
//! Each provider owns its whole wire shape: a policy that names it
//! ([`RunPolicy::with_provider`](crate::RunPolicy::with_provider)) gets
//! [`Registry::definitions`](crate::Registry::definitions) in the shape of the second column
//! (for Gemini, the declarations that go into one `tools` entry's `functionDeclarations`), and
//! the same provider reads the calls and writes the results. Both OpenAI APIs get the same
//! functions: strict where strict mode can express the tool, `"strict": false` otherwise (its
//! `null`s are then values, not absent fields).
//!
//! Every adapter's `results` returns the messages (or items) to append to the conversation, in
//! call order: one answer per call, none dropped (OpenAI rejects a conversation in which a
//! `tool_call_id` has no answer; Anthropic wants every `tool_result` in the one user message
//! that follows). A response without tool calls yields no calls, and `results` of no calls is
//! an empty list. The answer's content is the call's envelope: as JSON text for OpenAI and
//! Anthropic (`is_error` is true when `success` is false), as the JSON object itself for Gemini
//! (whose `response` must be an object).
//!
//! Arguments that are not valid JSON, or not a JSON object (Anthropic's `"input": null`
//! included), do not fail the response: that call is answered `TOOL_INPUT_INVALID` at `/`
//! (`The tool input is invalid: /: Expected object, found a JSON string that does not parse:
//! …`) and the other calls run as usual (see [`ToolCall::arguments_error`]). A response that is not the provider's shape at all is a
//! [`ResponseError`] that says where (`/choices/0/message/tool_calls/1/function: missing
//! "name"`), never a panic.
//!
//! A host's loop, with OpenAI Chat Completions:
//!
//! ```
//! use serde_json::{Value, json};
//! use toolwright_runtime::provider::openai;
//! use toolwright_runtime::{Registry, RunPolicy};
//! use toolwright_runtime::handler::{BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput};
//!
//! static PANES_LIST: ToolMeta = ToolMeta::new(
//!     "panes_list",
//!     Safety::ReadOnly,
//!     Mode::Parallel,
//!     StaticSchema::Json(r#"{"type":"object","additionalProperties":false}"#),
//! )
//! .title("List panes")
//! .description("Lists the chart's panes.")
//! .source("tools/panes_list.toml");
//!
//! fn panes_list<'a>(panes: &'a Vec<String>, _args: &'a Value) -> BoxFuture<'a, CallResult> {
//!     Box::pin(async move { Ok(ToolOutput { data: json!(panes).into(), state_changed: false }) })
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let registry = Registry::builder()
//!     .tool(ToolDef { meta: &PANES_LIST, handler: Handler::Shared(panes_list) })
//!     .build()?;
//! let policy = RunPolicy::read_only();
//! let mut panes = vec!["main".to_owned()];
//!
//! // What the provider answered (the host's HTTP client got it).
//! let response = json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": null,
//!     "tool_calls": [
//!         {"id": "call_1", "type": "function", "function": {"name": "panes_list", "arguments": "{}"}},
//!         {"id": "call_2", "type": "function", "function": {"name": "panes_list", "arguments": "{\"pane"}}
//!     ]}, "finish_reason": "tool_calls"}]});
//!
//! let calls = openai::calls(&response)?;
//! let results = registry.execute_batch(&policy, &mut panes, &calls).await;
//! let messages = openai::results(&calls, &results); // append these, then ask the model again
//!
//! assert_eq!(messages.len(), 2);
//! assert_eq!(messages[0]["tool_call_id"], "call_1");
//! assert_eq!(messages[0]["content"], r#"{"success":true,"data":["main"],"stateChanged":false}"#);
//! let invalid: Value = serde_json::from_str(messages[1]["content"].as_str().unwrap_or(""))?;
//! assert_eq!(invalid["error"]["code"], "TOOL_INPUT_INVALID");
//! # Ok(())
//! # }
//! ```
//!
//! The same loop for any provider chosen at run time goes through [`Provider`]. A host whose
//! approver may defer uses [`Registry::run_batch`] instead of `execute_batch`, and writes the
//! result messages once every call is answered (see [`crate::approval`]).
//!
//! [`Registry::run_batch`]: crate::Registry::run_batch

pub mod anthropic;
pub mod gemini;
pub mod openai;
pub mod openai_responses;

use std::str::FromStr;

use serde_json::{Map, Value};

use crate::tool_call::ToolCall;
pub use toolwright_core::dialect::{Dialect, ExportError, Violation};
use toolwright_core::model::json_kind;

use crate::envelope::ToolResult;
use crate::refusal::Refusal;

toolwright_core::word_enum! {
    /// A model provider's API, for hosts that pick one at run time.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Provider {
        /// OpenAI Chat Completions ([`openai`]).
        OpenAi => "openai",
        /// OpenAI Responses ([`openai_responses`]).
        OpenAiResponses => "openai-responses",
        /// Anthropic Messages ([`anthropic`]).
        Anthropic => "anthropic",
        /// Google Gemini `generateContent` ([`gemini`]).
        Gemini => "gemini",
    }
}

impl Provider {
    /// The dialect the run's tools are offered in to this provider: its own request shape
    /// ([`Dialect::OpenAi`] is Chat Completions', [`Dialect::OpenAiResponses`] the Responses
    /// API's: the same functions, strict where strict mode can express them). Set it on the
    /// policy with [`RunPolicy::with_provider`](crate::RunPolicy::with_provider).
    pub const fn dialect(self) -> Dialect {
        match self {
            Provider::OpenAi => Dialect::OpenAi,
            Provider::OpenAiResponses => Dialect::OpenAiResponses,
            Provider::Anthropic => Dialect::Anthropic,
            Provider::Gemini => Dialect::Gemini,
        }
    }

    /// The tool calls of a response, in order.
    ///
    /// # Errors
    /// When the response is not this provider's shape (where and why).
    pub fn calls(self, response: &Value) -> Result<Vec<ToolCall>, ResponseError> {
        match self {
            Provider::OpenAi => openai::calls(response),
            Provider::OpenAiResponses => openai_responses::calls(response),
            Provider::Anthropic => anthropic::calls(response),
            Provider::Gemini => gemini::calls(response),
        }
    }

    /// The messages (or items) answering `calls` with `results`, in call order.
    pub fn results(self, calls: &[ToolCall], results: &[ToolResult]) -> Vec<Value> {
        match self {
            Provider::OpenAi => openai::results(calls, results),
            Provider::OpenAiResponses => openai_responses::results(calls, results),
            Provider::Anthropic => anthropic::results(calls, results),
            Provider::Gemini => gemini::results(calls, results),
        }
    }
}

impl FromStr for Provider {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        Provider::from_word(text).ok_or_else(|| {
            format!(
                "unknown provider `{text}`, expected one of {}",
                Provider::ACCEPTED.join(", ")
            )
        })
    }
}

/// A response that is not the provider's shape: where (a JSON Pointer, `/` for the root) and
/// what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", if pointer.is_empty() { "/" } else { pointer.as_str() })]
pub struct ResponseError {
    /// The JSON Pointer of the offending value (empty for the root).
    pub pointer: String,
    /// What is wrong there.
    pub message: String,
}

/// A value of the response and where it is.
#[derive(Debug, Clone)]
pub(crate) struct At<'a> {
    value: &'a Value,
    pointer: String,
}

impl<'a> At<'a> {
    /// The root of a response.
    pub(crate) fn root(value: &'a Value) -> Self {
        At {
            value,
            pointer: String::new(),
        }
    }

    /// The value itself.
    pub(crate) fn value(&self) -> &'a Value {
        self.value
    }

    /// An error here.
    pub(crate) fn error(&self, message: impl Into<String>) -> ResponseError {
        ResponseError {
            pointer: self.pointer.clone(),
            message: message.into(),
        }
    }

    fn object(&self) -> Result<&'a Map<String, Value>, ResponseError> {
        self.value.as_object().ok_or_else(|| {
            self.error(format!(
                "expected an object, found {}",
                json_kind(self.value)
            ))
        })
    }

    /// A member of this object, absent (or `null`) as `None`.
    pub(crate) fn field(&self, key: &str) -> Result<Option<At<'a>>, ResponseError> {
        Ok(self
            .object()?
            .get(key)
            .filter(|v| !v.is_null())
            .map(|value| At {
                value,
                pointer: format!("{}/{key}", self.pointer),
            }))
    }

    /// A member that must be there, whatever its value (`null` included).
    pub(crate) fn present(&self, key: &str) -> Result<At<'a>, ResponseError> {
        self.object()?
            .get(key)
            .map(|value| At {
                value,
                pointer: format!("{}/{key}", self.pointer),
            })
            .ok_or_else(|| self.error(format!("missing \"{key}\"")))
    }

    /// A member that must be there.
    pub(crate) fn required(&self, key: &str) -> Result<At<'a>, ResponseError> {
        self.field(key)?
            .ok_or_else(|| self.error(format!("missing \"{key}\"")))
    }

    /// The elements of this array.
    pub(crate) fn items(&self) -> Result<Vec<At<'a>>, ResponseError> {
        let items = self.value.as_array().ok_or_else(|| {
            self.error(format!(
                "expected an array, found {}",
                json_kind(self.value)
            ))
        })?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(index, value)| At {
                value,
                pointer: format!("{}/{index}", self.pointer),
            })
            .collect())
    }

    /// This string.
    pub(crate) fn string(&self) -> Result<&'a str, ResponseError> {
        self.value.as_str().ok_or_else(|| {
            self.error(format!(
                "expected a string, found {}",
                json_kind(self.value)
            ))
        })
    }

    /// A member that must be a string.
    pub(crate) fn required_string(&self, key: &str) -> Result<&'a str, ResponseError> {
        self.required(key)?.string()
    }
}

/// The calls of several candidates (choices): only one of them may hold calls, since a
/// conversation keeps one.
pub(crate) fn one_candidate(
    at: &At<'_>,
    what: &str,
    mut per_candidate: Vec<Vec<ToolCall>>,
) -> Result<Vec<ToolCall>, ResponseError> {
    per_candidate.retain(|calls| !calls.is_empty());
    match per_candidate.len() {
        0 => Ok(Vec::new()),
        1 => Ok(per_candidate.pop().unwrap_or_default()),
        n => Err(at.error(format!(
            "{n} {what} hold tool calls; pass the response with the one the conversation keeps"
        ))),
    }
}

/// The envelope of each call, in order; a call without a result (the host passed fewer results
/// than calls) gets a `TOOL_FAILED` envelope, so that every call is answered.
pub(crate) fn paired<'a>(
    calls: &'a [ToolCall],
    results: &'a [ToolResult],
) -> impl Iterator<Item = (&'a ToolCall, std::borrow::Cow<'a, ToolResult>)> {
    calls.iter().enumerate().map(move |(index, call)| {
        let result = results.get(index).map_or_else(
            || std::borrow::Cow::Owned(Refusal::NoAnswer.answer(&call.name, None)),
            std::borrow::Cow::Borrowed,
        );
        (call, result)
    })
}

/// What answers a call whose envelope cannot be written (unreachable: an envelope's keys are
/// strings; this keeps the adapters total).
const UNWRITABLE: &str = r#"{"success":false,"error":{"code":"TOOL_FAILED","message":"The result could not be written.","retryable":false,"recommendedAction":"Do not retry the same call: tell the user the tool failed, or try another approach."},"stateChanged":false}"#;

/// The envelope as JSON text.
pub(crate) fn envelope_text(result: &ToolResult) -> String {
    serde_json::to_string(result).unwrap_or_else(|_| UNWRITABLE.to_owned())
}

/// The envelope as a JSON object.
pub(crate) fn envelope_object(result: &ToolResult) -> Value {
    serde_json::to_value(result)
        .ok()
        .filter(Value::is_object)
        .or_else(|| serde_json::from_str(UNWRITABLE).ok())
        .unwrap_or_default()
}

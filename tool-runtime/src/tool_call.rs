//! One tool call as a model issued it: what the provider adapters read out of a response and
//! what a batch runs.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolwright_core::model::json_kind;

use crate::validate::bounded;

/// One tool call as the model issued it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The provider's call id, to pair the result with the call.
    pub id: String,
    /// The tool's name (possibly one that does not exist).
    pub name: String,
    /// The arguments; an absent field reads as `{}`.
    #[serde(default = "empty_object")]
    pub arguments: Value,
    /// Why the arguments the provider sent are not a JSON object (`Expected object, found an
    /// array`), when they are not. Such a call is answered `TOOL_INPUT_INVALID` at `/` with this
    /// message, after the policy check, and never reaches the approver or the tool; the other
    /// calls of its message run as usual. Set by [`ToolCall::from_arguments`] and
    /// [`ToolCall::from_json_text`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_error: Option<String>,
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

/// How much of a JSON parse error an arguments report quotes.
const PARSE_ERROR_LIMIT: usize = 120;

impl ToolCall {
    /// A call.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
            arguments_error: None,
        }
    }

    /// A call whose arguments came as a JSON value: anything but an object makes it an
    /// invalid call (`Expected object, found an array`).
    pub fn from_arguments(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: Value,
    ) -> Self {
        let arguments_error = (!arguments.is_object())
            .then(|| format!("Expected object, found {}", json_kind(&arguments)));
        ToolCall {
            arguments_error,
            ..ToolCall::new(id, name, arguments)
        }
    }

    /// A call whose arguments came as JSON text (OpenAI's `function.arguments`): text that does
    /// not parse, or parses to anything but an object, makes it an invalid call. Empty text
    /// (some OpenAI-compatible servers send it for a function without parameters) reads as `{}`.
    /// The arguments of an invalid call hold the text as a JSON string.
    pub fn from_json_text(id: impl Into<String>, name: impl Into<String>, text: &str) -> Self {
        if text.trim().is_empty() {
            return ToolCall::new(id, name, empty_object());
        }
        match serde_json::from_str::<Value>(text) {
            Ok(arguments @ Value::Object(_)) => ToolCall::new(id, name, arguments),
            Ok(other) => ToolCall {
                arguments_error: Some(format!(
                    "Expected object, found a JSON string that encodes {}",
                    json_kind(&other)
                )),
                ..ToolCall::new(id, name, Value::String(text.to_owned()))
            },
            Err(error) => ToolCall {
                arguments_error: Some(format!(
                    "Expected object, found a JSON string that does not parse: {}",
                    bounded(&error.to_string(), PARSE_ERROR_LIMIT)
                )),
                ..ToolCall::new(id, name, Value::String(text.to_owned()))
            },
        }
    }
}

//! The envelope every call answers with: success or failure, returned as data.
//!
//! Its JSON form is fixed, field for field and in this order:
//!
//! - success: `{"success":true,"data":<output>,"stateChanged":<bool>}`
//! - failure: `{"success":false,"error":{"code":…,"message":…,"retryable":…,"recommendedAction":…},"stateChanged":<bool>}`

use std::fmt;

use serde::de::Error as _;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

toolwright_core::word_enum! {
    /// The codes the runtime itself returns (domain codes come from each tool's `[[errors]]`),
    /// in the order of the specification's table; the word is the code as the envelope holds
    /// it ([`RuntimeCode::from_word`] reads one back).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
    #[non_exhaustive]
    pub enum RuntimeCode {
        /// The arguments fail the tool's schema.
        InputInvalid => "TOOL_INPUT_INVALID",
        /// A read-only run, a disabled tool, a call the approver denied (or whose approval is no
        /// longer valid), or a call the tool refused for the host's policy
        /// (`ToolError::NotAllowed`).
        NotAllowed => "TOOL_NOT_ALLOWED",
        /// No tool of that name.
        NotFound => "TOOL_NOT_FOUND",
        /// The tool ran past its time limit.
        Timeout => "TOOL_TIMEOUT",
        /// The tool panicked or failed without a declared code, or its output was over its
        /// budget (then retryable: the same tool answers a narrower request).
        Failed => "TOOL_FAILED",
    }
}

impl RuntimeCode {
    /// Whether the same call may succeed when retried (after the recommended action).
    pub const fn retryable(self) -> bool {
        match self {
            RuntimeCode::InputInvalid | RuntimeCode::NotFound | RuntimeCode::Timeout => true,
            RuntimeCode::NotAllowed | RuntimeCode::Failed => false,
        }
    }
}

/// The `error` object of a failure envelope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ErrorBody {
    /// A runtime code (`TOOL_…`) or a code the tool declared.
    pub code: String,
    /// What went wrong, for the model.
    pub message: String,
    /// Whether the same call may succeed when retried (after the recommended action).
    pub retryable: bool,
    /// The recovery hint.
    pub recommended_action: String,
}

impl ErrorBody {
    /// An error with a runtime code, its retryable flag from the specification's table.
    pub fn runtime(
        code: RuntimeCode,
        message: impl Into<String>,
        action: impl Into<String>,
    ) -> Self {
        ErrorBody {
            code: code.as_str().to_owned(),
            message: message.into(),
            retryable: code.retryable(),
            recommended_action: action.into(),
        }
    }
}

/// A tool's output, kept as the compact JSON text it serialized to.
///
/// The output goes to the model (or an MCP client) as JSON text, so it is written once, straight
/// from the tool's own type, instead of being built as a [`Value`] tree first and written out
/// afterwards. Object fields keep the order the output type serializes them in. [`ToolData::value`]
/// parses it when a host wants to look inside; equality compares the JSON values, not the text.
#[derive(Clone)]
pub struct ToolData(Box<RawValue>);

impl ToolData {
    /// Serializes `output` to JSON text.
    ///
    /// # Errors
    /// When the output's `Serialize` implementation fails (a map with non-string keys, say).
    pub fn from_serialize<T: Serialize + ?Sized>(output: &T) -> Result<Self, serde_json::Error> {
        serde_json::value::to_raw_value(output).map(ToolData)
    }

    /// The JSON text.
    pub fn json(&self) -> &str {
        self.0.get()
    }

    /// The output as a [`Value`].
    ///
    /// # Errors
    /// When the output nests deeper than `serde_json`'s parser accepts (128 levels).
    pub fn value(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(self.0.get())
    }
}

impl From<Value> for ToolData {
    fn from(value: Value) -> Self {
        Self::from(&value)
    }
}

impl From<&Value> for ToolData {
    fn from(value: &Value) -> Self {
        // A `Value`'s keys are strings and its numbers finite, so writing it cannot fail; the
        // fallback is unreachable but keeps this free of a panic path.
        ToolData::from_serialize(value).unwrap_or_else(|_| ToolData::null())
    }
}

impl ToolData {
    fn null() -> Self {
        ToolData(RawValue::NULL.to_owned())
    }
}

impl fmt::Debug for ToolData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ToolData").field(&self.json()).finish()
    }
}

impl fmt::Display for ToolData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.json())
    }
}

impl PartialEq for ToolData {
    fn eq(&self, other: &Self) -> bool {
        self.json() == other.json()
            || matches!((self.value(), other.value()), (Ok(a), Ok(b)) if a == b)
    }
}

impl PartialEq<Value> for ToolData {
    fn eq(&self, other: &Value) -> bool {
        self.value().is_ok_and(|value| value == *other)
    }
}

impl Serialize for ToolData {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolData {
    /// Through a [`Value`], so that any deserializer can produce one (a raw JSON text can only
    /// be borrowed from `serde_json`'s own).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(ToolData::from)
    }
}

/// What one tool call answers with, returned to the model as data.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolResult {
    /// The tool ran and succeeded.
    Success {
        /// The tool's output.
        data: ToolData,
        /// True only for a destructive tool that reports a change.
        state_changed: bool,
    },
    /// The call was refused, its input was invalid, or the tool failed.
    Failure {
        /// What went wrong and how to recover.
        error: ErrorBody,
        /// False for refusals, invalid input and declared domain errors; true when a destructive
        /// tool may have changed state before it panicked, timed out or failed without a
        /// declared code.
        state_changed: bool,
    },
}

impl ToolResult {
    /// A success.
    pub fn success(data: impl Into<ToolData>, state_changed: bool) -> Self {
        ToolResult::Success {
            data: data.into(),
            state_changed,
        }
    }

    /// A failure.
    pub fn failure(error: ErrorBody, state_changed: bool) -> Self {
        ToolResult::Failure {
            error,
            state_changed,
        }
    }

    /// True for a success.
    pub fn is_success(&self) -> bool {
        matches!(self, ToolResult::Success { .. })
    }

    /// Whether the call changed (or may have changed) state.
    pub fn state_changed(&self) -> bool {
        match self {
            ToolResult::Success { state_changed, .. }
            | ToolResult::Failure { state_changed, .. } => *state_changed,
        }
    }

    /// The output of a success.
    pub fn data(&self) -> Option<&ToolData> {
        match self {
            ToolResult::Success { data, .. } => Some(data),
            ToolResult::Failure { .. } => None,
        }
    }

    /// The error of a failure.
    pub fn error(&self) -> Option<&ErrorBody> {
        match self {
            ToolResult::Success { .. } => None,
            ToolResult::Failure { error, .. } => Some(error),
        }
    }

    /// The error code of a failure.
    pub fn code(&self) -> Option<&str> {
        self.error().map(|e| e.code.as_str())
    }
}

impl Serialize for ToolResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("ToolResult", 3)?;
        match self {
            ToolResult::Success {
                data,
                state_changed,
            } => {
                s.serialize_field("success", &true)?;
                s.serialize_field("data", data)?;
                s.serialize_field("stateChanged", state_changed)?;
            }
            ToolResult::Failure {
                error,
                state_changed,
            } => {
                s.serialize_field("success", &false)?;
                s.serialize_field("error", error)?;
                s.serialize_field("stateChanged", state_changed)?;
            }
        }
        s.end()
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawResult {
    success: bool,
    #[serde(default)]
    data: Option<ToolData>,
    #[serde(default)]
    error: Option<ErrorBody>,
    state_changed: bool,
}

impl<'de> Deserialize<'de> for ToolResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawResult::deserialize(deserializer)?;
        match (raw.success, raw.error) {
            (true, None) => Ok(ToolResult::Success {
                data: raw.data.unwrap_or_else(ToolData::null),
                state_changed: raw.state_changed,
            }),
            (false, Some(error)) if raw.data.is_none() => Ok(ToolResult::Failure {
                error,
                state_changed: raw.state_changed,
            }),
            (true, Some(_)) => Err(D::Error::custom("a successful result has no `error`")),
            (false, None) => Err(D::Error::missing_field("error")),
            (false, Some(_)) => Err(D::Error::custom("a failed result has no `data`")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_serializes_in_the_specified_field_order() {
        let result = ToolResult::failure(
            ErrorBody::runtime(
                RuntimeCode::InputInvalid,
                "The tool input is invalid: /anchors/0/price: Expected number",
                "Correct the invalid field and retry the request.",
            ),
            false,
        );
        let json = serde_json::to_string(&result).expect("serialize");
        assert_eq!(
            json,
            r#"{"success":false,"error":{"code":"TOOL_INPUT_INVALID","message":"The tool input is invalid: /anchors/0/price: Expected number","retryable":true,"recommendedAction":"Correct the invalid field and retry the request."},"stateChanged":false}"#
        );
        let back: ToolResult = serde_json::from_str(&json).expect("deserialize");
        assert_eq!(back, result);
    }

    #[test]
    fn success_serializes_in_the_specified_field_order() {
        let result = ToolResult::success(serde_json::json!({"id": "d1"}), true);
        let json = serde_json::to_string(&result).expect("serialize");
        assert_eq!(
            json,
            r#"{"success":true,"data":{"id":"d1"},"stateChanged":true}"#
        );
        let back: ToolResult = serde_json::from_str(&json).expect("deserialize");
        assert_eq!(back, result);
    }

    #[test]
    fn inconsistent_envelopes_do_not_deserialize() {
        for text in [
            r#"{"success":true,"error":{"code":"X","message":"m","retryable":true,"recommendedAction":"a"},"stateChanged":false}"#,
            r#"{"success":false,"stateChanged":false}"#,
            r#"{"success":true,"data":1}"#,
            r#"{"success":true,"data":1,"stateChanged":false,"extra":1}"#,
        ] {
            assert!(serde_json::from_str::<ToolResult>(text).is_err(), "{text}");
        }
    }

    #[test]
    fn retryable_flags_follow_the_table() {
        let table: Vec<(&str, bool)> = RuntimeCode::ALL
            .iter()
            .map(|c| (c.as_str(), c.retryable()))
            .collect();
        assert_eq!(
            table,
            [
                ("TOOL_INPUT_INVALID", true),
                ("TOOL_NOT_ALLOWED", false),
                ("TOOL_NOT_FOUND", true),
                ("TOOL_TIMEOUT", true),
                ("TOOL_FAILED", false),
            ]
        );
        for code in RuntimeCode::ALL {
            assert_eq!(RuntimeCode::from_word(code.as_str()), Some(*code));
        }
        assert_eq!(RuntimeCode::from_word("PANE_NOT_FOUND"), None);
    }
}

//! The `chart-tools run` protocol: model messages in, results out, as JSON Lines.
//!
//! Each input line is one model message: a JSON array of calls
//! `{"id": string, "name": string, "arguments"?: object}` (absent arguments read as `{}`). Each
//! message is answered by one line: a JSON array of `{"id", "name", "result"}`, one per call and
//! in call order, `result` being the registry's envelope. The calls of a message run as
//! [`Registry::run_batch`] runs them: in parallel unless one targets a `sequential` tool. A call
//! whose `arguments` are not an object is answered `TOOL_INPUT_INVALID` at `/`
//! (`/: Expected object, found an array`); the other calls of its message run as usual.
//!
//! A line that is not an array of calls is answered by one line
//! `{"error": {"code": "MESSAGE_INVALID", "message": ...}}` that says where it is wrong
//! (`call 2: missing "name"`, calls numbered from 1), and the run goes on. Blank lines are
//! skipped. The chart lives as long as the run: each message sees the changes of the ones before.
//! Approvals a person gives later (`--approval defer`) follow [`crate::session`].

use std::fmt;
use std::io;

use serde::Serialize;
use serde_json::{Map, Value};
use tokio::io::{AsyncBufRead, AsyncWrite};
use toolwright_core::model::json_kind;
use toolwright_runtime::{Registry, RunPolicy, ToolCall, ToolResult};

use crate::session::{Format, Session};

/// The code of the answer to a line that is not a message.
pub const MESSAGE_INVALID: &str = "MESSAGE_INVALID";

/// How many problems of one line a `MESSAGE_INVALID` answer lists at most.
pub const MESSAGE_PROBLEM_LIMIT: usize = 5;

/// What `ask_user` answers to an open question when the host gives no answer.
pub const DEFAULT_OPEN_ANSWER: &str = "yes";

/// The longest key or type name a message quotes in full.
const QUOTE_LIMIT: usize = 40;

/// Why a line is not a model message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageError {
    message: String,
}

impl MessageError {
    fn new(message: impl Into<String>) -> Self {
        MessageError {
            message: message.into(),
        }
    }

    /// What is wrong, and where.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for MessageError {}

/// The answer to one call.
#[derive(Debug, Serialize)]
pub struct CallAnswer<'a> {
    /// The call's id, as given.
    pub id: &'a str,
    /// The tool's name, as given.
    pub name: &'a str,
    /// The envelope.
    pub result: &'a ToolResult,
}

#[derive(Serialize)]
struct InvalidLine<'a> {
    error: InvalidBody<'a>,
}

#[derive(Serialize)]
struct InvalidBody<'a> {
    code: &'a str,
    message: &'a str,
}

/// The calls of one message line.
///
/// # Errors
/// When the line is not JSON, not an array, or one of its elements is not
/// `{"id": string, "name": string, "arguments"?: any}`; the message lists up to
/// [`MESSAGE_PROBLEM_LIMIT`] problems, each saying where. Arguments that are not an object do
/// not make the line invalid: that call is answered `TOOL_INPUT_INVALID`
/// ([`ToolCall::arguments_error`]).
pub fn parse_message(line: &str) -> Result<Vec<ToolCall>, MessageError> {
    let value: Value = serde_json::from_str(line)
        .map_err(|e| MessageError::new(format!("the line is not valid JSON: {e}")))?;
    calls_of_message(value)
}

/// The calls of one message, parsed from JSON (see [`parse_message`]).
///
/// # Errors
/// As [`parse_message`].
pub fn calls_of_message(value: Value) -> Result<Vec<ToolCall>, MessageError> {
    let Value::Array(elements) = value else {
        return Err(MessageError::new(format!(
            "expected a JSON array of calls, found {}",
            json_kind(&value)
        )));
    };
    let mut calls = Vec::with_capacity(elements.len());
    let mut problems = Vec::new();
    for (index, element) in elements.into_iter().enumerate() {
        match parse_call(element) {
            Ok(call) => calls.push(call),
            Err(found) => problems.extend(
                found
                    .into_iter()
                    .map(|p| format!("call {}: {p}", index + 1)),
            ),
        }
    }
    if problems.is_empty() {
        return Ok(calls);
    }
    let more = problems.len().saturating_sub(MESSAGE_PROBLEM_LIMIT);
    problems.truncate(MESSAGE_PROBLEM_LIMIT);
    let mut message = problems.join("; ");
    if more > 0 {
        message.push_str(&format!("; … and {more} more"));
    }
    Err(MessageError::new(message))
}

fn parse_call(element: Value) -> Result<ToolCall, Vec<String>> {
    let Value::Object(mut fields) = element else {
        return Err(vec![format!(
            "expected an object {{\"id\", \"name\", \"arguments\"}}, found {}",
            json_kind(&element)
        )]);
    };
    let mut problems = Vec::new();
    let id = string_field(&mut fields, "id", &mut problems);
    let name = string_field(&mut fields, "name", &mut problems);
    let arguments = fields
        .remove("arguments")
        .unwrap_or_else(|| Value::Object(Map::new()));
    for key in fields.keys() {
        problems.push(format!(
            "unexpected key \"{}\", expected \"id\", \"name\" or \"arguments\"",
            short(key)
        ));
    }
    match (id, name) {
        (Some(id), Some(name)) if problems.is_empty() => {
            Ok(ToolCall::from_arguments(id, name, arguments))
        }
        _ => Err(problems),
    }
}

fn string_field(
    fields: &mut Map<String, Value>,
    key: &str,
    problems: &mut Vec<String>,
) -> Option<String> {
    match fields.remove(key) {
        Some(Value::String(text)) => Some(text),
        Some(other) => {
            problems.push(format!(
                "\"{key}\" must be a string, found {}",
                json_kind(&other)
            ));
            None
        }
        None => {
            problems.push(format!("missing \"{key}\""));
            None
        }
    }
}

fn short(text: &str) -> String {
    match text.char_indices().nth(QUOTE_LIMIT) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// The answer line (without its newline) to one input line; `None` for a blank line.
///
/// Each call is a fresh session: a message paused for approvals is answered with its pending
/// line and forgotten (use a [`Session`] to resume it).
pub async fn answer_line<C>(
    registry: &Registry<C>,
    policy: &RunPolicy,
    ctx: &mut C,
    line: &str,
) -> Option<String> {
    let mut session = Session::new(registry, policy, Format::Calls);
    // A fresh session answers a line with at most one line.
    session.answer(ctx, line).await.into_iter().next()
}

/// The `MESSAGE_INVALID` answer line.
pub fn invalid_line(message: &str) -> String {
    error_line(MESSAGE_INVALID, message)
}

/// An error answer line `{"error": {"code", "message"}}`.
pub fn error_line(code: &str, message: &str) -> String {
    to_json(&InvalidLine {
        error: InvalidBody { code, message },
    })
}

pub(crate) fn to_json(value: &impl Serialize) -> String {
    // Serializing envelopes and strings into JSON text cannot fail; say so if it ever does.
    serde_json::to_string(value).unwrap_or_else(|e| invalid_line_text(&e.to_string()))
}

fn invalid_line_text(reason: &str) -> String {
    let message = Value::String(format!("the answer could not be written as JSON: {reason}"));
    format!("{{\"error\":{{\"code\":\"TOOL_FAILED\",\"message\":{message}}}}}")
}

/// Reads messages from `input` until its end and writes one answer line per message to
/// `output`, flushing after each. A line that is not UTF-8 is answered with `MESSAGE_INVALID`.
/// Approvals still pending at the end are forgotten (see [`Session::serve`] to keep them).
///
/// # Errors
/// When reading `input` or writing `output` fails.
pub async fn run<C, R, W>(
    registry: &Registry<C>,
    policy: &RunPolicy,
    ctx: &mut C,
    input: R,
    output: W,
) -> io::Result<()>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    Session::new(registry, policy, Format::Calls)
        .serve(ctx, input, output, None)
        .await
}

/// How the binary answers `ask_user`: always `answer` when given; otherwise the first offered
/// option, or [`DEFAULT_OPEN_ANSWER`] for an open question.
pub fn answer_user(
    answer: Option<String>,
) -> impl Fn(&str, &[String]) -> String + Send + Sync + 'static {
    move |_question, options| match (&answer, options.first()) {
        (Some(answer), _) => answer.clone(),
        (None, Some(first)) => first.clone(),
        (None, None) => DEFAULT_OPEN_ANSWER.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problem(line: &str) -> String {
        parse_message(line)
            .expect_err("the line is not a message")
            .message()
            .to_owned()
    }

    #[test]
    fn a_message_is_an_array_of_calls() {
        let calls = parse_message(
            r#"[{"id":"1","name":"panes_list"},{"id":"2","name":"x","arguments":{"a":1}}]"#,
        )
        .expect("a message");
        assert_eq!(
            calls,
            [
                ToolCall::new("1", "panes_list", json!({})),
                ToolCall::new("2", "x", json!({"a": 1})),
            ]
        );
        assert_eq!(parse_message("[]").expect("an empty message"), []);
    }

    #[test]
    fn each_problem_says_where() {
        assert!(problem("[{").starts_with("the line is not valid JSON: "));
        assert_eq!(
            problem(r#"{"id":"1"}"#),
            "expected a JSON array of calls, found an object"
        );
        assert_eq!(
            problem(r#"[{"id":"1","name":"a"},{"id":"2"}]"#),
            r#"call 2: missing "name""#
        );
        assert_eq!(
            problem(r#"[{"id":1,"name":"a","arguments":[]}]"#),
            r#"call 1: "id" must be a string, found a number"#
        );
        assert_eq!(
            problem(r#"[{"id":"1","name":"a","argumnets":{}}]"#),
            r#"call 1: unexpected key "argumnets", expected "id", "name" or "arguments""#
        );
        assert_eq!(
            problem(r#"["panes_list"]"#),
            r#"call 1: expected an object {"id", "name", "arguments"}, found a string"#
        );
    }

    #[test]
    fn arguments_that_are_not_an_object_are_that_calls_problem() {
        let calls = parse_message(
            r#"[{"id":"1","name":"a","arguments":null},{"id":"2","name":"b","arguments":[1]},{"id":"3","name":"c"}]"#,
        )
        .expect("a message");
        let problems: Vec<Option<&str>> =
            calls.iter().map(|c| c.arguments_error.as_deref()).collect();
        assert_eq!(
            problems,
            [
                Some("Expected object, found null"),
                Some("Expected object, found an array"),
                None
            ]
        );
    }

    #[test]
    fn long_keys_are_cut_and_many_problems_counted() {
        let key = "k".repeat(500);
        let message = problem(&format!(r#"[{{"id":"1","name":"a","{key}":0}}]"#));
        assert!(message.len() < 200, "{message}");
        let message = problem(&format!("[{}]", ["1"; 8].join(",")));
        assert!(message.ends_with("; … and 3 more"), "{message}");
        assert_eq!(message.matches("call ").count(), MESSAGE_PROBLEM_LIMIT);
    }

    #[test]
    fn the_user_answers_with_the_flag_the_first_option_or_yes() {
        let options = ["1d".to_owned(), "1h".to_owned()];
        assert_eq!(answer_user(None)("Which?", &options), "1d");
        assert_eq!(answer_user(None)("Go on?", &[]), "yes");
        let given = answer_user(Some("1h".to_owned()));
        assert_eq!(given("Which?", &options), "1h");
        assert_eq!(given("Go on?", &[]), "1h");
    }

    #[test]
    fn invalid_lines_are_json() {
        let line: Value = serde_json::from_str(&invalid_line("call 1: \"x\"")).expect("json");
        assert_eq!(
            line,
            json!({"error": {"code": "MESSAGE_INVALID", "message": "call 1: \"x\""}})
        );
    }
}

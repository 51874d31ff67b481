//! What every transport answers before rmcp sees a message: the JSON-RPC errors for input that
//! is not a client message, and the lifecycle rule for requests that come before `initialize`.
//!
//! rmcp decides what a client message is ([`ClientJsonRpcMessage`]); this module only words the
//! answer when it is not one, so that a client can match it: a request whose `id` can be read
//! gets its error with that `id` (rmcp alone answers `-32600` without one, or drops the line).

use std::borrow::Cow;

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetMeta, ProtocolVersion, RequestMetaObject,
};
use serde_json::{Value, json};

use crate::validate::bounded;

/// JSON-RPC: the input is not JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: the JSON is not a valid request (or not valid in the session's state).
pub(crate) const INVALID_REQUEST: i64 = -32600;

/// The longest parser report an error answer quotes.
const REPORT_LIMIT: usize = 200;

/// A line (stdio) or body (HTTP) read as a client message.
#[derive(Debug)]
pub(crate) enum Read {
    /// A message rmcp can take.
    Message(Box<ClientJsonRpcMessage>),
    /// Not a client message: the JSON-RPC error that answers it. `notification` is true when the
    /// input is a notification, which JSON-RPC never answers (a line is then dropped; an HTTP
    /// POST still needs a status, and gets this body with a `null` id).
    Invalid { answer: Value, notification: bool },
}

/// Reads `bytes` as a client message (after an optional UTF-8 byte order mark, as rmcp does).
pub(crate) fn read_message(bytes: &[u8]) -> Read {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let error = match serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        Ok(message) => return Read::Message(Box::new(message)),
        Err(error) => error,
    };
    if error.is_syntax() || error.is_eof() {
        return Read::Invalid {
            answer: error_answer(
                Value::Null,
                PARSE_ERROR,
                &format!("Parse error: {}", bounded(&error.to_string(), REPORT_LIMIT)),
            ),
            notification: false,
        };
    }
    // Well-formed JSON that is not a client message: answer with its `id` when it has one.
    let (id, notification) = match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(message)) => {
            let id = match message.get("id") {
                Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
                _ => Value::Null,
            };
            let notification =
                !message.contains_key("id") && message.get("method").is_some_and(Value::is_string);
            (id, notification)
        }
        Ok(_) => {
            return Read::Invalid {
                answer: error_answer(
                    Value::Null,
                    INVALID_REQUEST,
                    "Invalid Request: a JSON-RPC message is a JSON object",
                ),
                notification: false,
            };
        }
        Err(_) => (Value::Null, false),
    };
    Read::Invalid {
        answer: error_answer(
            id,
            INVALID_REQUEST,
            &format!(
                "Invalid Request: {}",
                bounded(&error.to_string(), REPORT_LIMIT)
            ),
        ),
        notification,
    }
}

/// A JSON-RPC error answer.
pub(crate) fn error_answer(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The answer to a request that comes before the session's lifecycle started: neither after an
/// `initialize` (protocol versions before 2026-07-28) nor carrying the request metadata that
/// replaces it (2026-07-28 and later).
pub(crate) fn not_initialized(id: Value) -> Value {
    error_answer(
        id,
        INVALID_REQUEST,
        &format!(
            "Invalid Request: the session is not initialized: send `initialize` first, or (protocol {} and later) give the request the `_meta` fields {}",
            ProtocolVersion::V_2026_07_28,
            RequestMetaObject::default()
                .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                .iter()
                .map(|key| format!("`{key}`"))
                .collect::<Vec<_>>()
                .join(" and "),
        ),
    )
}

/// The id of a request message, as JSON.
#[cfg(feature = "mcp-http")]
pub(crate) fn request_id(message: &ClientJsonRpcMessage) -> Option<Value> {
    match message {
        ClientJsonRpcMessage::Request(request) => serde_json::to_value(&request.id).ok(),
        _ => None,
    }
}

/// What the lifecycle gate does with a message.
#[derive(Debug)]
pub(crate) enum Admit {
    /// Pass it on to rmcp.
    Pass(Box<ClientJsonRpcMessage>),
    /// Answer it with this error; rmcp never sees it.
    Answer(Value),
    /// Drop it: a notification or response before the lifecycle started has nothing to act on.
    Drop,
}

/// The lifecycle of one connection (stdio), before rmcp's handshake: rmcp ends the session on
/// a notification before `initialize` (`notifications/initialized` sent too early is common),
/// and answers an early request of an older protocol with an error about 2026-07-28's request
/// metadata. The gate drops the first and answers the second with [`not_initialized`].
#[derive(Debug)]
pub(crate) struct Gate {
    started: bool,
    versions: Cow<'static, [ProtocolVersion]>,
}

impl Gate {
    /// A gate for a server that speaks `versions`.
    pub(crate) fn new(versions: Cow<'static, [ProtocolVersion]>) -> Self {
        Gate {
            started: false,
            versions,
        }
    }

    /// Decides about the next message of the connection.
    pub(crate) fn admit(&mut self, message: Box<ClientJsonRpcMessage>) -> Admit {
        if self.started {
            return Admit::Pass(message);
        }
        let ClientJsonRpcMessage::Request(request) = message.as_ref() else {
            return Admit::Drop;
        };
        match &request.request {
            ClientRequest::InitializeRequest(_) => self.started = true,
            // rmcp answers these before a lifecycle, and stays open to either.
            ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => {}
            other => {
                let meta = other.get_meta();
                let Some(version) = meta.protocol_version() else {
                    let id = serde_json::to_value(&request.id).unwrap_or(Value::Null);
                    return Admit::Answer(not_initialized(id));
                };
                // rmcp starts the 2026-07-28 lifecycle on the first complete request of a
                // version it speaks, and answers any other with an error of its own.
                self.started = meta
                    .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                    .is_empty()
                    && self.versions.contains(&version);
            }
        }
        Admit::Pass(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invalid(bytes: &[u8]) -> (Value, bool) {
        match read_message(bytes) {
            Read::Invalid {
                answer,
                notification,
            } => (answer, notification),
            Read::Message(message) => panic!("read as a message: {message:?}"),
        }
    }

    #[test]
    fn lines_that_are_not_json_get_the_parse_error_without_an_id() {
        for line in [&b"{\"x\": NaN}"[..], b"\xff\xfe", b"{\"cut\":", b"not json"] {
            let (answer, _) = invalid(line);
            assert_eq!(answer["error"]["code"], -32700, "{answer}");
            assert_eq!(answer["id"], Value::Null);
        }
        let long = format!("{{\"x\": {}", "1".repeat(100_000));
        let (answer, _) = invalid(long.as_bytes());
        assert!(answer.to_string().len() < 400, "bounded: {answer}");
    }

    #[test]
    fn an_invalid_request_is_answered_with_its_id() {
        for (line, id) in [
            (&br#"{"jsonrpc":"2.0","id":7}"#[..], json!(7)),
            (br#"{"jsonrpc":"2.0","id":"a","method":7}"#, json!("a")),
            (
                br#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
                json!(1.5),
            ),
            (
                br#"{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}"#,
                Value::Null,
            ),
            (br#"{"foo":"bar"}"#, Value::Null),
        ] {
            let (answer, notification) = invalid(line);
            assert!(!notification, "{answer}");
            assert_eq!(answer["error"]["code"], -32600, "{answer}");
            assert_eq!(answer["id"], id, "{answer}");
        }
        let (answer, _) = invalid(b"[1, 2]");
        assert_eq!(answer["error"]["code"], -32600);
        assert_eq!(answer["id"], Value::Null);
    }

    #[test]
    fn valid_messages_pass() {
        assert!(matches!(
            read_message(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Read::Message(_)
        ));
        assert!(matches!(
            read_message(
                b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
            ),
            Read::Message(_)
        ));
    }

    fn message(text: &str) -> Box<ClientJsonRpcMessage> {
        match read_message(text.as_bytes()) {
            Read::Message(message) => message,
            Read::Invalid { answer, .. } => panic!("not a message: {answer}"),
        }
    }

    #[test]
    fn the_gate_drops_early_notifications_and_answers_early_requests() {
        let mut gate = Gate::new(ProtocolVersion::KNOWN_VERSIONS.into());
        assert!(matches!(
            gate.admit(message(
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
            )),
            Admit::Drop
        ));
        let Admit::Answer(answer) =
            gate.admit(message(r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#))
        else {
            panic!("an early request is answered");
        };
        assert_eq!(answer["id"], 4);
        assert_eq!(answer["error"]["code"], -32600);
        assert!(
            answer["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("send `initialize` first")),
            "{answer}"
        );
        assert!(matches!(
            gate.admit(message(r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#)),
            Admit::Pass(_)
        ));
        assert!(matches!(
            gate.admit(message(
                r#"{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#
            )),
            Admit::Pass(_)
        ));
        // After the handshake everything passes.
        assert!(matches!(
            gate.admit(message(
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
            )),
            Admit::Pass(_)
        ));
        assert!(matches!(
            gate.admit(message(r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#)),
            Admit::Pass(_)
        ));
    }
}

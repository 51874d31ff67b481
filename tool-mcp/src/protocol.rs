//! What every transport answers before rmcp sees a message: the JSON-RPC errors for input that
//! is not a client message, and the lifecycle rule for requests that come before `initialize`.
//!
//! rmcp decides what a client message is ([`ClientJsonRpcMessage`]); this module only words the
//! answer when it is not one, so that a client can match it: a request whose `id` can be read
//! gets its error with that `id` (rmcp alone answers `-32600` without one, or drops the line).

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::io;

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetMeta, ProtocolVersion, RequestMetaObject,
};
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::{Value, json};

use toolwright_core::text::bounded;

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

/// The `id` of a message from the start of its text, which may be cut anywhere (a line over
/// the bound): the top-level members are read in order up to `id`, each value before it skipped
/// by serde_json without being built ([`IgnoredAny`]), and nothing after `id` is read, so the
/// cut only matters when it comes before `id` ends. `null` when the start is not a JSON
/// object's, when it does not hold `id` whole, or when `id` is neither a string nor a number.
pub(crate) fn leading_id(start: &[u8]) -> Value {
    let start = start.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(start);
    let cut = Cell::new(false);
    let mut id = None;
    let mut deserializer = serde_json::Deserializer::from_reader(Cut {
        rest: start,
        reached: &cut,
    });
    // The object is left unfinished once `id` is read: the error that ends the parse then is
    // expected, and `id` was kept before it.
    let _ = serde::Deserializer::deserialize_map(
        &mut deserializer,
        Members {
            id: &mut id,
            cut: &cut,
        },
    );
    id.unwrap_or(Value::Null)
}

/// A line's start as a reader that notes when it was read to its end (where the line was cut).
/// serde_json reads it a byte at a time and a number ends at the first byte past it, so a
/// number read whole was followed by a byte within the start; one that reached the cut may have
/// lost digits.
struct Cut<'a> {
    rest: &'a [u8],
    reached: &'a Cell<bool>,
}

impl io::Read for Cut<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.rest.is_empty() && !buf.is_empty() {
            self.reached.set(true);
        }
        self.rest.read(buf)
    }
}

/// Reads an object's members up to `id`.
struct Members<'a> {
    id: &'a mut Option<Value>,
    cut: &'a Cell<bool>,
}

impl<'de> Visitor<'de> for Members<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<(), A::Error> {
        while let Some(key) = members.next_key::<String>()? {
            if key != "id" {
                members.next_value::<IgnoredAny>()?;
                continue;
            }
            let id = members.next_value::<Value>()?;
            let whole = match &id {
                Value::String(_) => true,
                Value::Number(_) => !self.cut.get(),
                _ => false,
            };
            if whole {
                *self.id = Some(id);
            }
            return Ok(());
        }
        Ok(())
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
#[cfg(feature = "http")]
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
    fn the_id_is_read_from_a_messages_start() {
        for (start, id) in [
            (
                &br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"argu"#[..],
                json!(7),
            ),
            (br#"{"id": "a\"b" ,"#, json!("a\"b")),
            (br#"{"id":-1.5e3}"#, json!(-1500.0)),
            (
                br#"{"method":"x","params":{"id":1,"deep":[[[{"id":2}]]]},"id":3,"pa"#,
                json!(3),
            ),
            (b"\xEF\xBB\xBF{\"id\":4,", json!(4)),
            // Cut inside the id, or before it.
            (br#"{"id":12"#, Value::Null),
            (br#"{"id":"unterminated"#, Value::Null),
            (br#"{"jsonrpc":"2.0","params":{"argu"#, Value::Null),
            (br#"{"params":{"id":5,"x":"#, Value::Null),
            // Not an id a client can be answered with, or not an object.
            (br#"{"id":null,"#, Value::Null),
            (br#"{"id":[1],"#, Value::Null),
            (br#"{"id":{"n":1},"#, Value::Null),
            (br#"[{"id":6},"#, Value::Null),
            (b"not json", Value::Null),
            (b"", Value::Null),
        ] {
            assert_eq!(leading_id(start), id, "{}", String::from_utf8_lossy(start));
        }
        // A number followed by a byte within the start is whole.
        assert_eq!(leading_id(br#"{"id":12 "#), json!(12));
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

//! The connection to one upstream server.

use std::collections::{HashMap, VecDeque};
use std::error::Error as StdError;
use std::fmt;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, ClientRequest,
    ErrorData, Implementation, ListToolsRequest, PaginatedRequestParams, ServerResult,
};
use rmcp::service::ClientInitializeError;
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::transport::{DynamicTransportError, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, Peer, RoleClient, ServiceError, ServiceExt};
use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;
use tokio::sync::watch;
use toolwright_secrets::{Redactor, SecretString};

use crate::endpoint::{Endpoint, describe, private_url_parts};
use crate::error::UpstreamError;

/// How long [`Upstream::connect`] waits for the server to answer `initialize`. It is long enough
/// for `npx -y` to download a package first.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(60);

/// The most pages of `tools/list` read: a server whose cursors never end is refused.
const MAX_PAGES: usize = 1000;

/// How many of the child's last stderr lines are kept for error messages.
const STDERR_LINES: usize = 20;
/// Longer stderr lines are cut: a child that writes without newlines must not grow the buffer.
const STDERR_LINE_BYTES: usize = 2048;
/// How long a failed handshake waits for the rest of the child's stderr.
const STDERR_GRACE: Duration = Duration::from_millis(500);

/// A connected upstream MCP server.
///
/// A cheap handle: clones share the one connection, which closes when the last clone is dropped
/// or at [`Upstream::close`]. A child process is killed then. `Debug` prints the endpoint as
/// [`describe`] gives it, never a secret.
#[derive(Clone)]
pub struct Upstream {
    inner: Arc<Inner>,
}

struct Inner {
    endpoint: String,
    server: (String, String),
    peer: Peer<RoleClient>,
    running: Mutex<Option<RunningService<RoleClient, Watcher>>>,
    list_changed: watch::Receiver<u64>,
    stderr: Option<Arc<StderrTail>>,
    redactor: Redactor,
}

impl fmt::Debug for Upstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Upstream")
            .field("endpoint", &self.inner.endpoint)
            .field("server", &self.inner.server)
            .field("closed", &self.is_closed())
            .finish_non_exhaustive()
    }
}

/// The client side's handler: it only counts the server's tool-list changes (the client offers
/// no sampling, roots or elicitation, so the server asks for none).
struct Watcher {
    changes: watch::Sender<u64>,
}

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changes.send_modify(|count| *count += 1);
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")),
        )
    }
}

/// The last lines a child wrote to stderr.
#[derive(Default)]
struct StderrTail {
    lines: Mutex<VecDeque<String>>,
}

impl StderrTail {
    fn push(&self, line: String) {
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == STDERR_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// `; stderr: …` with the kept lines, or nothing when the child wrote none.
    fn suffix(&self) -> String {
        let lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.is_empty() {
            return String::new();
        }
        let joined: Vec<&str> = lines.iter().map(String::as_str).collect();
        format!("; its stderr ended with: {}", joined.join(" | "))
    }
}

/// Reads the child's stderr to its end, so that the child never blocks on a full pipe: each
/// line is logged at `debug` and the last ones kept for error messages.
async fn drain(
    mut stderr: ChildStderr,
    tail: Arc<StderrTail>,
    endpoint: String,
    redactor: Redactor,
) {
    let mut chunk = [0u8; 4096];
    let mut line: Vec<u8> = Vec::new();
    let emit = |line: &mut Vec<u8>| {
        let text = String::from_utf8_lossy(line);
        let text = redactor.redact(text.trim_end()).into_owned();
        line.clear();
        if !text.is_empty() {
            tracing::debug!(target: "toolwright_upstream::stderr", upstream = %endpoint, "{text}");
            tail.push(text);
        }
    };
    loop {
        let read = match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        for &byte in &chunk[..read] {
            if byte == b'\n' {
                emit(&mut line);
            } else if line.len() < STDERR_LINE_BYTES {
                line.push(byte);
            }
        }
    }
    emit(&mut line);
}

/// The endpoint's secret values, for cleaning error texts and stderr lines.
fn redactor_for(endpoint: &Endpoint) -> Redactor {
    let secrets: Vec<SecretString> = match endpoint {
        Endpoint::Command { env, .. } => env.iter().map(|(_, value)| value.clone()).collect(),
        Endpoint::Url { url, headers } => headers
            .iter()
            .map(|(_, value)| value.clone())
            .chain(private_url_parts(url).into_iter().map(SecretString::new))
            .collect(),
    };
    Redactor::new(&secrets.iter().collect::<Vec<_>>())
}

/// `error` and its sources, each added unless the text so far already says it.
fn chain(error: &(dyn StdError + 'static)) -> String {
    let error = unboxed(error);
    let mut text = error.to_string();
    let mut next = error.source();
    while let Some(source) = next {
        let source = unboxed(source);
        let said = source.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        next = source.source();
    }
    text
}

/// The error inside rmcp's wrappers that do not return it as their source: the boxed transport
/// error (whose own text names the transport's Rust type) and the HTTP client's error (whose
/// sources say why a request failed: the connection refused, the name not resolved, …).
fn unboxed<'a>(error: &'a (dyn StdError + 'static)) -> &'a (dyn StdError + 'static) {
    let error = match error.downcast_ref::<DynamicTransportError>() {
        Some(dynamic) => dynamic.error.as_ref(),
        None => error,
    };
    match error.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
        Some(StreamableHttpError::Client(client)) => client,
        _ => error,
    }
}

/// Why the handshake failed, in words.
fn handshake_error(error: &ClientInitializeError) -> String {
    match error {
        ClientInitializeError::ConnectionClosed(awaited) => {
            format!("the connection closed while waiting for the {awaited}")
        }
        ClientInitializeError::TransportError { error, context } => {
            format!("cannot {context}: {}", chain(error))
        }
        other => chain(other),
    }
}

/// A JSON-RPC error's message, with its `data` when it has some.
fn error_text(error: &ErrorData) -> String {
    match &error.data {
        Some(data) => format!("{} ({data})", error.message),
        None => error.message.to_string(),
    }
}

/// What a request was, for its error.
enum Request<'a> {
    List,
    Call(&'a str),
}

impl Upstream {
    /// Starts the command or opens the HTTP session, and completes the MCP handshake, waiting
    /// at most [`CONNECT_TIMEOUT`] for it.
    ///
    /// A child's stderr is read line by line (logged at `debug` under the target
    /// `toolwright_upstream::stderr`) and its last lines are part of the errors that concern it.
    pub async fn connect(endpoint: &Endpoint) -> Result<Upstream, UpstreamError> {
        Self::connect_with_timeout(endpoint, CONNECT_TIMEOUT).await
    }

    /// [`Upstream::connect`] with another limit on the handshake.
    pub async fn connect_with_timeout(
        endpoint: &Endpoint,
        timeout: Duration,
    ) -> Result<Upstream, UpstreamError> {
        let described = describe(endpoint);
        let redactor = redactor_for(endpoint);
        let (changes, list_changed) = watch::channel(0);
        let watcher = Watcher { changes };
        let connect_error = |why: String, tail: Option<&StderrTail>| UpstreamError::Connect {
            endpoint: described.clone(),
            why: format!(
                "{}{}",
                redactor.redact(&why),
                tail.map(StderrTail::suffix).unwrap_or_default()
            ),
        };
        let (handshake, stderr) = match endpoint {
            Endpoint::Command { program, args, env } => {
                let mut command = tokio::process::Command::new(program);
                // rmcp kills the child when its transport is dropped; this also covers a
                // transport dropped where rmcp's own cleanup cannot run.
                command.args(args).kill_on_drop(true);
                for (name, value) in env {
                    command.env(name, value.expose_secret());
                }
                let (transport, stderr) = TokioChildProcess::builder(command)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|source| UpstreamError::Spawn {
                        program: program.clone(),
                        command: described.clone(),
                        source,
                    })?;
                let tail = Arc::new(StderrTail::default());
                let drained = stderr.map(|stderr| {
                    tokio::spawn(drain(
                        stderr,
                        Arc::clone(&tail),
                        described.clone(),
                        redactor.clone(),
                    ))
                });
                let handshake = tokio::time::timeout(timeout, watcher.serve(transport)).await;
                if let (Some(drained), false) = (drained, matches!(handshake, Ok(Ok(_)))) {
                    // The child is gone or being killed: its last words, which say why, are
                    // still in the pipe for a moment.
                    let _ = tokio::time::timeout(STDERR_GRACE, drained).await;
                }
                (handshake, Some(tail))
            }
            Endpoint::Url { url, headers } => {
                let mut custom = HashMap::new();
                for (name, value) in headers {
                    let header = http::HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                        connect_error(format!("`{name}` is not a valid header name"), None)
                    })?;
                    let mut value =
                        http::HeaderValue::from_str(value.expose_secret()).map_err(|_| {
                            connect_error(
                                format!(
                                    "the value of the header `{name}` is not a valid header value"
                                ),
                                None,
                            )
                        })?;
                    value.set_sensitive(true);
                    custom.insert(header, value);
                }
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(custom);
                let transport = StreamableHttpClientTransport::from_config(config);
                let handshake = tokio::time::timeout(timeout, watcher.serve(transport)).await;
                (handshake, None)
            }
        };
        let running = match handshake {
            Ok(Ok(running)) => running,
            Ok(Err(error)) => {
                return Err(connect_error(handshake_error(&error), stderr.as_deref()));
            }
            Err(_) => {
                return Err(connect_error(
                    format!(
                        "no answer to `initialize` within {} s",
                        timeout.as_secs_f64()
                    ),
                    stderr.as_deref(),
                ));
            }
        };
        let server = running
            .peer_info()
            .and_then(|info| info.server_info.clone())
            .map(|info| (info.name, info.version))
            .unwrap_or_default();
        tracing::debug!(upstream = %described, server = %server.0, version = %server.1, "connected");
        Ok(Upstream {
            inner: Arc::new(Inner {
                endpoint: described,
                server,
                peer: running.peer().clone(),
                running: Mutex::new(Some(running)),
                list_changed,
                stderr,
                redactor,
            }),
        })
    }

    /// Where the server is, as [`describe`] gives it.
    pub fn endpoint(&self) -> &str {
        &self.inner.endpoint
    }

    /// The server's name and version from its initialize result (empty when it gave none).
    pub fn server_info(&self) -> (String, String) {
        self.inner.server.clone()
    }

    /// Every tool of `tools/list`, all pages, each as the JSON object of rmcp's `Tool` (the
    /// fields of the MCP schema, as the server sent them).
    ///
    /// Always asked of the server: rmcp's response cache (kept while the server's `ttlMs`
    /// allows, and answered stale when a request fails) is not used, since a proxy checks the
    /// definitions the server gives now.
    pub async fn list_tools(&self) -> Result<Vec<serde_json::Value>, UpstreamError> {
        self.check_open()?;
        let mut tools = Vec::new();
        let mut cursor = None;
        for page in 1.. {
            if page > MAX_PAGES {
                return Err(UpstreamError::Protocol {
                    endpoint: self.inner.endpoint.clone(),
                    why: format!("`tools/list` gave more than {MAX_PAGES} pages"),
                });
            }
            let request = ClientRequest::ListToolsRequest(ListToolsRequest {
                method: Default::default(),
                params: Some(PaginatedRequestParams::default().with_cursor(cursor.take())),
                extensions: Default::default(),
            });
            let answer = self
                .inner
                .peer
                .send_request(request)
                .await
                .map_err(|error| self.request_error(error, Request::List))?;
            let ServerResult::ListToolsResult(page) = answer else {
                return Err(UpstreamError::Protocol {
                    endpoint: self.inner.endpoint.clone(),
                    why: "`tools/list` was answered with another kind of result".into(),
                });
            };
            tools.extend(page.tools);
            match page.next_cursor {
                Some(next) if !next.is_empty() => cursor = Some(next),
                _ => break,
            }
        }
        tools
            .iter()
            .map(|tool| {
                serde_json::to_value(tool).map_err(|error| UpstreamError::Protocol {
                    endpoint: self.inner.endpoint.clone(),
                    why: format!(
                        "the tool `{}` cannot be written as JSON: {error}",
                        tool.name
                    ),
                })
            })
            .collect()
    }

    /// One `tools/call`; returns the `CallToolResult` as its JSON value (`content`,
    /// `structuredContent` and `isError` as the server sent them). A tool that failed is such a
    /// result, with `isError: true`; a call the server refused is [`UpstreamError::Call`].
    ///
    /// A call whose connection closes meanwhile (the child exited) ends with
    /// [`UpstreamError::Closed`] as soon as the close is seen. There is no time limit of its
    /// own: wrap it in `tokio::time::timeout` for one (dropping the future sends
    /// `notifications/cancelled`).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<serde_json::Value, UpstreamError> {
        self.check_open()?;
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        let response = self
            .inner
            .peer
            .call_tool_once(params)
            .await
            .map_err(|error| self.request_error(error, Request::Call(name)))?;
        let protocol = |why: String| UpstreamError::Protocol {
            endpoint: self.inner.endpoint.clone(),
            why,
        };
        match response {
            CallToolResponse::Complete(result) => serde_json::to_value(result).map_err(|error| {
                protocol(format!(
                    "the result of `{name}` cannot be written as JSON: {error}"
                ))
            }),
            CallToolResponse::InputRequired(_) => Err(protocol(format!(
                "the call of `{name}` asked for more input (`input_required`), which this client does not give"
            ))),
            CallToolResponse::Task(_) => Err(protocol(format!(
                "the call of `{name}` was answered with a task, which this client does not poll"
            ))),
            _ => Err(protocol(format!(
                "the call of `{name}` was answered with a result of an unknown kind"
            ))),
        }
    }

    /// Counts the `notifications/tools/list_changed` received; the receiver changes at each one.
    pub fn list_changed(&self) -> watch::Receiver<u64> {
        self.inner.list_changed.clone()
    }

    /// True once the connection is closed: the child exited, the HTTP transport ended, or
    /// [`Upstream::close`] was called.
    pub fn is_closed(&self) -> bool {
        if self.inner.peer.is_transport_closed() {
            return true;
        }
        let running = self
            .inner
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        running.as_ref().is_none_or(RunningService::is_closed)
    }

    /// Closes the connection and waits for its end, for every clone of this handle: a child's
    /// stdin is closed, and the child is sent `SIGTERM` and then killed if it has not exited
    /// within a few seconds; an HTTP session is ended with `DELETE`.
    pub async fn close(self) {
        let running = self
            .inner
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(mut running) = running
            && let Err(error) = running.close().await
        {
            tracing::warn!(upstream = %self.inner.endpoint, %error, "the connection's task failed");
        }
    }

    /// Saves a request on a connection known to be closed, with a reason to match.
    fn check_open(&self) -> Result<(), UpstreamError> {
        if !self.is_closed() {
            return Ok(());
        }
        Err(UpstreamError::Closed {
            endpoint: self.inner.endpoint.clone(),
            why: format!(
                "it closed before this request{}",
                self.inner
                    .stderr
                    .as_deref()
                    .map(StderrTail::suffix)
                    .unwrap_or_default()
            ),
        })
    }

    fn request_error(&self, error: ServiceError, request: Request<'_>) -> UpstreamError {
        let endpoint = self.inner.endpoint.clone();
        let clean = |text: &str| self.inner.redactor.redact(text).into_owned();
        let tail = || {
            self.inner
                .stderr
                .as_deref()
                .map(StderrTail::suffix)
                .unwrap_or_default()
        };
        match error {
            ServiceError::McpError(data) => match request {
                Request::Call(tool) => UpstreamError::Call {
                    endpoint,
                    tool: tool.to_owned(),
                    code: data.code.0,
                    why: clean(&error_text(&data)),
                },
                Request::List => UpstreamError::List {
                    endpoint,
                    code: data.code.0,
                    why: clean(&error_text(&data)),
                },
            },
            ServiceError::TransportClosed => UpstreamError::Closed {
                endpoint,
                why: format!("the transport closed before the answer came{}", tail()),
            },
            ServiceError::Cancelled { .. } => UpstreamError::Closed {
                endpoint,
                why: format!("{}{}", clean(&chain(&error)), tail()),
            },
            ServiceError::TransportSend(sent) if self.inner.peer.is_transport_closed() => {
                UpstreamError::Closed {
                    endpoint,
                    why: format!(
                        "cannot send the request: {}{}",
                        clean(&chain(&sent)),
                        tail()
                    ),
                }
            }
            ServiceError::TransportSend(sent) => UpstreamError::Transport {
                endpoint,
                why: format!("cannot send the request: {}", clean(&chain(&sent))),
            },
            ServiceError::Timeout { .. } => UpstreamError::Transport {
                endpoint,
                why: clean(&chain(&error)),
            },
            _ => UpstreamError::Protocol {
                endpoint,
                why: clean(&chain(&error)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handle_is_shared_across_tasks() {
        fn shareable<T: Send + Sync + Clone + 'static>() {}
        shareable::<Upstream>();
    }

    #[test]
    fn the_stderr_tail_keeps_the_last_lines() {
        let tail = StderrTail::default();
        assert_eq!(tail.suffix(), "");
        for line in 0..STDERR_LINES + 5 {
            tail.push(format!("line {line}"));
        }
        let suffix = tail.suffix();
        assert!(
            suffix.starts_with("; its stderr ended with: line 5 | "),
            "{suffix}"
        );
        assert!(suffix.ends_with(&format!("line {}", STDERR_LINES + 4)));
    }
}

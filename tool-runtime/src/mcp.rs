//! An MCP server (rmcp, stdio or any transport) for any registry and run policy.
//!
//! - `tools/list` returns the run's tools ([`Registry::resolve`]) as MCP definitions
//!   ([`Dialect::Mcp`]): every annotation written explicitly from the declared safety, and an
//!   `outputSchema` that describes the envelope actually returned (see [`envelope_schema`]).
//! - `tools/call` runs the call through the registry (policy check, validation, time limit,
//!   envelope) and answers with the envelope twice: as `structuredContent` and as one text
//!   content holding the same JSON; `isError` is true exactly when `success` is false. Refusals,
//!   invalid input and domain errors are therefore results the model can read and correct, not
//!   protocol errors. In a read-only server a call to a write tool is such a result, carrying the
//!   `TOOL_NOT_ALLOWED` envelope (the registry's second check).
//! - A tool the registry does not know is the protocol's invalid-params error (`-32602`).
//!
//! # The context and concurrent calls
//!
//! The calls of one session may arrive concurrently. The context lives in a
//! [`tokio::sync::RwLock`]: a call to a `read-only`, `parallel` tool whose handler shares the
//! context (`&C`) holds a read lock, so such reads run together; every other call (a write, a
//! `sequential` tool) holds the write lock and runs alone. Two writes never overlap, and no read
//! sees a write half-done. The lock is fair: a waiting write is not starved by a stream of reads.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use tool_runtime::{Registry, RunPolicy};
//! # async fn run(registry: Arc<Registry<Vec<String>>>) -> Result<(), tool_runtime::mcp::McpError> {
//! tool_runtime::mcp::serve_stdio(registry, RunPolicy::read_only(), Vec::new(), "chart-tools", "0.1.0")
//!     .await
//! # }
//! ```

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{MaybeSendFuture, RequestContext, ServerInitializeError};
use rmcp::transport::IntoTransport;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio::sync::RwLock;
use tool_manifest::dialect::{self, Dialect, ExportError, Violation};

use crate::envelope::{
    ACTION_FAILED, ACTION_FAILED_DESTRUCTIVE, ErrorBody, RuntimeCode, ToolResult,
};
use crate::policy::RunPolicy;
use crate::registry::{Registry, close_names};
use crate::tool::Handler;
use crate::validate::{InputSchema, bounded};

/// The longest tool name an error message quotes in full.
const NAME_QUOTE_LIMIT: usize = 64;

/// Why a server cannot start or ended badly.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// A tool of the run cannot be offered over MCP (the tool, the pointer and the rule).
    #[error("the run's tools cannot be offered over MCP:\n{0}")]
    Definitions(ExportError),
    /// The MCP handshake failed.
    #[error("the MCP session could not start: {0}")]
    Initialize(Box<ServerInitializeError>),
    /// The session's task ended abnormally.
    #[error("the MCP session ended abnormally: {0}")]
    Session(#[from] tokio::task::JoinError),
    /// An I/O error of the transport.
    #[error("the MCP transport failed: {0}")]
    Io(#[from] std::io::Error),
}

impl From<ServerInitializeError> for McpError {
    fn from(error: ServerInitializeError) -> Self {
        McpError::Initialize(Box::new(error))
    }
}

/// Serves `server` over newline-delimited JSON-RPC on `input`/`output`, answering lines rmcp
/// would drop (see [`McpServer::serve_stdio`]). Answers and rmcp's messages are written whole
/// lines at a time, never interleaved.
async fn serve_lines<C, R, W>(server: McpServer<C>, input: R, output: W) -> Result<(), McpError>
where
    C: Send + Sync + 'static,
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin,
{
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (from_server, mut to_server) = tokio::io::split(ours);
    let (lines, mut outgoing) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();

    // When the session ends (the client said goodbye, or the handshake failed), input is no
    // longer read: the command ends with its session, not with its standard input.
    let (session_over, mut session_done) = tokio::sync::oneshot::channel::<()>();
    let serve = async move {
        let served = server.serve(theirs).await;
        let _ = session_over.send(());
        served
    };
    let forward_input = {
        let lines = lines.clone();
        let copy = async move {
            let mut input = BufReader::new(input);
            let mut line = Vec::new();
            loop {
                line.clear();
                if input.read_until(b'\n', &mut line).await? == 0 {
                    break;
                }
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match unanswerable(&line) {
                    None => {
                        if !line.ends_with(b"\n") {
                            line.push(b'\n');
                        }
                        to_server.write_all(&line).await?;
                    }
                    Some(answer) => {
                        // The writer only stops once every sender is gone.
                        let _ = lines.send(answer);
                    }
                }
            }
            // End of input: rmcp sees the end of its stream and closes the session.
            to_server.shutdown().await
        };
        async move {
            tokio::select! {
                copied = copy => copied,
                _ = &mut session_done => Ok(()),
            }
        }
    };
    let forward_output = async move {
        let mut from_server = BufReader::new(from_server);
        let mut line = Vec::new();
        loop {
            line.clear();
            if from_server.read_until(b'\n', &mut line).await? == 0 {
                return Ok::<(), std::io::Error>(());
            }
            let _ = lines.send(line.clone());
        }
    };
    let write = async move {
        let mut output = output;
        while let Some(line) = outgoing.recv().await {
            output.write_all(&line).await?;
            output.flush().await?;
        }
        Ok::<(), std::io::Error>(())
    };
    let (served, input, forwarded, written) =
        tokio::join!(serve, forward_input, forward_output, write);
    served?;
    input?;
    forwarded?;
    written?;
    Ok(())
}

/// The JSON-RPC error answer for a line rmcp cannot take, or `None` for a message to pass on.
fn unanswerable(line: &[u8]) -> Option<Vec<u8>> {
    let (code, message) = match serde_json::from_slice::<Value>(line) {
        Err(error) => (-32700, bounded(&format!("Parse error: {error}"), 200)),
        Ok(Value::Object(_)) => return None,
        Ok(_) => (
            -32600,
            "Invalid Request: a JSON-RPC message is a JSON object".to_owned(),
        ),
    };
    let mut answer = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    })
    .to_string()
    .into_bytes();
    answer.push(b'\n');
    Some(answer)
}

/// One tool as the server offers it.
struct Offered {
    /// The MCP definition, envelope output schema included.
    tool: Tool,
    /// Compiled envelope schema, when it constrains `data` with the tool's own output schema;
    /// every success is checked against it before it is returned.
    output: Option<InputSchema>,
}

/// An MCP server over one registry, one run policy and one context.
pub struct McpServer<C> {
    registry: Arc<Registry<C>>,
    policy: RunPolicy,
    context: Arc<RwLock<C>>,
    info: Implementation,
    /// The run's tools, sorted by name.
    offered: Arc<Vec<(String, Offered)>>,
}

impl<C> fmt::Debug for McpServer<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServer")
            .field("registry", &self.registry)
            .field("policy", &self.policy)
            .field("info", &self.info)
            .field(
                "offered",
                &self.offered.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl<C> Clone for McpServer<C> {
    fn clone(&self) -> Self {
        McpServer {
            registry: Arc::clone(&self.registry),
            policy: self.policy.clone(),
            context: Arc::clone(&self.context),
            info: self.info.clone(),
            offered: Arc::clone(&self.offered),
        }
    }
}

impl<C: Send + Sync + 'static> McpServer<C> {
    /// A server offering the tools `policy` resolves, calling them with `context`, introducing
    /// itself as `name` `version`. The run's dialect is MCP's, whatever `policy` says: clients
    /// see the canonical input schemas, and a `null` is a value, never an absent field.
    ///
    /// # Errors
    /// [`McpError::Definitions`] when a tool of the run cannot be expressed as an MCP definition.
    pub fn new(
        registry: Arc<Registry<C>>,
        policy: RunPolicy,
        context: C,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> Result<Self, McpError> {
        Self::with_shared_context(
            registry,
            policy,
            Arc::new(RwLock::new(context)),
            name,
            version,
        )
    }

    /// As [`McpServer::new`], with a context the host keeps access to (to inspect it, or to
    /// share it with another server). Hold its lock only briefly: calls wait for it.
    ///
    /// # Errors
    /// As [`McpServer::new`].
    pub fn with_shared_context(
        registry: Arc<Registry<C>>,
        policy: RunPolicy,
        context: Arc<RwLock<C>>,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> Result<Self, McpError> {
        let policy = policy.with_dialect(Dialect::Mcp);
        let offered = offer(&registry, &policy).map_err(McpError::Definitions)?;
        Ok(McpServer {
            registry,
            policy,
            context,
            info: Implementation::new(name, version),
            offered: Arc::new(offered),
        })
    }

    /// The context the tools are called with.
    pub fn context(&self) -> &Arc<RwLock<C>> {
        &self.context
    }

    /// The policy of the run this server serves.
    pub fn policy(&self) -> &RunPolicy {
        &self.policy
    }

    /// The tools `tools/list` returns, sorted by name.
    pub fn tools(&self) -> Vec<Tool> {
        self.offered.iter().map(|(_, o)| o.tool.clone()).collect()
    }

    /// Serves one MCP session over `transport` until the client closes it.
    ///
    /// # Errors
    /// When the handshake fails or the session's task ends abnormally.
    pub async fn serve<T, E, A>(self, transport: T) -> Result<(), McpError>
    where
        T: IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let running = rmcp::serve_server(self, transport).await?;
        running.waiting().await?;
        Ok(())
    }

    /// Serves one MCP session over stdin and stdout until the client closes it.
    ///
    /// Each line is checked before rmcp sees it: a line that is not JSON (invalid UTF-8, `NaN`,
    /// nesting past serde_json's limit, a cut-off message) is answered with the JSON-RPC parse
    /// error (-32700, `id: null`), and JSON that is not a message object with the invalid-request
    /// error (-32600); rmcp alone would drop such a line without an answer, leaving a client
    /// waiting. The session goes on either way.
    ///
    /// # Errors
    /// As [`McpServer::serve`].
    pub async fn serve_stdio(self) -> Result<(), McpError> {
        serve_lines(self, tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Runs one call on the registry's `execute` path (policy check, approval, validation, the
    /// tool under its time limit, the envelope), holding the context's lock only while the tool
    /// runs: refused and invalid calls answer at once, even while a write is running.
    pub async fn execute(&self, name: &str, arguments: &Value) -> ToolResult {
        let (tool, arguments) = match self.registry.admit(&self.policy, name, arguments) {
            Ok(admitted) => admitted,
            Err(refused) => return refused,
        };
        let meta = tool.def.meta;
        let shares = meta.safety.is_read_only() && !meta.mode.is_sequential();
        let result = match tool.def.handler {
            Handler::Shared(f) if shares => {
                let context = self.context.read().await;
                tool.run_shared(f, &context, &arguments).await
            }
            Handler::Shared(f) => {
                let context = self.context.write().await;
                tool.run_shared(f, &context, &arguments).await
            }
            Handler::Exclusive(f) => {
                let mut context = self.context.write().await;
                tool.run_exclusive(f, &mut context, &arguments).await
            }
        };
        self.checked(name, result)
    }

    /// A success whose data breaks the tool's declared output schema becomes `TOOL_FAILED`: the
    /// envelope always validates against the `outputSchema` the client was given.
    fn checked(&self, name: &str, result: ToolResult) -> ToolResult {
        if !result.is_success() {
            return result;
        }
        let Some(output) = self.offered(name).and_then(|o| o.output.as_ref()) else {
            return result;
        };
        let Ok(envelope) = serde_json::to_value(&result) else {
            return result;
        };
        if output.is_valid(&envelope) {
            return result;
        }
        let destructive = self
            .registry
            .get(name)
            .is_some_and(|d| !d.meta.safety.is_read_only());
        ToolResult::failure(
            ErrorBody::runtime(
                RuntimeCode::Failed,
                format!(
                    "The tool `{name}` returned output that does not match its declared output schema."
                ),
                if destructive && result.state_changed() {
                    ACTION_FAILED_DESTRUCTIVE
                } else {
                    ACTION_FAILED
                },
            ),
            result.state_changed(),
        )
    }

    fn offered(&self, name: &str) -> Option<&Offered> {
        self.offered
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
            .and_then(|i| self.offered.get(i))
            .map(|(_, o)| o)
    }

    /// The protocol error for a tool the registry does not know, naming close offered tools.
    fn unknown_tool(&self, name: &str) -> ErrorData {
        let offered: Vec<&str> = self.offered.iter().map(|(n, _)| n.as_str()).collect();
        let close = close_names(name, &offered);
        let mut message = format!("unknown tool `{}`", bounded(name, NAME_QUOTE_LIMIT));
        if !close.is_empty() {
            let listed: Vec<String> = close.iter().map(|n| format!("`{n}`")).collect();
            message.push_str(&format!(", close names: {}", listed.join(", ")));
        }
        ErrorData::invalid_params(message, None)
    }
}

/// The MCP form of a call's envelope: `structuredContent` and one text content with the same
/// JSON; `isError` exactly when the call did not succeed.
pub fn call_tool_result(result: &ToolResult) -> CallToolResult {
    let envelope = serde_json::to_value(result).unwrap_or(Value::Null);
    let text = envelope.to_string();
    let mut answer = if result.is_success() {
        CallToolResult::success(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::error(vec![ContentBlock::text(text)])
    };
    answer.structured_content = Some(envelope);
    answer
}

impl<C: Send + Sync + 'static> ServerHandler for McpServer<C> {
    fn get_info(&self) -> ServerConfig {
        let config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(self.info.clone());
        if self.policy.read_only {
            config.with_instructions(
                "This server runs read-only: only tools that change nothing are offered, and a call to any other tool is refused.",
            )
        } else {
            config
        }
    }

    fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + MaybeSendFuture + '_ {
        std::future::ready(Ok(ListToolsResult::with_all_items(self.tools())))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.offered(name).map(|o| o.tool.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        if self.registry.get(name).is_none() {
            return Err(self.unknown_tool(name));
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let result = self.execute(name, &arguments).await;
        Ok(call_tool_result(&result).into())
    }
}

/// Serves `registry` under `policy` over stdin and stdout until the client closes the session.
///
/// # Errors
/// As [`McpServer::new`] and [`McpServer::serve`].
pub async fn serve_stdio<C: Send + Sync + 'static>(
    registry: Arc<Registry<C>>,
    policy: RunPolicy,
    context: C,
    name: impl Into<String>,
    version: impl Into<String>,
) -> Result<(), McpError> {
    McpServer::new(registry, policy, context, name, version)?
        .serve_stdio()
        .await
}

/// Serves `registry` under `policy` over any transport (an in-process duplex stream, a socket)
/// until the client closes the session.
///
/// # Errors
/// As [`McpServer::new`] and [`McpServer::serve`].
pub async fn serve<C, T, E, A>(
    registry: Arc<Registry<C>>,
    policy: RunPolicy,
    context: C,
    name: impl Into<String>,
    version: impl Into<String>,
    transport: T,
) -> Result<(), McpError>
where
    C: Send + Sync + 'static,
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    McpServer::new(registry, policy, context, name, version)?
        .serve(transport)
        .await
}

/// The run's tools as MCP definitions with the envelope as output schema, each checked again
/// against every MCP rule.
fn offer<C>(
    registry: &Registry<C>,
    policy: &RunPolicy,
) -> Result<Vec<(String, Offered)>, ExportError> {
    let mut offered = Vec::new();
    let mut violations: Vec<Violation> = Vec::new();
    for tool in registry.tools.values().filter(|t| policy.lists(t.def.meta)) {
        let name = tool.def.meta.name;
        // The declared output schema describes `data`, not what the client receives: it goes
        // into the envelope schema instead (so it need not have an object root).
        let mut spec = tool.spec.clone();
        let declared = spec.output_schema.take().map(|mut schema| {
            if let Value::Object(root) = &mut schema {
                root.remove("$schema");
            }
            schema
        });
        let mut definition = match dialect::convert(Dialect::Mcp, &spec) {
            Ok(definition) => definition,
            Err(found) => {
                violations.extend(found);
                continue;
            }
        };
        let Value::Object(fields) = &mut definition else {
            continue;
        };
        let data = declared.as_ref().filter(|s| self_contained(s, 0));
        let envelope = envelope_schema(data);
        let output = match data {
            Some(_) => match InputSchema::compile(&envelope) {
                Ok(compiled) => Some(compiled),
                Err(e) => {
                    violations.push(Violation::new(
                        name,
                        "/outputSchema",
                        "mcp.valid-schema",
                        e.message,
                    ));
                    continue;
                }
            },
            None => None,
        };
        fields.insert("outputSchema".to_owned(), envelope);
        let found = dialect::check(Dialect::Mcp, &definition, &spec);
        if !found.is_empty() {
            violations.extend(found);
            continue;
        }
        match serde_json::from_value::<Tool>(definition) {
            Ok(tool) => offered.push((name.to_owned(), Offered { tool, output })),
            Err(e) => violations.push(Violation::new(
                name,
                "",
                "mcp.object-root",
                format!("the definition is not an MCP tool: {e}"),
            )),
        }
    }
    if violations.is_empty() {
        Ok(offered)
    } else {
        violations.sort();
        violations.dedup();
        Err(ExportError::new(Dialect::Mcp, violations))
    }
}

/// The `outputSchema` of every offered tool: the envelope, on success and on failure. `data`
/// follows the tool's declared output schema when it has a self-contained one, and is any value
/// otherwise.
pub fn envelope_schema(data: Option<&Value>) -> Value {
    let data = data
        .cloned()
        .unwrap_or_else(|| json!({"description": "The tool's output."}));
    json!({
        "type": "object",
        "description": "The call's envelope: `success` with the tool's `data`, or `error` with a code, a message, whether a retry may succeed and the recommended action; `stateChanged` says whether the call changed state.",
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "success": {"const": true},
                    "data": data,
                    "stateChanged": {"type": "boolean"}
                },
                "required": ["success", "data", "stateChanged"],
                "additionalProperties": false
            },
            {
                "type": "object",
                "properties": {
                    "success": {"const": false},
                    "error": {
                        "type": "object",
                        "properties": {
                            "code": {"type": "string"},
                            "message": {"type": "string"},
                            "retryable": {"type": "boolean"},
                            "recommendedAction": {"type": "string"}
                        },
                        "required": ["code", "message", "retryable", "recommendedAction"],
                        "additionalProperties": false
                    },
                    "stateChanged": {"type": "boolean"}
                },
                "required": ["success", "error", "stateChanged"],
                "additionalProperties": false
            }
        ]
    })
}

/// Keywords whose meaning depends on where the schema sits in a document: a schema holding one
/// cannot be moved under the envelope's `data`.
const POSITIONAL_KEYWORDS: &[&str] = &[
    "$schema",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
];

/// How deep [`self_contained`] looks before it gives up (and the schema is not embedded).
const SCHEMA_DEPTH_LIMIT: usize = 64;

/// True when `schema` can be moved into another document unchanged.
fn self_contained(schema: &Value, depth: usize) -> bool {
    if depth > SCHEMA_DEPTH_LIMIT {
        return false;
    }
    match schema {
        Value::Object(map) => {
            !POSITIONAL_KEYWORDS.iter().any(|k| map.contains_key(*k))
                && map.values().all(|v| self_contained(v, depth + 1))
        }
        Value::Array(items) => items.iter().all(|v| self_contained(v, depth + 1)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &[u8]) -> Option<Value> {
        unanswerable(line).map(|text| serde_json::from_slice(&text).expect("the answer is JSON"))
    }

    #[test]
    fn lines_rmcp_would_drop_get_a_json_rpc_error() {
        assert_eq!(answer(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), None);
        for line in [&b"{\"x\": NaN}"[..], b"\xff\xfe", b"{\"cut\":", b"not json"] {
            let answer = answer(line).expect("answered");
            assert_eq!(answer["error"]["code"], -32700, "{answer}");
            assert_eq!(answer["id"], Value::Null);
        }
        let long = format!("{{\"x\": {}", "1".repeat(100_000));
        let answer = answer(long.as_bytes()).expect("answered");
        assert!(answer.to_string().len() < 400, "bounded: {answer}");
        let answer = super::unanswerable(b"[1, 2]").expect("answered");
        assert!(String::from_utf8_lossy(&answer).contains("-32600"));
    }

    #[test]
    fn positional_keywords_keep_a_schema_in_place() {
        assert!(self_contained(
            &json!({"type": "object", "properties": {"id": {"type": "string"}}}),
            0
        ));
        assert!(!self_contained(
            &json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/p"}}}),
            0
        ));
        assert!(!self_contained(
            &json!({"$id": "urn:x", "type": "object"}),
            0
        ));
    }

    #[test]
    fn envelopes_validate_against_the_envelope_schema() {
        let schema = envelope_schema(Some(&json!({"type": "object", "required": ["id"]})));
        let compiled = InputSchema::compile(&schema).expect("the envelope schema compiles");
        let ok = ToolResult::success(json!({"id": "d1"}), true);
        let bad = ToolResult::success(json!({"name": "d1"}), true);
        let failed = ToolResult::failure(
            ErrorBody::runtime(RuntimeCode::NotAllowed, "no", "stop"),
            false,
        );
        let value = |r: &ToolResult| serde_json::to_value(r).expect("serializes");
        assert!(compiled.is_valid(&value(&ok)));
        assert!(!compiled.is_valid(&value(&bad)));
        assert!(compiled.is_valid(&value(&failed)));
    }

    #[test]
    fn results_carry_the_envelope_twice() {
        let failed = ToolResult::failure(
            ErrorBody::runtime(RuntimeCode::NotAllowed, "no", "stop"),
            false,
        );
        let answer = call_tool_result(&failed);
        assert_eq!(answer.is_error, Some(true));
        let envelope = serde_json::to_value(&failed).expect("serializes");
        assert_eq!(answer.structured_content.as_ref(), Some(&envelope));
        let text = answer
            .content
            .first()
            .and_then(|c| c.as_text())
            .map(|t| t.text.clone())
            .expect("one text content");
        assert_eq!(
            serde_json::from_str::<Value>(&text).expect("the text is JSON"),
            envelope
        );
        assert_eq!(
            call_tool_result(&ToolResult::success(json!(1), false)).is_error,
            Some(false)
        );
    }
}

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
//! - `tools/list` is sorted by name (but see Deferred tools below) and carries the cache hints
//!   of protocol 2026-07-28: `ttlMs` ([`TOOLS_TTL_MS`], left out when the list can change while
//!   a session runs) and `cacheScope`, `public` when every caller sees the same list and
//!   `private` when the list depends on the caller's grant (the HTTP transport's
//!   `http::HttpServer` with a token verifier) or on the session's searches.
//!
//! # Deferred tools
//!
//! When the run's policy defers tools (declared `defer_loading = true`, or a rule of the host:
//! [`RunPolicy::defer`]), `tools/list` lists the eager tools sorted by name, then the registry's
//! `tool_search` (read-only, idempotent), then the deferred tools the session's searches have
//! loaded, in the order they were found: the eager part stays byte-identical as tools are found.
//! A deferred tool is not listed until a search of the session finds it; a client that never
//! searches sees the eager tools and `tool_search`. A call of `tool_search` goes through the
//! registry's call pipeline like any other, and its answer holds the found tools' definitions
//! exactly as `tools/list` gives them. Each session keeps its own list of loaded tools (a
//! [`Loaded`] of its own, whatever the host's policy held),
//! and when a search loads a tool new to the session, the session is sent
//! `notifications/tools/list_changed` (the tools capability declares `listChanged`), as it is
//! when a pinned tool drifts ([`McpServer::with_availability`]). A client served without a
//! session (Streamable HTTP on protocol 2026-07-28) keeps nothing between requests: its list
//! never grows, and it calls a tool it found by name.
//!
//! Deferral changes what is listed, never what may be called: a deferred tool is callable by
//! name whenever the policy allows it, found or not, as through the registry directly. The search
//! sees only the tools the caller's policy lists: in a read-only server, or for an HTTP caller
//! with a `read` grant, a write is never returned, listed or callable.
//!
//! # Transports
//!
//! [`McpServer::serve_stdio`] and [`McpServer::serve_lines`] read newline-delimited JSON-RPC
//! themselves, so that every message a client sends gets an answer it can match: input that
//! is not JSON is the parse error (`-32700`, `id: null`); JSON that is not a message is the
//! invalid-request error (`-32600`) with the message's `id` when it can be read; a
//! notification before `initialize` is dropped (it does not end the session); a request before
//! `initialize` (an older protocol's client that skipped the handshake) is answered with
//! `-32600` saying to send `initialize` first; a line longer than the server's bound
//! ([`McpServer::with_max_line_bytes`], 4 MiB by default) is discarded as it streams in and
//! answered with `-32600`, with the message's `id` when the line's start gives it (`null`
//! otherwise). [`McpServer::serve`] hands any transport to rmcp
//! as it is. With the feature `http`, `http::HttpServer` serves Streamable HTTP with
//! bearer tokens, a policy per caller, `Origin` checks, a body limit and per-token rate limits.
//!
//! # Approvals
//!
//! When the run's policy has an approver (see [`toolwright_runtime::approval`]), it is consulted for each
//! valid call to a destructive tool. An approval or a denial takes effect at once. A deferral
//! asks the person at the client: with a client on protocol `2026-07-28` or later that can
//! answer elicitations, `tools/call` is answered with MCP's input request (`InputRequiredResult`):
//! a form asking to confirm the call (`{"approve": boolean, "reason"?: string}`), and a
//! `requestState` sealed with an HMAC-SHA256 (rmcp's `RequestStateCodec`, under a key only the
//! server holds, bound to the tool's name and expiring with the approval) that holds the
//! [`PendingApproval`]: the validated arguments, their digest, the expiry. When the client
//! retries with the person's answer, the call runs if it was accepted with `approve: true`, with
//! exactly the sealed arguments (a retry with other arguments is refused); any other answer is a
//! denial, whose `reason` reaches the model. Over HTTP with a token verifier the state is also
//! sealed for the token whose call asked (its SHA-256 digest): another token's retry does not
//! verify. A retry is checked in this order: the state opens, the retry's policy allows the
//! call (the tool exists, is not disabled, and is not a write in a read-only run), and only then
//! is the approval recorded and the call run; a retry the policy refuses leaves the approval
//! unused. Each approval is used once: the server claims it in its [`ApprovalStore`] before
//! anything runs (in memory by default; [`McpServer::with_approval_store`] shares one between
//! instances, see Many instances below), and a store that cannot answer refuses the retry
//! (nothing runs). With a client
//! on an older protocol, or one that cannot answer elicitations, the call is refused with
//! `TOOL_NOT_ALLOWED`, saying that it needs the user's approval.
//!
//! # Many instances
//!
//! Instances behind a load balancer accept each other's approval states when they seal with
//! the same key ([`McpServer::with_approval_key`], [`approval_key_from_file`]), and run each
//! approval at most once when they claim in the same store: with the feature `redis`,
//! `fleet::RedisFleet` gives every instance pointed at one Redis the approvals' store, and the
//! HTTP transport's rate limits and session owners (`http::HttpConfig::with_fleet`). A retry
//! of one sealed state sent to several instances at once runs the call once.
//!
//!
//! Each `tools/call` of a registered tool gets the registry's `execute_tool` span (see
//! [`toolwright_runtime::trace`]) with `mcp.method.name`, `jsonrpc.request.id` and the `traceparent` of the
//! request's `_meta`; with the feature `otel` that `traceparent` becomes the span's
//! OpenTelemetry parent.
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
//! # use toolwright_runtime::{Registry, RunPolicy};
//! # async fn run(registry: Arc<Registry<Vec<String>>>) -> Result<(), toolwright_mcp::McpError> {
//! toolwright_mcp::serve_stdio(registry, RunPolicy::read_only(), Vec::new(), "chart-tools", "0.1.0")
//!     .await
//! # }
//! ```

// The README's example compiles as a doctest, from the package too.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    Implementation, InputRequest, InputRequests, InputRequiredResult, InputResponses,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, RequestMetaObject, RequestStateCodec,
    SealOptions, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{MaybeSendFuture, Peer, RequestContext, ServerInitializeError};
use rmcp::transport::IntoTransport;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio::sync::{RwLock, watch};
use toolwright_core::dialect::{self, Dialect, ExportError, Violation};
use toolwright_core::{ToolSpec, schema};

use toolwright_core::text::bounded;
use toolwright_runtime::approval::{
    ApprovalLedger, ApprovalStore, Decision, MemoryApprovalStore, PendingApproval,
};
use toolwright_runtime::call::{Call, Deferred, Prepared, Ready, Refusal, Request, Resumed};
use toolwright_runtime::envelope::ToolResult;
use toolwright_runtime::policy::{Loaded, RunPolicy};
use toolwright_runtime::registry::Registry;
use toolwright_runtime::registry::deferral::{TOOL_SEARCH, TOOL_SEARCH_META};
use toolwright_runtime::trace;
use toolwright_runtime::validate::InputSchema;

#[cfg(feature = "args")]
pub mod args;
#[cfg(feature = "http")]
pub mod auth;
#[cfg(feature = "redis")]
pub mod fleet;
#[cfg(feature = "http")]
pub mod http;
mod lines;
mod protocol;
#[cfg(feature = "proxy")]
pub mod proxy;

/// How long (milliseconds) a client may treat a `tools/list` answer as fresh: a server's tools
/// and policies are fixed for its lifetime.
pub const TOOLS_TTL_MS: u64 = 300_000;

/// The key of the confirmation in an input request's map.
pub const APPROVAL_INPUT: &str = "approval";

/// How much of the arguments a confirmation's message quotes.
const CONFIRMATION_ARGUMENTS_LIMIT: usize = 500;

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
    /// The key that seals approval states cannot be made or is too short.
    #[error("the key that seals approval states cannot be used: {0}")]
    ApprovalKey(String),
    /// The HTTP server cannot listen on the address.
    #[cfg(feature = "http")]
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// An HTTP server without a token verifier on an address other hosts can reach.
    #[cfg(feature = "http")]
    #[error(
        "refusing to serve without authentication on {0}, which is not a loopback address: give bearer tokens, or allow unauthenticated access explicitly"
    )]
    Unauthenticated(std::net::SocketAddr),
}

impl From<ServerInitializeError> for McpError {
    fn from(error: ServerInitializeError) -> Self {
        McpError::Initialize(Box::new(error))
    }
}

/// One tool as the server offers it.
struct Offered {
    /// The MCP definition, envelope output schema included.
    tool: Tool,
}

/// The approvals a server asks its client for: the key that seals their state, and the store
/// where each decided approval is claimed once.
struct Approvals {
    codec: RequestStateCodec,
    store: Arc<dyn ApprovalStore>,
}

/// An MCP server over one registry, one run policy and one context.
pub struct McpServer<C> {
    registry: Arc<Registry<C>>,
    policy: Arc<RunPolicy>,
    context: Arc<RwLock<C>>,
    info: Implementation,
    /// The run's tools, sorted by name.
    offered: Arc<Vec<(String, Offered)>>,
    approvals: Arc<Approvals>,
    /// The longest line [`McpServer::serve_lines`] reads.
    max_line_bytes: usize,
    /// Which tools are offered at the moment, when that can change while the server runs.
    availability: Option<Arc<dyn Availability>>,
    /// The run defers tools: `tools/list` offers the registry's `tool_search`, and a session's
    /// list grows as its searches load tools.
    defers: bool,
    /// Changes when a search of this session loads a tool new to it (each session has its own,
    /// with its own [`Loaded`] in its policy: see [`McpServer::for_session`]).
    found: Arc<watch::Sender<u64>>,
}

/// Which of a server's tools are withheld at the moment, when that changes while it runs (the
/// proxy withholds a pinned tool while its upstream definition differs from the pin). Every
/// request's policy withholds them ([`RunPolicy::withhold`]): they are not listed, and a call
/// to one is refused with its reason before anything looks at its arguments. The server tells
/// each session when the list changed (`notifications/tools/list_changed`).
pub trait Availability: Send + Sync + 'static {
    /// The tools withheld now, each with the message its calls are refused with.
    fn withheld(&self) -> Vec<(String, String)>;
    /// Changes whenever the tools withheld may have changed.
    fn changes(&self) -> tokio::sync::watch::Receiver<u64>;
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
            policy: Arc::clone(&self.policy),
            context: Arc::clone(&self.context),
            info: self.info.clone(),
            offered: Arc::clone(&self.offered),
            approvals: Arc::clone(&self.approvals),
            max_line_bytes: self.max_line_bytes,
            availability: self.availability.clone(),
            defers: self.defers,
            found: Arc::clone(&self.found),
        }
    }
}

impl<C: Send + Sync + 'static> McpServer<C> {
    /// A server offering the tools `policy` resolves, calling them with `context`, introducing
    /// itself as `name` `version`. The run's dialect is MCP's, whatever `policy` says: clients
    /// see the canonical input schemas, and a `null` is a value, never an absent field. When
    /// `policy` defers tools, they are found through `tool_search` (see the crate docs); each
    /// session keeps its own list of loaded tools.
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
        let policy = policy.with_dialect(Dialect::Mcp).with_loaded(Loaded::new());
        let defers = !registry.deferred(&policy).is_empty();
        let offered = offer(&registry, &policy, defers).map_err(McpError::Definitions)?;
        let mut key = [0u8; RequestStateCodec::MIN_KEY_LENGTH];
        getrandom::fill(&mut key).map_err(|e| McpError::ApprovalKey(e.to_string()))?;
        Ok(McpServer {
            registry,
            policy: Arc::new(policy),
            context,
            info: Implementation::new(name, version),
            offered: Arc::new(offered),
            approvals: Arc::new(Approvals {
                codec: RequestStateCodec::new_unchecked(key.to_vec()),
                store: Arc::new(MemoryApprovalStore::new()),
            }),
            max_line_bytes: toolwright_runtime::lines::DEFAULT_MAX_LINE_BYTES,
            availability: None,
            defers,
            found: Arc::new(watch::channel(0).0),
        })
    }

    /// Withholds from every request the tools `availability` withholds at the moment, and tells
    /// every session when they change (the tools capability then declares `listChanged`).
    #[must_use]
    pub fn with_availability(mut self, availability: Arc<dyn Availability>) -> Self {
        self.availability = Some(availability);
        self
    }

    /// Seals approval states with `key` instead of a random key of this server's own: servers
    /// sharing a key (replicas, or one restarted) accept each other's approval states. Keep it
    /// secret; give them a shared [`ApprovalStore`] too ([`McpServer::with_approval_store`]).
    ///
    /// # Errors
    /// [`McpError::ApprovalKey`] when the key is shorter than 32 bytes.
    pub fn with_approval_key(mut self, key: impl Into<Vec<u8>>) -> Result<Self, McpError> {
        let codec =
            RequestStateCodec::try_new(key).map_err(|e| McpError::ApprovalKey(e.to_string()))?;
        self.approvals = Arc::new(Approvals {
            codec,
            store: Arc::clone(&self.approvals.store),
        });
        Ok(self)
    }

    /// Claims decided approvals in `store` instead of this server's own memory
    /// ([`MemoryApprovalStore`]): servers sharing a store (and an approval key,
    /// [`McpServer::with_approval_key`]) run each approval at most once, whichever of them
    /// the retries reach and however many arrive at once. A store that cannot answer fails the
    /// retry closed: nothing runs, and the model reads the runtime's refusal
    /// ([`Refusal::ApprovalStoreUnavailable`]).
    #[must_use]
    pub fn with_approval_store(mut self, store: Arc<dyn ApprovalStore>) -> Self {
        self.approvals = Arc::new(Approvals {
            codec: self.approvals.codec.clone(),
            store,
        });
        self
    }

    /// Claims decided approvals in `ledger` (one the host persists), as
    /// [`McpServer::with_approval_store`] does: each claim prunes it of the approvals expired by
    /// the policy's clock. One process only; servers of several share another store.
    #[must_use]
    pub fn with_ledger(self, ledger: Arc<std::sync::Mutex<ApprovalLedger>>) -> Self {
        self.with_approval_store(ledger)
    }

    /// The longest line [`McpServer::serve_lines`] (and `serve_stdio`) reads, in bytes
    /// ([`DEFAULT_MAX_LINE_BYTES`](toolwright_runtime::lines::DEFAULT_MAX_LINE_BYTES) unless set); a longer
    /// line is discarded as it streams in and answered with the invalid-request error (-32600),
    /// with the message's `id` when its start gives it.
    #[must_use]
    pub fn with_max_line_bytes(mut self, bytes: usize) -> Self {
        self.max_line_bytes = bytes;
        self
    }

    /// Where this server claims the approvals its clients decided: none is used twice.
    pub fn approval_store(&self) -> &Arc<dyn ApprovalStore> {
        &self.approvals.store
    }

    /// The context the tools are called with.
    pub fn context(&self) -> &Arc<RwLock<C>> {
        &self.context
    }

    /// The policy of the run this server serves.
    pub fn policy(&self) -> &RunPolicy {
        &self.policy
    }

    /// The tools `tools/list` returns under the server's policy: the eager tools sorted by
    /// name; when the run defers tools, then `tool_search`, then the tools this server's own
    /// searches ([`McpServer::execute`]) loaded, in the order found. A session's list holds its
    /// own searches' tools instead.
    pub fn tools(&self) -> Vec<Tool> {
        self.tools_under(&self.current(Arc::clone(&self.policy)))
    }

    /// True when the run defers tools: `tools/list` offers `tool_search` and lists a deferred
    /// tool once a search of the session found it.
    pub fn defers(&self) -> bool {
        self.defers
    }

    /// This server for one session: the same registry, policy, context and approvals, with a
    /// list of loaded tools ([`Loaded`]) of the session's own, and its own signal of what its
    /// searches loaded. Every transport serves each session with one ([`McpServer::serve`],
    /// and the HTTP transport for each session, or each request of a client without one).
    pub(crate) fn for_session(&self) -> Self {
        let mut session = self.clone();
        session.policy = Arc::new((*self.policy).clone().with_loaded(Loaded::new()));
        session.found = Arc::new(watch::channel(0).0);
        session
    }

    /// `policy` with the tools withheld at this moment, when an [`Availability`] says which.
    fn current(&self, policy: Arc<RunPolicy>) -> Arc<RunPolicy> {
        match &self.availability {
            Some(availability) => {
                let withheld = availability.withheld();
                if withheld.is_empty() {
                    policy
                } else {
                    Arc::new((*policy).clone().withhold_all(withheld))
                }
            }
            None => policy,
        }
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
        let running = rmcp::serve_server(self.for_session(), transport).await?;
        running.waiting().await?;
        Ok(())
    }

    /// Serves one MCP session over stdin and stdout until the client closes it.
    ///
    /// # Errors
    /// As [`McpServer::serve_lines`].
    pub async fn serve_stdio(self) -> Result<(), McpError> {
        self.serve_lines(tokio::io::stdin(), tokio::io::stdout())
            .await
    }

    /// Serves one MCP session over newline-delimited JSON-RPC on `input` and `output` until the
    /// client closes it or the input ends.
    ///
    /// Each line is read before rmcp sees it: a line over the bound
    /// ([`McpServer::with_max_line_bytes`]) is discarded and answered with -32600 and the
    /// message's `id` when the line's first 64 KiB hold it whole as a top-level member (a
    /// string or a number), `null` otherwise; a line that is not JSON (invalid UTF-8, `NaN`,
    /// nesting past serde_json's limit, a cut-off message) is answered with the JSON-RPC parse
    /// error (-32700, `id: null`), and JSON that is not a client message with the
    /// invalid-request error (-32600) carrying the message's `id` when it has a string or number
    /// one; an invalid notification is dropped (JSON-RPC never answers notifications). Before
    /// `initialize`, a notification is dropped and a request of an older protocol is answered
    /// with -32600 saying to send `initialize` first. The session goes on either way.
    ///
    /// # Errors
    /// As [`McpServer::serve`], and when `input` cannot be read or `output` written.
    pub async fn serve_lines<R, W>(self, input: R, output: W) -> Result<(), McpError>
    where
        R: tokio::io::AsyncRead + Unpin,
        W: tokio::io::AsyncWrite + Unpin,
    {
        lines::serve(self, input, output).await
    }

    /// Runs one call through the registry's pipeline (policy check, validation, the approver,
    /// the tool under its time limit, the envelope), holding the context's lock only while the
    /// tool runs: refused and invalid calls answer at once, even while a write is running. A call
    /// the approver defers is refused here (`tools/call` asks the client instead).
    pub async fn execute(&self, name: &str, arguments: &Value) -> ToolResult {
        self.execute_under(&self.policy, name, arguments).await
    }

    /// As [`McpServer::execute`], under `policy` instead of the server's: the HTTP transport
    /// runs each call under its caller's policy, the server's narrowed by the caller's grant.
    pub async fn execute_under(
        &self,
        policy: &RunPolicy,
        name: &str,
        arguments: &Value,
    ) -> ToolResult {
        let withheld;
        let policy = match &self.availability {
            Some(_) => {
                withheld = self.current(Arc::new(policy.clone()));
                &*withheld
            }
            None => policy,
        };
        let call = self.registry.call(Request::new(name, arguments));
        let before = loaded_count(policy);
        match call.prepare(policy).await {
            Prepared::Ready(ready) => self.run(ready).await,
            Prepared::Answered(result) => self.answered(name, policy, before, result),
            Prepared::Deferred(deferred) => deferred.refuse(Refusal::ApprovalPending { why: None }),
        }
    }

    /// A call answered without running a tool's code. An answer of `tool_search` gets the
    /// definitions this server lists (the envelope as output schema, as in `tools/list`), and
    /// when the search loaded a tool new to the session (`before`: how many were loaded before
    /// it), the session is told its list changed.
    fn answered(
        &self,
        name: &str,
        policy: &RunPolicy,
        before: usize,
        result: ToolResult,
    ) -> ToolResult {
        if name != TOOL_SEARCH || !result.is_success() {
            return result;
        }
        if loaded_count(policy) > before {
            self.found.send_modify(|n| *n = n.wrapping_add(1));
        }
        let Some(Ok(mut data)) = result.data().map(|d| d.value()) else {
            return result;
        };
        let Some(found) = data.get_mut("tools").and_then(Value::as_array_mut) else {
            return result;
        };
        for definition in found.iter_mut() {
            let listed = definition
                .get("name")
                .and_then(Value::as_str)
                .and_then(|name| self.offered(name))
                .and_then(|o| serde_json::to_value(&o.tool).ok());
            if let Some(listed) = listed {
                *definition = listed;
            }
        }
        ToolResult::success(data, result.state_changed())
    }

    /// Runs a prepared call under the context's lock: a read lock for a call that may share the
    /// context (reads of parallel tools run together), the write lock for every other.
    async fn run(&self, ready: Ready<'_, C>) -> ToolResult {
        if ready.shares_context() {
            let context = self.context.read().await;
            ready.run_shared(&context).await
        } else {
            let mut context = self.context.write().await;
            ready.run(&mut context).await
        }
    }

    /// A `tools/call`: run, refused, or (for a deferred approval) an input request to the
    /// client.
    async fn call(
        &self,
        call: Call<'_, C>,
        name: &str,
        policy: &RunPolicy,
        client: ClientAbilities,
        sealed_for: &[u8],
    ) -> Result<Answer, ErrorData> {
        let before = loaded_count(policy);
        let result = match call.prepare(policy).await {
            Prepared::Ready(ready) => self.run(ready).await,
            Prepared::Answered(result) => self.answered(name, policy, before, result),
            Prepared::Deferred(deferred) => match client.cannot_confirm() {
                Some(why) => deferred.refuse(Refusal::ApprovalPending { why: Some(why) }),
                None => {
                    let question = self.ask(policy, &deferred, sealed_for)?;
                    deferred.pause();
                    return Ok(Answer::Ask(question));
                }
            },
        };
        Ok(Answer::Done(result))
    }

    /// The input request that asks the person at the client to confirm a deferred call, its
    /// state sealed for `sealed_for` (see [`sealed_for`]).
    fn ask(
        &self,
        policy: &RunPolicy,
        deferred: &Deferred<'_, C>,
        sealed_for: &[u8],
    ) -> Result<InputRequiredResult, ErrorData> {
        let meta = deferred.meta();
        let name = meta.name;
        let expires_at = policy.approval_expiry();
        let pending = PendingApproval::new(0, "", name, deferred.arguments().clone(), expires_at);
        let sealed = self
            .approvals
            .codec
            .seal_json_with(
                &pending,
                &SealOptions::new()
                    .associated_data(sealed_for)
                    .ttl(policy.approval_ttl()),
            )
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let title = meta.title;
        let shown = bounded(&pending.arguments.to_string(), CONFIRMATION_ARGUMENTS_LIMIT);
        let schema: ElicitationSchema = serde_json::from_value(json!({
            "type": "object",
            "properties": {
                "approve": {
                    "type": "boolean",
                    "title": "Approve",
                    "description": "Run the call with the arguments shown."
                },
                "reason": {
                    "type": "string",
                    "title": "Reason",
                    "description": "When not approving: why (the agent is told)."
                }
            },
            "required": ["approve"]
        }))
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let request = InputRequest::Elicitation(ElicitRequest::new(
            ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: format!(
                    "The agent wants to call `{name}` ({title}), which changes state, with these arguments: {shown}. Approve?"
                ),
                requested_schema: schema,
            },
        ));
        let mut requests = InputRequests::new();
        requests.insert(APPROVAL_INPUT.to_owned(), request);
        Ok(InputRequiredResult::new(Some(requests), Some(sealed)))
    }

    /// The retry of a call whose approval was asked: open the sealed state, read the person's
    /// answer, check the retry's policy, and only then record the approval and run the call with
    /// exactly the approved arguments. A retry the policy refuses leaves the approval unused.
    async fn resume(
        &self,
        call: Call<'_, C>,
        policy: &RunPolicy,
        sealed: Sealed<'_>,
        responses: Option<&InputResponses>,
    ) -> ToolResult {
        let invalid = |call: Call<'_, C>, why: &str| {
            call.refuse(Refusal::ApprovalInvalid {
                why: format!("{why}. The call was not run."),
            })
        };
        // One answer for every way a state fails to open: the details help only a forger.
        let Ok(pending) = self
            .approvals
            .codec
            .open_json_with::<PendingApproval>(sealed.state, sealed.bound_to)
        else {
            return invalid(
                call,
                "its state did not verify (changed, expired, asked for another caller, or from another server)",
            );
        };
        if pending.name != sealed.name || &pending.arguments != sealed.arguments {
            return invalid(
                call,
                "the call was retried with other arguments than the ones approved",
            );
        }
        let decision = decision(responses.and_then(|r| r.get(APPROVAL_INPUT)));
        let now = policy.now();
        // The policy is checked before the approval is claimed (see `Call::resume`); a store that
        // cannot answer refuses the call, and nothing runs.
        let resumed = call
            .resume(policy, &pending, &decision, &*self.approvals.store, now)
            .await;
        match resumed {
            Resumed::Ready(ready) => self.run(ready).await,
            Resumed::Answered(result) | Resumed::Invalid(result) => result,
        }
    }

    /// The policy of one request: the server's, narrowed by the caller's grant when the
    /// transport authenticated the caller (see [`http`]). Listing and execution both use it.
    fn request_policy(&self, context: &RequestContext<RoleServer>) -> Arc<RunPolicy> {
        #[cfg(feature = "http")]
        if let Some(grant) = http::grant(context) {
            return self.current(Arc::new(grant.narrow(&self.policy)));
        }
        let _ = context;
        self.current(Arc::clone(&self.policy))
    }

    /// The tools `policy` lets a caller see: the eager ones sorted by name, and when the run
    /// defers tools, `tool_search` and the tools the session's searches loaded, in the order
    /// found ([`Registry::offered`]), so the eager part stays byte-identical as tools are found.
    fn tools_under(&self, policy: &RunPolicy) -> Vec<Tool> {
        self.registry
            .offered(policy)
            .into_iter()
            .filter_map(|name| self.offered(name))
            .map(|o| o.tool.clone())
            .collect()
    }

    /// True when a session's tool list can change while it runs (tools withheld for drift, or
    /// tools loaded by its searches): the tools capability declares `listChanged`.
    fn list_changes(&self) -> bool {
        self.availability.is_some() || self.defers
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
        let close = self.registry.close_names(&self.policy, name);
        let mut message = format!("unknown tool `{}`", bounded(name, NAME_QUOTE_LIMIT));
        if !close.is_empty() {
            let listed: Vec<String> = close.iter().map(|n| format!("`{n}`")).collect();
            message.push_str(&format!(", close names: {}", listed.join(", ")));
        }
        ErrorData::invalid_params(message, None)
    }
}

/// The shortest key [`approval_key_from_file`] accepts, in bytes.
pub const MIN_APPROVAL_KEY_BYTES: usize = RequestStateCodec::MIN_KEY_LENGTH;

/// The key that seals approval states ([`McpServer::with_approval_key`]), read from a file:
/// its bytes without the line break or spaces that end it, at least
/// [`MIN_APPROVAL_KEY_BYTES`] of them (`head -c 48 /dev/urandom | base64 > seal.key` writes
/// one). Every instance of a fleet reads the same key; a file keeps it off command lines.
///
/// # Errors
/// [`McpError::ApprovalKey`] when the file cannot be read or the key is too short.
pub fn approval_key_from_file(path: &std::path::Path) -> Result<Vec<u8>, McpError> {
    let mut key = std::fs::read(path)
        .map_err(|e| McpError::ApprovalKey(format!("cannot read `{}`: {e}", path.display())))?;
    while key.last().is_some_and(u8::is_ascii_whitespace) {
        key.pop();
    }
    if key.len() < MIN_APPROVAL_KEY_BYTES {
        return Err(McpError::ApprovalKey(format!(
            "`{}` holds {} bytes, at least {MIN_APPROVAL_KEY_BYTES} are needed",
            path.display(),
            key.len()
        )));
    }
    Ok(key)
}

/// The MCP form of a call's envelope: `structuredContent` and one text content with the same
/// envelope as JSON text, its keys in the envelope's order; `isError` exactly when the call did
/// not succeed.
pub fn call_tool_result(result: &ToolResult) -> CallToolResult {
    // The text is written from the envelope itself, in its field order (`success`, then `data`
    // or `error`, then `stateChanged`); a `Value` keeps its keys sorted.
    let text = serde_json::to_string(result).unwrap_or_default();
    let envelope = serde_json::to_value(result).unwrap_or(Value::Null);
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
        let capabilities = ServerCapabilities::builder().enable_tools();
        let capabilities = if self.list_changes() {
            capabilities.enable_tool_list_changed().build()
        } else {
            capabilities.build()
        };
        let config = ServerConfig::new(capabilities).with_server_info(self.info.clone());
        if self.policy.is_read_only() {
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
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + MaybeSendFuture + '_ {
        let policy = self.request_policy(&context);
        let tools = self.tools_under(&policy);
        // A caller's grant may narrow the list, and a session's searches lengthen it: then only
        // that caller may cache it.
        let loaded = policy
            .loaded()
            .is_some_and(|l| tools.iter().any(|t| l.contains(&t.name)));
        let scope = if Arc::ptr_eq(&policy, &self.policy) && !loaded {
            CacheScope::Public
        } else {
            CacheScope::Private
        };
        let listed = ListToolsResult::with_all_items(tools);
        // A list that can change is not cached: the session is told when it does.
        let listed = if self.list_changes() {
            listed
        } else {
            listed.with_ttl_ms(TOOLS_TTL_MS)
        };
        std::future::ready(Ok(listed.with_cache_scope(scope)))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let withheld = |name: &str| {
            self.availability
                .as_ref()
                .is_some_and(|a| a.withheld().iter().any(|(n, _)| n == name))
        };
        self.offered(name)
            .filter(|_| !withheld(name))
            .map(|o| o.tool.clone())
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        if !self.list_changes() {
            return;
        }
        let drift = self.availability.as_ref().map(|availability| {
            let mut changes = availability.changes();
            changes.mark_unchanged();
            changes
        });
        // One task per session, ending with it.
        tokio::spawn(announce(context.peer, drift, self.found.subscribe()));
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        // `tool_search` is offered (and answered by the call pipeline) when the run defers tools.
        if self.registry.get(name).is_none() && self.offered(name).is_none() {
            return Err(self.unknown_tool(name));
        }
        let policy = self.request_policy(&context);
        let sealed_for = sealed_for(name, &context);
        let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
        let call = self.registry.call(Request::new(name, &arguments));
        let span = call.span().clone();
        span.record("mcp.method.name", "tools/call");
        span.record("jsonrpc.request.id", tracing::field::display(&context.id));
        trace_parent(&span, &context.meta);
        let answer = match request.request_state.as_deref() {
            Some(state) => {
                let sealed = Sealed {
                    state,
                    bound_to: &sealed_for,
                    name,
                    arguments: &arguments,
                };
                let responses = request.input_responses.as_ref();
                Answer::Done(self.resume(call, &policy, sealed, responses).await)
            }
            None => {
                let client = ClientAbilities::of(&context);
                self.call(call, name, &policy, client, &sealed_for).await?
            }
        };
        Ok(match answer {
            Answer::Done(result) => call_tool_result(&result).into(),
            Answer::Ask(request) => request.into(),
        })
    }
}

/// How many tools the run's searches loaded so far (none when the run keeps no list).
fn loaded_count(policy: &RunPolicy) -> usize {
    policy.loaded().map_or(0, |loaded| loaded.names().len())
}

/// Tells one session's client each time its tool list changed: a pinned tool withheld or
/// offered again (`drift`), or a search of the session loaded a tool new to it (`found`). Ends
/// with the session: when its server is dropped (`found` closes) or the client is gone (the
/// notification fails).
async fn announce(
    peer: Peer<RoleServer>,
    mut drift: Option<watch::Receiver<u64>>,
    mut found: watch::Receiver<u64>,
) {
    loop {
        let drifted = async {
            match drift.as_mut() {
                Some(changes) => changes.changed().await.is_ok(),
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            open = drifted => {
                if !open {
                    // The tools withheld can no longer change; searches still can.
                    drift = None;
                    continue;
                }
            }
            open = found.changed() => {
                if open.is_err() {
                    break;
                }
            }
        }
        if peer.notify_tool_list_changed().await.is_err() {
            break;
        }
    }
}

/// The sealed state of a retried call, what it must have been sealed for, and the call it must
/// approve.
struct Sealed<'a> {
    state: &'a str,
    bound_to: &'a [u8],
    name: &'a str,
    arguments: &'a Value,
}

/// What an approval's state is sealed for: the tool's name and, over HTTP with a token
/// verifier, the digest of the token whose call asked for it. A retry with another token does
/// not open the state at all, so it cannot use the approval up.
fn sealed_for(name: &str, context: &RequestContext<RoleServer>) -> Vec<u8> {
    let name = name.as_bytes();
    #[cfg(feature = "http")]
    if let Some(caller) = http::caller(context) {
        // A tool name holds no NUL byte: the name and the digest cannot run together.
        return [name, b"\0", caller.digest()].concat();
    }
    let _ = context;
    name.to_vec()
}

/// What a `tools/call` comes to: an envelope, or a question to the client's user.
enum Answer {
    Done(ToolResult),
    Ask(InputRequiredResult),
}

/// The W3C trace context of a request's `_meta`: recorded on the call's span, and with the
/// feature `otel` made its OpenTelemetry parent.
fn trace_parent(span: &tracing::Span, meta: &RequestMetaObject) {
    let Some(traceparent) = meta.get_traceparent() else {
        return;
    };
    trace::record_traceparent(span, traceparent);
    #[cfg(feature = "otel")]
    otel::set_parent(span, meta);
}

#[cfg(feature = "otel")]
mod otel {
    use opentelemetry::propagation::{Extractor, TextMapPropagator as _};
    use opentelemetry_sdk::propagation::TraceContextPropagator;
    use rmcp::model::RequestMetaObject;
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;

    /// The W3C fields of a request's `_meta`, as a propagator reads them.
    struct Meta<'a>(&'a RequestMetaObject);

    impl Extractor for Meta<'_> {
        fn get(&self, key: &str) -> Option<&str> {
            match key {
                "traceparent" => self.0.get_traceparent(),
                "tracestate" => self.0.get_tracestate(),
                _ => None,
            }
        }

        fn keys(&self) -> Vec<&str> {
            vec!["traceparent", "tracestate"]
        }
    }

    /// Makes the request's trace context the span's parent. Without a `tracing_opentelemetry`
    /// layer in the subscriber this does nothing (the `mcp.traceparent` field stays).
    pub(super) fn set_parent(span: &tracing::Span, meta: &RequestMetaObject) {
        let context = TraceContextPropagator::new().extract(&Meta(meta));
        let _ = span.set_parent(context);
    }
}

/// What the client of a request can do about an approval.
#[derive(Debug, Clone)]
struct ClientAbilities {
    /// The protocol version of the request, when known.
    version: Option<ProtocolVersion>,
    /// Whether the client declared that it answers elicitations.
    elicits: bool,
}

impl ClientAbilities {
    fn of(context: &RequestContext<RoleServer>) -> Self {
        ClientAbilities {
            version: context.protocol_version(),
            elicits: context
                .client_capabilities()
                .is_some_and(|c| c.elicitation.is_some()),
        }
    }

    /// Why this client cannot be asked to confirm a call, if it cannot.
    fn cannot_confirm(&self) -> Option<String> {
        match &self.version {
            Some(version) if *version >= ProtocolVersion::V_2026_07_28 => {
                (!self.elicits).then(|| "this client does not answer elicitations".to_owned())
            }
            Some(version) => Some(format!(
                "this client speaks MCP {version}, and asking for it needs {} or later",
                ProtocolVersion::V_2026_07_28
            )),
            None => Some("this client's MCP version is not known".to_owned()),
        }
    }
}

/// The person's decision from their answer to the confirmation (no answer is a denial).
fn decision(answer: Option<&Value>) -> Decision {
    let Some(answer) = answer else {
        return Decision::deny("The user gave no answer to the approval request.");
    };
    let Ok(answer) = serde_json::from_value::<ElicitResult>(answer.clone()) else {
        return Decision::deny("The answer to the approval request was not understood.");
    };
    let content = answer.content.unwrap_or(Value::Null);
    match answer.action {
        ElicitationAction::Accept if content["approve"] == Value::Bool(true) => Decision::Approve,
        ElicitationAction::Accept => Decision::deny(
            content["reason"]
                .as_str()
                .filter(|r| !r.trim().is_empty())
                .unwrap_or("The user did not approve the call."),
        ),
        ElicitationAction::Decline => Decision::deny("The user declined the call."),
        ElicitationAction::Cancel => Decision::deny("The user cancelled the call."),
        _ => Decision::deny("The user did not approve the call."),
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
/// against every MCP rule, sorted by name; with the registry's `tool_search` when the run
/// `defers` tools.
fn offer<C>(
    registry: &Registry<C>,
    policy: &RunPolicy,
    defers: bool,
) -> Result<Vec<(String, Offered)>, ExportError> {
    let mut offered = Vec::new();
    let mut violations = Vec::new();
    let mut specs: Vec<(ToolSpec, &'static toolwright_core::ToolMeta)> = registry
        .resolve_specs(policy)
        .into_iter()
        .filter_map(|spec| registry.get(&spec.name).map(|def| (spec, def.meta)))
        .collect();
    if defers {
        match ToolSpec::from_meta(&TOOL_SEARCH_META) {
            Ok(spec) => specs.push((spec, &TOOL_SEARCH_META)),
            Err(e) => violations.push(Violation::new(
                TOOL_SEARCH,
                "/inputSchema",
                "mcp.object-root",
                format!("the tool search's schema is not JSON: {e}"),
            )),
        }
    }
    for (mut spec, meta) in specs {
        let name = meta.name;
        // The declared output schema describes `data`, not what the client receives: it goes
        // into the envelope schema instead (so it need not have an object root).
        let declared = spec.output_schema.take().map(|mut schema| {
            if let Value::Object(root) = &mut schema {
                root.remove("$schema");
            }
            schema
        });
        let mut definition = match dialect::convert(Dialect::Mcp, &spec) {
            Ok(converted) => converted.definition,
            Err(found) => {
                violations.extend(found);
                continue;
            }
        };
        let Value::Object(fields) = &mut definition else {
            continue;
        };
        let data = declared.as_ref().filter(|s| schema::is_self_contained(s));
        let envelope = envelope_schema(data);
        // The registry checks every success against the declared output schema; the envelope
        // schema the client is given must compile as well.
        if data.is_some()
            && let Err(e) = InputSchema::compile(&envelope)
        {
            violations.push(Violation::new(
                name,
                "/outputSchema",
                "mcp.valid-schema",
                e.message,
            ));
            continue;
        }
        fields.insert("outputSchema".to_owned(), envelope);
        let found = dialect::check(Dialect::Mcp, &definition, &spec);
        if !found.is_empty() {
            violations.extend(found);
            continue;
        }
        match serde_json::from_value::<Tool>(definition) {
            Ok(tool) => offered.push((name.to_owned(), Offered { tool })),
            Err(e) => violations.push(Violation::new(
                name,
                "",
                "mcp.object-root",
                format!("the definition is not an MCP tool: {e}"),
            )),
        }
    }
    if violations.is_empty() {
        offered.sort_by(|(a, _), (b, _)| a.cmp(b));
        Ok(offered)
    } else {
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

#[cfg(test)]
mod tests {
    use super::*;
    use toolwright_runtime::envelope::{ErrorBody, RuntimeCode};

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

//! An [`McpServer`] over Streamable HTTP, for many clients: who may call, what each caller may
//! see, and how much load each may put on the server.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use toolwright_runtime::{Registry, RunPolicy};
//! # use toolwright_mcp::{McpServer, McpError};
//! # use toolwright_mcp::auth::FileTokens;
//! # use toolwright_mcp::http::{HttpConfig, HttpServer};
//! # async fn run(registry: Arc<Registry<Vec<String>>>) -> Result<(), Box<dyn std::error::Error>> {
//! let tokens = FileTokens::load("tokens.toml", |name| registry.get(name).is_some())?;
//! let server = McpServer::new(registry, RunPolicy::full(), Vec::new(), "chart-tools", "0.1.0")?;
//! let config = HttpConfig::default().with_verifier(Arc::new(tokens));
//! let http = HttpServer::bind("127.0.0.1:0".parse()?, server, config).await?;
//! eprintln!("listening on {}", http.url());
//! http.serve().await?;
//! # Ok(())
//! # }
//! ```
//!
//! Every request passes these checks, in this order, before rmcp's Streamable HTTP service
//! (`rmcp::transport::StreamableHttpService`) sees it:
//!
//! 1. **Authorization.** With a [`TokenVerifier`] ([`HttpConfig::with_verifier`]), a request
//!    without a bearer token, or with one the verifier refuses, is answered `401` with
//!    `WWW-Authenticate: Bearer` (and `error="invalid_token"` for a refused token, and
//!    `resource_metadata` when [`HttpConfig::with_resource_metadata`] names the server's OAuth
//!    metadata); nothing runs. The caller's [`Grant`] then narrows the server's policy for that
//!    request, listing and execution alike ([`Grant::narrow`]). Without a verifier the server
//!    serves everyone under its own policy, and [`HttpServer::bind`] refuses to start so on an
//!    address that is not loopback unless [`HttpConfig::allow_unauthenticated`] says so.
//! 2. **Rate limit.** Each grant's subject (without a verifier: all callers together) may make
//!    [`RateLimit::requests`] requests every [`RateLimit::period`], in bursts of up to
//!    [`RateLimit::burst`] (GCRA: [`governor`]'s in this process, or with a fleet
//!    ([`HttpConfig::with_fleet`], feature `redis`) one budget for every instance, kept in
//!    Redis); past that, `429` with `Retry-After` (seconds), and nothing runs. When the fleet's
//!    Redis does not answer, `503` with `Retry-After` ([`RateLimitOutage`]).
//! 3. **Session.** With a verifier, a request naming (`Mcp-Session-Id`) a session that is not a
//!    live session of its token is answered `404` (see Sessions below); nothing runs. With a
//!    fleet, checks 2 and 3 are one script, one round trip to Redis.
//! 4. **Body size.** A body over [`HttpConfig::max_body_bytes`] (default
//!    [`DEFAULT_MAX_BODY_BYTES`]) is answered `413` without reading the rest; nothing runs.
//! 5. **Host and `Origin`** (rmcp's DNS-rebinding checks). A request whose `Host` is not
//!    loopback, the bound address, or one of [`HttpConfig::allow_host`], gets `403`; so does a
//!    request with an `Origin` header naming another origin than loopback (any port, `http` or
//!    `https`), the bound address, or one of [`HttpConfig::allow_origin`]. A request without
//!    `Origin` (not from a browser) passes.
//!
//! Sessions: a client of protocol 2026-07-28 is served statelessly, one request at a time,
//! so instances can sit behind any load balancer; an older client gets a session
//! (`Mcp-Session-Id`) from `initialize`. With a verifier, a session belongs to the token that
//! opened it: the server keeps the SHA-256 digest of that token (never the token) for as long
//! as the session lives, and forgets it when the session ends. A request naming a session must
//! name a live session of its own token (to call in it, to read its event stream with `GET`, to
//! end it with `DELETE`); any other id, another token's, an ended one or one never opened, is
//! answered `404 Not Found` with rmcp's own body, the same answer in every case, before the
//! request reaches the session. A `403` for another token's session would confirm to a
//! guesser that the id is live; the `404` says only what MCP says of any session the server
//! will not serve, and a client then opens a new session with `initialize` (as a client whose
//! token changed, an OAuth access token refreshed, must). Either way the grant is read from
//! each request, never from the session. With a fleet the owner is kept in Redis with the
//! session's `initialize` parameters: a session is refused to another token on every
//! instance, and restored for its own token on an instance that does not hold it (see
//! [`crate::fleet`] for what is and is not shared).
//!
//! Approvals asked over HTTP with a verifier are sealed for the token that asked
//! (see [the crate docs](crate)): another token's retry with the same state does not verify, and
//! uses nothing up.
//!
//! Protocol errors a client can match: a body that is not a client message is answered `400`
//! with the JSON-RPC error carrying its `id` when it can be read, and a request without a
//! session from an older client that skipped `initialize` is answered `400` with `-32600`
//! saying to send `initialize` first.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use ::http::header::{AUTHORIZATION, CONTENT_TYPE, RETRY_AFTER, WWW_AUTHENTICATE};
use ::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use futures_util::Stream;
use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use http_body_util::{BodyExt as _, LengthLimitError, Limited};
use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetExtensions as _, GetMeta as _, ServerJsonRpcMessage,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{EventStore, ServerSseMessage};
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionId, SessionManager};
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use subtle::ConstantTimeEq as _;
use tokio_util::sync::CancellationToken;

use crate::auth::{self, Grant, Rejection, TokenVerifier};
use crate::protocol::{self, Read};
use crate::{McpError, McpServer};

/// The largest request body served unless configured otherwise (1 MiB).
pub const DEFAULT_MAX_BODY_BYTES: usize = 1 << 20;

/// Where the MCP endpoint is unless configured otherwise.
pub const DEFAULT_PATH: &str = "/mcp";

/// The longest `Authorization` value read; a longer one is a refused token.
const MAX_TOKEN_LEN: usize = 4096;

/// The rate-limit key of every caller when the server has no token verifier.
const ANONYMOUS: &str = "anonymous";

/// The header naming a request's session.
const SESSION_HEADER: &str = "mcp-session-id";

/// rmcp's answer to a request naming a session it does not have (status and body), which is
/// also the answer to a request naming another token's session.
const SESSION_NOT_FOUND: &str = "Not Found: Session not found";

/// How many requests one grant's subject may make: `requests` every `period`, sustained, and
/// up to `burst` at once after a quiet period (GCRA: one request every `period / requests`,
/// with a tolerance of `burst` requests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    requests: NonZeroU32,
    period: Duration,
    burst: NonZeroU32,
}

impl RateLimit {
    /// `per_second` requests a second, in bursts of up to `burst`.
    pub fn new(per_second: NonZeroU32, burst: NonZeroU32) -> Self {
        Self::per(per_second, Duration::from_secs(1), burst)
    }

    /// `requests` requests every `period` (at least a microsecond), in bursts of up to `burst`:
    /// `RateLimit::per(100, Duration::from_secs(60), burst)` is 100 calls a minute.
    pub fn per(requests: NonZeroU32, period: Duration, burst: NonZeroU32) -> Self {
        RateLimit {
            requests,
            period: period.max(Duration::from_micros(1)),
            burst,
        }
    }

    /// Requests every [`period`](Self::period), sustained.
    pub fn requests(&self) -> NonZeroU32 {
        self.requests
    }

    /// The period of [`requests`](Self::requests).
    pub fn period(&self) -> Duration {
        self.period
    }

    /// Requests at once after a quiet period.
    pub fn burst(&self) -> NonZeroU32 {
        self.burst
    }

    /// The time between two requests at the sustained rate (at least a microsecond).
    pub fn interval(&self) -> Duration {
        (self.period / self.requests.get()).max(Duration::from_micros(1))
    }

    /// The period in words, for messages: `a second`, `a minute`, `an hour`, `N seconds`.
    fn period_words(&self) -> String {
        match self.period.as_secs_f64() {
            1.0 => "a second".to_owned(),
            60.0 => "a minute".to_owned(),
            3600.0 => "an hour".to_owned(),
            seconds => format!("{seconds} seconds"),
        }
    }
}

impl Default for RateLimit {
    /// 20 requests a second, in bursts of up to 40: far above what one agent's tool calls need.
    fn default() -> Self {
        RateLimit::new(
            NonZeroU32::MIN.saturating_add(19),
            NonZeroU32::MIN.saturating_add(39),
        )
    }
}

/// What a server sharing its rate limits through a store ([`HttpConfig::with_fleet`]) does
/// with a request when the store does not answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RateLimitOutage {
    /// Refuses it with `503 Service Unavailable` and `Retry-After`; nothing runs. The default:
    /// the fleet never admits more than its limit.
    #[default]
    Refuse,
    /// Admits it under this instance's own limit (each instance then admits up to the limit,
    /// the fleet up to that many times it) and checks the session it names against the
    /// sessions this instance opened.
    AdmitLocally,
}

/// How an [`HttpServer`] admits requests. Every field has a safe default.
#[derive(Clone)]
pub struct HttpConfig {
    path: String,
    verifier: Option<Arc<dyn TokenVerifier>>,
    allowed_origins: Vec<String>,
    allowed_hosts: Vec<String>,
    max_body_bytes: usize,
    rate_limit: Option<RateLimit>,
    allow_unauthenticated: bool,
    resource_metadata: Option<String>,
    outage: RateLimitOutage,
    #[cfg(feature = "redis")]
    fleet: Option<Arc<crate::fleet::Shared>>,
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("path", &self.path)
            .field("verifier", &self.verifier)
            .field("allowed_origins", &self.allowed_origins)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("rate_limit", &self.rate_limit)
            .field("allow_unauthenticated", &self.allow_unauthenticated)
            .field("resource_metadata", &self.resource_metadata)
            .field("outage", &self.outage)
            .finish_non_exhaustive()
    }
}

impl Default for HttpConfig {
    /// The endpoint [`DEFAULT_PATH`], no verifier (loopback only), only loopback and same-host
    /// `Origin`s and `Host`s, [`DEFAULT_MAX_BODY_BYTES`], the default [`RateLimit`].
    fn default() -> Self {
        HttpConfig {
            path: DEFAULT_PATH.to_owned(),
            verifier: None,
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            rate_limit: Some(RateLimit::default()),
            allow_unauthenticated: false,
            resource_metadata: None,
            outage: RateLimitOutage::default(),
            #[cfg(feature = "redis")]
            fleet: None,
        }
    }
}

impl HttpConfig {
    /// Serves the endpoint at `path` (default [`DEFAULT_PATH`]).
    #[must_use]
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Requires a bearer token on every request, verified by `verifier`.
    #[must_use]
    pub fn with_verifier(mut self, verifier: Arc<dyn TokenVerifier>) -> Self {
        self.verifier = Some(verifier);
        self
    }

    /// Also accepts requests whose `Origin` is `origin` (`scheme://host:port`; `:*` for any
    /// port; `null` for a browser's opaque origin).
    #[must_use]
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// Also accepts requests whose `Host` is `host` (a name, or `name:port`): the names clients
    /// reach a server bound to a non-loopback address by.
    #[must_use]
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts.push(host.into());
        self
    }

    /// Refuses bodies over `bytes` with `413`.
    #[must_use]
    pub fn with_max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Limits each grant's subject to `limit`; `None` serves without a rate limit.
    #[must_use]
    pub fn with_rate_limit(mut self, limit: Option<RateLimit>) -> Self {
        self.rate_limit = limit;
        self
    }

    /// Lets the server run without a verifier on an address other hosts can reach. Anyone who
    /// can reach it then gets the server's whole policy.
    #[must_use]
    pub fn allow_unauthenticated(mut self, allow: bool) -> Self {
        self.allow_unauthenticated = allow;
        self
    }

    /// Names the server's OAuth protected-resource metadata (RFC 9728) in every `401`, as MCP's
    /// authorization specification asks of a server that takes OAuth access tokens.
    #[must_use]
    pub fn with_resource_metadata(mut self, url: impl Into<String>) -> Self {
        self.resource_metadata = Some(url.into());
        self
    }

    /// Shares the rate limits and the owners of sessions with every instance pointed at the
    /// same Redis (see [`crate::fleet`]): each subject has one budget across the fleet, and a
    /// session is refused to another token, and restored for its own, on every instance.
    #[cfg(feature = "redis")]
    #[must_use]
    pub fn with_fleet(mut self, fleet: &crate::fleet::RedisFleet) -> Self {
        self.fleet = Some(Arc::clone(fleet.shared()));
        self
    }

    /// What a server sharing its rate limits ([`HttpConfig::with_fleet`]) does when the store
    /// does not answer ([`RateLimitOutage::Refuse`] unless set).
    #[must_use]
    pub fn on_store_outage(mut self, outage: RateLimitOutage) -> Self {
        self.outage = outage;
        self
    }

    /// The largest body served.
    pub fn max_body_bytes(&self) -> usize {
        self.max_body_bytes
    }

    /// The rate limit of each grant's subject.
    pub fn rate_limit(&self) -> Option<RateLimit> {
        self.rate_limit
    }
}

/// Who an authenticated request comes from: the SHA-256 digest of its bearer token (never the
/// token). The guard puts it into the request's extensions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Caller([u8; 32]);

impl Caller {
    /// The digest of the caller's token.
    pub(crate) fn digest(&self) -> &[u8; 32] {
        &self.0
    }

    fn is(&self, other: &Caller) -> bool {
        bool::from(self.0.ct_eq(&other.0))
    }
}

/// The token (as a [`Caller`]) that opened each live session of this instance.
#[derive(Debug, Default)]
pub(crate) struct Owners(Mutex<HashMap<SessionId, Caller>>);

impl Owners {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Caller>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The token that opened `session`, when it is a live session of this instance.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn owner(&self, session: &str) -> Option<Caller> {
        self.map().get(session).copied()
    }

    /// True when `session` is a live session that `caller` opened.
    fn owned_by(&self, session: &str, caller: &Caller) -> bool {
        self.map()
            .get(session)
            .is_some_and(|owner| owner.is(caller))
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.map().len()
    }
}

/// rmcp's in-memory sessions, recording which token opened each (from the `initialize`
/// request, before its answer names the session to the client) and forgetting it when the
/// session ends: at the owner's `DELETE`, at the end of its idle time, or at shutdown. rmcp
/// ends every session through [`SessionManager::close_session`], so the map holds only live
/// sessions.
struct OwnedSessions {
    sessions: LocalSessionManager,
    owners: Arc<Owners>,
}

impl SessionManager for OwnedSessions {
    type Error = <LocalSessionManager as SessionManager>::Error;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    fn create_session(
        &self,
    ) -> impl Future<Output = Result<(SessionId, Self::Transport), Self::Error>> + Send {
        self.sessions.create_session()
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let caller = match &message {
            ClientJsonRpcMessage::Request(request) => request
                .request
                .extensions()
                .get::<::http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<Caller>())
                .copied(),
            _ => None,
        };
        if let Some(caller) = caller {
            self.owners.map().insert(Arc::clone(id), caller);
        }
        let answer = self.sessions.initialize_session(id, message).await;
        if answer.is_err() {
            self.owners.map().remove(id);
        }
        answer
    }

    fn has_session(
        &self,
        id: &SessionId,
    ) -> impl Future<Output = Result<bool, Self::Error>> + Send {
        self.sessions.has_session(id)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let closed = self.sessions.close_session(id).await;
        self.owners.map().remove(id);
        closed
    }

    fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<
        Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>,
    > + Send {
        self.sessions.create_stream(id, message)
    }

    fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.sessions.accept_message(id, message)
    }

    fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> impl Future<
        Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>,
    > + Send {
        self.sessions.create_standalone_stream(id)
    }

    fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> impl Future<
        Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>,
    > + Send {
        self.sessions.resume(id, last_event_id)
    }

    fn restore_session(
        &self,
        id: SessionId,
    ) -> impl Future<Output = Result<RestoreOutcome<Self::Transport>, Self::Error>> + Send {
        self.sessions.restore_session(id)
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.sessions.event_store()
    }
}

/// An MCP server bound to a TCP address, ready to serve Streamable HTTP.
pub struct HttpServer {
    listener: tokio::net::TcpListener,
    router: axum::Router,
    local: SocketAddr,
    path: String,
    cancel: CancellationToken,
    #[cfg(test)]
    owners: Arc<Owners>,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("url", &self.url())
            .finish_non_exhaustive()
    }
}

impl HttpServer {
    /// Binds `addr` (port 0: any free port) for `server`, admitting requests as `config` says.
    ///
    /// # Errors
    /// [`McpError::Unauthenticated`] without a verifier on an address that is not loopback
    /// (unless [`HttpConfig::allow_unauthenticated`]); [`McpError::Bind`] when the address
    /// cannot be bound.
    pub async fn bind<C: Send + Sync + 'static>(
        addr: SocketAddr,
        server: McpServer<C>,
        config: HttpConfig,
    ) -> Result<Self, McpError> {
        if config.verifier.is_none() && !config.allow_unauthenticated && !addr.ip().is_loopback() {
            return Err(McpError::Unauthenticated(addr));
        }
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| McpError::Bind { addr, source })?;
        let local = listener.local_addr()?;
        let cancel = CancellationToken::new();
        let path = config.path.clone();
        let owners = Arc::new(Owners::default());
        let router = router(server, config, local, cancel.clone(), Arc::clone(&owners));
        #[cfg(not(test))]
        let _ = owners;
        Ok(HttpServer {
            listener,
            router,
            local,
            path,
            cancel,
            #[cfg(test)]
            owners,
        })
    }

    /// The bound address (with the port chosen for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The endpoint's URL, `http://ADDR/PATH`.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.local, self.path)
    }

    /// Serves until the process ends.
    ///
    /// # Errors
    /// When accepting connections fails.
    pub async fn serve(self) -> Result<(), McpError> {
        self.serve_until(std::future::pending()).await
    }

    /// Serves until `shutdown` completes, then ends every session and stream and returns once
    /// the requests in flight are answered.
    ///
    /// # Errors
    /// When accepting connections fails.
    pub async fn serve_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), McpError> {
        let cancel = self.cancel.clone();
        axum::serve(self.listener, self.router)
            .with_graceful_shutdown(async move {
                shutdown.await;
                cancel.cancel();
            })
            .await?;
        Ok(())
    }
}

/// The grant the transport attached to a request, if it authenticated the caller.
pub(super) fn grant(context: &RequestContext<RoleServer>) -> Option<&Grant> {
    context
        .extensions
        .get::<::http::request::Parts>()?
        .extensions
        .get::<Grant>()
}

/// Who the transport authenticated a request as, if it did.
pub(super) fn caller(context: &RequestContext<RoleServer>) -> Option<&Caller> {
    context
        .extensions
        .get::<::http::request::Parts>()?
        .extensions
        .get::<Caller>()
}

/// What the guard in front of rmcp's service needs.
struct Guard {
    verifier: Option<Arc<dyn TokenVerifier>>,
    /// The limit of each subject, and this instance's own limiter of it (the only one without
    /// a fleet; with one, what admits requests during an outage when configured so).
    limiter: Option<(DefaultKeyedRateLimiter<Arc<str>>, RateLimit)>,
    anonymous: Arc<str>,
    max_body_bytes: usize,
    resource_metadata: Option<String>,
    owners: Arc<Owners>,
    /// Where the limits and the sessions' owners are shared, when they are.
    #[cfg(feature = "redis")]
    fleet: Option<Arc<crate::fleet::Shared>>,
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    outage: RateLimitOutage,
}

/// The origins of a browser page on the server's own machine, and of the bound address.
fn origins(local: SocketAddr, configured: &[String]) -> Vec<String> {
    let mut origins = Vec::new();
    for scheme in ["http", "https"] {
        for host in ["localhost", "127.0.0.1", "[::1]"] {
            origins.push(format!("{scheme}://{host}:*"));
        }
        if !local.ip().is_loopback() && !local.ip().is_unspecified() {
            origins.push(format!("{scheme}://{local}"));
        }
    }
    origins.extend(configured.iter().cloned());
    origins
}

/// The `Host`s served: loopback names, the bound address, and the configured ones.
fn hosts(local: SocketAddr, configured: &[String]) -> Vec<String> {
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    if !local.ip().is_loopback() && !local.ip().is_unspecified() {
        hosts.push(match local.ip() {
            IpAddr::V4(ip) => ip.to_string(),
            IpAddr::V6(ip) => format!("[{ip}]"),
        });
    }
    hosts.extend(configured.iter().cloned());
    hosts
}

fn router<C: Send + Sync + 'static>(
    server: McpServer<C>,
    config: HttpConfig,
    local: SocketAddr,
    cancel: CancellationToken,
    owners: Arc<Owners>,
) -> axum::Router {
    #[cfg_attr(not(feature = "redis"), allow(unused_mut))]
    let mut rmcp_config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts(local, &config.allowed_hosts))
        .with_allowed_origins(origins(local, &config.allowed_origins))
        .enforce_origin_validation()
        .with_max_request_body_bytes(config.max_body_bytes)
        .with_json_response(true)
        .with_cancellation_token(cancel);
    #[cfg(feature = "redis")]
    if let Some(shared) = &config.fleet {
        let owners = Arc::clone(&owners);
        rmcp_config.session_store = Some(Arc::new(crate::fleet::SessionRecords {
            shared: Arc::clone(shared),
            owner_of: Arc::new(move |session| owners.owner(session).map(|c| *c.digest())),
        }));
    }
    let service = StreamableHttpService::new(
        move || Ok(server.for_session()),
        Arc::new(OwnedSessions {
            sessions: LocalSessionManager::default(),
            owners: Arc::clone(&owners),
        }),
        rmcp_config,
    );
    let guard = Arc::new(Guard {
        verifier: config.verifier,
        limiter: config.rate_limit.map(|limit| (local_limiter(limit), limit)),
        anonymous: Arc::from(ANONYMOUS),
        max_body_bytes: config.max_body_bytes,
        resource_metadata: config.resource_metadata,
        owners,
        #[cfg(feature = "redis")]
        fleet: config.fleet,
        outage: config.outage,
    });
    axum::Router::new()
        .route_service(&config.path, service)
        .layer(axum::middleware::from_fn_with_state(guard, admit))
}

/// The in-process limiter of `limit` (governor's GCRA).
fn local_limiter(limit: RateLimit) -> DefaultKeyedRateLimiter<Arc<str>> {
    let quota = Quota::with_period(limit.interval())
        .unwrap_or_else(|| Quota::per_second(limit.requests()))
        .allow_burst(limit.burst());
    DefaultKeyedRateLimiter::keyed(quota)
}

/// The bearer token of a request, if it carries one.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

fn text(status: StatusCode, body: String) -> Response {
    let mut response = (status, body).into_response();
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// rmcp's answer to a session it does not have, byte for byte (no `Content-Type` either).
fn session_not_found() -> Response {
    let mut response = Response::new(Body::from(SESSION_NOT_FOUND));
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

fn json(status: StatusCode, body: &serde_json::Value) -> Response {
    let mut response = (status, body.to_string()).into_response();
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

impl Guard {
    /// `401` (or `403` for a token without scope for this server) with the Bearer challenge.
    fn refuse(&self, rejection: Option<Rejection>) -> Response {
        let (status, error, message) = match rejection {
            None => (
                StatusCode::UNAUTHORIZED,
                None,
                "Unauthorized: a bearer token is required",
            ),
            Some(Rejection::InsufficientScope) => (
                StatusCode::FORBIDDEN,
                Some("insufficient_scope"),
                "Forbidden: the bearer token does not allow this server",
            ),
            Some(_) => (
                StatusCode::UNAUTHORIZED,
                Some("invalid_token"),
                "Unauthorized: the bearer token is not valid",
            ),
        };
        let mut params = Vec::new();
        if let Some(error) = error {
            params.push(format!("error=\"{error}\""));
        }
        if let Some(url) = &self.resource_metadata {
            params.push(format!("resource_metadata=\"{url}\""));
        }
        let challenge = if params.is_empty() {
            "Bearer".to_owned()
        } else {
            format!("Bearer {}", params.join(", "))
        };
        let mut response = text(status, message.to_owned());
        if let Ok(value) = HeaderValue::from_str(&challenge) {
            response.headers_mut().insert(WWW_AUTHENTICATE, value);
        }
        response
    }

    /// `429` with `Retry-After` when `subject` is over its limit in this instance.
    fn limit(&self, subject: &Arc<str>) -> Option<Response> {
        let (limiter, limit) = self.limiter.as_ref()?;
        let not_until = limiter.check_key(subject).err()?;
        Some(too_many(
            limit,
            not_until.wait_time_from(DefaultClock::default().now()),
        ))
    }

    /// The rate limit, then the owner of the session the request names (with a verifier): an
    /// answer when the request is refused. With a fleet both are one round trip to its store;
    /// without one (or during its outage, when configured so) this instance decides.
    async fn check(
        &self,
        subject: &Arc<str>,
        session: Option<(&str, &Caller)>,
    ) -> Option<Response> {
        #[cfg(feature = "redis")]
        if let Some(fleet) = &self.fleet {
            let limit = self.limiter.as_ref().map(|(_, limit)| (&**subject, *limit));
            if limit.is_none() && session.is_none() {
                return None;
            }
            let budget = limit.map(|(subject, limit)| (subject, limit.interval(), limit.burst()));
            let named = session.map(|(session, caller)| (session, caller.digest()));
            match fleet.admit(budget, named).await {
                Ok(admission) if !admission.admitted => {
                    let limit = limit.map_or_else(RateLimit::default, |(_, limit)| limit);
                    return Some(too_many(&limit, admission.wait));
                }
                Ok(admission) if admission.owned == Some(false) => {
                    return Some(session_not_found());
                }
                Ok(_) => return None,
                Err(error) => {
                    tracing::warn!(%error, "the shared store did not answer an admission");
                    if self.outage == RateLimitOutage::Refuse {
                        return Some(unavailable());
                    }
                }
            }
        }
        if let Some(refused) = self.limit(subject) {
            return Some(refused);
        }
        match session {
            Some((session, caller)) if !self.owners.owned_by(session, caller) => {
                Some(session_not_found())
            }
            _ => None,
        }
    }
}

/// `429` with `Retry-After`: the whole seconds of `wait`, rounded up (a client that waits that
/// long is served), at least one.
fn too_many(limit: &RateLimit, wait: Duration) -> Response {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut response = text(
        StatusCode::TOO_MANY_REQUESTS,
        format!(
            "Too Many Requests: at most {} requests {} (bursts of {}) per token",
            limit.requests(),
            limit.period_words(),
            limit.burst()
        ),
    );
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(seconds.max(1)));
    response
}

/// How long a client should wait after `503` before trying again.
#[cfg(feature = "redis")]
const OUTAGE_RETRY_AFTER_SECONDS: u64 = 1;

/// `503` with `Retry-After`: the shared store did not answer, and the server refuses rather
/// than admit past the fleet's limit.
#[cfg(feature = "redis")]
fn unavailable() -> Response {
    let mut response = text(
        StatusCode::SERVICE_UNAVAILABLE,
        "Service Unavailable: the shared rate limit cannot be checked, try again later".to_owned(),
    );
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(OUTAGE_RETRY_AFTER_SECONDS));
    response
}

/// The checks in front of rmcp's service (see the module documentation).
async fn admit(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let (grant, caller) = match &guard.verifier {
        None => (None, None),
        Some(verifier) => match bearer(request.headers()) {
            None => return guard.refuse(None),
            Some(token) if token.len() > MAX_TOKEN_LEN => {
                return guard.refuse(Some(Rejection::InvalidToken));
            }
            Some(token) => match verifier.verify(token).await {
                Ok(grant) => (Some(grant), Some(Caller(auth::digest(token)))),
                Err(rejection) => return guard.refuse(Some(rejection)),
            },
        },
    };
    let subject = grant.as_ref().map_or(&guard.anonymous, |g| &g.subject);
    let session = caller.as_ref().and_then(|caller| {
        let session = request
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())?;
        Some((session, caller))
    });
    if let Some(refused) = guard.check(subject, session).await {
        return refused;
    }
    let (mut parts, body) = request.into_parts();
    let bytes: Bytes = match Limited::new(body, guard.max_body_bytes).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) if error.is::<LengthLimitError>() => {
            return text(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "Payload Too Large: the request body exceeds {} bytes",
                    guard.max_body_bytes
                ),
            );
        }
        Err(_) => {
            return text(
                StatusCode::BAD_REQUEST,
                "Bad Request: the request body cannot be read".to_owned(),
            );
        }
    };
    if let Some(grant) = grant {
        parts.extensions.insert(grant);
    }
    if let Some(caller) = caller {
        parts.extensions.insert(caller);
    }
    let message_post = parts.method == Method::POST
        && parts
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.split(';')
                    .next()
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
            });
    let in_session = parts.headers.contains_key(SESSION_HEADER);
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes.clone())))
        .await;
    if message_post {
        explain(response, &bytes, in_session)
    } else {
        response
    }
}

/// Gives a plain-text rejection of rmcp's the JSON-RPC form a client can match, when the
/// request's `id` can be read: a body that is not a client message (rmcp: `415`, as the body
/// did not deserialize) and a sessionless request of an older protocol (rmcp: `400`, no
/// session) become `400` with the JSON-RPC error. Every other answer passes unchanged.
fn explain(response: Response, body: &[u8], in_session: bool) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json
        || !(status == StatusCode::BAD_REQUEST || status == StatusCode::UNSUPPORTED_MEDIA_TYPE)
    {
        return response;
    }
    match protocol::read_message(body) {
        Read::Invalid { answer, .. } if status == StatusCode::UNSUPPORTED_MEDIA_TYPE => {
            json(StatusCode::BAD_REQUEST, &answer)
        }
        Read::Message(message) if status == StatusCode::BAD_REQUEST && !in_session => {
            match (early_request(&message), protocol::request_id(&message)) {
                (true, Some(id)) => json(StatusCode::BAD_REQUEST, &protocol::not_initialized(id)),
                _ => response,
            }
        }
        _ => response,
    }
}

/// True for a request that needs a session and names no protocol version of its own: an older
/// protocol's client that skipped `initialize`.
fn early_request(message: &ClientJsonRpcMessage) -> bool {
    let ClientJsonRpcMessage::Request(request) = message else {
        return false;
    };
    !matches!(
        request.request,
        ClientRequest::InitializeRequest(_) | ClientRequest::DiscoverRequest(_)
    ) && request.request.get_meta().protocol_version().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How long a client should wait after `429`, as the header says it.
    fn retry_after(response: &Response) -> Option<Duration> {
        response
            .headers()
            .get(RETRY_AFTER)?
            .to_str()
            .ok()?
            .parse()
            .ok()
            .map(Duration::from_secs)
    }

    #[test]
    fn bearer_tokens_are_read_from_the_authorization_header() {
        let mut headers = HeaderMap::new();
        assert_eq!(bearer(&headers), None);
        headers.insert(AUTHORIZATION, HeaderValue::from_static("Bearer abc"));
        assert_eq!(bearer(&headers), Some("abc"));
        headers.insert(AUTHORIZATION, HeaderValue::from_static("bearer  abc "));
        assert_eq!(bearer(&headers), Some("abc"));
        headers.insert(AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer(&headers), None);
        headers.insert(AUTHORIZATION, HeaderValue::from_static("Bearer "));
        assert_eq!(bearer(&headers), None);
    }

    #[test]
    fn the_rate_limit_answers_429_with_retry_after() {
        let one = NonZeroU32::MIN;
        let guard = Guard {
            verifier: None,
            limiter: Some((
                DefaultKeyedRateLimiter::keyed(Quota::per_second(one).allow_burst(one)),
                RateLimit::new(one, one),
            )),
            anonymous: Arc::from(ANONYMOUS),
            max_body_bytes: 1,
            resource_metadata: None,
            owners: Arc::default(),
            #[cfg(feature = "redis")]
            fleet: None,
            outage: RateLimitOutage::Refuse,
        };
        let a: Arc<str> = Arc::from("a");
        let b: Arc<str> = Arc::from("b");
        assert!(guard.limit(&a).is_none(), "the first request passes");
        let refused = guard.limit(&a).expect("the second is over the limit");
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(retry_after(&refused), Some(Duration::from_secs(1)));
        assert!(guard.limit(&b).is_none(), "each subject has its own budget");
    }

    #[test]
    fn the_challenge_names_the_error_and_the_metadata() {
        let guard = Guard {
            verifier: None,
            limiter: None,
            anonymous: Arc::from(ANONYMOUS),
            max_body_bytes: 1,
            resource_metadata: Some(
                "https://mcp.example/.well-known/oauth-protected-resource".to_owned(),
            ),
            owners: Arc::default(),
            #[cfg(feature = "redis")]
            fleet: None,
            outage: RateLimitOutage::Refuse,
        };
        let missing = guard.refuse(None);
        assert_eq!(missing.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            missing.headers()[WWW_AUTHENTICATE],
            "Bearer resource_metadata=\"https://mcp.example/.well-known/oauth-protected-resource\""
        );
        let invalid = guard.refuse(Some(Rejection::InvalidToken));
        assert!(
            invalid.headers()[WWW_AUTHENTICATE]
                .to_str()
                .is_ok_and(|v| v.starts_with("Bearer error=\"invalid_token\", resource_metadata="))
        );
        assert_eq!(
            guard.refuse(Some(Rejection::InsufficientScope)).status(),
            StatusCode::FORBIDDEN
        );
    }

    /// Takes any token of letters as the grant of that name.
    #[derive(Debug)]
    struct Named;

    impl TokenVerifier for Named {
        fn verify<'a>(
            &'a self,
            token: &'a str,
        ) -> toolwright_runtime::handler::BoxFuture<'a, Result<Grant, Rejection>> {
            let grant = token
                .bytes()
                .all(|b| b.is_ascii_alphabetic())
                .then(|| Grant::new(token, crate::auth::Access::Write))
                .ok_or(Rejection::InvalidToken);
            Box::pin(std::future::ready(grant))
        }
    }

    fn session_request(method: Method, url: &str, token: &str) -> reqwest::RequestBuilder {
        reqwest::Client::new()
            .request(method, url)
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2025-06-18")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_owner_of_a_session_is_forgotten_when_the_session_ends() {
        let registry = Arc::new(
            toolwright_runtime::Registry::<()>::builder()
                .build()
                .expect("no tools"),
        );
        let server = McpServer::new(
            registry,
            toolwright_runtime::RunPolicy::full(),
            (),
            "t",
            "1",
        )
        .expect("a server");
        let config = HttpConfig::default().with_verifier(Arc::new(Named));
        let http = HttpServer::bind("127.0.0.1:0".parse().expect("an address"), server, config)
            .await
            .expect("the server binds");
        let owners = Arc::clone(&http.owners);
        let url = http.url();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = tokio::spawn(http.serve_until(async move {
            let _ = stopped.await;
        }));
        let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let mut sessions = Vec::new();
        for token in ["alice", "bob", "bob"] {
            let response = session_request(Method::POST, &url, token)
                .body(initialize)
                .send()
                .await
                .expect("an answer");
            assert_eq!(response.status(), 200);
            let id = response.headers()[SESSION_HEADER]
                .to_str()
                .expect("a session id")
                .to_owned();
            sessions.push((token, id));
        }
        assert_eq!(owners.len(), 3, "one owner per live session");
        for (token, id) in &sessions[..2] {
            let ended = session_request(Method::DELETE, &url, token)
                .header(SESSION_HEADER, id)
                .send()
                .await
                .expect("an answer");
            assert_eq!(ended.status(), 202);
        }
        assert_eq!(owners.len(), 1, "an ended session has no owner");
        let _ = stop.send(());
        tokio::time::timeout(Duration::from_secs(30), serving)
            .await
            .expect("the server stops")
            .expect("the task ends")
            .expect("serving ends cleanly");
        // The last session ends with the server, its worker a moment later.
        tokio::time::timeout(Duration::from_secs(30), async {
            while owners.len() > 0 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
        .expect("the last session's owner is forgotten");
    }

    #[test]
    fn loopback_and_the_bound_address_are_allowed_origins() {
        let local: SocketAddr = "192.0.2.7:8080".parse().expect("an address");
        let origins = origins(local, &["https://app.example:443".to_owned()]);
        assert!(origins.contains(&"http://127.0.0.1:*".to_owned()));
        assert!(origins.contains(&"https://[::1]:*".to_owned()));
        assert!(origins.contains(&"http://192.0.2.7:8080".to_owned()));
        assert!(origins.contains(&"https://app.example:443".to_owned()));
        let loopback: SocketAddr = "127.0.0.1:9".parse().expect("an address");
        assert_eq!(hosts(loopback, &[]), ["localhost", "127.0.0.1", "::1"]);
        assert!(hosts(local, &[]).contains(&"192.0.2.7".to_owned()));
    }
}

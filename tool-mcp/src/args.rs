//! The command-line options of an MCP server over Streamable HTTP, as one `clap` argument group
//! ([`HttpArgs`], for `#[command(flatten)]`): tokens, browser origins and hosts, the body limit,
//! the rate limit, a shared Redis, and the key that seals approval states. The
//! `toolwright-proxy` binary takes them, and so can a host's own binary:
//!
//! ```no_run
//! use clap::Parser;
//! use toolwright_mcp::McpServer;
//! use toolwright_mcp::args::HttpArgs;
//! use toolwright_runtime::{Registry, RunPolicy};
//!
//! #[derive(Parser)]
//! struct Cli {
//!     #[command(flatten)]
//!     http: HttpArgs,
//! }
//!
//! # async fn run(registry: std::sync::Arc<Registry<()>>) -> Result<(), Box<dyn std::error::Error>> {
//! let cli = Cli::parse();
//! let server = McpServer::new(registry.clone(), RunPolicy::full(), (), "my-tools", "1.0")?;
//! let Some(addr) = cli.http.http else {
//!     return Ok(cli.http.with_seal_key(server)?.serve_stdio().await?);
//! };
//! let http = cli.http.bind(addr, server, |name| registry.get(name).is_some()).await?;
//! eprintln!("listening on {}", http.url());
//! http.serve().await?;
//! # Ok(())
//! # }
//! ```

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::auth::FileTokens;
use crate::fleet::RedisFleet;
use crate::http::{DEFAULT_MAX_BODY_BYTES, HttpConfig, HttpServer, RateLimit, RateLimitOutage};
use crate::{McpError, McpServer, approval_key_from_file};

/// How an MCP server is served over Streamable HTTP (every option but `--http` and
/// `--seal-key-file` needs `--http`).
#[derive(Debug, Clone, clap::Args)]
#[non_exhaustive]
pub struct HttpArgs {
    /// Serves Streamable HTTP on ADDR (an IP address and port; port 0 picks a free one) at the
    /// path /mcp instead of stdio, and prints `listening on http://ADDR/mcp` on stderr.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:0")]
    pub http: Option<SocketAddr>,

    /// Requires a bearer token from this TOML file on every request: one `[[token]]` table per
    /// token with `name`, `token` (at least 32 characters), `grant` ("read" or "write") and
    /// optionally `disabled` (tool names). A bad file stops the server (exit status 2).
    #[arg(long, value_name = "FILE", requires = "http")]
    pub tokens: Option<PathBuf>,

    /// Also accepts requests from this browser origin (scheme://host:port, `:*` for any port;
    /// repeatable). Loopback origins and the bound address are always accepted; requests from
    /// any other origin are refused with 403.
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    pub allow_origin: Vec<String>,

    /// Also accepts requests whose Host header is HOST (repeatable): the names clients use to
    /// reach a server bound to a non-loopback address. Other hosts are refused with 403.
    #[arg(long = "allow-host", value_name = "HOST", requires = "http")]
    pub allow_host: Vec<String>,

    /// Refuses request bodies over BYTES with 413.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BODY_BYTES, requires = "http")]
    pub max_body: usize,

    /// Requests each token may make a second (or each --rate-per; each caller together,
    /// without --tokens); past that, 429 with Retry-After.
    #[arg(long, value_name = "N", default_value = "20", requires = "http")]
    pub rate_limit: NonZeroU32,

    /// The period of --rate-limit: `--rate-limit 100 --rate-per minute` is 100 requests a
    /// minute.
    #[arg(
        long,
        value_enum,
        value_name = "PERIOD",
        default_value = "second",
        requires = "http"
    )]
    pub rate_per: RatePeriod,

    /// Requests a token may make at once after a quiet period (default: twice --rate-limit).
    #[arg(long, value_name = "N", requires = "http")]
    pub burst: Option<NonZeroU32>,

    /// Serves without --tokens on an address that is not loopback: anyone who can reach it gets
    /// the server's whole policy.
    #[arg(long, requires = "http")]
    pub allow_unauthenticated: bool,

    /// Shares approvals, rate limits and sessions with every instance pointed at this Redis
    /// (redis://HOST:PORT, or redis://HOST:PORT/DB): each approval runs at most once whichever
    /// instance a retry reaches, each token has one budget of --rate-limit across the
    /// instances, and a session is refused to other tokens (and restored for its own) on every
    /// instance. Needs --seal-key-file, the same on every instance. When Redis does not answer,
    /// an approved call is refused (nothing runs) and a request is refused with 503 and
    /// Retry-After (see --store-outage).
    #[arg(long, value_name = "URL", requires_all = ["http", "seal_key_file"])]
    pub store: Option<String>,

    /// What a request gets while the Redis of --store does not answer: `refuse` (503 with
    /// Retry-After) or `admit-locally` (this instance's own --rate-limit; sessions of this
    /// instance only). Approved calls are refused either way.
    #[arg(
        long,
        value_enum,
        value_name = "BEHAVIOUR",
        default_value = "refuse",
        requires = "store"
    )]
    pub store_outage: StoreOutage,

    /// Seals approval states with the key in this file (at least 32 bytes; a final line break
    /// is ignored) instead of a random key of this process: instances sharing it (and a
    /// restarted instance) accept each other's approval states. Never give a key on the command
    /// line.
    #[arg(long, value_name = "FILE")]
    pub seal_key_file: Option<PathBuf>,
}

/// The period of `--rate-limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RatePeriod {
    /// Requests a second.
    Second,
    /// Requests a minute.
    Minute,
    /// Requests an hour.
    Hour,
}

impl RatePeriod {
    /// The period's length.
    pub fn duration(self) -> Duration {
        Duration::from_secs(match self {
            RatePeriod::Second => 1,
            RatePeriod::Minute => 60,
            RatePeriod::Hour => 3600,
        })
    }
}

/// `--store-outage`: what a request gets while the shared Redis does not answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StoreOutage {
    /// 503 with Retry-After.
    Refuse,
    /// This instance's own limit.
    AdmitLocally,
}

impl From<StoreOutage> for RateLimitOutage {
    fn from(outage: StoreOutage) -> Self {
        match outage {
            StoreOutage::Refuse => RateLimitOutage::Refuse,
            StoreOutage::AdmitLocally => RateLimitOutage::AdmitLocally,
        }
    }
}

/// Why a server cannot be served as the options say.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// An option is wrong: a token file or a seal key file that cannot be read or is invalid, a
    /// `--store` that is not a Redis URL, an address other hosts can reach without tokens. A
    /// command line answers it with exit status 2.
    #[error("{0}")]
    Usage(String),
    /// The server cannot start: Redis does not answer, the address cannot be bound.
    #[error("{0}")]
    Failed(String),
}

impl HttpArgs {
    /// The rate limit of each token: `--rate-limit` a `--rate-per`, in bursts of `--burst`
    /// (twice `--rate-limit` unless given).
    pub fn rate_limit(&self) -> RateLimit {
        let burst = self.burst.unwrap_or_else(|| {
            self.rate_limit
                .saturating_mul(NonZeroU32::MIN.saturating_add(1))
        });
        RateLimit::per(self.rate_limit, self.rate_per.duration(), burst)
    }

    /// `server` with the approval key of `--seal-key-file`, when given (over stdio as over
    /// HTTP: a restarted process accepts the states its predecessor sealed).
    ///
    /// # Errors
    /// [`ServeError::Usage`] when the file cannot be read or holds too short a key.
    pub fn with_seal_key<C: Send + Sync + 'static>(
        &self,
        server: McpServer<C>,
    ) -> Result<McpServer<C>, ServeError> {
        match &self.seal_key_file {
            None => Ok(server),
            Some(path) => approval_key_from_file(path)
                .and_then(|key| server.with_approval_key(key))
                .map_err(|e| ServeError::Usage(e.to_string())),
        }
    }

    /// `server` bound at `addr` as the options say: its seal key, the token file (whose
    /// `disabled` names `is_tool` must know), the origins and hosts, the body limit, the rate
    /// limit, and with `--store` the Redis that approvals, rate limits and sessions share
    /// (connected here).
    ///
    /// # Errors
    /// [`ServeError::Usage`] for a wrong option, [`ServeError::Failed`] when Redis does not
    /// answer or the address cannot be bound.
    pub async fn bind<C: Send + Sync + 'static>(
        &self,
        addr: SocketAddr,
        server: McpServer<C>,
        is_tool: impl Fn(&str) -> bool,
    ) -> Result<HttpServer, ServeError> {
        let mut server = self.with_seal_key(server)?;
        let mut config = HttpConfig::default()
            .with_max_body_bytes(self.max_body)
            .with_rate_limit(Some(self.rate_limit()))
            .allow_unauthenticated(self.allow_unauthenticated)
            .on_store_outage(self.store_outage.into());
        if let Some(path) = &self.tokens {
            let tokens =
                FileTokens::load(path, is_tool).map_err(|e| ServeError::Usage(e.to_string()))?;
            config = config.with_verifier(Arc::new(tokens));
        }
        for origin in &self.allow_origin {
            config = config.allow_origin(origin);
        }
        for host in &self.allow_host {
            config = config.allow_host(host);
        }
        if let Some(url) = &self.store {
            if !url.starts_with("redis://") {
                // The URL is not quoted: it may hold a password.
                return Err(ServeError::Usage(
                    "`--store` is not a Redis URL: expected redis://HOST:PORT (or redis://HOST:PORT/DB)"
                        .to_owned(),
                ));
            }
            let fleet = RedisFleet::connect(url)
                .await
                .map_err(|e| ServeError::Failed(e.to_string()))?;
            server = server.with_approval_store(fleet.approval_store());
            config = config.with_fleet(&fleet);
        }
        HttpServer::bind(addr, server, config)
            .await
            .map_err(|e| match e {
                McpError::Unauthenticated(_) => ServeError::Usage(e.to_string()),
                e => ServeError::Failed(e.to_string()),
            })
    }
}

//! Many instances, one Redis (the feature `redis`): every instance of a server pointed at the
//! same Redis (or Valkey, or a managed Redis: one Lua script, no module) keeps the guarantees of
//! one instance.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use toolwright_runtime::{Registry, RunPolicy};
//! # use toolwright_mcp::McpServer;
//! # use toolwright_mcp::fleet::RedisFleet;
//! # use toolwright_mcp::http::{HttpConfig, HttpServer};
//! # async fn run(registry: Arc<Registry<Vec<String>>>, key: Vec<u8>) -> Result<(), Box<dyn std::error::Error>> {
//! let fleet = RedisFleet::connect("redis://10.0.0.5:6379").await?;
//! let server = McpServer::new(registry, RunPolicy::full(), Vec::new(), "chart-tools", "0.1.0")?
//!     .with_approval_key(key)? // the same key on every instance
//!     .with_approval_store(fleet.approval_store());
//! let config = HttpConfig::default().with_fleet(&fleet);
//! HttpServer::bind("0.0.0.0:8080".parse()?, server, config).await?.serve().await?;
//! # Ok(())
//! # }
//! ```
//!
//! What the instances share, through Redis:
//!
//! - **Approvals.** Each approval is claimed in Redis before anything runs
//!   ([`RedisApprovalStore`]: `SET … NX`, one round trip): however many retries of one sealed
//!   `requestState` reach however many instances, one runs the call. The instances must seal
//!   with the same key ([`McpServer::with_approval_key`](crate::McpServer::with_approval_key)),
//!   or a retry reaching another instance than the one that asked does not verify. When Redis
//!   does not answer, the retry is refused and nothing runs.
//! - **Rate limits.** The per-token limit of [`HttpConfig`](crate::http::HttpConfig) is one budget for the fleet: GCRA
//!   in a Lua script (`EVALSHA`, falling back to `EVAL` once per connection), on the clock of
//!   the Redis server, so the instances' clocks do not matter. When Redis does not answer, a
//!   request is refused with `503` and `Retry-After` unless [`HttpConfig::on_store_outage`](crate::http::HttpConfig::on_store_outage)
//!   says to admit it on the instance's own limit ([`RateLimitOutage::AdmitLocally`](crate::http::RateLimitOutage::AdmitLocally)).
//! - **Sessions and their owners.** The session of a client of a protocol before 2026-07-28
//!   is recorded with the SHA-256 digest of the token that opened it (never the token) and the
//!   client's `initialize` parameters, for an hour after its last use
//!   ([`RedisFleet::with_session_ttl`]). A request naming a session opened by another token is
//!   answered `404` on every instance, and a request of its owner reaching another instance
//!   gets the session restored there (rmcp's `SessionStore`: the handshake is replayed, the
//!   client does not initialize again).
//!
//! The rate-limit check and the session check of a request are one script, one round trip;
//! a request that needs neither (no limit, no session named) makes none.
//!
//! What they do not share: the context of the tools (each instance has its own, as each
//! process of `chart-tools` has its own chart), the tools a session's searches loaded
//! (`tool_search`: a session restored on another instance starts with none), the streams of
//! server-sent events of a session (a `GET` stream lives on the instance that opened it; rmcp's
//! `EventStore` is not set, so a stream cannot be resumed on another instance), and requests
//! in flight. A client of protocol 2026-07-28 is served statelessly and needs none of these.
//!
//! Keys (under a prefix, `toolwright:` unless [`RedisFleet::with_prefix`]): `approval:ID`
//! until the approval expires plus 5 minutes, `rate:SUBJECT` until the subject's budget is
//! full again, `session:ID` (a hash: `owner`, `state`) an hour after its last use. The keys of
//! one request are read by one script: a Redis Cluster must hold them in one slot, so use one
//! Redis (with replicas) rather than a cluster.

use std::future::Future;
use std::num::NonZeroU32;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use redis::aio::ConnectionManager;
use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};
use toolwright_runtime::approval::{ApprovalStore, RedisApprovalStore, StoreError};

// This module takes nothing from `crate::http`, which reads it: the transport hands it plain
// values (a subject's interval and burst, a token's digest, how to find a session's owner).

/// The SHA-256 digest of the token that opened a session, by the session's id: what this
/// instance recorded while initializing it.
pub(crate) type OwnerOf = Arc<dyn Fn(&str) -> Option<[u8; 32]> + Send + Sync>;

/// The prefix of every key unless [`RedisFleet::with_prefix`] says otherwise.
pub const DEFAULT_PREFIX: &str = "toolwright:";

/// How long a connection attempt and a command may take unless configured otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a session is kept after its last use unless configured otherwise.
const DEFAULT_SESSION_TTL: Duration = Duration::from_secs(3600);

/// The admission of one request: GCRA for the subject's budget (when asked), then the owner of
/// the session it names (when asked), on the Redis server's clock, in microseconds.
///
/// KEYS[1]: the subject's budget; KEYS[2]: the session's hash. ARGV[1]: the interval between
/// two requests at the sustained rate (0: no limit); ARGV[2]: the interval times the burst;
/// ARGV[3]: the digest of the caller's token (empty: no session to check); ARGV[4]: the
/// session's time to live in seconds. Answers `{admitted, wait, owned}`: `admitted` 1 or 0,
/// `wait` the microseconds until the next request would be admitted, `owned` 1 (the caller's
/// session, its time to live renewed), 0 (not the caller's, or unknown) or 2 (not asked). A
/// refused request changes nothing.
const ADMIT: &str = r"
local now = redis.call('TIME')
local t = tonumber(now[1]) * 1000000 + tonumber(now[2])
local interval = tonumber(ARGV[1])
if interval > 0 then
  local tolerance = tonumber(ARGV[2])
  local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
  if tat < t then tat = t end
  local next_tat = tat + interval
  if next_tat - t > tolerance then
    return {0, string.format('%.0f', next_tat - t - tolerance), 2}
  end
  redis.call('SET', KEYS[1], string.format('%.0f', next_tat), 'PX',
    math.floor((next_tat - t) / 1000) + 1)
end
local owned = 2
if ARGV[3] ~= '' then
  if redis.call('HGET', KEYS[2], 'owner') == ARGV[3] then
    redis.call('EXPIRE', KEYS[2], ARGV[4])
    owned = 1
  else
    owned = 0
  end
end
return {1, '0', owned}
";

/// The Redis every instance of a fleet points at: where approvals are claimed
/// ([`RedisFleet::approval_store`]), and, through
/// [`HttpConfig::with_fleet`](crate::http::HttpConfig::with_fleet), the per-token rate limits and
/// the owners of sessions. See [the module docs](self) for what is shared.
#[derive(Clone)]
pub struct RedisFleet {
    approvals: RedisApprovalStore,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for RedisFleet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisFleet")
            .field("prefix", &self.shared.prefix)
            .field("session_ttl", &self.shared.session_ttl)
            .finish_non_exhaustive()
    }
}

impl RedisFleet {
    /// Connects to the Redis at `url` (`redis://HOST:PORT/DB`, with `USER:PASSWORD@` when it
    /// needs them), bounding each connection attempt and each command to 2 seconds.
    ///
    /// # Errors
    /// When the URL is not a Redis URL or Redis does not answer.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with_timeout(url, DEFAULT_TIMEOUT).await
    }

    /// Connects as [`connect`](Self::connect) does, bounding each connection attempt and each
    /// command to `timeout`: a request waits at most that long for its admission.
    ///
    /// # Errors
    /// When the URL is not a Redis URL or Redis does not answer.
    pub async fn connect_with_timeout(url: &str, timeout: Duration) -> Result<Self, StoreError> {
        let approvals = RedisApprovalStore::connect_with_timeout(url, timeout).await?;
        // One connection for the approvals, the rate limits and the sessions.
        let connection = approvals.connection();
        let fleet = RedisFleet {
            approvals,
            shared: Arc::new(Shared {
                connection,
                prefix: String::new(),
                session_ttl: DEFAULT_SESSION_TTL,
                script: redis::Script::new(ADMIT),
            }),
        };
        Ok(fleet.with_prefix(DEFAULT_PREFIX))
    }

    /// The prefix of every key ([`DEFAULT_PREFIX`] unless set): one per deployment that
    /// shares a Redis with others. Approvals are kept under `PREFIX` `approval:`.
    #[must_use]
    pub fn with_prefix(self, prefix: impl Into<String>) -> Self {
        let prefix = prefix.into();
        let shared = Shared {
            connection: self.shared.connection.clone(),
            prefix: prefix.clone(),
            session_ttl: self.shared.session_ttl,
            script: self.shared.script.clone(),
        };
        RedisFleet {
            approvals: self.approvals.with_prefix(format!("{prefix}approval:")),
            shared: Arc::new(shared),
        }
    }

    /// How long a session is kept after its last use (whole seconds, at least one; an hour
    /// unless set). Past it, every instance answers `404` and the client initializes again.
    #[must_use]
    pub fn with_session_ttl(self, ttl: Duration) -> Self {
        let shared = Shared {
            connection: self.shared.connection.clone(),
            prefix: self.shared.prefix.clone(),
            session_ttl: ttl.max(Duration::from_secs(1)),
            script: self.shared.script.clone(),
        };
        RedisFleet {
            approvals: self.approvals,
            shared: Arc::new(shared),
        }
    }

    /// Where the approvals of every instance are claimed: give it to each instance's server
    /// ([`McpServer::with_approval_store`](crate::McpServer::with_approval_store)).
    pub fn approval_store(&self) -> Arc<dyn ApprovalStore> {
        Arc::new(self.approvals.clone())
    }

    /// The rate limits and session owners of the HTTP transport.
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }
}

/// What the HTTP transport keeps in the fleet's Redis.
pub(crate) struct Shared {
    connection: ConnectionManager,
    prefix: String,
    session_ttl: Duration,
    script: redis::Script,
}

/// What Redis said of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Admission {
    /// Under its subject's budget (or no budget asked).
    pub(crate) admitted: bool,
    /// How long until the subject's next request would be admitted, when refused.
    pub(crate) wait: Duration,
    /// The named session is the caller's (`None`: not asked, or the request was refused first).
    pub(crate) owned: Option<bool>,
}

impl Shared {
    fn session_key(&self, session: &str) -> String {
        format!("{}session:{session}", self.prefix)
    }

    /// Admits one request of `subject` under its limit (if any: one request every `interval`,
    /// in bursts of `burst`), naming `session` as the caller whose token has `digest` (if it
    /// does): one round trip.
    pub(crate) async fn admit(
        &self,
        limit: Option<(&str, Duration, NonZeroU32)>,
        session: Option<(&str, &[u8; 32])>,
    ) -> Result<Admission, redis::RedisError> {
        let (rate_key, interval, tolerance) = match limit {
            Some((subject, interval, burst)) => {
                let interval = interval.as_micros().max(1);
                let tolerance = interval.saturating_mul(u128::from(burst.get()));
                (
                    format!("{}rate:{subject}", self.prefix),
                    interval,
                    tolerance,
                )
            }
            None => (format!("{}rate:", self.prefix), 0, 0),
        };
        let (session_key, owner) = match session {
            Some((session, digest)) => (self.session_key(session), hex(digest)),
            None => (self.session_key(""), String::new()),
        };
        let mut connection = self.connection.clone();
        let (admitted, wait, owned): (i64, String, i64) = self
            .script
            .key(rate_key)
            .key(session_key)
            .arg(interval.to_string())
            .arg(tolerance.to_string())
            .arg(owner)
            .arg(self.session_ttl.as_secs())
            .invoke_async(&mut connection)
            .await?;
        Ok(Admission {
            admitted: admitted == 1,
            wait: Duration::from_micros(wait.parse().unwrap_or(0)),
            owned: match owned {
                1 => Some(true),
                0 => Some(false),
                _ => None,
            },
        })
    }
}

/// The lowercase hexadecimal form of a digest.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The sessions of a fleet as rmcp's `SessionStore`: the state of a session (the client's
/// `initialize` parameters) with the digest of the token that opened it, which this instance
/// recorded while initializing it.
pub(crate) struct SessionRecords {
    pub(crate) shared: Arc<Shared>,
    pub(crate) owner_of: OwnerOf,
}

type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, SessionStoreError>> + Send + 'a>>;

impl SessionStore for SessionRecords {
    fn load<'a, 'b, 'c>(&'a self, session_id: &'b str) -> StoreFuture<'c, Option<SessionState>>
    where
        'a: 'c,
        'b: 'c,
        Self: 'c,
    {
        Box::pin(async move {
            let mut connection = self.shared.connection.clone();
            let state: Option<String> = redis::cmd("HGET")
                .arg(self.shared.session_key(session_id))
                .arg("state")
                .query_async(&mut connection)
                .await?;
            Ok(match state {
                Some(state) => Some(serde_json::from_str(&state)?),
                None => None,
            })
        })
    }

    fn store<'a, 'b, 'c, 'd>(
        &'a self,
        session_id: &'b str,
        state: &'c SessionState,
    ) -> StoreFuture<'d, ()>
    where
        'a: 'd,
        'b: 'd,
        'c: 'd,
        Self: 'd,
    {
        Box::pin(async move {
            let key = self.shared.session_key(session_id);
            let state = serde_json::to_string(state)?;
            let mut pipe = redis::pipe();
            pipe.atomic().cmd("HSET").arg(&key).arg("state").arg(state);
            // A session opened without a token verifier has no owner, and no request names it
            // with one: the guard checks owners only of authenticated requests.
            if let Some(owner) = (self.owner_of)(session_id) {
                pipe.cmd("HSET").arg(&key).arg("owner").arg(hex(&owner));
            }
            pipe.cmd("EXPIRE")
                .arg(&key)
                .arg(self.shared.session_ttl.as_secs());
            let mut connection = self.shared.connection.clone();
            pipe.query_async::<()>(&mut connection).await?;
            Ok(())
        })
    }

    fn delete<'a, 'b, 'c>(&'a self, session_id: &'b str) -> StoreFuture<'c, ()>
    where
        'a: 'c,
        'b: 'c,
        Self: 'c,
    {
        Box::pin(async move {
            let mut connection = self.shared.connection.clone();
            redis::cmd("DEL")
                .arg(self.shared.session_key(session_id))
                .query_async::<()>(&mut connection)
                .await?;
            Ok(())
        })
    }
}

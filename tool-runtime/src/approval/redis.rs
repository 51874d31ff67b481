//! The approvals of a fleet, claimed in one Redis (the feature `redis`).

use std::time::{Duration, SystemTime};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::store::{ApprovalStore, Claim, StoreError};
use super::{PendingApproval, unix_seconds};
use crate::handler::BoxFuture;

/// The prefix of the keys by default.
pub const DEFAULT_KEY_PREFIX: &str = "toolwright:approval:";

/// How long a key outlives its approval by default.
const DEFAULT_CLOCK_SKEW: Duration = Duration::from_secs(300);

/// How long a connection attempt and a command may take by default.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// The approvals of every process and machine that points at the same Redis (or Valkey, or a
/// managed Redis: only `SET` and `EXISTS` are used, no module, no script).
///
/// A claim is one command, one round trip: `SET <prefix><approval id> 1 NX EX <seconds>`. Redis
/// sets the key for exactly one of the callers that race for it (`OK`: [`Claim::Won`]) and
/// answers every other `nil` ([`Claim::Taken`]). The key lives until the approval expires by
/// the clock of the claim (the policy's), plus a margin for the clocks of the other hosts
/// ([`with_clock_skew`](Self::with_clock_skew), 5 minutes by default): a host whose clock runs
/// behind by less than the margin still finds the key while it deems the approval valid. Keep
/// the hosts' clocks within that margin of each other (NTP does). The time to live is relative,
/// so the Redis server's own clock does not matter.
///
/// The connection is a [`ConnectionManager`] (it reconnects after a failure). A claim that gets
/// no answer (Redis down, a timeout, 2 seconds by default) is an error: the call fails closed,
/// nothing runs. When Redis set the key but its answer was lost, the approval is used without
/// having run: at most once, never twice. Needs a Tokio runtime.
#[derive(Clone)]
pub struct RedisApprovalStore {
    connection: ConnectionManager,
    prefix: String,
    clock_skew: u64,
}

impl std::fmt::Debug for RedisApprovalStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisApprovalStore")
            .field("prefix", &self.prefix)
            .field("clock_skew", &self.clock_skew)
            .finish_non_exhaustive()
    }
}

impl RedisApprovalStore {
    /// Connects to the Redis at `url` (`redis://HOST:PORT/DB`, with `USER:PASSWORD@` when it
    /// needs them), with connection attempts and commands bounded to 2 seconds.
    ///
    /// # Errors
    /// When the URL is not a Redis URL or Redis does not answer.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with_timeout(url, DEFAULT_TIMEOUT).await
    }

    /// Connects as [`connect`](Self::connect) does, bounding each connection attempt and each
    /// command to `timeout`.
    ///
    /// # Errors
    /// When the URL is not a Redis URL or Redis does not answer.
    pub async fn connect_with_timeout(url: &str, timeout: Duration) -> Result<Self, StoreError> {
        let client = redis::Client::open(url)
            .map_err(|e| StoreError::new(format!("`{}` is not a Redis URL: {e}", redacted(url))))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(1)
            .set_max_delay(timeout);
        let connection = ConnectionManager::new_with_config(client, config)
            .await
            .map_err(|e| {
                StoreError::new(format!(
                    "cannot connect to the approval store `{}`: {e}",
                    redacted(url)
                ))
            })?;
        Ok(RedisApprovalStore {
            connection,
            prefix: DEFAULT_KEY_PREFIX.to_owned(),
            clock_skew: DEFAULT_CLOCK_SKEW.as_secs(),
        })
    }

    /// The store's connection (a clone shares it: one multiplexed connection, reconnected
    /// after a failure), for a host that keeps more shared state in the same Redis (the MCP
    /// server's rate limits and sessions) without a second connection.
    pub fn connection(&self) -> ConnectionManager {
        self.connection.clone()
    }

    /// The prefix of the keys ([`DEFAULT_KEY_PREFIX`] by default): one per deployment that
    /// shares a Redis with others.
    #[must_use]
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long a key outlives its approval (whole seconds), for hosts whose clocks run behind
    /// the clock of the host that claimed it.
    #[must_use]
    pub fn with_clock_skew(mut self, skew: Duration) -> Self {
        self.clock_skew = skew.as_secs();
        self
    }

    /// The key of an approval.
    pub fn key(&self, approval_id: &str) -> String {
        format!("{}{approval_id}", self.prefix)
    }
}

/// A Redis URL with its password hidden.
fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    match rest.split_once('@') {
        Some((credentials, host)) => {
            let user = credentials.split_once(':').map_or(credentials, |(u, _)| u);
            format!("{scheme}://{user}:…@{host}")
        }
        None => url.to_owned(),
    }
}

impl ApprovalStore for RedisApprovalStore {
    fn claim<'a>(
        &'a self,
        approval: &'a PendingApproval,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        Box::pin(async move {
            let left = approval.expires_at.saturating_sub(unix_seconds(now));
            let seconds = left.saturating_add(self.clock_skew).max(1);
            let mut connection = self.connection.clone();
            let set: Option<String> = redis::cmd("SET")
                .arg(self.key(&approval.approval_id))
                .arg(1)
                .arg("NX")
                .arg("EX")
                .arg(seconds)
                .query_async(&mut connection)
                .await
                .map_err(|e| StoreError::new(format!("the approval store did not answer: {e}")))?;
            Ok(match set {
                Some(_) => Claim::Won,
                None => Claim::Taken,
            })
        })
    }

    fn is_claimed<'a>(&'a self, approval_id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            redis::cmd("EXISTS")
                .arg(self.key(approval_id))
                .query_async(&mut connection)
                .await
                .map_err(|e| StoreError::new(format!("the approval store did not answer: {e}")))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_quoted_without_its_password() {
        assert_eq!(
            redacted("redis://app:s3cret@cache:6379/0"),
            "redis://app:…@cache:6379/0"
        );
        assert_eq!(redacted("redis://cache:6379"), "redis://cache:6379");
    }
}

//! Approvals: a person decides on each destructive call, after its arguments are validated.
//!
//! A host installs an [`Approver`] on the run's policy ([`RunPolicy::with_approval`] for a plain
//! closure, [`RunPolicy::with_approver`] for one that awaits a person). The registry consults it
//! for every call to a `destructive` tool **after** the call passed the policy check, the bounds
//! and validation: a person is only ever shown valid calls, with the arguments the tool would
//! receive. It answers with a [`Decision`]:
//!
//! - [`Decision::Approve`]: the call runs with the arguments shown;
//! - [`Decision::Deny`]: `TOOL_NOT_ALLOWED`, the reason in the message (bounded to
//!   [`DENY_REASON_LIMIT`](crate::call::DENY_REASON_LIMIT) characters), nothing runs;
//! - [`Decision::Edit`]: the new arguments are checked again (bounds and schema) and the call runs
//!   with them; invalid ones are `TOOL_INPUT_INVALID` and nothing runs;
//! - [`Decision::Defer`]: the person answers later. [`Registry::run_batch`] then returns a
//!   [`PausedBatch`](crate::batch::PausedBatch) holding a [`PendingApproval`] for each such call (approval id, call id, tool
//!   name, the validated arguments, their digest, an expiry); the other calls of the message are
//!   answered as usual, except in a sequential message, where nothing after a pending call runs
//!   until it is decided (those calls wait in the paused batch and run on resume).
//!
//! A paused batch serializes to JSON, so a host can save it, ask the person, and resume it from
//! another process with [`Registry::resume_batch`], the person's [`Decisions`] and an
//! [`ApprovalStore`]. Resuming runs exactly the approved arguments, and refuses
//! (`TOOL_NOT_ALLOWED`, saying why, nothing runs):
//!
//! - an approval whose digest does not match its saved call (the state was edited);
//! - an approval past its expiry ([`RunPolicy::approval_ttl`] after it was asked, by the
//!   policy's [`Clock`](crate::policy::Clock));
//! - an approval already decided: once the policy allows the call, the registry **claims** the
//!   approval in the store, and only the one caller that wins the claim lets its decision take
//!   effect. Every other resume of the same approval (a second copy of the state, another
//!   process, another machine, at the same moment or later) is refused. The registry, not the
//!   host, guarantees once.
//!
//! When the approval of a call of a sequential message is refused for one of these reasons, the
//! calls that waited behind it are refused too (they may have run already, from another copy of
//! the state).
//!
//! # Stores
//!
//! Which store guarantees once depends on who resumes approvals:
//!
//! - one process: [`MemoryApprovalStore`] (or a `Mutex<`[`ApprovalLedger`]`>` the host shares);
//! - the processes of one machine: [`FileApprovalStore`], a JSON ledger file claimed under an
//!   exclusive lock, re-read before each decision and replaced through a temporary file of a
//!   unique name, never written back from an older copy;
//! - the instances of a fleet: `RedisApprovalStore` (the feature `redis`), one `SET … NX` per
//!   claim.
//!
//! When a store cannot answer (Redis unreachable, a damaged ledger file), the call fails closed:
//! nothing runs, the approval is not used, and the call is answered `TOOL_FAILED`, retryable,
//! saying so ([`Refusal::ApprovalStoreUnavailable`](crate::call::Refusal::ApprovalStoreUnavailable)).
//!
//! A host loop that asks a person later, saving the paused batch (here in a string; a host
//! writes it to its own storage) and claiming approvals in a ledger file every process of the
//! machine shares:
//!
//! ```
//! use serde_json::{Value, json};
//! use toolwright_runtime::{Registry, RunPolicy, ToolCall};
//! use toolwright_runtime::approval::{Decision, Decisions, FileApprovalStore};
//! use toolwright_runtime::batch::{BatchOutcome, PausedBatch};
//! use toolwright_runtime::handler::{BoxFuture, CallResult, Handler, Mode, Safety, StaticSchema, ToolDef, ToolMeta, ToolOutput};
//!
//! static DRAWINGS_CLEAR: ToolMeta = ToolMeta::new(
//!     "drawings_clear",
//!     Safety::Destructive,
//!     Mode::Sequential,
//!     StaticSchema::Json(r#"{"type":"object","additionalProperties":false}"#),
//! )
//! .title("Clear drawings")
//! .description("Removes every drawing.")
//! .source("tools/drawings_clear.toml");
//!
//! fn drawings_clear<'a>(drawings: &'a mut Vec<String>, _: &'a Value) -> BoxFuture<'a, CallResult> {
//!     Box::pin(async move {
//!         let removed = std::mem::take(drawings);
//!         Ok(ToolOutput { data: json!({"removed": removed}).into(), state_changed: true })
//!     })
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let registry = Registry::builder()
//!     .tool(ToolDef { meta: &DRAWINGS_CLEAR, handler: Handler::Exclusive(drawings_clear) })
//!     .build()?;
//! let policy = RunPolicy::full().with_approval(|_| Decision::Defer);
//! let mut drawings = vec!["d1".to_owned()];
//! let calls = [ToolCall::new("call_1", "drawings_clear", json!({}))];
//!
//! let BatchOutcome::Paused(paused) = registry.run_batch(&policy, &mut drawings, &calls).await
//! else {
//!     unreachable!("the approver defers every write");
//! };
//! let pending = &paused.pending()[0]; // show it to the person: name, arguments, expiry
//! assert_eq!((pending.name.as_str(), &pending.arguments), ("drawings_clear", &json!({})));
//! let saved = serde_json::to_string(&paused)?;
//! # let folder = tempfile::tempdir()?;
//! # let ledger_path = folder.path().join("approvals.json");
//!
//! // Later, maybe in another process: the person approved.
//! let store = FileApprovalStore::new(&ledger_path); // the same file for every process
//! let paused: PausedBatch = serde_json::from_str(&saved)?;
//! let decisions: Decisions =
//!     [(paused.pending()[0].approval_id.clone(), Decision::Approve)].into_iter().collect();
//! let outcome = registry
//!     .resume_batch(&policy, &mut drawings, paused, &decisions, &store)
//!     .await;
//! let results = outcome.complete().expect("every call is answered");
//! assert!(results[0].is_success() && drawings.is_empty());
//!
//! // Resuming `saved` again, here or in any process that shares the file, runs nothing.
//! let again: PausedBatch = serde_json::from_str(&saved)?;
//! let outcome = registry.resume_batch(&policy, &mut drawings, again, &decisions, &store).await;
//! let results = outcome.complete().expect("every call is answered");
//! assert_eq!(results[0].code(), Some("TOOL_NOT_ALLOWED")); // already decided
//! # Ok(())
//! # }
//! ```
//!
//! # The digest
//!
//! The digest is SHA-256 (the `sha2` crate) of the canonical JSON text (`serde_json`, object keys
//! sorted) of the approval id, the call's position, id and tool name, the validated arguments
//! and the expiry. It detects a saved state that was changed or damaged after the approval was
//! asked. It is **not** keyed: whoever can write the saved state can also recompute the digest.
//! Keep the state and the ledger where only the host writes (never hand them to the model or to
//! a client); over MCP, where the client holds the state, the `requestState` is sealed with an
//! HMAC under a key only the server has (see the crate `toolwright-mcp`).
//!
//! [`RunPolicy::with_approval`]: crate::RunPolicy::with_approval
//! [`RunPolicy::with_approver`]: crate::RunPolicy::with_approver
//! [`RunPolicy::approval_ttl`]: crate::RunPolicy::approval_ttl
//! [`Registry::run_batch`]: crate::Registry::run_batch
//! [`Registry::resume_batch`]: crate::Registry::resume_batch

mod file;
#[cfg(feature = "redis")]
mod redis;
mod store;

pub use file::FileApprovalStore;
#[cfg(feature = "redis")]
pub use redis::{DEFAULT_KEY_PREFIX, RedisApprovalStore};
pub use store::{ApprovalStore, Claim, MemoryApprovalStore, StoreError};

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use toolwright_core::ToolMeta;

use crate::handler::BoxFuture;

/// The prefix of every approval digest.
pub const DIGEST_PREFIX: &str = "sha256:";

/// A call waiting for a person's decision, as the approver sees it.
#[derive(Debug, Clone, Copy)]
pub struct ApprovalRequest<'a> {
    /// The tool's frozen metadata (its name, title, description, safety).
    pub meta: &'static ToolMeta,
    /// The provider's call id (empty for a call made through [`Registry::execute`]).
    ///
    /// [`Registry::execute`]: crate::Registry::execute
    pub call_id: &'a str,
    /// The validated arguments, exactly as the tool would receive them.
    pub arguments: &'a Value,
}

/// What a person decided about a destructive call.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Run the call with the arguments shown.
    Approve,
    /// Do not run it; the reason reaches the model (bounded to [`DENY_REASON_LIMIT`](crate::call::DENY_REASON_LIMIT)).
    Deny {
        /// Why, in the person's words (may be empty).
        reason: String,
    },
    /// Run it with these arguments instead (checked again before anything runs).
    Edit {
        /// The new arguments.
        arguments: Value,
    },
    /// Decide later: the call is returned as a [`PendingApproval`]. When resuming, a
    /// `Defer` (or no decision) leaves the approval pending.
    Defer,
}

impl Decision {
    /// A denial with a reason.
    pub fn deny(reason: impl Into<String>) -> Self {
        Decision::Deny {
            reason: reason.into(),
        }
    }
}

/// Decides on destructive calls. Implement it for an approver that awaits a person (a UI, a
/// chat message); a plain closure goes through [`RunPolicy::with_approval`].
///
/// [`RunPolicy::with_approval`]: crate::RunPolicy::with_approval
pub trait Approver: Send + Sync {
    /// The decision about one valid call.
    fn decide<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Decision>;
}

/// A synchronous closure as an [`Approver`].
pub(crate) struct FnApprover<F>(pub(crate) F);

impl<F> Approver for FnApprover<F>
where
    F: Fn(&ApprovalRequest<'_>) -> Decision + Send + Sync,
{
    fn decide<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Decision> {
        let decision = (self.0)(&request);
        Box::pin(std::future::ready(decision))
    }
}

/// Seconds since the Unix epoch (0 for a time before it).
pub(crate) fn unix_seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// When an approval asked at `now` expires after `ttl` (seconds since the Unix epoch, a part of a
/// second counting as a whole one).
pub(crate) fn expiry(now: SystemTime, ttl: Duration) -> u64 {
    let ttl_seconds = ttl.as_secs() + u64::from(ttl.subsec_nanos() > 0);
    unix_seconds(now).saturating_add(ttl_seconds)
}

/// A call that waits for a person's decision. Serializes to JSON (camelCase fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PendingApproval {
    /// Unique id of this approval: what a decision names.
    pub approval_id: String,
    /// The call's position in its message (from 0).
    pub index: usize,
    /// The provider's call id.
    pub call_id: String,
    /// The tool.
    pub name: String,
    /// The validated arguments the call runs with when approved.
    pub arguments: Value,
    /// When the approval expires, in seconds since the Unix epoch.
    pub expires_at: u64,
    /// `sha256:` and the hex SHA-256 of everything above (see the module docs).
    pub digest: String,
}

impl PendingApproval {
    /// A new approval with a fresh id, expiring at `expires_at`, and its digest.
    pub fn new(
        index: usize,
        call_id: impl Into<String>,
        name: impl Into<String>,
        arguments: Value,
        expires_at: u64,
    ) -> Self {
        let mut pending = PendingApproval {
            approval_id: fresh_id(),
            index,
            call_id: call_id.into(),
            name: name.into(),
            arguments,
            expires_at,
            digest: String::new(),
        };
        pending.digest = pending.compute_digest();
        pending
    }

    /// The digest of the approval as it is now.
    pub fn compute_digest(&self) -> String {
        let mut canonical = json!({
            "approvalId": self.approval_id,
            "index": self.index,
            "callId": self.call_id,
            "name": self.name,
            "arguments": self.arguments,
            "expiresAt": self.expires_at,
        });
        // Sorted keys make the text canonical whichever map order serde_json is built with.
        canonical.sort_all_objects();
        let hash = Sha256::digest(canonical.to_string().as_bytes());
        let mut digest = String::with_capacity(DIGEST_PREFIX.len() + 64);
        digest.push_str(DIGEST_PREFIX);
        for byte in hash.iter() {
            let _ = write!(digest, "{byte:02x}");
        }
        digest
    }

    /// True when the saved digest is the digest of the approval as it is now.
    pub fn digest_matches(&self) -> bool {
        self.digest == self.compute_digest()
    }

    /// True when the approval has expired at `now`.
    pub fn is_expired(&self, now: SystemTime) -> bool {
        unix_seconds(now) >= self.expires_at
    }
}

/// A fresh approval id: 128 random bits in hex. Without a random source it falls back to the
/// time, the process and a counter, which are unique within this machine.
fn fresh_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let seed = format!(
            "{nanos}:{}:{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let hash = Sha256::digest(seed.as_bytes());
        for (byte, from) in bytes.iter_mut().zip(hash.iter()) {
            *byte = *from;
        }
    }
    let mut id = String::with_capacity(32);
    for byte in bytes {
        let _ = write!(id, "{byte:02x}");
    }
    id
}

/// The decisions a person made, by approval id.
pub type Decisions = BTreeMap<String, Decision>;

/// Every approval already decided: what [`MemoryApprovalStore`] and [`FileApprovalStore`] keep.
/// Serializes to JSON (`{"decided": {APPROVAL_ID: EXPIRES_AT, ...}}`).
///
/// An approval is recorded when it is claimed ([`claim`](Self::claim)), which the registry does
/// when its decision is about to take effect: not when its saved call was changed, when it
/// expired, or when the policy of the resume refuses the call (a read-only resume of a write
/// leaves the approval unused, for a resume under a policy that allows it).
///
/// [`prune`](Self::prune) forgets the approvals that expired; every claim prunes first, so that
/// a ledger holds only the approvals that have not expired yet.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "RawLedger", into = "RawLedger")]
pub struct ApprovalLedger {
    /// Each decided approval id, with the time it would have expired (for [`prune`](Self::prune)).
    decided: BTreeMap<String, u64>,
    /// The same approvals ordered by expiry, so that pruning visits only those that expired.
    by_expiry: BTreeSet<(u64, String)>,
}

/// The serialized form of an [`ApprovalLedger`] (the expiry order is rebuilt when read).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawLedger {
    decided: BTreeMap<String, u64>,
}

impl From<RawLedger> for ApprovalLedger {
    fn from(raw: RawLedger) -> Self {
        let by_expiry = raw
            .decided
            .iter()
            .map(|(id, expires_at)| (*expires_at, id.clone()))
            .collect();
        ApprovalLedger {
            decided: raw.decided,
            by_expiry,
        }
    }
}

impl From<ApprovalLedger> for RawLedger {
    fn from(ledger: ApprovalLedger) -> Self {
        RawLedger {
            decided: ledger.decided,
        }
    }
}

impl ApprovalLedger {
    /// An empty ledger.
    pub fn new() -> Self {
        ApprovalLedger::default()
    }

    /// True when the approval was already decided.
    pub fn is_decided(&self, approval_id: &str) -> bool {
        self.decided.contains_key(approval_id)
    }

    /// Records an approval as decided.
    pub fn record(&mut self, approval: &PendingApproval) {
        let id = &approval.approval_id;
        if let Some(before) = self.decided.insert(id.clone(), approval.expires_at) {
            self.by_expiry.remove(&(before, id.clone()));
        }
        self.by_expiry.insert((approval.expires_at, id.clone()));
    }

    /// Claims an approval at `now`: forgets the approvals that expired, then records it unless
    /// the ledger holds it already ([`Claim::Taken`]).
    pub fn claim(&mut self, approval: &PendingApproval, now: SystemTime) -> Claim {
        self.prune(now);
        if self.is_decided(&approval.approval_id) {
            return Claim::Taken;
        }
        self.record(approval);
        Claim::Won
    }

    /// Forgets the approvals that expired at `now`: a resume of one of them is refused as
    /// expired anyway. Visits only the approvals it forgets (each once in its life), so pruning
    /// before every record keeps the ledger to the unexpired approvals at a small, bounded cost
    /// per record.
    pub fn prune(&mut self, now: SystemTime) {
        let now = unix_seconds(now);
        while let Some((expires_at, _)) = self.by_expiry.first() {
            if *expires_at > now {
                break;
            }
            if let Some((_, id)) = self.by_expiry.pop_first() {
                self.decided.remove(&id);
            }
        }
    }

    /// How many decided approvals the ledger holds.
    pub fn len(&self) -> usize {
        self.decided.len()
    }

    /// True when no approval was decided.
    pub fn is_empty(&self) -> bool {
        self.decided.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approval() -> PendingApproval {
        PendingApproval::new(
            1,
            "call_1",
            "drawings_clear",
            json!({"pane_id": "main"}),
            1_000,
        )
    }

    #[test]
    fn the_digest_covers_every_field() {
        let original = approval();
        assert!(original.digest.starts_with(DIGEST_PREFIX));
        assert_eq!(original.digest.len(), DIGEST_PREFIX.len() + 64);
        assert!(original.digest_matches());
        let edits: [fn(&mut PendingApproval); 6] = [
            |p| p.approval_id.push('0'),
            |p| p.index += 1,
            |p| p.call_id.push('x'),
            |p| p.name = "drawings_list".to_owned(),
            |p| p.arguments = json!({"pane_id": "lower"}),
            |p| p.expires_at += 1,
        ];
        for edit in edits {
            let mut edited = original.clone();
            edit(&mut edited);
            assert!(!edited.digest_matches(), "{edited:?}");
        }
    }

    #[test]
    fn the_digest_does_not_depend_on_key_order() {
        let mut a = approval();
        a.arguments = serde_json::from_str(r#"{"b":1,"a":{"y":2,"x":3}}"#).expect("json");
        let mut b = a.clone();
        b.arguments = serde_json::from_str(r#"{"a":{"x":3,"y":2},"b":1}"#).expect("json");
        assert_eq!(a.compute_digest(), b.compute_digest());
    }

    #[test]
    fn ids_are_fresh_and_expiry_is_inclusive() {
        let a = approval();
        let b = approval();
        assert_ne!(a.approval_id, b.approval_id);
        assert_eq!(a.approval_id.len(), 32);
        let at = |secs| UNIX_EPOCH + Duration::from_secs(secs);
        assert!(!a.is_expired(at(999)));
        assert!(a.is_expired(at(1_000)));
    }

    #[test]
    fn the_ledger_remembers_and_prunes() {
        let mut ledger = ApprovalLedger::new();
        let a = approval();
        assert!(!ledger.is_decided(&a.approval_id));
        ledger.record(&a);
        assert!(ledger.is_decided(&a.approval_id));
        let text = serde_json::to_string(&ledger).expect("serializes");
        let back: ApprovalLedger = serde_json::from_str(&text).expect("deserializes");
        assert!(back.is_decided(&a.approval_id));
        ledger.prune(UNIX_EPOCH + Duration::from_secs(999));
        assert_eq!(ledger.len(), 1);
        ledger.prune(UNIX_EPOCH + Duration::from_secs(1_000));
        assert!(ledger.is_empty());
    }

    #[test]
    fn a_ledger_read_back_prunes_in_expiry_order() {
        let mut ledger = ApprovalLedger::new();
        let at = |expires_at| PendingApproval::new(0, "c", "drawings_clear", json!({}), expires_at);
        let approvals: Vec<PendingApproval> = [30, 10, 20].into_iter().map(at).collect();
        for approval in &approvals {
            ledger.record(approval);
        }
        // Recorded again with another expiry: only the new one counts.
        let mut moved = approvals[1].clone();
        moved.expires_at = 40;
        ledger.record(&moved);
        let text = serde_json::to_string(&ledger).expect("serializes");
        assert!(text.starts_with(r#"{"decided":{"#), "{text}");
        let mut back: ApprovalLedger = serde_json::from_str(&text).expect("deserializes");
        assert_eq!(back, ledger);
        back.prune(UNIX_EPOCH + Duration::from_secs(25));
        assert!(!back.is_decided(&approvals[2].approval_id), "expired at 20");
        assert!(back.is_decided(&approvals[0].approval_id));
        assert!(
            back.is_decided(&moved.approval_id),
            "expires at 40 now, not 10"
        );
        back.prune(UNIX_EPOCH + Duration::from_secs(40));
        assert!(back.is_empty());
        assert!(
            serde_json::from_str::<ApprovalLedger>(r#"{"decided":{},"other":1}"#).is_err(),
            "unknown fields are refused"
        );
    }
}

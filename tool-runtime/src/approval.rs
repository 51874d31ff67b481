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
//!   [`DENY_REASON_LIMIT`] characters), nothing runs;
//! - [`Decision::Edit`]: the new arguments are checked again (bounds and schema) and the call runs
//!   with them; invalid ones are `TOOL_INPUT_INVALID` and nothing runs;
//! - [`Decision::Defer`]: the person answers later. [`Registry::run_batch`] then returns a
//!   [`PausedBatch`] holding a [`PendingApproval`] for each such call (approval id, call id, tool
//!   name, the validated arguments, their digest, an expiry); the other calls of the message are
//!   answered as usual, except in a sequential message, where nothing after a pending call runs
//!   until it is decided (those calls wait in the paused batch and run on resume).
//!
//! A paused batch serializes to JSON, so a host can save it, ask the person, and resume it from
//! another process with [`Registry::resume_batch`] and the person's [`Decisions`]. Resuming runs
//! exactly the approved arguments, and refuses (`TOOL_NOT_ALLOWED`, saying why, nothing runs):
//!
//! - an approval whose digest does not match its saved call (the state was edited);
//! - an approval past its expiry ([`RunPolicy::approval_ttl`] after it was asked, by the
//!   policy's [`Clock`]);
//! - an approval already decided: every decided approval is recorded in the host's
//!   [`ApprovalLedger`], which serializes too, so a restarted process also refuses a second
//!   resume of the same approval. Save the ledger with the state, after every resume.
//!
//! When the approval of a call of a sequential message is refused for one of these reasons, the
//! calls that waited behind it are refused too (they may have run already, from another copy of
//! the state).
//!
//! A host loop that asks a person later, saving the paused batch and the ledger (here in
//! strings; a host writes them to its store):
//!
//! ```
//! use serde_json::{Value, json};
//! use toolwright_runtime::{
//!     ApprovalLedger, BatchOutcome, BoxFuture, CallResult, Decision, Decisions, Handler, Mode,
//!     PausedBatch, Registry, RunPolicy, Safety, StaticSchema, ToolCall, ToolDef, ToolMeta,
//!     ToolOutput,
//! };
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
//! let ledger = serde_json::to_string(&ApprovalLedger::new())?;
//!
//! // Later, maybe in another process: the person approved.
//! let paused: PausedBatch = serde_json::from_str(&saved)?;
//! let mut ledger: ApprovalLedger = serde_json::from_str(&ledger)?;
//! let decisions: Decisions =
//!     [(paused.pending()[0].approval_id.clone(), Decision::Approve)].into_iter().collect();
//! let outcome = registry
//!     .resume_batch(&policy, &mut drawings, paused, &decisions, &mut ledger)
//!     .await;
//! let results = outcome.complete().expect("every call is answered");
//! assert!(results[0].is_success() && drawings.is_empty());
//! // Save `ledger` now: resuming `saved` again is refused, the call does not run twice.
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
//! HMAC under a key only the server has (see [`crate::mcp`]).
//!
//! [`RunPolicy::with_approval`]: crate::RunPolicy::with_approval
//! [`RunPolicy::with_approver`]: crate::RunPolicy::with_approver
//! [`RunPolicy::approval_ttl`]: crate::RunPolicy::approval_ttl
//! [`Registry::run_batch`]: crate::Registry::run_batch
//! [`Registry::resume_batch`]: crate::Registry::resume_batch

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use toolwright_core::ToolMeta;

use crate::batch::ToolCall;
use crate::envelope::ToolResult;
use crate::tool::BoxFuture;

/// How long a deferred approval stays valid unless the policy says otherwise.
pub const DEFAULT_APPROVAL_TTL: Duration = Duration::from_secs(60 * 60);

/// How many characters of a denial's reason reach the model.
pub const DENY_REASON_LIMIT: usize = 300;

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
    /// Do not run it; the reason reaches the model (bounded to [`DENY_REASON_LIMIT`]).
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

/// Where the registry reads the time an approval expires against.
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> SystemTime;
}

/// The system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

impl<F> Clock for F
where
    F: Fn() -> SystemTime + Send + Sync,
{
    fn now(&self) -> SystemTime {
        self()
    }
}

/// Seconds since the Unix epoch (0 for a time before it).
pub fn unix_seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// When an approval asked now expires under `policy` (seconds since the Unix epoch).
pub(crate) fn expiry(policy: &crate::RunPolicy) -> u64 {
    let ttl = policy.approval_ttl;
    let ttl_seconds = ttl.as_secs() + u64::from(ttl.subsec_nanos() > 0);
    unix_seconds(policy.now()).saturating_add(ttl_seconds)
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

/// Every approval already decided, kept by the host so that none is resumed twice. Serializes to
/// JSON (`{"decided": {APPROVAL_ID: EXPIRES_AT, ...}}`); save it with the paused batches after
/// every resume.
///
/// An approval is recorded when its decision takes effect: not when its saved call was changed,
/// when it expired, or when the policy of the resume refuses the call (a read-only resume of a
/// write leaves the approval unused, for a resume under a policy that allows it).
///
/// [`prune`](Self::prune) forgets the approvals that expired; the MCP server prunes its ledger
/// at every retry, so that it holds only the approvals that have not expired yet.
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

/// What the calls of one message came to.
#[derive(Debug, Clone, PartialEq)]
pub enum BatchOutcome {
    /// Every call is answered: one result per call, in call order.
    Complete(Vec<ToolResult>),
    /// Some calls wait for a person's decision.
    Paused(PausedBatch),
}

impl BatchOutcome {
    /// The results when every call is answered.
    pub fn complete(self) -> Option<Vec<ToolResult>> {
        match self {
            BatchOutcome::Complete(results) => Some(results),
            BatchOutcome::Paused(_) => None,
        }
    }

    /// The paused batch when some calls wait.
    pub fn paused(self) -> Option<PausedBatch> {
        match self {
            BatchOutcome::Complete(_) => None,
            BatchOutcome::Paused(paused) => Some(paused),
        }
    }
}

/// The calls of one message while some wait for a person: the calls, the results of those that
/// were answered, and the pending approvals. Serializes to JSON and back; a state that does not
/// hold together (a result or an approval for a call that is not there, an approval naming
/// another call) does not deserialize.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    try_from = "RawPausedBatch",
    into = "RawPausedBatch"
)]
pub struct PausedBatch {
    pub(crate) calls: Vec<ToolCall>,
    pub(crate) results: Vec<Option<ToolResult>>,
    pub(crate) pending: Vec<PendingApproval>,
    pub(crate) sequential: bool,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawPausedBatch {
    calls: Vec<ToolCall>,
    results: Vec<Option<ToolResult>>,
    pending: Vec<PendingApproval>,
    sequential: bool,
}

impl From<PausedBatch> for RawPausedBatch {
    fn from(paused: PausedBatch) -> Self {
        RawPausedBatch {
            calls: paused.calls,
            results: paused.results,
            pending: paused.pending,
            sequential: paused.sequential,
        }
    }
}

/// Why a saved paused batch does not hold together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateError(String);

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the paused batch does not hold together: {}", self.0)
    }
}

impl std::error::Error for StateError {}

impl TryFrom<RawPausedBatch> for PausedBatch {
    type Error = StateError;

    fn try_from(raw: RawPausedBatch) -> Result<Self, StateError> {
        let problem = |message: String| Err(StateError(message));
        if raw.results.len() != raw.calls.len() {
            return problem(format!(
                "{} calls but {} results",
                raw.calls.len(),
                raw.results.len()
            ));
        }
        if raw.pending.is_empty() {
            return problem("no pending approval".to_owned());
        }
        let mut seen = BTreeSet::new();
        for (n, approval) in raw.pending.iter().enumerate() {
            let Some(call) = raw.calls.get(approval.index) else {
                return problem(format!(
                    "pending/{n}: index {} is past the last call",
                    approval.index
                ));
            };
            if call.id != approval.call_id || call.name != approval.name {
                return problem(format!(
                    "pending/{n}: the approval names another call than call {}",
                    approval.index
                ));
            }
            if !seen.insert(approval.index) {
                return problem(format!(
                    "pending/{n}: call {} has two approvals",
                    approval.index
                ));
            }
            if raw.results.get(approval.index).is_some_and(Option::is_some) {
                return problem(format!(
                    "pending/{n}: call {} is already answered",
                    approval.index
                ));
            }
        }
        let unanswered = raw.results.iter().filter(|r| r.is_none()).count();
        if raw.sequential {
            let [approval] = raw.pending.as_slice() else {
                return problem("a sequential message waits on one approval at a time".to_owned());
            };
            let waiting_from = approval.index;
            // Calls past the message's limit may already be answered after it.
            if !raw.results[..waiting_from].iter().all(Option::is_some) {
                return problem(format!(
                    "a sequential message answers every call before call {waiting_from}"
                ));
            }
        } else if unanswered != raw.pending.len() {
            return problem(format!(
                "{unanswered} calls are unanswered but {} approvals pending",
                raw.pending.len()
            ));
        }
        let mut pending = raw.pending;
        pending.sort_by_key(|p| p.index);
        Ok(PausedBatch {
            calls: raw.calls,
            results: raw.results,
            pending,
            sequential: raw.sequential,
        })
    }
}

impl PausedBatch {
    /// The calls of the message, in order.
    pub fn calls(&self) -> &[ToolCall] {
        &self.calls
    }

    /// The approvals waiting for a decision, in call order.
    pub fn pending(&self) -> &[PendingApproval] {
        &self.pending
    }

    /// The result of each call, in order: `None` while it waits (for its approval, or, in a
    /// sequential message, behind a pending call).
    pub fn results(&self) -> &[Option<ToolResult>] {
        &self.results
    }

    /// The calls already answered, with their results, in call order.
    pub fn answered(&self) -> impl Iterator<Item = (&ToolCall, &ToolResult)> {
        self.calls
            .iter()
            .zip(&self.results)
            .filter_map(|(call, result)| result.as_ref().map(|r| (call, r)))
    }

    /// True when the message runs one call at a time.
    pub fn is_sequential(&self) -> bool {
        self.sequential
    }

    /// True when the approval belongs to this batch.
    pub fn waits_on(&self, approval_id: &str) -> bool {
        self.pending.iter().any(|p| p.approval_id == approval_id)
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

    fn raw(sequential: bool, results: Vec<Option<ToolResult>>) -> Value {
        let calls: Vec<ToolCall> = (0..results.len())
            .map(|i| ToolCall::new(format!("call_{i}"), "drawings_clear", json!({})))
            .collect();
        json!({
            "calls": calls,
            "results": results,
            "pending": [approval()],
            "sequential": sequential,
        })
    }

    #[test]
    fn a_paused_batch_that_does_not_hold_together_is_refused() {
        let done = || Some(ToolResult::success(json!(1), false));
        let ok = raw(true, vec![done(), None, None]);
        let paused: PausedBatch = serde_json::from_value(ok.clone()).expect("holds together");
        assert_eq!(
            serde_json::to_value(&paused).expect("serializes"),
            ok,
            "a round trip keeps it"
        );
        // Calls past the message's limit are answered even after the pending one.
        let _: PausedBatch =
            serde_json::from_value(raw(true, vec![done(), None, done()])).expect("holds together");
        for (bad, says) in [
            (raw(true, vec![done()]), "past the last call"),
            (
                raw(true, vec![None, None, None]),
                "answers every call before",
            ),
            (raw(true, vec![done(), done(), None]), "already answered"),
            (
                raw(false, vec![done(), None, None]),
                "2 calls are unanswered",
            ),
        ] {
            let error = serde_json::from_value::<PausedBatch>(bad).expect_err("refused");
            assert!(error.to_string().contains(says), "{error}");
        }
        let mut other = ok;
        other["pending"][0]["callId"] = json!("call_9");
        let error = serde_json::from_value::<PausedBatch>(other).expect_err("refused");
        assert!(error.to_string().contains("another call"), "{error}");
    }
}

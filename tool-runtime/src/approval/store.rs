//! Where approvals are claimed: the one step that makes an approval run at most once.

use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use super::{ApprovalLedger, PendingApproval};
use crate::handler::BoxFuture;

/// What a claim of an approval came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// This caller claimed the approval: its decision takes effect here, and nowhere else.
    Won,
    /// The approval was claimed before (by this process or another): its decision took effect
    /// there, and nothing runs here.
    Taken,
}

/// Why a store could not answer a claim. The call then fails closed: nothing runs, and the
/// approval is left as it was (see [`Refusal::ApprovalStoreUnavailable`]).
///
/// [`Refusal::ApprovalStoreUnavailable`]: crate::call::Refusal::ApprovalStoreUnavailable
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct StoreError {
    message: String,
}

impl StoreError {
    /// An error saying `message` (lowercase, without a final period: it is quoted in a
    /// sentence).
    pub fn new(message: impl Into<String>) -> Self {
        StoreError {
            message: message.into(),
        }
    }

    /// What went wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Where the approvals a person decided are claimed, so that each runs at most once, whichever
/// process or machine resumes it and however many try at once.
///
/// The registry claims an approval ([`Registry::resume_batch`], [`Call::resume`]) after its
/// digest, its expiry and the run's policy were checked, and before its decision takes effect.
/// An implementation answers [`Claim::Won`] to exactly one caller, ever, per approval id (at
/// least until the approval's `expires_at`: a resume after it is refused as expired before any
/// claim), [`Claim::Taken`] to every other, and an error when it cannot tell: the call then
/// fails closed, and nothing runs.
///
/// The crate has three: [`MemoryApprovalStore`] (one process; a
/// `Mutex<`[`ApprovalLedger`]`>` is one too), [`FileApprovalStore`] (the processes of one
/// machine sharing a file) and, with the feature `redis`, `RedisApprovalStore` (every instance of
/// a fleet sharing one Redis). A host adds another (a database table with a unique key) by
/// implementing this trait.
///
/// [`Registry::resume_batch`]: crate::Registry::resume_batch
/// [`Call::resume`]: crate::call::Call::resume
/// [`FileApprovalStore`]: super::FileApprovalStore
pub trait ApprovalStore: Send + Sync {
    /// Claims `approval` at `now` (the run policy's clock, which decided that the approval has
    /// not expired): [`Claim::Won`] for the first caller, [`Claim::Taken`] for every later one.
    ///
    /// # Errors
    /// When the store cannot answer (unreachable, damaged): the caller runs nothing.
    fn claim<'a>(
        &'a self,
        approval: &'a PendingApproval,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Claim, StoreError>>;

    /// True when the approval was claimed (a store may forget an approval once it expired). For
    /// a host's own messages ("already decided" rather than "unknown"); the registry never
    /// decides anything with it.
    ///
    /// # Errors
    /// When the store cannot answer.
    fn is_claimed<'a>(&'a self, approval_id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;
}

/// A shared ledger as a store: each claim locks it, forgets the approvals that expired
/// ([`ApprovalLedger::prune`]), and records the approval unless it holds it already. One process
/// only: a ledger another process keeps is another ledger. A poisoned lock is taken over (the
/// ledger is valid after every step).
impl ApprovalStore for Mutex<ApprovalLedger> {
    fn claim<'a>(
        &'a self,
        approval: &'a PendingApproval,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        let claim = self
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .claim(approval, now);
        Box::pin(std::future::ready(Ok(claim)))
    }

    fn is_claimed<'a>(&'a self, approval_id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let claimed = self
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_decided(approval_id);
        Box::pin(std::future::ready(Ok(claimed)))
    }
}

/// The approvals of one process, in memory: an [`ApprovalLedger`] behind a lock. Each claim
/// forgets the approvals that expired, so the store holds only those that have not.
///
/// It guarantees once within the process that holds it. Processes that resume the same saved
/// approvals (a restarted host, several hosts on one machine, a fleet) share a
/// [`FileApprovalStore`](super::FileApprovalStore) or a Redis store instead.
#[derive(Debug, Default)]
pub struct MemoryApprovalStore {
    ledger: Mutex<ApprovalLedger>,
}

impl MemoryApprovalStore {
    /// A store where nothing was claimed.
    pub fn new() -> Self {
        MemoryApprovalStore::default()
    }

    /// A store that holds the approvals of `ledger` as claimed.
    pub fn from_ledger(ledger: ApprovalLedger) -> Self {
        MemoryApprovalStore {
            ledger: Mutex::new(ledger),
        }
    }

    /// A copy of the approvals claimed and not yet pruned.
    pub fn ledger(&self) -> ApprovalLedger {
        self.ledger
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// How many claimed approvals the store holds.
    pub fn len(&self) -> usize {
        self.ledger
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// True when the store holds no claimed approval.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl ApprovalStore for MemoryApprovalStore {
    fn claim<'a>(
        &'a self,
        approval: &'a PendingApproval,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        self.ledger.claim(approval, now)
    }

    fn is_claimed<'a>(&'a self, approval_id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.ledger.is_claimed(approval_id)
    }
}

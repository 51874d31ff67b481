//! The approvals of the processes of one machine, claimed in a JSON ledger file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use futures_util::lock::Mutex;

use super::store::{ApprovalStore, Claim, StoreError};
use super::{ApprovalLedger, PendingApproval};
use crate::handler::BoxFuture;

/// How long a claim waits for the lock by default.
const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(30);

/// The approvals of every process that names the same file, claimed in an [`ApprovalLedger`]
/// kept there as JSON (`{"decided": {APPROVAL_ID: EXPIRES_AT, ...}}`).
///
/// Each claim takes an exclusive lock on a lock file next to the ledger (the ledger's name and
/// `.lock`; it is never removed), reads the ledger as it is now, decides, and when it records
/// the approval writes the whole ledger to a temporary file of its own in the same folder
/// (a unique name), flushed to the disk, renamed over the ledger; then it releases the lock. So
/// a claim always decides on the latest ledger, no process writes back a copy it read earlier,
/// and a reader sees the ledger before or after a claim, never half of one. The approvals that
/// expired are forgotten at each write.
///
/// A missing ledger is an empty one. A ledger that cannot be read or is not a ledger is an
/// error naming the file and why: the claim fails closed (nothing runs) and the file is left as
/// it is, never reset.
///
/// Within the process, claims take turns (waiting asynchronously) before one takes the lock;
/// the lock is awaited on a blocking thread of the Tokio runtime, for at most
/// [`with_lock_wait`](Self::with_lock_wait) (30 seconds by default): a lock another process
/// holds longer fails the claim closed, and the abandoned wait, once it gets the lock, releases
/// it without deciding anything. The ledger must be on a file system whose locks every process
/// sees (a local disk; not every network file system).
#[derive(Debug)]
pub struct FileApprovalStore {
    paths: Arc<Paths>,
    lock_wait: Duration,
    turn: Mutex<()>,
}

/// The ledger and its lock file.
#[derive(Debug)]
struct Paths {
    ledger: PathBuf,
    lock: PathBuf,
}

impl FileApprovalStore {
    /// The store of the ledger at `path` (created by the first claim that records an approval).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        let ledger = path.into();
        let mut lock = ledger.clone().into_os_string();
        lock.push(".lock");
        FileApprovalStore {
            paths: Arc::new(Paths {
                ledger,
                lock: PathBuf::from(lock),
            }),
            lock_wait: DEFAULT_LOCK_WAIT,
            turn: Mutex::new(()),
        }
    }

    /// How long a claim waits for a lock another process holds before it fails.
    #[must_use]
    pub fn with_lock_wait(mut self, wait: Duration) -> Self {
        self.lock_wait = wait;
        self
    }

    /// The ledger file.
    pub fn path(&self) -> &Path {
        &self.paths.ledger
    }

    /// The lock file next to it.
    pub fn lock_path(&self) -> &Path {
        &self.paths.lock
    }

    /// The ledger as it is on the disk now (read under the lock).
    ///
    /// # Errors
    /// When the lock cannot be taken, or the ledger cannot be read or is damaged.
    pub async fn ledger(&self) -> Result<ApprovalLedger, StoreError> {
        self.under_lock(|paths| paths.read()).await
    }

    /// Runs `work` under the lock, on a blocking thread, waiting at most the lock wait.
    async fn under_lock<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Paths) -> Result<T, StoreError> + Send + 'static,
    {
        let _turn = self.turn.lock().await;
        let paths = Arc::clone(&self.paths);
        let abandoned = Arc::new(AtomicBool::new(false));
        let gave_up = Arc::clone(&abandoned);
        let locked = tokio::task::spawn_blocking(move || {
            let lock = paths.locked()?;
            let result = if gave_up.load(Ordering::SeqCst) {
                Err(StoreError::new("the claim was abandoned"))
            } else {
                work(&paths)
            };
            // Closing the file releases the lock too; an error here leaves it to the close.
            let _ = lock.unlock();
            result
        });
        match tokio::time::timeout(self.lock_wait, locked).await {
            Ok(Ok(result)) => result,
            Ok(Err(stopped)) => Err(StoreError::new(format!(
                "the claim in `{}` stopped: {stopped}",
                self.paths.ledger.display()
            ))),
            Err(_) => {
                abandoned.store(true, Ordering::SeqCst);
                Err(StoreError::new(format!(
                    "`{}` stayed locked by another process for {} ms",
                    self.paths.lock.display(),
                    self.lock_wait.as_millis()
                )))
            }
        }
    }
}

impl Paths {
    /// The lock file, locked (waits while another process holds it).
    fn locked(&self) -> Result<File, StoreError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&self.lock)
            .map_err(|e| {
                StoreError::new(format!(
                    "cannot open the lock file `{}`: {e}",
                    self.lock.display()
                ))
            })?;
        file.lock()
            .map_err(|e| StoreError::new(format!("cannot lock `{}`: {e}", self.lock.display())))?;
        Ok(file)
    }

    /// The ledger on the disk (the caller holds the lock).
    fn read(&self) -> Result<ApprovalLedger, StoreError> {
        match fs::read(&self.ledger) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                StoreError::new(format!(
                    "the approval ledger `{}` is damaged ({e}); it was left as it is, and no approval runs until it is repaired or removed",
                    self.ledger.display()
                ))
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(ApprovalLedger::new()),
            Err(e) => Err(StoreError::new(format!(
                "cannot read the approval ledger `{}`: {e}",
                self.ledger.display()
            ))),
        }
    }

    /// Replaces the ledger on the disk (the caller holds the lock): a temporary file of a unique
    /// name in the same folder, flushed, renamed over it.
    fn write(&self, ledger: &ApprovalLedger) -> Result<(), StoreError> {
        let failed = |e: &dyn std::fmt::Display| {
            StoreError::new(format!(
                "cannot write the approval ledger `{}`: {e}",
                self.ledger.display()
            ))
        };
        let text = serde_json::to_vec(ledger).map_err(|e| failed(&e))?;
        let folder = match self.ledger.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let mut temporary = tempfile::Builder::new()
            .prefix(".approvals-")
            .suffix(".tmp")
            .tempfile_in(folder)
            .map_err(|e| failed(&e))?;
        temporary.write_all(&text).map_err(|e| failed(&e))?;
        temporary.as_file().sync_all().map_err(|e| failed(&e))?;
        temporary
            .persist(&self.ledger)
            .map_err(|e| failed(&e.error))?;
        Ok(())
    }

    /// One claim (the caller holds the lock).
    fn decide(&self, approval: &PendingApproval, now: SystemTime) -> Result<Claim, StoreError> {
        let mut ledger = self.read()?;
        let claim = ledger.claim(approval, now);
        if claim == Claim::Won {
            self.write(&ledger)?;
        }
        Ok(claim)
    }
}

impl ApprovalStore for FileApprovalStore {
    fn claim<'a>(
        &'a self,
        approval: &'a PendingApproval,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        let approval = approval.clone();
        Box::pin(self.under_lock(move |paths| paths.decide(&approval, now)))
    }

    fn is_claimed<'a>(&'a self, approval_id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move { Ok(self.ledger().await?.is_decided(approval_id)) })
    }
}

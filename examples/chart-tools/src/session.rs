//! The line protocol of `chart-tools run` and `chart-tools host`: one message (or provider
//! response) per line in, its answer out, and approvals a person gives later.
//!
//! Each input line is one of:
//!
//! - a model message: for `run`, a JSON array of calls (see [`crate::run`]); for `host`, one
//!   response of the chosen provider ([`Provider::calls`]);
//! - decisions about pending approvals:
//!   `{"decisions": {"<approvalId>": {"approve": true} | {"deny": "reason"} | {"edit": {…}}}}`.
//!
//! A message whose calls are all answered gets one line: for `run` the array of
//! `{"id", "name", "result"}`, for `host` the JSON array of the provider's result messages (or
//! items) to append to the conversation. When the approver defers calls (`--approval defer`),
//! the message gets instead one line
//! `{"pending": [{"approvalId", "id", "name", "arguments"}…], "answered": [{"id", "name", "result"}…]}`:
//! the approvals to decide, and the calls of the message that already ran. A decisions line
//! resumes every paused message it decides about, and each of them gets one line: its full
//! answer (every call of the message, in call order, exactly as if it had not paused), or a new
//! pending line when some of its calls still wait.
//!
//! A line longer than the session's bound ([`Session::with_max_line_bytes`], 4 MiB by default)
//! is discarded as it streams in, never held whole, and answered like any line that is not a
//! message (`MESSAGE_INVALID` for `run`, `RESPONSE_INVALID` for `host`); the next line is read
//! as usual.
//!
//! The paused messages can be kept in a state file ([`StateFile`]) that several processes share:
//! read when the command starts, and after every line merged with what the file holds then
//! (under a lock) and written through a temporary file of a unique name, so that a later or a
//! concurrent process resumes them. Whether an approval may still run is never decided by the
//! state file: the registry claims each approval in the session's
//! [`ApprovalStore`] (a ledger file next to the state file, or Redis), where exactly one claim
//! ever wins, so no copy of the state, however old, runs an approval twice.

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt as _};
use toolwright_runtime::approval::{ApprovalStore, Decision, Decisions, MemoryApprovalStore};
use toolwright_runtime::batch::{BatchOutcome, PausedBatch};
use toolwright_runtime::lines::{DEFAULT_MAX_LINE_BYTES, Line, LineReader};
use toolwright_runtime::provider::Provider;
use toolwright_runtime::{Registry, RunPolicy, ToolCall, ToolResult};

use crate::run::{CallAnswer, calls_of_message, error_line, to_json};

/// The code of the answer to a line that is not a response of the chosen provider.
pub const RESPONSE_INVALID: &str = "RESPONSE_INVALID";

/// The code of the answer to a decisions line that is not well formed.
pub const DECISIONS_INVALID: &str = "DECISIONS_INVALID";

/// The code of the answer to decisions about approvals that are not pending.
pub const APPROVAL_UNKNOWN: &str = "APPROVAL_UNKNOWN";

/// What a message line is, and what its answers look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `chart-tools run`: arrays of calls in, arrays of `{"id", "name", "result"}` out.
    Calls,
    /// `chart-tools host`: provider responses in, the provider's result messages out.
    Provider(Provider),
}

/// What survives the process: the paused messages. (Which approvals were decided is the
/// [`ApprovalStore`]'s to say, never a copy of the state's.)
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SavedState {
    /// The messages waiting for decisions, in the order they paused.
    pub paused: Vec<PausedBatch>,
}

/// Why a state file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StateFileError {
    /// It exists but cannot be read.
    #[error("cannot read the state file `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// It is not a saved state (never overwritten then).
    #[error("the state file `{path}` is not a saved approval state: {source}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Where and why.
        source: serde_json::Error,
    },
    /// It cannot be locked or written.
    #[error("cannot write the state file `{path}`: {why}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
}

impl From<StateFileError> for io::Error {
    fn from(error: StateFileError) -> Self {
        let kind = match &error {
            StateFileError::Read { source, .. } => source.kind(),
            StateFileError::Corrupt { .. } => io::ErrorKind::InvalidData,
            StateFileError::Write { .. } => io::ErrorKind::Other,
        };
        io::Error::new(kind, error.to_string())
    }
}

impl SavedState {
    /// The state saved at `path`; nothing pending when the file does not exist.
    ///
    /// # Errors
    /// When the file exists but cannot be read or is not a saved state.
    pub fn load(path: &Path) -> Result<Self, StateFileError> {
        match fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|source| StateFileError::Corrupt {
                path: path.to_owned(),
                source,
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(SavedState::default()),
            Err(source) => Err(StateFileError::Read {
                path: path.to_owned(),
                source,
            }),
        }
    }

    /// How many approvals wait for a decision.
    pub fn pending(&self) -> usize {
        self.paused.iter().map(|p| p.pending().len()).sum()
    }
}

/// How long a process waits for the state file's lock before it gives up.
const STATE_LOCK_WAIT: Duration = Duration::from_secs(10);

/// A state file several processes share: the paused messages of all of them.
///
/// Each process reads it at the start; after each line it takes an exclusive lock on the lock
/// file next to it (its name and `.lock`, never removed), reads the file as it is now, merges
/// its own changes in (the messages it resumed leave, the messages that paused in it join),
/// writes the result to a temporary file of a unique name in the same folder, renames it over
/// the file and releases the lock. No process writes back an older copy: a message another
/// process resumed stays gone, a message another process paused stays there (and this process
/// sees it from its next line on).
#[derive(Debug, Clone)]
pub struct StateFile {
    path: PathBuf,
    lock_path: PathBuf,
}

impl StateFile {
    /// The state file at `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        let mut lock_path = path.clone().into_os_string();
        lock_path.push(".lock");
        StateFile {
            path,
            lock_path: PathBuf::from(lock_path),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the approvals of the processes sharing this state file are claimed by default: the
    /// file's name and `.ledger`, next to it.
    pub fn ledger_path(&self) -> PathBuf {
        let mut ledger = self.path.clone().into_os_string();
        ledger.push(".ledger");
        PathBuf::from(ledger)
    }

    /// The state saved there; nothing pending when the file does not exist.
    ///
    /// # Errors
    /// When the file exists but cannot be read or is not a saved state.
    pub fn load(&self) -> Result<SavedState, StateFileError> {
        SavedState::load(&self.path)
    }

    /// Merges `changes` into the state the file holds now, under the lock, writes the result,
    /// and returns it.
    ///
    /// # Errors
    /// When the lock cannot be taken within 10 seconds, the file cannot be read or written, or
    /// is not a saved state (it is then left as it is).
    pub async fn merge(&self, changes: &Changes) -> Result<SavedState, StateFileError> {
        let file = self.clone();
        let changes = changes.clone();
        let abandoned = Arc::new(AtomicBool::new(false));
        let gave_up = Arc::clone(&abandoned);
        // The lock is awaited on a blocking thread; a wait given up releases it untouched.
        let merged = tokio::task::spawn_blocking(move || {
            let lock = file.locked()?;
            let merged = if gave_up.load(Ordering::SeqCst) {
                Err(file.write_error("the merge was abandoned"))
            } else {
                file.load()
                    .map(|now| changes.applied_to(now))
                    .and_then(|merged| file.write(&merged).map(|()| merged))
            };
            let _ = lock.unlock();
            merged
        });
        match tokio::time::timeout(STATE_LOCK_WAIT, merged).await {
            Ok(Ok(merged)) => merged,
            Ok(Err(stopped)) => Err(self.write_error(stopped)),
            Err(_) => {
                abandoned.store(true, Ordering::SeqCst);
                Err(self.write_error(format!(
                    "`{}` stayed locked by another process for {} s",
                    self.lock_path.display(),
                    STATE_LOCK_WAIT.as_secs()
                )))
            }
        }
    }

    fn write_error(&self, why: impl std::fmt::Display) -> StateFileError {
        StateFileError::Write {
            path: self.path.clone(),
            why: why.to_string(),
        }
    }

    /// The lock file, locked (waits while another process holds it).
    fn locked(&self) -> Result<File, StateFileError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&self.lock_path)
            .map_err(|e| {
                self.write_error(format!(
                    "cannot open its lock file `{}`: {e}",
                    self.lock_path.display()
                ))
            })?;
        file.lock().map_err(|e| {
            self.write_error(format!("cannot lock `{}`: {e}", self.lock_path.display()))
        })?;
        Ok(file)
    }

    /// Replaces the file (the caller holds the lock): a temporary file of a unique name in the
    /// same folder, flushed, renamed over it.
    fn write(&self, state: &SavedState) -> Result<(), StateFileError> {
        let text = serde_json::to_vec_pretty(state).map_err(|e| self.write_error(e))?;
        let folder = match self.path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let mut temporary = tempfile::Builder::new()
            .prefix(".state-")
            .suffix(".tmp")
            .tempfile_in(folder)
            .map_err(|e| self.write_error(e))?;
        temporary
            .write_all(&text)
            .and_then(|()| temporary.as_file().sync_all())
            .map_err(|e| self.write_error(e))?;
        temporary
            .persist(&self.path)
            .map_err(|e| self.write_error(e.error))?;
        Ok(())
    }
}

/// What a session changed in the paused messages since it last merged them into its state file:
/// the pending approvals of the messages it took out to resume, and of the messages that paused
/// in it (new ones, or resumed ones that wait again).
#[derive(Debug, Default, Clone)]
pub struct Changes {
    /// Approval ids of the messages taken out: they leave the file.
    resumed: BTreeSet<String>,
    /// Approval ids of the messages that paused here, with those messages: they join it.
    paused: Vec<PausedBatch>,
}

impl Changes {
    /// True when there is nothing to merge.
    pub fn is_empty(&self) -> bool {
        self.resumed.is_empty() && self.paused.is_empty()
    }

    /// `state` without the messages taken out, with the messages that paused here.
    fn applied_to(&self, state: SavedState) -> SavedState {
        let taken = |batch: &PausedBatch| {
            batch
                .pending()
                .iter()
                .any(|p| self.resumed.contains(&p.approval_id))
        };
        let mut paused: Vec<PausedBatch> = state.paused.into_iter().filter(|b| !taken(b)).collect();
        for batch in &self.paused {
            if !paused.iter().any(|kept| kept.pending() == batch.pending()) {
                paused.push(batch.clone());
            }
        }
        SavedState { paused }
    }
}

/// One run of the line protocol: the registry, the run's policy, the format, the approvals
/// waiting for decisions, and the store that claims decided approvals.
pub struct Session<'a, C> {
    registry: &'a Registry<C>,
    policy: &'a RunPolicy,
    format: Format,
    state: SavedState,
    changes: Changes,
    store: Arc<dyn ApprovalStore>,
    max_line_bytes: usize,
}

impl<C> std::fmt::Debug for Session<'_, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("format", &self.format)
            .field("state", &self.state)
            .field("changes", &self.changes)
            .field("max_line_bytes", &self.max_line_bytes)
            .finish_non_exhaustive()
    }
}

/// One pending approval as the pending line shows it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PendingItem<'a> {
    approval_id: &'a str,
    id: &'a str,
    name: &'a str,
    arguments: &'a Value,
}

#[derive(Serialize)]
struct PendingLine<'a> {
    pending: Vec<PendingItem<'a>>,
    answered: Vec<CallAnswer<'a>>,
}

impl<'a, C> Session<'a, C> {
    /// A session with nothing pending.
    pub fn new(registry: &'a Registry<C>, policy: &'a RunPolicy, format: Format) -> Self {
        Session::resume(registry, policy, format, SavedState::default())
    }

    /// A session that goes on from a saved state, claiming approvals in memory (see
    /// [`Session::with_store`]).
    pub fn resume(
        registry: &'a Registry<C>,
        policy: &'a RunPolicy,
        format: Format,
        state: SavedState,
    ) -> Self {
        Session {
            registry,
            policy,
            format,
            state,
            changes: Changes::default(),
            store: Arc::new(MemoryApprovalStore::new()),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        }
    }

    /// Claims the decided approvals in `store`: one every process that resumes the same
    /// approvals shares (a ledger file on one machine, Redis across machines).
    #[must_use]
    pub fn with_store(mut self, store: Arc<dyn ApprovalStore>) -> Self {
        self.store = store;
        self
    }

    /// The longest line [`Session::serve`] reads, in bytes (the `\n` not counted).
    #[must_use]
    pub fn with_max_line_bytes(mut self, bytes: usize) -> Self {
        self.max_line_bytes = bytes;
        self
    }

    /// The state to save.
    pub fn state(&self) -> &SavedState {
        &self.state
    }

    /// The answer lines (without newlines) to one input line: none for a blank line, one for a
    /// message, one per resumed message (and one for unknown approvals) for decisions.
    pub async fn answer(&mut self, ctx: &mut C, line: &str) -> Vec<String> {
        if line.trim().is_empty() {
            return Vec::new();
        }
        let value: Value = match serde_json::from_str(line) {
            Ok(value) => value,
            Err(e) => return vec![self.invalid_line(&format!("the line is not valid JSON: {e}"))],
        };
        if let Some(decisions) = decisions_of(&value) {
            return match decisions {
                Ok(decisions) => self.decide(ctx, &decisions).await,
                Err(message) => vec![error_line(DECISIONS_INVALID, &message)],
            };
        }
        let calls = match self.format {
            Format::Calls => calls_of_message(value).map_err(|e| e.message().to_owned()),
            Format::Provider(provider) => provider.calls(&value).map_err(|e| e.to_string()),
        };
        let calls = match calls {
            Ok(calls) => calls,
            Err(message) => return vec![self.invalid_line(&message)],
        };
        match self.registry.run_batch(self.policy, ctx, &calls).await {
            BatchOutcome::Complete(results) => vec![self.answer_line(&calls, &results)],
            BatchOutcome::Paused(paused) => {
                let line = pending_line(&paused);
                self.keep(paused);
                vec![line]
            }
        }
    }

    /// Keeps a message that waits for decisions (and merges it into the state file).
    fn keep(&mut self, paused: PausedBatch) {
        self.changes.paused.push(paused.clone());
        self.state.paused.push(paused);
    }

    /// Resumes every paused message the decisions are about.
    async fn decide(&mut self, ctx: &mut C, decisions: &Decisions) -> Vec<String> {
        let mut lines = Vec::new();
        let mut unknown = Vec::new();
        for id in decisions.keys() {
            if self.state.paused.iter().any(|p| p.waits_on(id)) {
                continue;
            }
            unknown.push(match self.store.is_claimed(id).await {
                Ok(true) => format!("approval `{}` was already decided", short(id)),
                Ok(false) => format!("no pending approval `{}`", short(id)),
                Err(e) => format!("approval `{}` is not pending here ({e})", short(id)),
            });
        }
        if !unknown.is_empty() {
            lines.push(error_line(APPROVAL_UNKNOWN, &unknown.join("; ")));
        }
        for paused in std::mem::take(&mut self.state.paused) {
            if !decisions.keys().any(|id| paused.waits_on(id)) {
                self.state.paused.push(paused);
                continue;
            }
            let calls = paused.calls().to_vec();
            self.changes
                .resumed
                .extend(paused.pending().iter().map(|p| p.approval_id.clone()));
            self.changes
                .paused
                .retain(|kept| kept.pending() != paused.pending());
            let outcome = self
                .registry
                .resume_batch(self.policy, ctx, paused, decisions, &*self.store)
                .await;
            match outcome {
                BatchOutcome::Complete(results) => lines.push(self.answer_line(&calls, &results)),
                BatchOutcome::Paused(paused) => {
                    lines.push(pending_line(&paused));
                    self.keep(paused);
                }
            }
        }
        lines
    }

    /// The line answering every call of a message.
    fn answer_line(&self, calls: &[ToolCall], results: &[ToolResult]) -> String {
        match self.format {
            Format::Calls => {
                let answers: Vec<CallAnswer<'_>> = calls
                    .iter()
                    .zip(results)
                    .map(|(call, result)| CallAnswer {
                        id: &call.id,
                        name: &call.name,
                        result,
                    })
                    .collect();
                to_json(&answers)
            }
            Format::Provider(provider) => to_json(&provider.results(calls, results)),
        }
    }

    /// The line answering a line that is not a message.
    fn invalid_line(&self, message: &str) -> String {
        match self.format {
            Format::Calls => crate::run::invalid_line(message),
            Format::Provider(_) => error_line(RESPONSE_INVALID, message),
        }
    }

    /// Merges what this session changed into `file` (see [`StateFile`]) and goes on from what
    /// the file holds then, with the messages other processes paused.
    ///
    /// # Errors
    /// When the state file cannot be locked, read or written.
    pub async fn merge_into(&mut self, file: &StateFile) -> Result<(), StateFileError> {
        self.state = file.merge(&self.changes).await?;
        self.changes = Changes::default();
        Ok(())
    }

    /// Reads lines from `input` until its end and writes their answers to `output`, flushing
    /// after each; after each line this session's changes are merged into `state_file`, when
    /// there is one.
    ///
    /// # Errors
    /// When reading `input`, writing `output` or writing the state file fails.
    pub async fn serve<R, W>(
        &mut self,
        ctx: &mut C,
        input: R,
        mut output: W,
        state_file: Option<&StateFile>,
    ) -> io::Result<()>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        let mut input = LineReader::new(input, self.max_line_bytes);
        while let Some(line) = input.next_line().await? {
            let answers = match line {
                Line::TooLong => vec![self.invalid_line(&format!(
                    "the line is over {} bytes, the most a line may have; it was discarded unread",
                    self.max_line_bytes
                ))],
                Line::Complete(line) => match std::str::from_utf8(&line) {
                    Ok(line) => self.answer(ctx, line).await,
                    Err(_) => vec![self.invalid_line("the line is not valid UTF-8")],
                },
            };
            // The answers are written even when the state file is not: a call that ran is
            // reported. The failure ends the session after them.
            let saved = match state_file.filter(|_| !answers.is_empty()) {
                Some(file) => self.merge_into(file).await,
                None => Ok(()),
            };
            for answer in answers {
                output.write_all(answer.as_bytes()).await?;
                output.write_all(b"\n").await?;
            }
            output.flush().await?;
            saved?;
        }
        Ok(())
    }
}

/// The line of a paused message: its pending approvals and the calls already answered.
fn pending_line(paused: &PausedBatch) -> String {
    to_json(&PendingLine {
        pending: paused
            .pending()
            .iter()
            .map(|p| PendingItem {
                approval_id: &p.approval_id,
                id: &p.call_id,
                name: &p.name,
                arguments: &p.arguments,
            })
            .collect(),
        answered: paused
            .answered()
            .map(|(call, result)| CallAnswer {
                id: &call.id,
                name: &call.name,
                result,
            })
            .collect(),
    })
}

/// The decisions of a decisions line, `None` for any other line.
fn decisions_of(value: &Value) -> Option<Result<Decisions, String>> {
    let fields = value.as_object()?;
    let decisions = fields.get("decisions")?;
    if let Some(other) = fields.keys().find(|k| *k != "decisions") {
        return Some(Err(format!(
            "unexpected key \"{}\" next to \"decisions\"",
            short(other)
        )));
    }
    let Some(entries) = decisions.as_object() else {
        return Some(Err(
            "\"decisions\" must be an object from approval ids to decisions".to_owned(),
        ));
    };
    let mut parsed = Decisions::new();
    let mut problems = Vec::new();
    for (id, decision) in entries {
        match decision_of(decision) {
            Some(decision) => {
                parsed.insert(id.clone(), decision);
            }
            None => problems.push(format!(
                "decisions/{}: expected {{\"approve\": true}}, {{\"deny\": \"reason\"}} or {{\"edit\": {{…arguments}}}}",
                short(id)
            )),
        }
    }
    Some(if problems.is_empty() {
        Ok(parsed)
    } else {
        Err(problems.join("; "))
    })
}

fn decision_of(value: &Value) -> Option<Decision> {
    let fields: &Map<String, Value> = value.as_object()?;
    if fields.len() != 1 {
        return None;
    }
    match fields.iter().next()? {
        (key, Value::Bool(true)) if key == "approve" => Some(Decision::Approve),
        (key, Value::String(reason)) if key == "deny" => Some(Decision::deny(reason.clone())),
        (key, arguments @ Value::Object(_)) if key == "edit" => Some(Decision::Edit {
            arguments: arguments.clone(),
        }),
        _ => None,
    }
}

/// At most 64 characters of an id or key a message quotes.
fn short(text: &str) -> String {
    match text.char_indices().nth(64) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

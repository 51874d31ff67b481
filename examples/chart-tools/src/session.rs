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
//! The paused messages and the ledger of decided approvals can be kept in a state file
//! ([`SavedState`]), read when the command starts and written (atomically) after every line, so
//! that a later process resumes them and never runs an approval twice.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt as _};
use toolwright_runtime::approval::{ApprovalLedger, Decision, Decisions};
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

/// What survives the process: the paused messages and the approvals already decided.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SavedState {
    /// The messages waiting for decisions, in the order they paused.
    pub paused: Vec<PausedBatch>,
    /// Every approval already decided.
    pub ledger: ApprovalLedger,
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

    /// Writes the state to `path` atomically (a temporary file in the same folder, renamed).
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn save(&self, path: &Path) -> io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(".tmp");
        let temporary = PathBuf::from(temporary);
        fs::write(&temporary, text)?;
        fs::rename(&temporary, path)
    }

    /// How many approvals wait for a decision.
    pub fn pending(&self) -> usize {
        self.paused.iter().map(|p| p.pending().len()).sum()
    }
}

/// One run of the line protocol: the registry, the run's policy, the format, and the approvals
/// waiting for decisions.
#[derive(Debug)]
pub struct Session<'a, C> {
    registry: &'a Registry<C>,
    policy: &'a RunPolicy,
    format: Format,
    state: SavedState,
    max_line_bytes: usize,
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

    /// A session that goes on from a saved state.
    pub fn resume(
        registry: &'a Registry<C>,
        policy: &'a RunPolicy,
        format: Format,
        mut state: SavedState,
    ) -> Self {
        state.ledger.prune(policy.now());
        Session {
            registry,
            policy,
            format,
            state,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        }
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
                self.state.paused.push(paused);
                vec![line]
            }
        }
    }

    /// Resumes every paused message the decisions are about.
    async fn decide(&mut self, ctx: &mut C, decisions: &Decisions) -> Vec<String> {
        let mut lines = Vec::new();
        let unknown: Vec<String> = decisions
            .keys()
            .filter(|id| !self.state.paused.iter().any(|p| p.waits_on(id)))
            .map(|id| {
                if self.state.ledger.is_decided(id) {
                    format!("approval `{}` was already decided", short(id))
                } else {
                    format!("no pending approval `{}`", short(id))
                }
            })
            .collect();
        if !unknown.is_empty() {
            lines.push(error_line(APPROVAL_UNKNOWN, &unknown.join("; ")));
        }
        for paused in std::mem::take(&mut self.state.paused) {
            if !decisions.keys().any(|id| paused.waits_on(id)) {
                self.state.paused.push(paused);
                continue;
            }
            let calls = paused.calls().to_vec();
            let outcome = self
                .registry
                .resume_batch(self.policy, ctx, paused, decisions, &mut self.state.ledger)
                .await;
            match outcome {
                BatchOutcome::Complete(results) => lines.push(self.answer_line(&calls, &results)),
                BatchOutcome::Paused(paused) => {
                    lines.push(pending_line(&paused));
                    self.state.paused.push(paused);
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

    /// Reads lines from `input` until its end and writes their answers to `output`, flushing
    /// after each; after each line the state is written to `state_file`, when there is one.
    ///
    /// # Errors
    /// When reading `input`, writing `output` or writing the state file fails.
    pub async fn serve<R, W>(
        &mut self,
        ctx: &mut C,
        input: R,
        mut output: W,
        state_file: Option<&Path>,
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
            if let Some(path) = state_file.filter(|_| !answers.is_empty()) {
                self.state.save(path).map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!("cannot write the state file `{}`: {e}", path.display()),
                    )
                })?;
            }
            for answer in answers {
                output.write_all(answer.as_bytes()).await?;
                output.write_all(b"\n").await?;
            }
            output.flush().await?;
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

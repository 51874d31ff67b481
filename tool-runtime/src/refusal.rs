//! Every way a call is answered other than by the tool's own success or declared error, as one
//! value: its code, its message, its recovery hint, its `stateChanged` and the label its span
//! records all come from here. No code recognizes a refusal by its text.

use std::time::Duration;

use toolwright_core::ToolMeta;

use crate::envelope::{ErrorBody, RuntimeCode, ToolResult};
use crate::validate::bounded;

/// The hint of `TOOL_INPUT_INVALID`.
const ACTION_INPUT_INVALID: &str = "Correct the invalid field and retry the request.";
/// The hint of a write in a read-only run.
const ACTION_READ_ONLY_RUN: &str =
    "Do not retry: this run is read-only. Use only the tools offered in this run.";
/// The hint of a tool the user disabled.
const ACTION_DISABLED: &str =
    "Do not retry: the user disabled this tool. Use only the tools offered in this run.";
/// The hint of a call the approver denied.
const ACTION_WITHHELD: &str =
    "Do not retry: the host withholds this tool for now. Use only the tools offered in this run.";
const ACTION_DENIED: &str =
    "Do not retry the same call: it was not approved. Ask the user how to proceed.";
/// The hint of a call that needs an approval nobody can give now.
const ACTION_APPROVAL_PENDING: &str =
    "Do not retry now: the call needs the user's approval. Ask the user, or answer without it.";
/// The hint of an approval that is no longer valid (expired, already used, changed).
const ACTION_APPROVAL_INVALID: &str = "Do not retry the same call: its approval is no longer valid. Ask the user whether to make the call again.";
/// The hint of an approval the store of approvals could not claim (it did not answer).
const ACTION_APPROVAL_STORE_UNAVAILABLE: &str = "Retry the same call later: its approval was not used and nothing ran. Tell the user if it keeps failing.";
/// The hint of a call the tool itself refused.
const ACTION_REFUSED_BY_TOOL: &str =
    "Do not retry: the host does not allow this call. Tell the user, or answer without this tool.";
/// The hint of `TOOL_NOT_FOUND`.
const ACTION_NOT_FOUND: &str = "Call one of the offered tools by its exact name.";
/// The hint of calls past the message's bound.
const ACTION_TOO_MANY_CALLS: &str =
    "Do not retry in this message: send fewer tool calls per message.";
/// The hint of `TOOL_TIMEOUT` for a read-only tool.
const ACTION_TIMEOUT: &str = "Retry the request, or narrow it so it finishes sooner.";
/// The hint of `TOOL_TIMEOUT` for a destructive tool (it may have changed state).
const ACTION_TIMEOUT_DESTRUCTIVE: &str = "The tool may have changed state before it was stopped: check the current state, then retry only if needed.";
/// The hint of an output over its budget.
const ACTION_OUTPUT_TOO_LARGE: &str = "Retry with a narrower request (a shorter range, fewer items, a lower limit) so the output fits.";
/// The hint of an output over its budget from a call that changed state.
const ACTION_OUTPUT_TOO_LARGE_CHANGED: &str = "The call changed state, but its output was too large to return: do not repeat it; check the current state with a narrower request.";
/// The hint of `TOOL_FAILED`.
const ACTION_FAILED: &str =
    "Do not retry the same call: tell the user the tool failed, or try another approach.";
/// The hint of `TOOL_FAILED` for a destructive tool (it may have changed state).
const ACTION_FAILED_DESTRUCTIVE: &str = "The tool may have changed state before it failed: check the current state, and tell the user the tool failed.";

/// How many characters of a denial's reason reach the model.
pub const DENY_REASON_LIMIT: usize = 300;

/// The longest tool name (or code) a message quotes in full.
pub(crate) const NAME_QUOTE_LIMIT: usize = 64;

/// How many characters of a tool's own failure or refusal message reach the model.
const TOOL_MESSAGE_LIMIT: usize = 300;

/// The longest reason a withheld tool's refusal quotes, in bytes (it may list what changed).
pub const WITHHELD_REASON_LIMIT: usize = 1000;

/// Why a call was answered with a runtime code: refused before it ran, or failed while or after
/// it ran. [`Refusal::answer`] writes its envelope; [`Refusal::label`] is what its span records
/// as `tool.refusal`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// No tool of that name; the offered tools closest to it.
    NotFound {
        /// Up to three close names, closest first.
        close: Vec<&'static str>,
    },
    /// A tool that is not read-only, in a read-only run.
    ReadOnlyRun,
    /// A tool the user switched off.
    Disabled,
    /// The host withholds the tool for now, for this reason (a pinned tool whose upstream
    /// definition changed since it was pinned).
    Withheld {
        /// The whole message, as the host words it.
        reason: String,
    },
    /// The approver denied the call, with the person's reason (may be empty).
    Denied {
        /// Why.
        reason: String,
    },
    /// The call waits for a person's approval and nobody can give it now: the host answers
    /// every call at once (`why` is `None`), or the client cannot be asked (`why` says why).
    ApprovalPending {
        /// Why it cannot be asked, when it is the client.
        why: Option<String>,
    },
    /// The approval of a resumed call is no longer valid: its saved call changed, it was used,
    /// it expired. `why` ends the sentence `The approval of the call to X was refused: `.
    ApprovalInvalid {
        /// Why, as a sentence ending in `.`.
        why: String,
    },
    /// The approval of a resumed call could not be claimed: the store of approvals did not
    /// answer (unreachable, damaged). It fails closed: nothing runs, the approval is not used,
    /// and the same resume may be tried again. `TOOL_FAILED`, retryable.
    ApprovalStoreUnavailable {
        /// What the store said, lowercase, without a final period.
        why: String,
    },
    /// A call of a sequential message that waited behind a call whose approval was refused.
    BehindRefused {
        /// The tool of that call.
        before: String,
    },
    /// A call past [`Limits::max_batch_calls`](crate::limits::Limits::max_batch_calls).
    TooManyCalls {
        /// The calls of the message.
        count: usize,
        /// How many may run.
        limit: usize,
    },
    /// The arguments fail the schema, the registry's bounds or the typed input.
    InputInvalid {
        /// The report, `The tool input is invalid: <pointer>: <message>; …`.
        report: String,
    },
    /// The tool refused the call for a reason of the host's policy (`ToolError::NotAllowed`).
    RefusedByTool {
        /// The tool's words.
        message: String,
    },
    /// The tool panicked.
    Panicked,
    /// The tool ran past its time limit.
    TimedOut {
        /// The limit.
        limit: Duration,
    },
    /// A success whose `data` is over the tool's output budget.
    OverBudget {
        /// The size of `data`, in bytes of JSON text.
        size: u64,
        /// The budget.
        budget: u64,
        /// Whether the call changed state.
        changed: bool,
    },
    /// A success whose `data` breaks the tool's declared output schema.
    OutputOffSchema {
        /// Whether the call changed state.
        changed: bool,
    },
    /// The tool failed without a declared code (`ToolError::Failed`, an output that does not
    /// serialize).
    Failed {
        /// The tool's words.
        message: String,
    },
    /// The tool failed with a code it does not declare.
    UndeclaredCode {
        /// The code.
        code: String,
    },
    /// A tool that takes the context to itself, in a message whose calls share it (a batch
    /// never does this: such a call makes its message sequential).
    NotShareable,
    /// A call without a result: the host passed a provider adapter fewer results than calls
    /// (a batch never leaves one unanswered; its fallback keeps it free of panics).
    NoAnswer,
}

impl Refusal {
    /// The runtime code of the envelope.
    pub fn code(&self) -> RuntimeCode {
        match self {
            Refusal::NotFound { .. } => RuntimeCode::NotFound,
            Refusal::InputInvalid { .. } => RuntimeCode::InputInvalid,
            Refusal::ReadOnlyRun
            | Refusal::Disabled
            | Refusal::Withheld { .. }
            | Refusal::Denied { .. }
            | Refusal::ApprovalPending { .. }
            | Refusal::ApprovalInvalid { .. }
            | Refusal::BehindRefused { .. }
            | Refusal::TooManyCalls { .. }
            | Refusal::RefusedByTool { .. } => RuntimeCode::NotAllowed,
            Refusal::TimedOut { .. } => RuntimeCode::Timeout,
            Refusal::Panicked
            | Refusal::OverBudget { .. }
            | Refusal::OutputOffSchema { .. }
            | Refusal::Failed { .. }
            | Refusal::UndeclaredCode { .. }
            | Refusal::ApprovalStoreUnavailable { .. }
            | Refusal::NotShareable
            | Refusal::NoAnswer => RuntimeCode::Failed,
        }
    }

    /// Why the call was answered without running, as its span records it (`tool.refusal`);
    /// `None` for a call that ran and failed.
    pub fn label(&self) -> Option<&'static str> {
        Some(match self {
            Refusal::NotFound { .. } => "not_found",
            Refusal::InputInvalid { .. } => "input_invalid",
            Refusal::ReadOnlyRun => "read_only_run",
            Refusal::Disabled => "disabled",
            Refusal::Withheld { .. } => "withheld",
            Refusal::Denied { .. } => "denied",
            Refusal::ApprovalPending { .. } => "approval_pending",
            Refusal::ApprovalInvalid { .. } | Refusal::BehindRefused { .. } => "approval_invalid",
            Refusal::ApprovalStoreUnavailable { .. } => "approval_store_unavailable",
            Refusal::TooManyCalls { .. } => "too_many_calls",
            Refusal::RefusedByTool { .. } => "refused_by_tool",
            Refusal::Panicked
            | Refusal::TimedOut { .. }
            | Refusal::OverBudget { .. }
            | Refusal::OutputOffSchema { .. }
            | Refusal::Failed { .. }
            | Refusal::UndeclaredCode { .. }
            | Refusal::NotShareable
            | Refusal::NoAnswer => return None,
        })
    }

    /// The envelope of this refusal of a call to `name`; `meta` is the tool's declaration when
    /// there is such a tool (a destructive tool that may have run answers `stateChanged: true`,
    /// and its hints say so).
    pub fn answer(&self, name: &str, meta: Option<&ToolMeta>) -> ToolResult {
        let destructive = meta.is_some_and(|meta| !meta.safety.is_read_only());
        let failed_action = if destructive {
            ACTION_FAILED_DESTRUCTIVE
        } else {
            ACTION_FAILED
        };
        let (message, action, state_changed) = match self {
            Refusal::NotFound { close } => {
                let mut message = format!(
                    "The tool `{}` does not exist.",
                    bounded(name, NAME_QUOTE_LIMIT)
                );
                if !close.is_empty() {
                    let listed: Vec<String> = close.iter().map(|n| format!("`{n}`")).collect();
                    message.push_str(&format!(" Close names: {}.", listed.join(", ")));
                }
                (message, ACTION_NOT_FOUND.to_owned(), false)
            }
            Refusal::ReadOnlyRun => (
                format!("The tool `{name}` changes state and this run is read-only."),
                ACTION_READ_ONLY_RUN.to_owned(),
                false,
            ),
            Refusal::Disabled => (
                format!("The tool `{name}` is disabled by the user."),
                ACTION_DISABLED.to_owned(),
                false,
            ),
            Refusal::Withheld { reason } => (
                bounded(reason, WITHHELD_REASON_LIMIT),
                ACTION_WITHHELD.to_owned(),
                false,
            ),
            Refusal::Denied { reason } => {
                let reason = reason.trim();
                let message = if reason.is_empty() {
                    format!("The call to `{name}` was not approved.")
                } else {
                    format!(
                        "The call to `{name}` was not approved: {}",
                        bounded(reason, DENY_REASON_LIMIT)
                    )
                };
                (message, ACTION_DENIED.to_owned(), false)
            }
            Refusal::ApprovalPending { why: None } => (
                format!(
                    "The call to `{name}` waits for a person's approval, and this host cannot wait for it; it was not run."
                ),
                ACTION_APPROVAL_PENDING.to_owned(),
                false,
            ),
            Refusal::ApprovalPending { why: Some(why) } => (
                format!(
                    "The call to `{name}` needs the user's approval, and it cannot be asked: {why}. It was not run."
                ),
                ACTION_APPROVAL_PENDING.to_owned(),
                false,
            ),
            Refusal::ApprovalInvalid { why } => (
                format!("The approval of the call to `{name}` was refused: {why}"),
                ACTION_APPROVAL_INVALID.to_owned(),
                false,
            ),
            Refusal::ApprovalStoreUnavailable { why } => (
                format!(
                    "The approval of the call to `{name}` could not be claimed: {why}. The approval was not used and the call was not run; it can be retried."
                ),
                ACTION_APPROVAL_STORE_UNAVAILABLE.to_owned(),
                false,
            ),
            Refusal::BehindRefused { before } => (
                format!(
                    "The call to `{name}` was not run: it waited behind a call to `{before}` whose approval was refused."
                ),
                ACTION_APPROVAL_INVALID.to_owned(),
                false,
            ),
            Refusal::TooManyCalls { count, limit } => (
                format!(
                    "The message has {count} tool calls and at most {limit} may run; this call was not run."
                ),
                ACTION_TOO_MANY_CALLS.to_owned(),
                false,
            ),
            Refusal::InputInvalid { report } => {
                (report.clone(), ACTION_INPUT_INVALID.to_owned(), false)
            }
            Refusal::RefusedByTool { message } => (
                bounded(message, TOOL_MESSAGE_LIMIT),
                ACTION_REFUSED_BY_TOOL.to_owned(),
                false,
            ),
            Refusal::Panicked => (
                format!("The tool `{name}` failed unexpectedly."),
                failed_action.to_owned(),
                destructive,
            ),
            Refusal::TimedOut { limit } => (
                format!(
                    "The tool `{name}` did not finish within {}.",
                    describe(*limit)
                ),
                if destructive {
                    ACTION_TIMEOUT_DESTRUCTIVE
                } else {
                    ACTION_TIMEOUT
                }
                .to_owned(),
                destructive,
            ),
            Refusal::OverBudget {
                size,
                budget,
                changed,
            } => {
                let mut action = if *changed {
                    ACTION_OUTPUT_TOO_LARGE_CHANGED
                } else {
                    ACTION_OUTPUT_TOO_LARGE
                }
                .to_owned();
                for hint in meta.into_iter().flat_map(narrowing_hints) {
                    action.push(' ');
                    action.push_str(hint);
                }
                (
                    format!(
                        "The output of `{name}` is {size} bytes, more than its budget of {budget} bytes, so it was not returned: a narrower request is needed."
                    ),
                    action,
                    *changed,
                )
            }
            Refusal::OutputOffSchema { changed } => (
                format!(
                    "The tool `{name}` returned output that does not match its declared output schema."
                ),
                if destructive && *changed {
                    ACTION_FAILED_DESTRUCTIVE
                } else {
                    ACTION_FAILED
                }
                .to_owned(),
                *changed,
            ),
            Refusal::Failed { message } => (
                format!(
                    "The tool `{name}` failed: {}",
                    bounded(message, TOOL_MESSAGE_LIMIT)
                ),
                failed_action.to_owned(),
                destructive,
            ),
            Refusal::UndeclaredCode { code } => (
                format!(
                    "The tool `{name}` failed with the undeclared error code `{}`.",
                    bounded(code, NAME_QUOTE_LIMIT)
                ),
                failed_action.to_owned(),
                destructive,
            ),
            Refusal::NotShareable => (
                format!("The tool `{name}` cannot run in a parallel message."),
                ACTION_FAILED.to_owned(),
                false,
            ),
            Refusal::NoAnswer => (
                "The host gave no result for this call.".to_owned(),
                ACTION_FAILED.to_owned(),
                false,
            ),
        };
        let code = self.code();
        // The `TOOL_FAILED`s the same call may get past: a narrower request, a store of
        // approvals that answers again.
        let retryable = code.retryable()
            || matches!(
                self,
                Refusal::OverBudget { .. } | Refusal::ApprovalStoreUnavailable { .. }
            );
        ToolResult::failure(
            ErrorBody {
                code: code.as_str().to_owned(),
                message,
                retryable,
                recommended_action: action,
            },
            state_changed,
        )
    }
}

/// The recovery hints of the tool's declared errors about a request too large, in declaration
/// order: those whose code has a part `TOO` (`RANGE_TOO_LARGE`, `TOO_MANY_SYMBOLS`). Such an
/// error tells how to narrow a request, which is what an output over its budget needs too.
/// Codes about a range or a limit in general (`DATE_OUT_OF_RANGE`, `PANE_LIMIT_REACHED`) are
/// not taken: their hints are about where, or about state, not about size.
fn narrowing_hints(meta: &ToolMeta) -> impl Iterator<Item = &'static str> {
    meta.errors
        .iter()
        .filter(|e| e.code.split('_').any(|part| part == "TOO"))
        .map(|e| e.recommended_action)
}

/// `30 s`, `1.5 s`, `250 ms`.
pub(crate) fn describe(limit: Duration) -> String {
    let millis = limit.as_millis();
    if millis >= 1000 && millis.is_multiple_of(1000) {
        format!("{} s", millis / 1000)
    } else if millis >= 1000 {
        format!("{:.1} s", limit.as_secs_f64())
    } else {
        format!("{millis} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_before_the_tool_runs_has_its_own_label_and_changes_nothing() {
        let before = [
            Refusal::NotFound { close: Vec::new() },
            Refusal::ReadOnlyRun,
            Refusal::Disabled,
            Refusal::Withheld { reason: "r".into() },
            Refusal::Denied {
                reason: String::new(),
            },
            Refusal::ApprovalPending { why: None },
            Refusal::ApprovalInvalid { why: "x.".into() },
            Refusal::ApprovalStoreUnavailable { why: "down".into() },
            Refusal::TooManyCalls { count: 2, limit: 1 },
            Refusal::InputInvalid { report: "r".into() },
            Refusal::RefusedByTool {
                message: "m".into(),
            },
        ];
        let labels: std::collections::BTreeSet<_> = before
            .iter()
            .map(|refusal| refusal.label().expect("a label"))
            .collect();
        assert_eq!(labels.len(), before.len(), "{labels:?}");
        for refusal in &before {
            assert!(!refusal.answer("t", None).state_changed(), "{refusal:?}");
        }
        for ran in [
            Refusal::Panicked,
            Refusal::TimedOut {
                limit: Duration::from_secs(1),
            },
            Refusal::Failed {
                message: "m".into(),
            },
        ] {
            assert_eq!(ran.label(), None, "{ran:?}");
        }
    }

    #[test]
    fn a_store_that_did_not_answer_fails_closed_and_may_be_retried() {
        let refusal = Refusal::ApprovalStoreUnavailable {
            why: "the approval store did not answer: connection refused".into(),
        };
        let result = refusal.answer("drawings_clear", None);
        let error = result.error().expect("a failure");
        assert_eq!(error.code, "TOOL_FAILED");
        assert!(error.retryable);
        assert!(!result.state_changed());
        assert_eq!(
            error.message,
            "The approval of the call to `drawings_clear` could not be claimed: the approval store did not answer: connection refused. The approval was not used and the call was not run; it can be retried."
        );
        assert_eq!(refusal.label(), Some("approval_store_unavailable"));
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(describe(Duration::from_secs(30)), "30 s");
        assert_eq!(describe(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(describe(Duration::from_millis(250)), "250 ms");
    }
}

//! The calls of one model message: in parallel when every tool allows it, otherwise one at a time
//! in order. Either way, exactly one result per call, in call order.

use std::future::Future as _;
use std::task::Poll;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tracing::Instrument as _;

use crate::approval::{
    ApprovalLedger, BatchOutcome, Decision, Decisions, PausedBatch, PendingApproval, expiry,
};
use crate::envelope::{ACTION_APPROVAL_INVALID, ACTION_FAILED, ErrorBody, RuntimeCode, ToolResult};
use crate::policy::RunPolicy;
use crate::registry::{Admission, Registered, Registry, cannot_wait, denied, not_allowed};
use crate::tool::Handler;
use crate::trace;
use crate::validate::bounded;

pub use toolwright_core::model::json_kind;

/// The recovery hint of a call past [`Limits::max_batch_calls`](crate::Limits::max_batch_calls).
pub const ACTION_TOO_MANY_CALLS: &str =
    "Do not retry in this message: send fewer tool calls per message.";

/// One tool call as the model issued it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The provider's call id, to pair the result with the call.
    pub id: String,
    /// The tool's name (possibly one that does not exist).
    pub name: String,
    /// The arguments; an absent field reads as `{}`.
    #[serde(default = "empty_object")]
    pub arguments: Value,
    /// Why the arguments the provider sent are not a JSON object (`Expected object, found an
    /// array`), when they are not. Such a call is answered `TOOL_INPUT_INVALID` at `/` with this
    /// message, after the policy check, and never reaches the approver or the tool; the other
    /// calls of its message run as usual. Set by [`ToolCall::from_arguments`] and
    /// [`ToolCall::from_json_text`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_error: Option<String>,
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

/// How much of a JSON parse error an arguments report quotes.
const PARSE_ERROR_LIMIT: usize = 120;

impl ToolCall {
    /// A call.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
            arguments_error: None,
        }
    }

    /// A call whose arguments came as a JSON value: anything but an object makes it an
    /// invalid call (`Expected object, found an array`).
    pub fn from_arguments(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: Value,
    ) -> Self {
        let arguments_error = (!arguments.is_object())
            .then(|| format!("Expected object, found {}", json_kind(&arguments)));
        ToolCall {
            arguments_error,
            ..ToolCall::new(id, name, arguments)
        }
    }

    /// A call whose arguments came as JSON text (OpenAI's `function.arguments`): text that does
    /// not parse, or parses to anything but an object, makes it an invalid call. Empty text
    /// (some OpenAI-compatible servers send it for a function without parameters) reads as `{}`.
    /// The arguments of an invalid call hold the text as a JSON string.
    pub fn from_json_text(id: impl Into<String>, name: impl Into<String>, text: &str) -> Self {
        if text.trim().is_empty() {
            return ToolCall::new(id, name, empty_object());
        }
        match serde_json::from_str::<Value>(text) {
            Ok(arguments @ Value::Object(_)) => ToolCall::new(id, name, arguments),
            Ok(other) => ToolCall {
                arguments_error: Some(format!(
                    "Expected object, found a JSON string that encodes {}",
                    json_kind(&other)
                )),
                ..ToolCall::new(id, name, Value::String(text.to_owned()))
            },
            Err(error) => ToolCall {
                arguments_error: Some(format!(
                    "Expected object, found a JSON string that does not parse: {}",
                    bounded(&error.to_string(), PARSE_ERROR_LIMIT)
                )),
                ..ToolCall::new(id, name, Value::String(text.to_owned()))
            },
        }
    }
}

/// One call's outcome inside a batch.
enum Step {
    /// Answered.
    Done(ToolResult),
    /// The approver deferred it; its validated arguments.
    Deferred(Value),
}

/// What a resumed approval comes to before anything runs.
pub(crate) enum Settled<'a, C> {
    /// Run the tool with these (checked) arguments.
    Run(&'a Registered<C>, Value),
    /// Answered without running (denied, invalid edit, refused by the policy).
    Answered(ToolResult),
    /// The approval itself is not valid (changed, used, expired): nothing runs, and in a
    /// sequential message nothing after it either.
    Refused(ToolResult),
}

impl<C> Registry<C> {
    /// True when the calls must run one at a time: one of them targets a registered
    /// `sequential` tool (whether or not the policy lets it run).
    pub fn is_sequential(&self, calls: &[ToolCall]) -> bool {
        calls.iter().any(|call| {
            self.tools.get(call.name.as_str()).is_some_and(|tool| {
                tool.def.meta.mode.is_sequential()
                    || matches!(tool.def.handler, Handler::Exclusive(_))
            })
        })
    }

    /// Runs the calls of one message and returns one result per call, in call order.
    ///
    /// When every call targets a `parallel` tool (or none at all), the calls run concurrently and
    /// share `&C`; when any targets a `sequential` tool, they run one at a time, in order, each
    /// with the context to itself. Unknown, refused and invalid calls get their envelope without
    /// running anything; a panic or a timeout affects only its own call. A call the approver
    /// defers is answered `TOOL_NOT_ALLOWED` here: a host that can wait for a person uses
    /// [`Registry::run_batch`].
    pub async fn execute_batch(
        &self,
        policy: &RunPolicy,
        ctx: &mut C,
        calls: &[ToolCall],
    ) -> Vec<ToolResult> {
        let sequential = self.is_sequential(admitted(calls, self.limits.max_batch_calls));
        let span = trace::batch_span("execute_batch", calls.len(), sequential);
        let (results, _) = self
            .start_batch(policy, ctx, calls, false)
            .instrument(span)
            .await;
        answered(results)
    }

    /// Runs the calls of one message as [`Registry::execute_batch`] does, except that a call
    /// the approver defers waits for a person: the outcome is then a [`PausedBatch`] holding a
    /// [`PendingApproval`] for each deferred call and the results of the calls that were
    /// answered. In a sequential message nothing after a pending call runs; those calls wait in
    /// the paused batch and run when it is resumed. See [`crate::approval`].
    pub async fn run_batch(
        &self,
        policy: &RunPolicy,
        ctx: &mut C,
        calls: &[ToolCall],
    ) -> BatchOutcome {
        let sequential = self.is_sequential(admitted(calls, self.limits.max_batch_calls));
        let span = trace::batch_span("run_batch", calls.len(), sequential);
        let (results, pending) = self
            .start_batch(policy, ctx, calls, true)
            .instrument(span.clone())
            .await;
        span.record("tool.batch.pending", pending.len());
        outcome(|| calls.to_vec(), results, pending, sequential)
    }

    /// Resumes a paused batch with a person's decisions (by approval id), recording each decided
    /// approval in `ledger`.
    ///
    /// An approved call runs with exactly the arguments of its approval (an edited one with the
    /// edited arguments, checked again); a denied one is answered `TOOL_NOT_ALLOWED` with the
    /// reason. An approval without a decision (or with [`Decision::Defer`]) stays pending. An
    /// approval whose digest does not match its saved call, that expired, or that the ledger
    /// already holds is refused with `TOOL_NOT_ALLOWED` saying why, and nothing runs. In a
    /// sequential message the calls that waited behind a decided call then run (the approver is
    /// consulted for them as usual, and may defer again), or, when its approval was refused,
    /// are refused too.
    ///
    /// The policy is checked again for every call (a read-only resume runs no write), before
    /// the approval is recorded: a call the policy refuses leaves its approval unused.
    pub async fn resume_batch(
        &self,
        policy: &RunPolicy,
        ctx: &mut C,
        paused: PausedBatch,
        decisions: &Decisions,
        ledger: &mut ApprovalLedger,
    ) -> BatchOutcome {
        let PausedBatch {
            calls,
            mut results,
            pending,
            sequential,
        } = paused;
        let span = trace::batch_span("resume_batch", calls.len(), sequential);
        let now = policy.now();
        let mut still_pending = Vec::new();
        async {
            for approval in pending {
                let decision = match decisions.get(&approval.approval_id) {
                    None | Some(Decision::Defer) => {
                        still_pending.push(approval);
                        continue;
                    }
                    Some(decision) => decision,
                };
                let index = approval.index;
                let call = self.call_span(&approval.name, &approval.call_id, &approval.arguments);
                let (result, refused) = async {
                    match self.settle(policy, &approval, decision, ledger, now) {
                        Settled::Run(tool, arguments) => (tool.run(ctx, &arguments).await, false),
                        Settled::Answered(result) => (result, false),
                        Settled::Refused(result) => (result, true),
                    }
                }
                .instrument(call.clone())
                .await;
                let result = self.end_call(&call, self.limits.bound_result(result));
                if let Some(slot) = results.get_mut(index) {
                    *slot = Some(result);
                }
                if !sequential {
                    continue;
                }
                if refused {
                    for (call, slot) in calls.iter().zip(results.iter_mut()).skip(index + 1) {
                        if slot.is_none() {
                            let result = self
                                .limits
                                .bound_result(behind_refused(&call.name, &approval.name));
                            *slot = Some(self.answered_call(&call.id, &call.name, result));
                        }
                    }
                } else if let Some((waiting, arguments)) = self
                    .run_sequential(policy, ctx, &calls, index + 1, &mut results, true)
                    .await
                {
                    still_pending.push(self.pending_approval(policy, &calls, waiting, arguments));
                }
            }
        }
        .instrument(span.clone())
        .await;
        span.record("tool.batch.pending", still_pending.len());
        outcome(|| calls.clone(), results, still_pending, sequential)
    }

    /// The results (`None` for deferred calls when `can_pause`) and the deferred calls.
    async fn start_batch(
        &self,
        policy: &RunPolicy,
        ctx: &mut C,
        calls: &[ToolCall],
        can_pause: bool,
    ) -> (Vec<Option<ToolResult>>, Vec<PendingApproval>) {
        let admitted = admitted(calls, self.limits.max_batch_calls);
        let mut results: Vec<Option<ToolResult>> = vec![None; calls.len()];
        // Past the limit, calls are answered without running; each still has its result.
        for (call, slot) in calls.iter().zip(results.iter_mut()).skip(admitted.len()) {
            *slot =
                Some(self.answered_call(&call.id, &call.name, self.too_many_calls(calls.len())));
        }
        let mut pending = Vec::new();
        if self.is_sequential(admitted) {
            if let Some((index, arguments)) = self
                .run_sequential(policy, ctx, calls, 0, &mut results, can_pause)
                .await
            {
                pending.push(self.pending_approval(policy, calls, index, arguments));
            }
            return (results, pending);
        }
        let steps = self.parallel_steps(policy, ctx, admitted, can_pause).await;
        for (index, ((call, step), slot)) in admitted
            .iter()
            .zip(steps)
            .zip(results.iter_mut())
            .enumerate()
        {
            match step {
                Step::Done(result) => *slot = Some(result),
                Step::Deferred(arguments) if can_pause => {
                    pending.push(self.pending_approval(policy, calls, index, arguments));
                }
                Step::Deferred(_) => {
                    *slot = Some(self.limits.bound_result(cannot_wait(&call.name)));
                }
            }
        }
        (results, pending)
    }

    /// Runs the unanswered calls from `from` on, one at a time; stops at a deferred call when
    /// `can_pause` and returns its position and validated arguments.
    async fn run_sequential(
        &self,
        policy: &RunPolicy,
        ctx: &mut C,
        calls: &[ToolCall],
        from: usize,
        results: &mut [Option<ToolResult>],
        can_pause: bool,
    ) -> Option<(usize, Value)> {
        for (index, (call, slot)) in calls.iter().zip(results.iter_mut()).enumerate().skip(from) {
            if slot.is_some() {
                continue;
            }
            let span = self.call_span(&call.name, &call.id, &call.arguments);
            let answered = async {
                match self.admit_call(policy, call).await {
                    Admission::Run(tool, arguments) => Ok(tool.run(ctx, &arguments).await),
                    Admission::Answered(result) => Ok(result),
                    Admission::Deferred(arguments) if can_pause => Err(arguments),
                    Admission::Deferred(_) => Ok(cannot_wait(&call.name)),
                }
            }
            .instrument(span.clone())
            .await;
            match answered {
                Ok(result) => *slot = Some(self.end_call(&span, self.limits.bound_result(result))),
                Err(arguments) => {
                    trace::record_deferred(&span);
                    return Some((index, arguments));
                }
            }
        }
        None
    }

    /// The checks of one call of a message, its arguments' error included (see
    /// [`ToolCall::arguments_error`]).
    async fn admit_call<'a>(&'a self, policy: &RunPolicy, call: &'a ToolCall) -> Admission<'a, C> {
        self.admit(
            policy,
            &call.id,
            &call.name,
            &call.arguments,
            call.arguments_error.as_deref(),
        )
        .await
    }

    /// The approval of a deferred call, expiring after the policy's time to live.
    fn pending_approval(
        &self,
        policy: &RunPolicy,
        calls: &[ToolCall],
        index: usize,
        arguments: Value,
    ) -> PendingApproval {
        let expires_at = expiry(policy);
        let (id, name) = calls
            .get(index)
            .map_or(("", ""), |call| (call.id.as_str(), call.name.as_str()));
        PendingApproval::new(index, id, name, arguments, expires_at)
    }

    /// Checks a decided approval and the policy before its call runs; records it as decided
    /// once the policy allows the call, so that a refusal of the policy leaves it unused.
    pub(crate) fn settle(
        &self,
        policy: &RunPolicy,
        approval: &PendingApproval,
        decision: &Decision,
        ledger: &mut ApprovalLedger,
        now: SystemTime,
    ) -> Settled<'_, C> {
        let name = approval.name.as_str();
        if !approval.digest_matches() {
            return Settled::Refused(approval_refused(
                name,
                "its saved call does not match its digest (the saved state was changed). The call was not run.",
            ));
        }
        if ledger.is_decided(&approval.approval_id) {
            return Settled::Refused(approval_refused(
                name,
                "it was already decided, and a call runs at most once. The call was not run again.",
            ));
        }
        if approval.is_expired(now) {
            return Settled::Refused(approval_refused(
                name,
                &format!(
                    "it expired at {} (seconds since the Unix epoch). The call was not run.",
                    approval.expires_at
                ),
            ));
        }
        let Some(tool) = self.tools.get(name) else {
            return Settled::Answered(self.not_found(policy, name));
        };
        if let Some(refusal) = policy.listing_refusal(tool.def.meta) {
            return Settled::Answered(not_allowed(name, refusal));
        }
        ledger.record(approval);
        let arguments = match decision {
            Decision::Approve | Decision::Defer => approval.arguments.clone(),
            Decision::Edit { arguments } => arguments.clone(),
            Decision::Deny { reason } => return Settled::Answered(denied(name, reason)),
        };
        match self.recheck(policy, tool, arguments) {
            Ok(arguments) => Settled::Run(tool, arguments),
            Err(refused) => Settled::Answered(refused),
        }
    }

    fn too_many_calls(&self, count: usize) -> ToolResult {
        self.limits.bound_result(ToolResult::failure(
            ErrorBody::runtime(
                RuntimeCode::NotAllowed,
                format!(
                    "The message has {count} tool calls and at most {} may run; this call was not run.",
                    self.limits.max_batch_calls
                ),
                ACTION_TOO_MANY_CALLS,
            ),
            false,
        ))
    }

    /// One step per call of a parallel message, in call order.
    async fn parallel_steps(
        &self,
        policy: &RunPolicy,
        shared: &C,
        calls: &[ToolCall],
        can_pause: bool,
    ) -> Vec<Step> {
        let mut futures: Vec<_> = calls
            .iter()
            .map(|call| Box::pin(self.run_parallel(policy, shared, call, can_pause)))
            .collect();
        // Every call is started in call order, as `join_all` would; most finish on that first
        // poll, and only those still pending go on side by side.
        let mut steps: Vec<Option<Step>> = Vec::with_capacity(calls.len());
        std::future::poll_fn(|cx| {
            for future in &mut futures {
                steps.push(match future.as_mut().poll(cx) {
                    Poll::Ready(step) => Some(step),
                    Poll::Pending => None,
                });
            }
            Poll::Ready(())
        })
        .await;
        let pending: Vec<_> = futures
            .into_iter()
            .zip(&steps)
            .filter(|(_, step)| step.is_none())
            .map(|(future, _)| future)
            .collect();
        let mut rest = futures_util::future::join_all(pending).await.into_iter();
        steps
            .into_iter()
            .map(|step| {
                // `join_all` answers once for every pending call; this keeps it panic-free.
                step.or_else(|| rest.next())
                    .unwrap_or_else(|| Step::Done(no_result()))
            })
            .collect()
    }

    /// One call of a parallel message, with the context shared; a deferred call is answered
    /// `TOOL_NOT_ALLOWED` unless `can_pause`.
    async fn run_parallel(
        &self,
        policy: &RunPolicy,
        shared: &C,
        call: &ToolCall,
        can_pause: bool,
    ) -> Step {
        let span = self.call_span(&call.name, &call.id, &call.arguments);
        let step = self
            .admit_parallel(policy, shared, call)
            .instrument(span.clone())
            .await;
        match step {
            Step::Deferred(arguments) if can_pause => {
                trace::record_deferred(&span);
                Step::Deferred(arguments)
            }
            Step::Deferred(_) => {
                Step::Done(self.end_call(&span, self.limits.bound_result(cannot_wait(&call.name))))
            }
            Step::Done(result) => {
                Step::Done(self.end_call(&span, self.limits.bound_result(result)))
            }
        }
    }

    /// The checks and the run of one call of a parallel message.
    async fn admit_parallel(&self, policy: &RunPolicy, shared: &C, call: &ToolCall) -> Step {
        let result = match self.admit_call(policy, call).await {
            Admission::Run(tool, arguments) => match tool.def.handler {
                Handler::Shared(f) => tool.run_shared(f, shared, &arguments).await,
                // Unreachable: such a call makes the message sequential.
                Handler::Exclusive(_) => ToolResult::failure(
                    ErrorBody::runtime(
                        RuntimeCode::Failed,
                        format!("The tool `{}` cannot run in a parallel message.", call.name),
                        ACTION_FAILED,
                    ),
                    false,
                ),
            },
            Admission::Answered(result) => result,
            Admission::Deferred(arguments) => return Step::Deferred(arguments),
        };
        Step::Done(result)
    }
}

/// The calls of a message that may run (the rest are answered without running).
fn admitted(calls: &[ToolCall], limit: usize) -> &[ToolCall] {
    calls.get(..limit).unwrap_or(calls)
}

/// Every result of a batch that answered every call.
fn answered(results: Vec<Option<ToolResult>>) -> Vec<ToolResult> {
    results
        .into_iter()
        .map(|result| result.unwrap_or_else(no_result))
        .collect()
}

/// The answer of a call that got none, which never happens: it keeps the batch panic-free.
fn no_result() -> ToolResult {
    ToolResult::failure(
        ErrorBody::runtime(
            RuntimeCode::Failed,
            "The call got no result.",
            ACTION_FAILED,
        ),
        false,
    )
}

/// Complete when nothing waits; paused (with the message's calls) otherwise.
fn outcome(
    calls: impl FnOnce() -> Vec<ToolCall>,
    results: Vec<Option<ToolResult>>,
    pending: Vec<PendingApproval>,
    sequential: bool,
) -> BatchOutcome {
    if pending.is_empty() {
        return BatchOutcome::Complete(answered(results));
    }
    BatchOutcome::Paused(PausedBatch {
        calls: calls(),
        results,
        pending,
        sequential,
    })
}

/// The answer to a resumed call whose approval is no longer valid.
fn approval_refused(name: &str, why: &str) -> ToolResult {
    ToolResult::failure(
        ErrorBody::runtime(
            RuntimeCode::NotAllowed,
            format!("The approval of the call to `{name}` was refused: {why}"),
            ACTION_APPROVAL_INVALID,
        ),
        false,
    )
}

/// The answer to a call of a sequential message that waited behind a call whose approval was
/// refused.
fn behind_refused(name: &str, before: &str) -> ToolResult {
    ToolResult::failure(
        ErrorBody::runtime(
            RuntimeCode::NotAllowed,
            format!(
                "The call to `{name}` was not run: it waited behind a call to `{before}` whose approval was refused."
            ),
            ACTION_APPROVAL_INVALID,
        ),
        false,
    )
}

//! The calls of one model message: in parallel when every tool allows it, otherwise one at a time
//! in order. Either way, exactly one result per call, in call order. A message whose approver
//! defers a call pauses ([`PausedBatch`]) and is resumed once a person decided
//! ([`Registry::resume_batch`]).
//!
//! Each call goes through the one pipeline ([`crate::call`]): the batch only decides the order,
//! whether the calls share the context, and what waits.

use std::collections::BTreeSet;
use std::future::Future as _;
use std::task::Poll;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tracing::Instrument as _;

use crate::approval::{ApprovalStore, Decision, Decisions, PendingApproval};
use crate::call::{Prepared, Refusal, Request, Resumed};
use crate::envelope::ToolResult;
use crate::policy::RunPolicy;
use crate::registry::Registry;
use crate::tool_call::ToolCall;
use crate::trace;

/// One call's outcome inside a batch.
enum Step {
    /// Answered.
    Done(ToolResult),
    /// The approver deferred it; its validated arguments.
    Deferred(Value),
}

impl<C> Registry<C> {
    /// True when the calls must run one at a time: one of them targets a registered
    /// `sequential` tool (whether or not the policy lets it run).
    pub fn is_sequential(&self, calls: &[ToolCall]) -> bool {
        calls.iter().any(|call| {
            self.get(&call.name)
                .is_some_and(|def| def.meta.mode.is_sequential() || !def.handler.is_shared())
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
        let sequential = self.is_sequential(admitted(calls, self.limits().max_batch_calls));
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
        let sequential = self.is_sequential(admitted(calls, self.limits().max_batch_calls));
        let span = trace::batch_span("run_batch", calls.len(), sequential);
        let (results, pending) = self
            .start_batch(policy, ctx, calls, true)
            .instrument(span.clone())
            .await;
        span.record("tool.batch.pending", pending.len());
        outcome(|| calls.to_vec(), results, pending, sequential)
    }

    /// Resumes a paused batch with a person's decisions (by approval id), claiming each decided
    /// approval in `store` before its decision takes effect (see [`crate::approval`]).
    ///
    /// An approved call runs with exactly the arguments of its approval (an edited one with the
    /// edited arguments, checked again); a denied one is answered `TOOL_NOT_ALLOWED` with the
    /// reason. An approval without a decision (or with [`Decision::Defer`]) stays pending. An
    /// approval whose digest does not match its saved call, that expired, or that was already
    /// claimed (here, in another process, on another machine sharing the store) is refused with
    /// `TOOL_NOT_ALLOWED` saying why, and nothing runs; when the store cannot answer, the call is
    /// answered `TOOL_FAILED` (retryable), nothing runs and the approval is not used. In a
    /// sequential message the calls that waited behind a decided call then run (the approver is
    /// consulted for them as usual, and may defer again), or, when its approval was refused,
    /// are refused too.
    ///
    /// The policy is checked again for every call (a read-only resume runs no write), before
    /// the approval is claimed: a call the policy refuses leaves its approval unused.
    pub async fn resume_batch(
        &self,
        policy: &RunPolicy,
        ctx: &mut C,
        paused: PausedBatch,
        decisions: &Decisions,
        store: &dyn ApprovalStore,
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
                let call = self.call(Request::from(&approval));
                let resumed = call.resume(policy, &approval, decision, store, now).await;
                let (result, refused) = match resumed {
                    Resumed::Ready(ready) => (ready.run(ctx).await, false),
                    Resumed::Answered(result) => (result, false),
                    Resumed::Invalid(result) => (result, true),
                };
                if let Some(slot) = results.get_mut(index) {
                    *slot = Some(result);
                }
                if !sequential {
                    continue;
                }
                if refused {
                    for (call, slot) in calls.iter().zip(results.iter_mut()).skip(index + 1) {
                        if slot.is_none() {
                            let refusal = Refusal::BehindRefused {
                                before: approval.name.clone(),
                            };
                            *slot = Some(self.call(Request::from(call)).refuse(refusal));
                        }
                    }
                } else if let Some((waiting, arguments)) = self
                    .run_sequential(policy, ctx, &calls, index + 1, &mut results, true)
                    .await
                {
                    still_pending.push(pending_approval(policy, &calls, waiting, arguments));
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
        let limit = self.limits().max_batch_calls;
        let admitted = admitted(calls, limit);
        let mut results: Vec<Option<ToolResult>> = vec![None; calls.len()];
        // Past the limit, calls are answered without running; each still has its result.
        for (call, slot) in calls.iter().zip(results.iter_mut()).skip(admitted.len()) {
            let refusal = Refusal::TooManyCalls {
                count: calls.len(),
                limit,
            };
            *slot = Some(self.call(Request::from(call)).refuse(refusal));
        }
        let mut pending = Vec::new();
        if self.is_sequential(admitted) {
            if let Some((index, arguments)) = self
                .run_sequential(policy, ctx, calls, 0, &mut results, can_pause)
                .await
            {
                pending.push(pending_approval(policy, calls, index, arguments));
            }
            return (results, pending);
        }
        let steps = self.parallel_steps(policy, ctx, admitted, can_pause).await;
        for (index, (step, slot)) in steps.into_iter().zip(results.iter_mut()).enumerate() {
            match step {
                Step::Done(result) => *slot = Some(result),
                Step::Deferred(arguments) => {
                    pending.push(pending_approval(policy, calls, index, arguments));
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
            let result = match self.call(Request::from(call)).prepare(policy).await {
                Prepared::Ready(ready) => ready.run(ctx).await,
                Prepared::Answered(result) => result,
                Prepared::Deferred(deferred) if can_pause => {
                    return Some((index, deferred.pause()));
                }
                Prepared::Deferred(deferred) => {
                    deferred.refuse(Refusal::ApprovalPending { why: None })
                }
            };
            *slot = Some(result);
        }
        None
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
        match self.call(Request::from(call)).prepare(policy).await {
            Prepared::Ready(ready) => Step::Done(ready.run_shared(shared).await),
            Prepared::Answered(result) => Step::Done(result),
            Prepared::Deferred(deferred) if can_pause => Step::Deferred(deferred.pause()),
            Prepared::Deferred(deferred) => {
                Step::Done(deferred.refuse(Refusal::ApprovalPending { why: None }))
            }
        }
    }
}

/// The approval of a deferred call, expiring after the policy's time to live.
fn pending_approval(
    policy: &RunPolicy,
    calls: &[ToolCall],
    index: usize,
    arguments: Value,
) -> PendingApproval {
    let expires_at = policy.approval_expiry();
    let (id, name) = calls
        .get(index)
        .map_or(("", ""), |call| (call.id.as_str(), call.name.as_str()));
    PendingApproval::new(index, id, name, arguments, expires_at)
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
    Refusal::NoAnswer.answer("", None)
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
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the paused batch does not hold together: {0}")]
pub struct StateError(String);

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
    use serde_json::json;

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

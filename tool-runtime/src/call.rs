//! The one path every call takes, whichever way it arrives ([`Registry::execute`], a batch, a
//! resumed batch, an MCP server):
//!
//! 1. [`Registry::call`] opens the call's span (see [`crate::trace`]);
//! 2. [`Call::prepare`] looks the tool up and checks the run's policy, the registry's bounds, the
//!    schema and the approver, in that order: the call is [`Prepared::Ready`] to run,
//!    [`Prepared::Answered`] (refused, invalid, denied: the envelope, its span closed) or
//!    [`Prepared::Deferred`] (a person decides later). [`Call::resume`] does the same for a call
//!    whose approval a person gave later, and claims the approval in the host's
//!    [`ApprovalStore`] before its decision takes effect;
//! 3. [`Ready::run`] (the context to itself) or [`Ready::run_shared`] (the context shared with the
//!    other calls of a parallel message) calls the tool under its time limit, catching a panic,
//!    and finishes: the declared error, the output budget and the output schema give the
//!    envelope, its message is bounded and its span records how it ended.
//!
//! Every answer that is not the tool's own success or declared error is a [`Refusal`], which
//! writes its envelope and its span label in one place.

use std::borrow::Cow;
use std::panic::AssertUnwindSafe;
use std::task::Poll;
use std::time::SystemTime;

use futures_util::FutureExt as _;
use serde_json::Value;
use toolwright_core::ToolMeta;
use tracing::{Instrument as _, Span};

use crate::approval::{ApprovalRequest, ApprovalStore, Claim, Decision, PendingApproval};
use crate::envelope::{ErrorBody, ToolResult};
use crate::handler::{BoxFuture, CallResult, Handler};
use crate::policy::RunPolicy;
use crate::registry::deferral::TOOL_SEARCH;
use crate::registry::{Registered, Registry};
use crate::tool::ToolError;
use crate::tool_call::ToolCall;
use crate::trace;
use crate::validate::{INPUT_INVALID_PREFIX, bounded};

pub use crate::refusal::{DENY_REASON_LIMIT, Refusal};

/// How much of a deserialization error (which may quote the input) a report keeps.
const INPUT_MESSAGE_LIMIT: usize = 100;

/// How much of a provider's own account of unusable arguments a report keeps.
const ARGUMENTS_MESSAGE_LIMIT: usize = 200;

/// One call as the pipeline reads it: borrowed from a [`ToolCall`] or from the caller's name and
/// arguments.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The provider's call id (empty when there is none).
    pub id: &'a str,
    /// The tool's name, as called.
    pub name: &'a str,
    /// The arguments.
    pub arguments: &'a Value,
    /// Why the arguments the provider sent are not a JSON object (see
    /// [`ToolCall::arguments_error`]).
    pub arguments_error: Option<&'a str>,
}

impl<'a> Request<'a> {
    /// A call of `name` with `arguments`, without a call id.
    pub fn new(name: &'a str, arguments: &'a Value) -> Self {
        Request {
            id: "",
            name,
            arguments,
            arguments_error: None,
        }
    }
}

impl<'a> From<&'a ToolCall> for Request<'a> {
    fn from(call: &'a ToolCall) -> Self {
        Request {
            id: &call.id,
            name: &call.name,
            arguments: &call.arguments,
            arguments_error: call.arguments_error.as_deref(),
        }
    }
}

impl<'a> From<&'a PendingApproval> for Request<'a> {
    fn from(approval: &'a PendingApproval) -> Self {
        Request {
            id: &approval.call_id,
            name: &approval.name,
            arguments: &approval.arguments,
            arguments_error: None,
        }
    }
}

/// A call on its way through the pipeline, its span open. Built by [`Registry::call`].
#[derive(Debug)]
pub struct Call<'r, C> {
    registry: &'r Registry<C>,
    request: Request<'r>,
    tool: Option<&'r Registered<C>>,
    span: Span,
}

/// What the checks before a call make of it.
#[derive(Debug)]
pub enum Prepared<'r, C> {
    /// Every check passed: run it.
    Ready(Ready<'r, C>),
    /// Answered without running (an unknown tool, a refusal of the policy or the approver,
    /// invalid arguments): the envelope, its span closed.
    Answered(ToolResult),
    /// The approver deferred it: a person decides later.
    Deferred(Deferred<'r, C>),
}

/// What a call whose approval a person decided comes to before anything runs.
#[derive(Debug)]
pub enum Resumed<'r, C> {
    /// Run it, with exactly the approved (or edited, checked again) arguments.
    Ready(Ready<'r, C>),
    /// Answered without running: denied, an invalid edit, refused by the policy.
    Answered(ToolResult),
    /// The approval itself is not valid (changed, used, expired), or the store could not claim
    /// it: nothing runs, and in a sequential message nothing after it either.
    Invalid(ToolResult),
}

/// A call that passed every check, with the arguments the tool receives.
#[derive(Debug)]
pub struct Ready<'r, C> {
    call: Call<'r, C>,
    tool: &'r Registered<C>,
    arguments: Cow<'r, Value>,
}

/// A call the approver deferred, with its validated arguments.
#[derive(Debug)]
pub struct Deferred<'r, C> {
    call: Call<'r, C>,
    tool: &'r Registered<C>,
    arguments: Value,
}

impl<C> Registry<C> {
    /// Opens the span of one call: the first step of every call (see the [module
    /// docs](crate::call)).
    pub fn call<'r>(&'r self, request: Request<'r>) -> Call<'r, C> {
        let tool = self.tool(request.name);
        let span = trace::call_span(request.name, request.id, || tool.map(Registered::meta));
        trace::record_arguments(
            &span,
            self.trace_content(),
            self.limits(),
            request.arguments,
        );
        Call {
            registry: self,
            request,
            tool,
            span,
        }
    }

    /// Runs one call through the policy check, the bounds, validation, the approver, the tool
    /// and the envelope.
    ///
    /// When the policy's dialect is OpenAI strict mode, the `null`s it sends for originally
    /// optional fields are removed before validation (and the tool sees them absent); the
    /// arguments are not copied when there is no such `null`.
    ///
    /// A call cannot pause here: when the approver defers, the call is answered
    /// `TOOL_NOT_ALLOWED` (see [`Registry::run_batch`] for a host that can wait for a person).
    ///
    /// Needs a Tokio runtime with the time driver enabled (for the time limit).
    pub async fn execute(
        &self,
        policy: &RunPolicy,
        ctx: &mut C,
        name: &str,
        arguments: &Value,
    ) -> ToolResult {
        match self
            .call(Request::new(name, arguments))
            .prepare(policy)
            .await
        {
            Prepared::Ready(ready) => ready.run(ctx).await,
            Prepared::Answered(result) => result,
            Prepared::Deferred(deferred) => deferred.refuse(Refusal::ApprovalPending { why: None }),
        }
    }
}

impl<'r, C> Call<'r, C> {
    /// The call's span, for a caller to record fields of its own on (an MCP request's id).
    pub fn span(&self) -> &Span {
        &self.span
    }

    /// The tool's declaration, when there is a tool of that name.
    pub fn meta(&self) -> Option<&'static ToolMeta> {
        self.tool.map(Registered::meta)
    }

    /// Answers the call with `refusal`, without looking at it any further (a call past the
    /// message's bound, a call behind a refused approval).
    pub fn refuse(self, refusal: Refusal) -> ToolResult {
        let result = refusal.answer(self.request.name, self.meta());
        self.finish(result, refusal.label())
    }

    /// The checks before the call runs: the tool, the policy (check 2 of a read-only run), the
    /// bounds, the arguments' schema and the approver.
    pub async fn prepare(self, policy: &RunPolicy) -> Prepared<'r, C> {
        let Some(tool) = self.tool else {
            if self.request.name == TOOL_SEARCH {
                return self.search(policy);
            }
            let close = self.registry.close_names(policy, self.request.name);
            return Prepared::Answered(self.refuse(Refusal::NotFound { close }));
        };
        // The bounds come before anything walks the arguments (validation, the approver,
        // deserialization), and after the refusals that do not look at them.
        if let Some(refusal) = policy.listing_refusal(tool.meta()) {
            return Prepared::Answered(self.refuse(refusal));
        }
        if let Some(problem) = self.request.arguments_error {
            let report = format!(
                "{INPUT_INVALID_PREFIX}/: {}",
                bounded(problem, ARGUMENTS_MESSAGE_LIMIT)
            );
            return Prepared::Answered(self.refuse(Refusal::InputInvalid { report }));
        }
        let arguments = match tool.checked_arguments(
            policy,
            self.registry.limits(),
            Cow::Borrowed(self.request.arguments),
        ) {
            Ok(arguments) => arguments,
            Err(refusal) => return Prepared::Answered(self.refuse(refusal)),
        };
        let Some(approver) = policy.approver_of(tool.meta()) else {
            return Prepared::Ready(self.ready(tool, arguments));
        };
        let request = ApprovalRequest {
            meta: tool.meta(),
            call_id: self.request.id,
            arguments: &arguments,
        };
        let decision = approver.decide(request).instrument(self.span.clone()).await;
        match decision {
            Decision::Approve => Prepared::Ready(self.ready(tool, arguments)),
            Decision::Deny { reason } => {
                Prepared::Answered(self.refuse(Refusal::Denied { reason }))
            }
            Decision::Edit { arguments } => {
                match tool.checked_arguments(policy, self.registry.limits(), Cow::Owned(arguments))
                {
                    Ok(edited) => Prepared::Ready(self.ready(tool, edited)),
                    Err(refusal) => Prepared::Answered(self.refuse(refusal)),
                }
            }
            Decision::Defer => Prepared::Deferred(Deferred {
                arguments: arguments.into_owned(),
                call: self,
                tool,
            }),
        }
    }

    /// A call of the registry's `tool_search`, answered here: it runs no tool's code, and a run
    /// without it (no deferred tool, or the provider's own search) does not know the name.
    fn search(self, policy: &RunPolicy) -> Prepared<'r, C> {
        let answer = match self.request.arguments_error {
            Some(problem) => Some(Err(Refusal::InputInvalid {
                report: format!(
                    "{INPUT_INVALID_PREFIX}/: {}",
                    bounded(problem, ARGUMENTS_MESSAGE_LIMIT)
                ),
            })),
            None => self.registry.answer_search(policy, self.request.arguments),
        };
        match answer {
            Some(Ok(found)) => {
                let result = ToolResult::success(found, false);
                Prepared::Answered(self.finish(result, None))
            }
            Some(Err(refusal)) => Prepared::Answered(self.refuse(refusal)),
            None => {
                let close = self.registry.close_names(policy, self.request.name);
                Prepared::Answered(self.refuse(Refusal::NotFound { close }))
            }
        }
    }

    /// The checks before a call whose approval a person decided runs, in order: the approval's
    /// digest, its expiry, the tool, the policy, then the **claim** of the approval in `store`
    /// (won by exactly one caller, ever: every other is refused as already decided), and the
    /// arguments it runs with (the approved ones, or an edit, checked as a call's are). A call
    /// the policy refuses leaves its approval unclaimed, for a resume under a policy that allows
    /// it. A store that cannot answer fails closed: nothing runs, the approval stays unused
    /// ([`Refusal::ApprovalStoreUnavailable`]).
    pub async fn resume(
        self,
        policy: &RunPolicy,
        approval: &PendingApproval,
        decision: &Decision,
        store: &dyn ApprovalStore,
        now: SystemTime,
    ) -> Resumed<'r, C> {
        let invalid = |call: Self, why: String| {
            Resumed::Invalid(call.refuse(Refusal::ApprovalInvalid { why }))
        };
        if !approval.digest_matches() {
            return invalid(
                self,
                "its saved call does not match its digest (the saved state was changed). The call was not run.".to_owned(),
            );
        }
        if approval.is_expired(now) {
            return invalid(
                self,
                format!(
                    "it expired at {} (seconds since the Unix epoch). The call was not run.",
                    approval.expires_at
                ),
            );
        }
        let Some(tool) = self.tool else {
            let close = self.registry.close_names(policy, self.request.name);
            return Resumed::Answered(self.refuse(Refusal::NotFound { close }));
        };
        if let Some(refusal) = policy.listing_refusal(tool.meta()) {
            return Resumed::Answered(self.refuse(refusal));
        }
        let claimed = store
            .claim(approval, now)
            .instrument(self.span.clone())
            .await;
        match claimed {
            Ok(Claim::Won) => {}
            Ok(Claim::Taken) => {
                return invalid(
                    self,
                    "it was already decided, and a call runs at most once. The call was not run again."
                        .to_owned(),
                );
            }
            Err(error) => {
                let refusal = Refusal::ApprovalStoreUnavailable {
                    why: error.message().to_owned(),
                };
                return Resumed::Invalid(self.refuse(refusal));
            }
        }
        let arguments = match decision {
            Decision::Approve | Decision::Defer => approval.arguments.clone(),
            Decision::Edit { arguments } => arguments.clone(),
            Decision::Deny { reason } => {
                return Resumed::Answered(self.refuse(Refusal::Denied {
                    reason: reason.clone(),
                }));
            }
        };
        match tool.checked_arguments(policy, self.registry.limits(), Cow::Owned(arguments)) {
            Ok(arguments) => Resumed::Ready(self.ready(tool, arguments)),
            Err(refusal) => Resumed::Answered(self.refuse(refusal)),
        }
    }

    fn ready(self, tool: &'r Registered<C>, arguments: Cow<'r, Value>) -> Ready<'r, C> {
        Ready {
            call: self,
            tool,
            arguments,
        }
    }

    /// Bounds the envelope's message, records how the call ended on its span, and hands the
    /// envelope on.
    fn finish(self, result: ToolResult, refusal: Option<&str>) -> ToolResult {
        let result = self.registry.limits().bound_result(result);
        trace::record_result(&self.span, self.registry.trace_content(), &result, refusal);
        result
    }
}

impl<'r, C> Ready<'r, C> {
    /// The tool's declaration.
    pub fn meta(&self) -> &'static ToolMeta {
        self.tool.meta()
    }

    /// The arguments the tool receives.
    pub fn arguments(&self) -> &Value {
        &self.arguments
    }

    /// True when the call may run side by side with others, sharing the context: the tool is
    /// `read-only` and `parallel`, and its handler takes `&C`.
    pub fn shares_context(&self) -> bool {
        let meta = self.meta();
        meta.safety.is_read_only() && !meta.mode.is_sequential() && self.tool.handler().is_shared()
    }

    /// Runs the tool with the context to itself (or shared, when its handler takes `&C`), then
    /// finishes the call.
    pub async fn run(self, ctx: &mut C) -> ToolResult {
        let arguments = &*self.arguments;
        let meta = self.meta();
        let started = self.call.span.in_scope(|| match self.tool.handler() {
            Handler::Shared(f) => {
                let shared: &C = ctx;
                catch_panic(move || f(shared, arguments))
            }
            Handler::Exclusive(f) => catch_panic(move || f(ctx, arguments)),
            Handler::Named(f) => {
                let shared: &C = ctx;
                catch_panic(move || f(shared, meta, arguments))
            }
        });
        let ended = self.limited(started).await;
        self.finish(ended)
    }

    /// Runs the tool with the context shared with the other calls of a parallel message. A tool
    /// whose handler takes `&mut C` never runs here (such a call makes a message sequential):
    /// it is answered `TOOL_FAILED`.
    pub async fn run_shared(self, ctx: &C) -> ToolResult {
        let arguments = &*self.arguments;
        let meta = self.meta();
        let ended = match self.tool.handler() {
            Handler::Shared(f) => {
                let started = self
                    .call
                    .span
                    .in_scope(|| catch_panic(move || f(ctx, arguments)));
                self.limited(started).await
            }
            Handler::Named(f) => {
                let started = self
                    .call
                    .span
                    .in_scope(|| catch_panic(move || f(ctx, meta, arguments)));
                self.limited(started).await
            }
            Handler::Exclusive(_) => Err(Refusal::NotShareable),
        };
        self.finish(ended)
    }

    /// The tool's answer within its time limit, or why there is none (its adapter panicked
    /// before it returned its future, or the future panicked or ran out of time).
    async fn limited(
        &self,
        started: std::thread::Result<BoxFuture<'_, CallResult>>,
    ) -> Result<CallResult, Refusal> {
        let Ok(future) = started else {
            return Err(Refusal::Panicked);
        };
        // The time limit counts from here. Most tools answer on their first poll: that poll
        // runs before a timer is set up, and only a tool that is still pending gets one (with
        // the same deadline).
        let timeout = self.tool.timeout();
        let start = tokio::time::Instant::now();
        let mut future = AssertUnwindSafe(future)
            .catch_unwind()
            .instrument(self.call.span.clone());
        let first = std::future::poll_fn(|cx| Poll::Ready(future.poll_unpin(cx))).await;
        let outcome = match first {
            Poll::Ready(outcome) => Ok(outcome),
            Poll::Pending => match start.checked_add(timeout) {
                // As a timer polled after that first poll would have found it elapsed.
                Some(deadline) if tokio::time::Instant::now() >= deadline => {
                    return Err(Refusal::TimedOut { limit: timeout });
                }
                Some(deadline) => tokio::time::timeout_at(deadline, future)
                    .await
                    .map_err(|_| ()),
                // A limit past the clock's range (set in code) never elapses.
                None => Ok(future.await),
            },
        };
        match outcome {
            Err(()) => Err(Refusal::TimedOut { limit: timeout }),
            Ok(Err(_panic)) => Err(Refusal::Panicked),
            Ok(Ok(result)) => Ok(result),
        }
    }

    /// The envelope of what the tool answered.
    fn finish(self, ended: Result<CallResult, Refusal>) -> ToolResult {
        let meta = self.meta();
        let name = self.call.request.name;
        let destructive = !meta.safety.is_read_only();
        let refusal = match ended {
            Ok(Ok(output)) => {
                let changed = output.state_changed && destructive;
                let size = output.data.json().len() as u64;
                match self.tool.max_output_bytes() {
                    Some(budget) if size > budget => Refusal::OverBudget {
                        size,
                        budget,
                        changed,
                    },
                    _ if !self.tool.output_matches(&output.data) => {
                        Refusal::OutputOffSchema { changed }
                    }
                    _ => {
                        return self
                            .call
                            .finish(ToolResult::success(output.data, changed), None);
                    }
                }
            }
            Ok(Err(ToolError::Declared { code, detail })) => match meta.error(code) {
                Some(declared) => {
                    let mut message = declared.message.to_owned();
                    if let Some(detail) = detail.as_deref().map(str::trim).filter(|d| !d.is_empty())
                    {
                        message.push(' ');
                        message.push_str(detail);
                    }
                    let error = ErrorBody {
                        code: declared.code.to_owned(),
                        message,
                        retryable: declared.retryable,
                        recommended_action: declared.recommended_action.to_owned(),
                    };
                    return self.call.finish(ToolResult::failure(error, false), None);
                }
                None => Refusal::UndeclaredCode {
                    code: code.to_owned(),
                },
            },
            // Answered by the adapter before the tool's code ran. `#[tool]`'s adapters start the
            // message with the pointer of the value that failed (a JSON Pointer starts with `/`,
            // a serde message never does); a message without one is about the root.
            Ok(Err(ToolError::Input(message))) => {
                let at = if message.starts_with('/') { "" } else { "/: " };
                Refusal::InputInvalid {
                    report: format!(
                        "{INPUT_INVALID_PREFIX}{at}{}",
                        bounded(&message, INPUT_MESSAGE_LIMIT)
                    ),
                }
            }
            Ok(Err(ToolError::NotAllowed(message))) => Refusal::RefusedByTool { message },
            Ok(Err(ToolError::Failed(message))) => Refusal::Failed { message },
            Err(refusal) => refusal,
        };
        let result = refusal.answer(name, Some(meta));
        self.call.finish(result, refusal.label())
    }
}

impl<'r, C> Deferred<'r, C> {
    /// The tool's declaration.
    pub fn meta(&self) -> &'static ToolMeta {
        self.tool.meta()
    }

    /// The validated arguments a person is asked about.
    pub fn arguments(&self) -> &Value {
        &self.arguments
    }

    /// The call waits for a person: its span records it (`tool.approval = "deferred"`), and its
    /// arguments are handed to whoever asks.
    pub fn pause(self) -> Value {
        trace::record_deferred(&self.call.span);
        self.arguments
    }

    /// Answers the call with `refusal` (nobody can wait for the approval here).
    pub fn refuse(self, refusal: Refusal) -> ToolResult {
        self.call.refuse(refusal)
    }
}

impl<C> Registered<C> {
    /// The arguments as the tool's schema reads them under `policy`, checked: the registry's
    /// bounds, the dialect's `null`s for absent optional fields removed, the schema.
    fn checked_arguments<'a>(
        &self,
        policy: &RunPolicy,
        limits: &crate::limits::Limits,
        arguments: Cow<'a, Value>,
    ) -> Result<Cow<'a, Value>, Refusal> {
        if let Err(exceeded) = limits.check_arguments(&arguments) {
            return Err(Refusal::InputInvalid {
                report: format!("{INPUT_INVALID_PREFIX}{exceeded}"),
            });
        }
        let stripped = match self.accepted_arguments(policy, &arguments) {
            Cow::Owned(stripped) => Some(stripped),
            Cow::Borrowed(_) => None,
        };
        let arguments = stripped.map_or(arguments, Cow::Owned);
        match self.schema().check(&arguments) {
            Ok(()) => Ok(arguments),
            Err(errors) => Err(Refusal::InputInvalid {
                report: errors.report(),
            }),
        }
    }
}

/// Runs `f`, catching a panic (the adapter may panic before it returns its future).
fn catch_panic<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    std::panic::catch_unwind(AssertUnwindSafe(f))
}

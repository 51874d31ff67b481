//! The calls of one model message: in parallel when every tool allows it, otherwise one at a time
//! in order. Either way, exactly one result per call, in call order.

use std::future::Future as _;
use std::task::Poll;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::envelope::{ACTION_FAILED, ErrorBody, RuntimeCode, ToolResult};
use crate::policy::RunPolicy;
use crate::registry::Registry;
use crate::tool::Handler;

/// The recovery hint of a call past [`Limits::max_batch_calls`](crate::Limits::max_batch_calls).
pub const ACTION_TOO_MANY_CALLS: &str =
    "Do not retry in this message: send fewer tool calls per message.";

/// One tool call as the model issued it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's call id, to pair the result with the call.
    pub id: String,
    /// The tool's name (possibly one that does not exist).
    pub name: String,
    /// The arguments; an absent field reads as `{}`.
    #[serde(default = "empty_object")]
    pub arguments: Value,
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

impl ToolCall {
    /// A call.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }
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
    /// running anything; a panic or a timeout affects only its own call.
    pub async fn execute_batch(
        &self,
        policy: &RunPolicy,
        ctx: &mut C,
        calls: &[ToolCall],
    ) -> Vec<ToolResult> {
        // Past the limit, calls are answered without running; each still has its result.
        let (admitted, refused) = calls.split_at(calls.len().min(self.limits.max_batch_calls));
        let mut results = self.execute_admitted(policy, ctx, admitted).await;
        results.extend(refused.iter().map(|_| self.too_many_calls(calls.len())));
        results
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

    async fn execute_admitted(
        &self,
        policy: &RunPolicy,
        ctx: &mut C,
        calls: &[ToolCall],
    ) -> Vec<ToolResult> {
        if self.is_sequential(calls) {
            let mut results = Vec::with_capacity(calls.len());
            for call in calls {
                results.push(self.execute(policy, ctx, &call.name, &call.arguments).await);
            }
            return results;
        }
        let shared: &C = ctx;
        let mut futures: Vec<_> = calls
            .iter()
            .map(|call| Box::pin(self.run_parallel(policy, shared, call)))
            .collect();
        // Every call is started in call order, as `join_all` would; most finish on that first
        // poll, and only those still pending go on side by side.
        let mut results: Vec<Option<ToolResult>> = Vec::with_capacity(calls.len());
        std::future::poll_fn(|cx| {
            for future in &mut futures {
                results.push(match future.as_mut().poll(cx) {
                    Poll::Ready(result) => Some(result),
                    Poll::Pending => None,
                });
            }
            Poll::Ready(())
        })
        .await;
        let pending: Vec<_> = futures
            .into_iter()
            .zip(&results)
            .filter(|(_, result)| result.is_none())
            .map(|(future, _)| future)
            .collect();
        let mut rest = futures_util::future::join_all(pending).await.into_iter();
        results
            .into_iter()
            .map(|result| {
                self.limits.bound_result(
                    result
                        .or_else(|| rest.next())
                        .expect("`join_all` answers once for every pending call"),
                )
            })
            .collect()
    }

    /// One call of a parallel message, with the context shared.
    async fn run_parallel(&self, policy: &RunPolicy, shared: &C, call: &ToolCall) -> ToolResult {
        let (tool, arguments) = match self.admit(policy, &call.name, &call.arguments) {
            Ok(admitted) => admitted,
            Err(refused) => return refused,
        };
        match tool.def.handler {
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
        }
    }
}

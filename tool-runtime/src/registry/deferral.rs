//! Deferred tools and the registry's `tool_search` (SPEC section 12).
//!
//! A tool is deferred in a run when it is declared `defer_loading = true` or a rule of the
//! run's policy defers it ([`Defer`]). [`Registry::definitions`] then offers the run's eager
//! tools first, byte for byte what they would be without deferral, and after them what
//! [`toolwright_core::dialect::deferral::arrange`] lists (the generator's exports list the same
//! way):
//!
//! | the run | after the eager tools |
//! |---|---|
//! | Anthropic ([`Dialect::Anthropic`]) | its BM25 tool search tool, then every deferred tool with `"defer_loading": true` |
//! | OpenAI Responses ([`Dialect::OpenAiResponses`]) | `{"type": "tool_search"}`, then the deferred tools with `"defer_loading": true`, those of one upstream server or one category in a `namespace` |
//! | any other (OpenAI Chat Completions, for which OpenAI documents no tool search, Gemini, MCP, no dialect), or [`RunPolicy::with_local_search`] | the registry's `tool_search` tool, then the tools the run's searches loaded ([`Loaded`](crate::policy::Loaded)), in the order they were found |
//!
//! Every form holds only the tools the run's policy lists: in a read-only run no write is
//! offered, searchable, found or callable; a disabled tool or one withheld (a pinned tool whose
//! server changed it) is never found either. A call of `tool_search` goes through the call
//! pipeline like any other (its span, the registry's bounds, its schema) and is answered with
//! the best matches' definitions in the run's dialect:
//! `{"success": true, "data": {"query": …, "tools": [definitions…]}, "stateChanged": false}`.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::OnceLock;

use serde_json::{Value, json};
use toolwright_core::dialect::deferral::{tool_search_conversion, tool_search_spec};
use toolwright_core::dialect::{Dialect, NullStripper, Violation};

pub use toolwright_core::dialect::deferral::{
    DEFAULT_MATCHES, MAX_MATCHES, TOOL_SEARCH, TOOL_SEARCH_META,
};

use super::{Registered, Registry};
use crate::policy::{Defer, RunPolicy};
use crate::refusal::Refusal;
use crate::search::ToolIndex;
use crate::validate::{INPUT_INVALID_PREFIX, InputSchema};

/// What the registry keeps for its tool search: the index over every tool (built on first use),
/// the tool's compiled schema, and what reads OpenAI strict mode's `null`s in its calls (its
/// definitions are [`toolwright_core::dialect::deferral`]'s).
#[derive(Debug, Default)]
pub(crate) struct Search {
    index: OnceLock<ToolIndex>,
    schema: OnceLock<Option<InputSchema>>,
    nulls: OnceLock<NullStripper>,
}

impl Search {
    /// The arguments as the tool's schema reads them: without the `null`s OpenAI strict mode
    /// sends for the absent `limit` (as for every tool, see [`Registry::definitions`]).
    fn accepted<'a>(&self, policy: &RunPolicy, arguments: &'a Value) -> Cow<'a, Value> {
        match policy.dialect() {
            Some(dialect)
                if dialect.is_openai()
                    && matches!(tool_search_conversion(dialect), Ok(c) if c.is_strict()) =>
            {
                self.nulls
                    .get_or_init(|| NullStripper::new(&tool_search_spec().input_schema))
                    .strip(arguments)
            }
            _ => Cow::Borrowed(arguments),
        }
    }
}

/// A run's listed tools, eager and deferred, each in name order.
pub(crate) struct Plan<'r, C> {
    pub(crate) eager: Vec<&'r Registered<C>>,
    pub(crate) deferred: Vec<&'r Registered<C>>,
}

impl<C> Registry<C> {
    /// The tools `policy` lists, split into eager and deferred (see [`Defer`]).
    pub(crate) fn plan(&self, policy: &RunPolicy) -> Plan<'_, C> {
        let rules = policy.deferral_rules();
        let after = rules
            .iter()
            .filter_map(|rule| match rule {
                Defer::After(n) => Some(*n),
                _ => None,
            })
            .min();
        let mut plan = Plan {
            eager: Vec::new(),
            deferred: Vec::new(),
        };
        for tool in self.tools.values().filter(|t| policy.lists(t.meta())) {
            let deferred = tool.spec.defer_loading
                || rules.iter().any(|rule| match rule {
                    Defer::Upstream => tool.spec.upstream.is_some(),
                    Defer::Tool(name) => name == tool.meta().name,
                    Defer::After(_) => false,
                })
                || after.is_some_and(|n| plan.eager.len() >= n);
            if deferred {
                plan.deferred.push(tool);
            } else {
                plan.eager.push(tool);
            }
        }
        plan
    }

    /// The tools `policy` defers, in name order: listed, but loaded only when a tool search
    /// finds them.
    pub fn deferred(&self, policy: &RunPolicy) -> Vec<&'static str> {
        self.plan(policy)
            .deferred
            .iter()
            .map(|t| t.meta().name)
            .collect()
    }

    /// The tools of a run's list: the eager ones, and after them those the run's searches
    /// loaded (in the order found), when the registry's own search finds the deferred ones; the
    /// eager ones alone otherwise. The names, in that order.
    pub fn offered(&self, policy: &RunPolicy) -> Vec<&'static str> {
        let plan = self.plan(policy);
        let mut names: Vec<&'static str> = plan.eager.iter().map(|t| t.meta().name).collect();
        if !plan.deferred.is_empty() && policy.searches_locally() {
            names.push(TOOL_SEARCH);
            names.extend(loaded_of(policy, &plan));
        }
        names
    }

    /// Answers a call of `tool_search` in a run that searches with the registry's tool: `None`
    /// when the run has no such tool (no deferred tool, or the provider's own search).
    pub(crate) fn answer_search(
        &self,
        policy: &RunPolicy,
        arguments: &Value,
    ) -> Option<Result<Value, Refusal>> {
        let plan = self.plan(policy);
        if plan.deferred.is_empty() || !policy.searches_locally() {
            return None;
        }
        Some(self.search_under(policy, &plan, arguments))
    }

    fn search_under(
        &self,
        policy: &RunPolicy,
        plan: &Plan<'_, C>,
        arguments: &Value,
    ) -> Result<Value, Refusal> {
        if let Err(exceeded) = self.limits().check_arguments(arguments) {
            return Err(Refusal::InputInvalid {
                report: format!("{INPUT_INVALID_PREFIX}{exceeded}"),
            });
        }
        let arguments = self.search.accepted(policy, arguments);
        let arguments = arguments.as_ref();
        if let Some(schema) = self
            .search
            .schema
            .get_or_init(|| InputSchema::compile(&tool_search_spec().input_schema).ok())
            && let Err(errors) = schema.check(arguments)
        {
            return Err(Refusal::InputInvalid {
                report: errors.report(),
            });
        }
        let query = arguments.get("query").and_then(Value::as_str).unwrap_or("");
        let limit = arguments
            .get("limit")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(DEFAULT_MATCHES)
            .clamp(1, MAX_MATCHES);
        let all: Vec<&Registered<C>> = self.tools.values().collect();
        let index = self
            .search
            .index
            .get_or_init(|| ToolIndex::new(all.iter().map(|t| &t.spec)));
        // Only the run's deferred tools are candidates, before ranking: a tool the policy does
        // not list is never ranked, so it can neither be returned nor crowd out one that is.
        let candidates: BTreeSet<&str> = plan.deferred.iter().map(|t| t.meta().name).collect();
        let found: Vec<&Registered<C>> = index
            .search(query, limit, |id| {
                all.get(id)
                    .is_some_and(|t| candidates.contains(t.meta().name))
            })
            .into_iter()
            .filter_map(|id| all.get(id).copied())
            .collect();
        let mut definitions = Vec::with_capacity(found.len());
        let mut names = Vec::with_capacity(found.len());
        for tool in found {
            let mut ignored = Vec::new();
            let before = definitions.len();
            push_definition(tool, policy.dialect(), &mut definitions, &mut ignored);
            if definitions.len() > before {
                names.push(tool.meta().name);
            }
        }
        if let Some(loaded) = policy.loaded() {
            loaded.add(&names);
        }
        Ok(json!({"query": query, "tools": definitions}))
    }
}

/// The tools the run's searches loaded that the run still defers, in the order found.
pub(crate) fn loaded_of<C>(policy: &RunPolicy, plan: &Plan<'_, C>) -> Vec<&'static str> {
    let Some(loaded) = policy.loaded() else {
        return Vec::new();
    };
    loaded
        .names()
        .into_iter()
        .filter(|name| plan.deferred.iter().any(|t| t.meta().name == *name))
        .collect()
}

/// Appends the tool's definition in `dialect` (canonical without one), or its violations.
pub(crate) fn push_definition<C>(
    tool: &Registered<C>,
    dialect: Option<Dialect>,
    definitions: &mut Vec<Value>,
    violations: &mut Vec<Violation>,
) {
    let Some(dialect) = dialect else {
        definitions.push(serde_json::to_value(&tool.spec).unwrap_or(Value::Null));
        return;
    };
    match tool.conversion(dialect) {
        Ok(converted) => definitions.push(converted.definition.clone()),
        Err(found) => violations.extend(found.iter().cloned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_tool_compiles_as_the_registry_checks_it() {
        let spec = tool_search_spec();
        assert!(InputSchema::compile(&spec.input_schema).is_ok());
        assert!(spec.safety.is_read_only());
        assert_eq!(spec.name, TOOL_SEARCH);
    }
}

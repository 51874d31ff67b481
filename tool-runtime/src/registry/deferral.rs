//! Deferred tools and the registry's `tool_search` (SPEC section 12).
//!
//! A tool is deferred in a run when it is declared `defer_loading = true` or a rule of the
//! run's policy defers it ([`Defer`]). [`Registry::definitions`] then offers the run's eager
//! tools first, byte for byte what they would be without deferral, and after them:
//!
//! | the run | after the eager tools |
//! |---|---|
//! | Anthropic ([`Dialect::Anthropic`]) | its BM25 tool search tool, then every deferred tool with `"defer_loading": true` |
//! | OpenAI Responses ([`Dialect::OpenAiResponses`]) | `{"type": "tool_search"}`, then the deferred tools with `"defer_loading": true`, those of one upstream server or one category in a `namespace` |
//! | any other, or [`RunPolicy::with_local_search`] | the registry's `tool_search` tool, then the tools the run's searches loaded ([`Loaded`](crate::policy::Loaded)), in the order they were found |
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

use serde_json::{Map, Value, json};
use toolwright_core::dialect::{Converted, Dialect, NullStripper, Violation};
use toolwright_core::{Mode, Safety, StaticSchema, ToolMeta, ToolSpec};

use super::{DialectCache, Registered, Registry};
use crate::policy::{Defer, RunPolicy};
use crate::refusal::Refusal;
use crate::search::ToolIndex;
use crate::validate::{INPUT_INVALID_PREFIX, InputSchema};

/// The name of the registry's tool search tool; no registered tool may take it.
pub const TOOL_SEARCH: &str = "tool_search";

/// How many tools a search returns unless the call asks for another number.
pub const DEFAULT_MATCHES: usize = 5;

/// The most tools one search returns.
pub const MAX_MATCHES: usize = 10;

/// Anthropic's BM25 tool search tool, as a request's `tools` entry names it (it needs the beta
/// header `advanced-tool-use-2025-11-20` where the API still asks for it).
const ANTHROPIC_TOOL_SEARCH: &str =
    r#"{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}"#;

/// The input of `tool_search`: a query of at most 500 characters, and how many matches.
const SEARCH_SCHEMA: &str = r#"{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":500,"description":"What you need to do, in a few words: `create an issue`, `current time in a city`."},"limit":{"type":"integer","minimum":1,"maximum":10,"description":"How many tools to return (5 when absent)."}},"required":["query"],"additionalProperties":false}"#;

/// The registry's tool search tool.
pub static TOOL_SEARCH_META: ToolMeta = ToolMeta::new(
    TOOL_SEARCH,
    Safety::ReadOnly,
    Mode::Parallel,
    StaticSchema::Json(SEARCH_SCHEMA),
)
.title("Search tools")
.description(
    "Finds tools that are not in your tool list yet. Describe what you need to do in a few words; \
     the best matching tools' definitions are returned and you can call them from then on. \
     Search again with other words when none fits.",
)
.idempotent(true)
.source("toolwright-runtime: the registry's tool search");

/// What the registry keeps for its tool search: the index over every tool (built on first use),
/// the tool's own definition per dialect and its compiled schema.
#[derive(Debug, Default)]
pub(crate) struct Search {
    index: OnceLock<ToolIndex>,
    spec: OnceLock<ToolSpec>,
    schema: OnceLock<Option<InputSchema>>,
    dialects: DialectCache,
    nulls: OnceLock<NullStripper>,
}

impl Search {
    fn spec(&self) -> &ToolSpec {
        self.spec.get_or_init(|| {
            ToolSpec::from_meta(&TOOL_SEARCH_META).unwrap_or_else(|_| {
                // Unreachable: the schema above is JSON (a unit test parses it).
                ToolSpec::new(TOOL_SEARCH, Safety::ReadOnly, Mode::Parallel, json!({}))
            })
        })
    }

    fn conversion(&self, dialect: Dialect) -> &Result<Converted, Vec<Violation>> {
        self.dialects.conversion(dialect, self.spec())
    }

    /// The arguments as the tool's schema reads them: without the `null`s OpenAI strict mode
    /// sends for the absent `limit` (as for every tool, see [`Registry::definitions`]).
    fn accepted<'a>(&self, policy: &RunPolicy, arguments: &'a Value) -> Cow<'a, Value> {
        match policy.dialect() {
            Some(dialect)
                if dialect.is_openai()
                    && matches!(self.conversion(dialect), Ok(c) if c.is_strict()) =>
            {
                self.nulls
                    .get_or_init(|| NullStripper::new(&self.spec().input_schema))
                    .strip(arguments)
            }
            _ => Cow::Borrowed(arguments),
        }
    }

    /// The tool's definition in `dialect`, or canonical (its spec as JSON) without one.
    fn definition(&self, dialect: Option<Dialect>) -> Result<Value, Vec<Violation>> {
        match dialect {
            None => Ok(serde_json::to_value(self.spec()).unwrap_or(Value::Null)),
            Some(dialect) => self
                .conversion(dialect)
                .as_ref()
                .map(|c| c.definition.clone())
                .map_err(Clone::clone),
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

    /// What follows the eager definitions of a run with deferred tools (see the module docs).
    pub(crate) fn deferred_definitions(
        &self,
        policy: &RunPolicy,
        plan: &Plan<'_, C>,
        definitions: &mut Vec<Value>,
        violations: &mut Vec<Violation>,
    ) {
        let dialect = policy.dialect();
        if plan.deferred.is_empty() {
            return;
        }
        if policy.searches_locally() {
            match self.search.definition(dialect) {
                Ok(definition) => definitions.push(definition),
                Err(found) => violations.extend(found),
            }
            for name in loaded_of(policy, plan) {
                if let Some(tool) = self.tools.get(name) {
                    push_definition(tool, dialect, definitions, violations);
                }
            }
            return;
        }
        let mut deferred = Vec::new();
        for tool in &plan.deferred {
            push_definition(tool, dialect, &mut deferred, violations);
        }
        let flagged = deferred.into_iter().map(|mut definition| {
            if let Value::Object(fields) = &mut definition {
                fields.insert("defer_loading".to_owned(), Value::Bool(true));
            }
            definition
        });
        match dialect {
            Some(Dialect::Anthropic) => {
                definitions.push(serde_json::from_str(ANTHROPIC_TOOL_SEARCH).unwrap_or_default());
                definitions.extend(flagged);
            }
            _ => {
                definitions.push(json!({"type": "tool_search"}));
                let flagged: Vec<Value> = flagged.collect();
                definitions.extend(namespaces(&plan.deferred, flagged));
            }
        }
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
            .get_or_init(|| InputSchema::compile(&self.search.spec().input_schema).ok())
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

/// The deferred functions of an OpenAI Responses request: those of one upstream server, or else
/// of one category, in a `namespace` (OpenAI's recommended form: the model sees the namespace's
/// name and description until a search loads its functions); the others on their own. Groups in
/// name order, after the ungrouped functions.
fn namespaces<C>(tools: &[&Registered<C>], definitions: Vec<Value>) -> Vec<Value> {
    let mut alone = Vec::new();
    let mut groups: std::collections::BTreeMap<String, (String, Vec<Value>)> =
        std::collections::BTreeMap::new();
    for (tool, definition) in tools.iter().zip(definitions) {
        let group = match (&tool.spec.upstream, &tool.spec.category) {
            (Some(upstream), _) => Some((
                namespace_name(&upstream.server),
                format!("the MCP server `{}`", upstream.server),
            )),
            (None, Some(category)) => Some((
                namespace_name(category),
                format!("the category `{category}`"),
            )),
            (None, None) => None,
        };
        match group.filter(|(name, _)| !name.is_empty()) {
            Some((name, what)) => groups
                .entry(name)
                .or_insert_with(|| (what, Vec::new()))
                .1
                .push(definition),
            None => alone.push(definition),
        }
    }
    let grouped = groups.into_iter().map(|(name, (what, tools))| {
        let names: Vec<&str> = tools
            .iter()
            .filter_map(|t| t.get("name").and_then(Value::as_str))
            .collect();
        let description = crate::validate::bounded(
            &format!("Tools of {what}: {}.", names.join(", ")),
            NAMESPACE_DESCRIPTION_LIMIT,
        );
        let mut namespace = Map::new();
        namespace.insert("type".to_owned(), json!("namespace"));
        namespace.insert("name".to_owned(), json!(name));
        namespace.insert("description".to_owned(), json!(description));
        namespace.insert("tools".to_owned(), Value::Array(tools));
        Value::Object(namespace)
    });
    alone.into_iter().chain(grouped).collect()
}

/// How much of a namespace's generated description is kept.
const NAMESPACE_DESCRIPTION_LIMIT: usize = 1000;

/// A namespace's name from a server id or a category: lower-case ASCII letters, digits, `_` and
/// `-` (any other character becomes `_`), at most 64 characters.
fn namespace_name(group: &str) -> String {
    let name: String = group
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if name.chars().all(|c| c == '_') {
        String::new()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_tool_is_a_valid_read_only_tool() {
        let spec = ToolSpec::from_meta(&TOOL_SEARCH_META).expect("its schema is JSON");
        assert!(InputSchema::compile(&spec.input_schema).is_ok());
        assert!(spec.safety.is_read_only());
        for dialect in Dialect::ALL {
            assert!(
                toolwright_core::dialect::convert(*dialect, &spec).is_ok(),
                "{dialect:?}"
            );
        }
        let anthropic: Value = serde_json::from_str(ANTHROPIC_TOOL_SEARCH).expect("JSON");
        assert_eq!(anthropic["name"], "tool_search_tool_bm25");
    }

    #[test]
    fn namespace_names_are_words() {
        assert_eq!(namespace_name("clock"), "clock");
        assert_eq!(namespace_name("Chart Panes!"), "chart_panes_");
        assert_eq!(namespace_name("  "), "");
        assert_eq!(namespace_name(&"x".repeat(100)).len(), 64);
    }
}

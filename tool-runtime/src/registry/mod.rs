//! The registry: every tool of a host, its compiled schema, its time limit and output budget,
//! immutable once built ([`RegistryBuilder`]), and every call's one way in ([`crate::call`]).

mod builder;
pub mod deferral;
mod definitions;
mod error;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;
use std::time::Duration;

use toolwright_core::{ToolMeta, ToolSpec};

use crate::envelope::ToolData;
use crate::handler::{Handler, ToolDef};
use crate::limits::Limits;
use crate::policy::RunPolicy;
use crate::trace::Redact;
use crate::validate::InputSchema;

pub use builder::RegistryBuilder;
pub(crate) use definitions::DialectCache;
pub use error::{RegistryError, RegistryProblem};

/// The time limit of a call when the builder sets none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How many close names a `TOOL_NOT_FOUND` message lists at most.
const CLOSE_NAME_LIMIT: usize = 3;

/// The longest name compared for close names, in characters (four times the longest a message
/// quotes): a longer one has none, and is not compared at a quadratic cost.
const CLOSE_NAME_INPUT_LIMIT: usize = 256;

/// One registered tool.
pub(crate) struct Registered<C> {
    def: ToolDef<C>,
    schema: InputSchema,
    spec: ToolSpec,
    timeout: Duration,
    /// The largest `data` a success may carry, in bytes of its JSON text.
    max_output_bytes: Option<u64>,
    /// The declared output schema, compiled on first use; `None` when there is none, or when it
    /// does not compile without a remote document (then outputs are not checked).
    output: OnceLock<Option<InputSchema>>,
    /// The tool's provider definitions and strict-mode nullable fields, computed once on demand.
    dialects: DialectCache,
}

impl<C> fmt::Debug for Registered<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registered")
            .field("def", &self.def)
            .field("timeout", &self.timeout)
            .field("max_output_bytes", &self.max_output_bytes)
            .finish_non_exhaustive()
    }
}

impl<C> Registered<C> {
    pub(crate) fn meta(&self) -> &'static ToolMeta {
        self.def.meta
    }

    pub(crate) fn handler(&self) -> Handler<C> {
        self.def.handler
    }

    pub(crate) fn schema(&self) -> &InputSchema {
        &self.schema
    }

    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    pub(crate) fn max_output_bytes(&self) -> Option<u64> {
        self.max_output_bytes
    }

    /// True unless the tool declares an output schema that `data` breaks.
    pub(crate) fn output_matches(&self, data: &ToolData) -> bool {
        let Some(schema) = self
            .output
            .get_or_init(|| {
                let declared = self.spec.output_schema.as_ref()?;
                InputSchema::compile(declared).ok()
            })
            .as_ref()
        else {
            return true;
        };
        data.value().is_ok_and(|value| schema.is_valid(&value))
    }
}

/// Every tool of a host, with its schema compiled once. Immutable once built.
///
/// Built with [`Registry::builder`]; `Send + Sync` for any context type.
pub struct Registry<C> {
    tools: BTreeMap<&'static str, Registered<C>>,
    limits: Limits,
    /// Redacts arguments and results recorded on spans; `None`: they are not recorded.
    trace_content: Option<Redact>,
    /// The registry's tool search: its index and definitions, made on first use.
    search: deferral::Search,
}

impl<C> fmt::Debug for Registry<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl<C> Registry<C> {
    /// Starts a registry.
    pub fn builder() -> RegistryBuilder<C> {
        RegistryBuilder::default()
    }

    /// The tool of that name.
    pub fn get(&self, name: &str) -> Option<&ToolDef<C>> {
        self.tools.get(name).map(|t| &t.def)
    }

    /// Every tool's name, sorted.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.tools.keys().copied()
    }

    /// How many tools are registered.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// True when no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The bounds on arguments, error messages and messages' calls.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The time limit of a tool's calls.
    pub fn timeout_of(&self, name: &str) -> Option<Duration> {
        self.tools.get(name).map(|t| t.timeout)
    }

    /// The output budget of a tool's successes, in bytes of JSON text (`None` when its outputs
    /// are not bounded, or no tool has that name).
    pub fn max_output_bytes_of(&self, name: &str) -> Option<u64> {
        self.tools.get(name).and_then(|t| t.max_output_bytes)
    }

    /// The spec of every tool, sorted by name (for docs and exports of code-first tools).
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.values().map(|t| t.spec.clone()).collect()
    }

    /// Check 1: the tools of a run, sorted by name. A read-only run drops every tool that is not
    /// `read-only`; disabled tools are dropped.
    pub fn resolve(&self, policy: &RunPolicy) -> Vec<&'static ToolMeta> {
        self.tools
            .values()
            .map(|t| t.def.meta)
            .filter(|meta| policy.lists(meta))
            .collect()
    }

    /// The specs of the tools of a run, sorted by name (for provider definitions of that run).
    pub fn resolve_specs(&self, policy: &RunPolicy) -> Vec<ToolSpec> {
        self.tools
            .values()
            .filter(|t| policy.lists(t.def.meta))
            .map(|t| t.spec.clone())
            .collect()
    }

    /// The offered tools of a run closest to `name` (a misspelt call): up to three, closest
    /// first, by edit distance or a long common prefix.
    pub fn close_names(&self, policy: &RunPolicy, name: &str) -> Vec<&'static str> {
        let offered: Vec<&'static str> = self.resolve(policy).iter().map(|m| m.name).collect();
        close_names(name, &offered)
    }

    /// The registered tool of that name.
    pub(crate) fn tool(&self, name: &str) -> Option<&Registered<C>> {
        self.tools.get(name)
    }

    /// The host's redaction of what spans record, when it opted in.
    pub(crate) fn trace_content(&self) -> Option<&Redact> {
        self.trace_content.as_ref()
    }
}

/// Up to [`CLOSE_NAME_LIMIT`] names close to `name`: small edit distance, or a long common
/// prefix, closest first.
fn close_names<'a>(name: &str, candidates: &[&'a str]) -> Vec<&'a str> {
    if name.chars().count() > CLOSE_NAME_INPUT_LIMIT {
        return Vec::new();
    }
    use toolwright_core::suggest::{Case, close_to};
    let mut ranked = close_to(name, candidates, Case::Sensitive, |distance, candidate| {
        let shorter = name.chars().count().min(candidate.chars().count());
        let prefix = name
            .chars()
            .zip(candidate.chars())
            .take_while(|(a, b)| a == b)
            .count();
        distance <= (shorter / 3).max(2) || prefix >= 4
    });
    ranked.sort();
    ranked
        .into_iter()
        .take(CLOSE_NAME_LIMIT)
        .map(|(_, n)| n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_rank_by_distance_and_stop_at_three() {
        let names = [
            "pane_create",
            "panes_clear",
            "panes_list",
            "drawing_create",
            "web_search",
        ];
        assert_eq!(
            close_names("pane_creat", &names),
            ["pane_create", "panes_clear", "panes_list"]
        );
        assert_eq!(close_names("drawing_craete", &names), ["drawing_create"]);
        assert!(close_names("zzz", &names).is_empty());
        assert!(close_names(&"x".repeat(1000), &names).is_empty());
    }
}

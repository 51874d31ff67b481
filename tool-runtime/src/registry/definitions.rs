//! Provider definitions of a run's tools, and the arguments a provider's dialect sends.
//!
//! [`Registry::definitions`] offers the tools a [`RunPolicy`] resolves in the policy's dialect
//! ([`RunPolicy::with_dialect`]): exactly what [`toolwright_core::dialect::export`] produces for
//! those tools, with every tool's conversion computed once per registry and dialect, on first
//! use, and reused by every later run.
//!
//! The same policy tells [`Registry::execute`] how to read a call. OpenAI strict mode makes every
//! optional field required but nullable, so a model sends `null` for a field it leaves out: with
//! [`Dialect::OpenAi`] or [`Dialect::OpenAiResponses`] those `null`s, and only those, are read
//! as absent before validation, for the tools exported strict. A tool strict mode cannot
//! express is exported with `"strict": false` and its optional fields as they are: its `null`s
//! are values, as the canonical schema reads them. The decision is made once per tool, by the
//! OpenAI dialect, and is the same for both APIs.

use std::borrow::Cow;
use std::sync::OnceLock;

use serde_json::Value;
use toolwright_core::dialect::deferral::{self, DeferredTool};
use toolwright_core::dialect::{
    self, Converted, Dialect, ExportError, NullStripper, Violation, openai_nullable_pointers,
};

use super::deferral::{loaded_of, push_definition};
use super::{Registered, Registry};
use crate::policy::RunPolicy;

/// What one tool's declaration gives each dialect, computed on first use.
#[derive(Debug, Default)]
pub(crate) struct DialectCache {
    /// One conversion per dialect, indexed by [`Dialect::index`].
    converted: [OnceLock<Result<Converted, Vec<Violation>>>; Dialect::ALL.len()],
    /// The properties OpenAI strict mode makes nullable: their schema pointers, and what removes
    /// their `null`s from a call's arguments.
    nullable: OnceLock<(Vec<String>, NullStripper)>,
}

impl DialectCache {
    /// `spec`'s definition in `dialect`, converted and checked once.
    pub(crate) fn conversion(
        &self,
        dialect: Dialect,
        spec: &toolwright_core::ToolSpec,
    ) -> &Result<Converted, Vec<Violation>> {
        self.converted[dialect.index()].get_or_init(|| dialect::convert(dialect, spec))
    }
}

impl<C> Registered<C> {
    /// The tool's definition in `dialect`, converted and checked once.
    pub(crate) fn conversion(&self, dialect: Dialect) -> &Result<Converted, Vec<Violation>> {
        self.dialects.conversion(dialect, &self.spec)
    }

    /// True when the tool is offered to OpenAI (`dialect`, one of its APIs) in strict mode:
    /// then, and only then, its optional fields are required but nullable.
    fn is_strict(&self, dialect: Dialect) -> bool {
        matches!(self.conversion(dialect), Ok(converted) if converted.is_strict())
    }

    /// The properties OpenAI strict mode makes nullable (JSON Pointers into the input schema);
    /// none when the tool is not offered strict.
    pub(crate) fn nullable_pointers(&self) -> &[String] {
        if self.is_strict(Dialect::OpenAi) {
            &self.nullable().0
        } else {
            &[]
        }
    }

    fn nullable(&self) -> &(Vec<String>, NullStripper) {
        self.dialects.nullable.get_or_init(|| {
            let schema = &self.spec.input_schema;
            (openai_nullable_pointers(schema), NullStripper::new(schema))
        })
    }

    /// The arguments as the tool's canonical schema reads them under `policy`: without OpenAI
    /// strict mode's `null`s for originally optional fields, when the tool is offered strict.
    /// Borrowed when there is none.
    pub(crate) fn accepted_arguments<'a>(
        &self,
        policy: &RunPolicy,
        arguments: &'a Value,
    ) -> Cow<'a, Value> {
        let strict = match policy.dialect() {
            Some(dialect) if dialect.is_openai() => self.is_strict(dialect),
            _ => false,
        };
        if strict {
            self.nullable().1.strip(arguments)
        } else {
            Cow::Borrowed(arguments)
        }
    }
}

impl<C> Registry<C> {
    /// The definitions of the run's tools ([`Registry::resolve`]) in the policy's dialect
    /// ([`RunPolicy::with_dialect`]): a JSON array in the provider's request shape, sorted by
    /// name, equal to [`dialect::export`] of [`Registry::resolve_specs`] when no tool of the run
    /// is deferred. Each tool's conversion is computed once per registry and dialect and reused
    /// by every run.
    ///
    /// With deferred tools ([`Registry::deferred`]) the eager tools come first, exactly as
    /// above, then the provider's tool search and the deferred tools in its form, or the
    /// registry's `tool_search` and the tools the run's searches loaded, in the order found (see
    /// [`crate::registry::deferral`]): the eager part stays byte-identical as tools are found.
    /// The arrangement is [`deferral::arrange`], the one [`dialect::export`] lists a set's
    /// declared deferrals with: for a run without host rules or loaded tools, the two are equal.
    ///
    /// A policy without a dialect gets the canonical form: each tool's
    /// [`ToolSpec`](toolwright_core::ToolSpec) as JSON.
    /// An MCP server offers more than the [`Dialect::Mcp`] export: its `outputSchema` describes
    /// the envelope each call returns (see `McpServer::tools` of the crate `toolwright-mcp`).
    ///
    /// # Errors
    /// Every tool of the run that the dialect cannot express, with the pointer and the rule, and
    /// the rules about the whole set (OpenAI's limit of functions per request).
    pub fn definitions(&self, policy: &RunPolicy) -> Result<Value, ExportError> {
        let plan = self.plan(policy);
        let dialect = policy.dialect();
        let local = policy.searches_locally();
        let loaded = if local {
            loaded_of(policy, &plan)
        } else {
            Vec::new()
        };
        if let Some(dialect) = dialect
            && dialect.is_openai()
        {
            // The eager tools and those loaded count against OpenAI's limit of functions per
            // request; a rule about the whole set: the exporter words it (rare, not cached),
            // given the tools as this request lists them (a loaded tool is listed, not deferred).
            let counted: Vec<_> = plan
                .eager
                .iter()
                .map(|t| t.meta().name)
                .chain(loaded.iter().copied())
                .filter_map(|name| self.tools.get(name))
                .collect();
            if counted.len() > dialect::openai::MAX_FUNCTIONS {
                let specs: Vec<_> = counted
                    .iter()
                    .map(|t| {
                        let mut spec = t.spec.clone();
                        spec.defer_loading = false;
                        spec
                    })
                    .collect();
                return dialect::export(dialect, &specs);
            }
        }
        let mut eager = Vec::with_capacity(plan.eager.len() + 1);
        let mut violations = Vec::new();
        for tool in &plan.eager {
            push_definition(tool, dialect, &mut eager, &mut violations);
        }
        // A deferred tool is listed in the provider's form, each of them, or once the registry's
        // search found it: only a listed tool the dialect cannot express is an error. Without a
        // dialect, the canonical forms are made for the listed tools alone.
        let listed = |name: &str| !local || loaded.contains(&name);
        let canonical: Vec<(&str, Value)> = match dialect {
            Some(_) => Vec::new(),
            None => (plan.deferred.iter())
                .filter(|t| listed(t.meta().name))
                .map(|t| {
                    let definition = serde_json::to_value(&t.spec).unwrap_or(Value::Null);
                    (t.meta().name, definition)
                })
                .collect(),
        };
        let deferred: Vec<DeferredTool<'_>> = (plan.deferred.iter())
            .map(|tool| {
                let name = tool.meta().name;
                let definition = match dialect {
                    None => canonical.iter().find(|(n, _)| *n == name).map(|(_, d)| d),
                    Some(dialect) => match tool.conversion(dialect) {
                        Ok(converted) => Some(&converted.definition),
                        Err(found) => {
                            if listed(name) {
                                violations.extend(found.iter().cloned());
                            }
                            None
                        }
                    },
                };
                DeferredTool::new(&tool.spec, definition)
            })
            .collect();
        let tools = deferral::arrange(dialect, local, eager, &deferred, &loaded);
        match dialect {
            Some(dialect) if !violations.is_empty() => Err(ExportError::new(dialect, violations)),
            _ => Ok(Value::Array(tools)),
        }
    }

    /// One tool's definition in `dialect` (computed once), whether or not a run lists it;
    /// `None` for an unknown tool.
    ///
    /// # Errors
    /// The rules of the dialect the tool breaks.
    pub fn definition(&self, name: &str, dialect: Dialect) -> Option<Result<&Value, &[Violation]>> {
        self.tools.get(name).map(|t| match t.conversion(dialect) {
            Ok(converted) => Ok(&converted.definition),
            Err(violations) => Err(violations.as_slice()),
        })
    }

    /// The properties of a tool that OpenAI strict mode makes required but nullable (JSON
    /// Pointers into its input schema, sorted); their `null`s are read as absent in a run with
    /// [`Dialect::OpenAi`] or [`Dialect::OpenAiResponses`]. Empty for a tool exported with
    /// `"strict": false`; `None` for an unknown tool.
    pub fn openai_nullable_pointers(&self, name: &str) -> Option<&[String]> {
        self.tools.get(name).map(Registered::nullable_pointers)
    }
}

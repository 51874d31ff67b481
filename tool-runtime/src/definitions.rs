//! Provider definitions of a run's tools, and the arguments a provider's dialect sends.
//!
//! [`Registry::definitions`] offers the tools a [`RunPolicy`] resolves in the policy's dialect
//! ([`RunPolicy::with_dialect`]): exactly what [`tool_manifest::dialect::export`] produces for
//! those tools, with every tool's conversion computed once per registry and dialect, on first
//! use, and reused by every later run.
//!
//! The same policy tells [`Registry::execute`] how to read a call. OpenAI strict mode makes every
//! optional field required but nullable, so a model sends `null` for a field it leaves out: with
//! [`Dialect::OpenAi`] those `null`s, and only those, are read as absent before validation.

use std::borrow::Cow;
use std::sync::OnceLock;

use serde_json::Value;
use tool_manifest::dialect::{
    self, Dialect, ExportError, Violation, openai_nullable_pointers, strip_openai_nulls,
};

use crate::policy::RunPolicy;
use crate::registry::{Registered, Registry};

/// What one tool's declaration gives each dialect, computed on first use.
#[derive(Debug, Default)]
pub(crate) struct DialectCache {
    /// One conversion per dialect, indexed by [`slot`].
    converted: [OnceLock<Result<Value, Vec<Violation>>>; 4],
    /// The schema pointers of the properties OpenAI strict mode makes nullable.
    nullable: OnceLock<Vec<String>>,
}

/// The index of a dialect in [`DialectCache::converted`].
const fn slot(dialect: Dialect) -> usize {
    match dialect {
        Dialect::Mcp => 0,
        Dialect::OpenAi => 1,
        Dialect::Anthropic => 2,
        Dialect::Gemini => 3,
    }
}

impl<C> Registered<C> {
    /// The tool's definition in `dialect`, converted and checked once.
    pub(crate) fn definition(&self, dialect: Dialect) -> &Result<Value, Vec<Violation>> {
        self.dialects.converted[slot(dialect)].get_or_init(|| dialect::convert(dialect, &self.spec))
    }

    /// The properties OpenAI strict mode makes nullable (JSON Pointers into the input schema).
    pub(crate) fn nullable_pointers(&self) -> &[String] {
        self.dialects
            .nullable
            .get_or_init(|| openai_nullable_pointers(&self.spec.input_schema))
    }

    /// The arguments as the tool's canonical schema reads them under `policy`: without OpenAI
    /// strict mode's `null`s for originally optional fields. Borrowed unless one is removed.
    pub(crate) fn accepted_arguments<'a>(
        &self,
        policy: &RunPolicy,
        arguments: &'a Value,
    ) -> Cow<'a, Value> {
        if policy.accepts_openai_nulls()
            && contains_null(arguments)
            && !self.nullable_pointers().is_empty()
        {
            return Cow::Owned(strip_openai_nulls(&self.spec.input_schema, arguments));
        }
        Cow::Borrowed(arguments)
    }
}

/// True when a `null` appears anywhere in `value` (iterative: no recursion on deep input).
fn contains_null(value: &Value) -> bool {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Null => return true,
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.values()),
            Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }
    false
}

impl<C> Registry<C> {
    /// The definitions of the run's tools ([`Registry::resolve`]) in the policy's dialect
    /// ([`RunPolicy::with_dialect`]): a JSON array in the provider's request shape, sorted by
    /// name, equal to [`dialect::export`] of [`Registry::resolve_specs`]. Each tool's conversion
    /// is computed once per registry and dialect and reused by every run.
    ///
    /// A policy without a dialect gets the canonical form: each tool's [`ToolSpec`] as JSON.
    ///
    /// # Errors
    /// Every tool of the run that the dialect cannot express, with the pointer and the rule, and
    /// the rules about the whole set (OpenAI's limit of functions per request).
    ///
    /// [`ToolSpec`]: crate::ToolSpec
    pub fn definitions(&self, policy: &RunPolicy) -> Result<Value, ExportError> {
        let resolved: Vec<&Registered<C>> = self
            .tools
            .values()
            .filter(|t| policy.lists(t.def.meta))
            .collect();
        let Some(dialect) = policy.dialect else {
            return Ok(Value::Array(
                resolved
                    .iter()
                    .map(|t| serde_json::to_value(&t.spec).unwrap_or(Value::Null))
                    .collect(),
            ));
        };
        if dialect == Dialect::OpenAi && resolved.len() > dialect::openai::MAX_FUNCTIONS {
            // A rule about the whole set: the exporter words it (rare, not worth caching).
            let specs: Vec<_> = resolved.iter().map(|t| t.spec.clone()).collect();
            return dialect::export(dialect, &specs);
        }
        let mut definitions = Vec::with_capacity(resolved.len());
        let mut violations = Vec::new();
        for tool in resolved {
            match tool.definition(dialect) {
                Ok(definition) => definitions.push(definition.clone()),
                Err(found) => violations.extend(found.iter().cloned()),
            }
        }
        if violations.is_empty() {
            Ok(Value::Array(definitions))
        } else {
            violations.sort();
            violations.dedup();
            Err(ExportError {
                dialect,
                violations,
            })
        }
    }

    /// One tool's definition in `dialect` (computed once), whether or not a run lists it;
    /// `None` for an unknown tool.
    ///
    /// # Errors
    /// The rules of the dialect the tool breaks.
    pub fn definition(&self, name: &str, dialect: Dialect) -> Option<Result<&Value, &[Violation]>> {
        self.tools
            .get(name)
            .map(|t| t.definition(dialect).as_ref().map_err(Vec::as_slice))
    }

    /// The properties of a tool that OpenAI strict mode makes required but nullable (JSON
    /// Pointers into its input schema, sorted); their `null`s are read as absent in a run with
    /// [`Dialect::OpenAi`]. `None` for an unknown tool.
    pub fn openai_nullable_pointers(&self, name: &str) -> Option<&[String]> {
        self.tools.get(name).map(Registered::nullable_pointers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nulls_are_found_at_any_depth() {
        assert!(!contains_null(&json!({"a": [1, "x", {"b": true}]})));
        assert!(contains_null(&json!({"a": [1, "x", {"b": null}]})));
        assert!(contains_null(&Value::Null));
        assert!(!contains_null(&json!({})));
    }

    #[test]
    fn every_dialect_has_its_own_slot() {
        let mut slots: Vec<usize> = Dialect::ALL.iter().map(|d| slot(*d)).collect();
        slots.sort_unstable();
        slots.dedup();
        assert_eq!(slots, [0, 1, 2, 3]);
    }
}

//! The policy of one run: read-only or not, the tools the user disabled, an optional approval gate.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use tool_manifest::ToolMeta;
use tool_manifest::dialect::Dialect;

/// Consulted before each `destructive` call; `false` denies it (`TOOL_NOT_ALLOWED`, nothing runs).
/// It receives the tool's frozen metadata and the arguments as the model sent them: the gate is
/// part of the policy check, which comes before validation.
pub type ApprovalGate = Arc<dyn Fn(&ToolMeta, &Value) -> bool + Send + Sync>;

/// What a host allows in one run. Read-only is a property of the run, not of the tools.
#[derive(Clone, Default)]
pub struct RunPolicy {
    /// Only `read-only` tools are listed and may be called.
    pub read_only: bool,
    /// Tools the user switched off: never listed, never called.
    pub disabled: BTreeSet<String>,
    /// Consulted before each destructive call.
    pub approval: Option<ApprovalGate>,
    /// The provider form the run's tools are offered in (`None`: the canonical schemas). With
    /// [`Dialect::OpenAi`] (strict mode, where every optional field is required but nullable)
    /// a call's `null`s for originally optional fields are read as absent before validation;
    /// `null` anywhere else is still invalid. See [`Registry::definitions`].
    ///
    /// [`Registry::definitions`]: crate::Registry::definitions
    pub dialect: Option<Dialect>,
}

impl fmt::Debug for RunPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunPolicy")
            .field("read_only", &self.read_only)
            .field("disabled", &self.disabled)
            .field("approval", &self.approval.as_ref().map(|_| "gate"))
            .field("dialect", &self.dialect)
            .finish()
    }
}

/// Why a call is refused before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The run is read-only and the tool is not.
    ReadOnlyRun,
    /// The user disabled the tool.
    Disabled,
    /// The approval gate denied the call.
    Denied,
}

impl RunPolicy {
    /// Every registered tool may run (subject to an approval gate, if one is added).
    pub fn full() -> Self {
        RunPolicy::default()
    }

    /// Only `read-only` tools are listed and may be called.
    pub fn read_only() -> Self {
        RunPolicy {
            read_only: true,
            ..RunPolicy::default()
        }
    }

    /// Switches a tool off for this run.
    #[must_use]
    pub fn disable(mut self, name: impl Into<String>) -> Self {
        self.disabled.insert(name.into());
        self
    }

    /// Installs a gate consulted before each destructive call.
    #[must_use]
    pub fn with_approval(
        mut self,
        gate: impl Fn(&ToolMeta, &Value) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.approval = Some(Arc::new(gate));
        self
    }

    /// Offers the run's tools in a provider's form: [`Registry::definitions`] exports in it, and
    /// with [`Dialect::OpenAi`] the `null`s strict mode sends for optional fields are accepted as
    /// absent.
    ///
    /// [`Registry::definitions`]: crate::Registry::definitions
    #[must_use]
    pub fn with_dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = Some(dialect);
        self
    }

    /// True when calls may carry OpenAI strict mode's `null`s for absent optional fields.
    pub fn accepts_openai_nulls(&self) -> bool {
        self.dialect == Some(Dialect::OpenAi)
    }

    /// Check 1 (listing): may the tool appear in this run at all?
    pub fn lists(&self, meta: &ToolMeta) -> bool {
        self.listing_refusal(meta).is_none()
    }

    /// Why the tool cannot appear in this run, if it cannot.
    pub fn listing_refusal(&self, meta: &ToolMeta) -> Option<Refusal> {
        if self.read_only && !meta.safety.is_read_only() {
            Some(Refusal::ReadOnlyRun)
        } else if self.disabled.contains(meta.name) {
            Some(Refusal::Disabled)
        } else {
            None
        }
    }

    /// Check 2 (execution): may this call run? Consults the approval gate for destructive tools.
    pub fn call_refusal(&self, meta: &ToolMeta, arguments: &Value) -> Option<Refusal> {
        if let Some(refusal) = self.listing_refusal(meta) {
            return Some(refusal);
        }
        match &self.approval {
            Some(gate) if !meta.safety.is_read_only() && !gate(meta, arguments) => {
                Some(Refusal::Denied)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tool_manifest::{Mode, Safety, StaticSchema};

    const fn meta(name: &'static str, safety: Safety) -> ToolMeta {
        ToolMeta::new(name, safety, Mode::Parallel, StaticSchema::Json("{}"))
            .title("t")
            .description("d")
            .source("test")
    }

    static READ: ToolMeta = meta("read", Safety::ReadOnly);
    static WRITE: ToolMeta = meta("write", Safety::Destructive);

    #[test]
    fn read_only_runs_refuse_destructive_tools() {
        let policy = RunPolicy::read_only();
        assert_eq!(policy.listing_refusal(&READ), None);
        assert_eq!(policy.listing_refusal(&WRITE), Some(Refusal::ReadOnlyRun));
        assert_eq!(
            policy.call_refusal(&WRITE, &Value::Null),
            Some(Refusal::ReadOnlyRun)
        );
    }

    #[test]
    fn disabled_tools_are_refused() {
        let policy = RunPolicy::full().disable("read");
        assert!(!policy.lists(&READ));
        assert!(policy.lists(&WRITE));
        assert_eq!(
            policy.call_refusal(&READ, &Value::Null),
            Some(Refusal::Disabled)
        );
    }

    #[test]
    fn the_gate_sees_only_destructive_calls() {
        let policy = RunPolicy::full().with_approval(|meta, args| {
            assert_eq!(
                meta.name, "write",
                "the gate is never asked about read-only tools"
            );
            args == &Value::Bool(true)
        });
        assert_eq!(policy.call_refusal(&READ, &Value::Null), None);
        assert_eq!(policy.call_refusal(&WRITE, &Value::Bool(true)), None);
        assert_eq!(
            policy.call_refusal(&WRITE, &Value::Bool(false)),
            Some(Refusal::Denied)
        );
        assert!(
            policy.lists(&WRITE),
            "the gate does not hide tools from the list"
        );
    }
}

//! The policy of one run: read-only or not, the tools the user disabled, an optional approver.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use toolwright_core::ToolMeta;
use toolwright_core::dialect::Dialect;

use crate::approval::{
    ApprovalRequest, Approver, Clock, DEFAULT_APPROVAL_TTL, Decision, FnApprover, SystemClock,
};
use crate::provider::Provider;

/// What a host allows in one run. Read-only is a property of the run, not of the tools.
#[derive(Clone)]
pub struct RunPolicy {
    /// Only `read-only` tools are listed and may be called.
    pub read_only: bool,
    /// Tools the user switched off: never listed, never called.
    pub disabled: BTreeSet<String>,
    /// Consulted for each call to a destructive tool, after the call is validated (see
    /// [`crate::approval`]). Without one, every valid call runs.
    pub approval: Option<Arc<dyn Approver>>,
    /// How long a deferred approval stays valid ([`DEFAULT_APPROVAL_TTL`] unless set).
    pub approval_ttl: Duration,
    /// The time deferred approvals are issued and checked against (the system's clock unless
    /// set: tests inject one).
    pub clock: Arc<dyn Clock>,
    /// The provider form the run's tools are offered in (`None`: the canonical schemas); set it
    /// with [`RunPolicy::with_provider`]. With [`Dialect::OpenAi`] or
    /// [`Dialect::OpenAiResponses`] (strict mode, where every optional field is required but
    /// nullable) a call's `null`s for originally optional fields of a tool offered strict are
    /// read as absent before validation; `null` anywhere else, and in a tool offered with
    /// `"strict": false`, is read as the canonical schema reads it. See
    /// [`Registry::definitions`].
    ///
    /// [`Registry::definitions`]: crate::Registry::definitions
    pub dialect: Option<Dialect>,
}

impl Default for RunPolicy {
    fn default() -> Self {
        RunPolicy {
            read_only: false,
            disabled: BTreeSet::new(),
            approval: None,
            approval_ttl: DEFAULT_APPROVAL_TTL,
            clock: Arc::new(SystemClock),
            dialect: None,
        }
    }
}

impl fmt::Debug for RunPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunPolicy")
            .field("read_only", &self.read_only)
            .field("disabled", &self.disabled)
            .field("approval", &self.approval.as_ref().map(|_| "approver"))
            .field("approval_ttl", &self.approval_ttl)
            .field("dialect", &self.dialect)
            .finish_non_exhaustive()
    }
}

/// Why a call is refused before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The run is read-only and the tool is not.
    ReadOnlyRun,
    /// The user disabled the tool.
    Disabled,
    /// The approver denied the call.
    Denied,
}

impl RunPolicy {
    /// Every registered tool may run (subject to an approver, if one is added).
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

    /// Installs a closure that decides at once on each valid destructive call.
    ///
    /// ```
    /// use toolwright_runtime::{Decision, RunPolicy};
    ///
    /// let policy = RunPolicy::full().with_approval(|request| {
    ///     if request.meta.name == "drawings_clear" {
    ///         Decision::deny("The user keeps their drawings.")
    ///     } else {
    ///         Decision::Approve
    ///     }
    /// });
    /// # let _ = policy;
    /// ```
    #[must_use]
    pub fn with_approval(
        self,
        decide: impl Fn(&ApprovalRequest<'_>) -> Decision + Send + Sync + 'static,
    ) -> Self {
        self.with_approver(FnApprover(decide))
    }

    /// Installs an approver (one that may await a person) for each valid destructive call.
    #[must_use]
    pub fn with_approver(mut self, approver: impl Approver + 'static) -> Self {
        self.approval = Some(Arc::new(approver));
        self
    }

    /// How long a deferred approval stays valid.
    #[must_use]
    pub fn with_approval_ttl(mut self, ttl: Duration) -> Self {
        self.approval_ttl = ttl;
        self
    }

    /// The clock deferred approvals are issued and checked against.
    #[must_use]
    pub fn with_clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// The current time by the policy's clock.
    pub fn now(&self) -> SystemTime {
        self.clock.now()
    }

    /// Offers the run's tools to `provider`, in its request shape: [`Registry::definitions`]
    /// is ready for the request's tools (Chat Completions' `{type, function}` for
    /// [`Provider::OpenAi`], the flat function for [`Provider::OpenAiResponses`]), and the calls
    /// it sends are read as that form wrote them (OpenAI strict mode's `null`s for optional
    /// fields as absent). The same as `with_dialect(provider.dialect())`.
    ///
    /// [`Registry::definitions`]: crate::Registry::definitions
    #[must_use]
    pub fn with_provider(self, provider: Provider) -> Self {
        self.with_dialect(provider.dialect())
    }

    /// Offers the run's tools in a dialect's form: [`Registry::definitions`] exports in it, and
    /// with an OpenAI dialect the `null`s strict mode sends for optional fields are accepted as
    /// absent. A host talking to a model provider names it instead
    /// ([`RunPolicy::with_provider`]); a dialect is for the consumers that are not one (MCP).
    ///
    /// [`Registry::definitions`]: crate::Registry::definitions
    #[must_use]
    pub fn with_dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = Some(dialect);
        self
    }

    /// True when calls may carry OpenAI strict mode's `null`s for absent optional fields (in
    /// the tools offered strict).
    pub fn accepts_openai_nulls(&self) -> bool {
        self.dialect.is_some_and(Dialect::is_openai)
    }

    /// True when the tool's valid calls go to the approver.
    pub fn needs_approval(&self, meta: &ToolMeta) -> bool {
        self.approval.is_some() && !meta.safety.is_read_only()
    }

    /// Check 1 (listing): may the tool appear in this run at all?
    pub fn lists(&self, meta: &ToolMeta) -> bool {
        self.listing_refusal(meta).is_none()
    }

    /// Why the tool cannot appear in this run, if it cannot. The registry checks this again for
    /// every call (check 2), before anything looks at the arguments.
    pub fn listing_refusal(&self, meta: &ToolMeta) -> Option<Refusal> {
        if self.read_only && !meta.safety.is_read_only() {
            Some(Refusal::ReadOnlyRun)
        } else if self.disabled.contains(meta.name) {
            Some(Refusal::Disabled)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolwright_core::{Mode, Safety, StaticSchema};

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
    }

    #[test]
    fn disabled_tools_are_refused() {
        let policy = RunPolicy::full().disable("read");
        assert!(!policy.lists(&READ));
        assert!(policy.lists(&WRITE));
        assert_eq!(policy.listing_refusal(&READ), Some(Refusal::Disabled));
    }

    #[test]
    fn only_destructive_tools_need_approval() {
        assert!(!RunPolicy::full().needs_approval(&WRITE));
        let policy = RunPolicy::full().with_approval(|_| Decision::Approve);
        assert!(!policy.needs_approval(&READ));
        assert!(policy.needs_approval(&WRITE));
        assert!(
            policy.lists(&WRITE),
            "the approver does not hide tools from the list"
        );
    }

    #[test]
    fn the_clock_can_be_injected() {
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(42);
        let policy = RunPolicy::full().with_clock(move || at);
        assert_eq!(policy.now(), at);
        assert_eq!(policy.approval_ttl, DEFAULT_APPROVAL_TTL);
    }
}

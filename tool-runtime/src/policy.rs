//! The policy of one run: read-only or not, the tools the user disabled, an optional approver,
//! the clock approvals expire by, the provider form the tools are offered in, and which tools
//! are deferred (loaded when a tool search finds them, SPEC section 12).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use toolwright_core::ToolMeta;
use toolwright_core::dialect::Dialect;

use crate::approval::{ApprovalRequest, Approver, Decision, FnApprover};
use crate::provider::Provider;
use crate::refusal::Refusal;

/// How long a deferred approval stays valid unless the policy says otherwise.
pub const DEFAULT_APPROVAL_TTL: Duration = Duration::from_secs(60 * 60);

/// Where the registry reads the time an approval expires against.
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> SystemTime;
}

/// The system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

impl<F> Clock for F
where
    F: Fn() -> SystemTime + Send + Sync,
{
    fn now(&self) -> SystemTime {
        self()
    }
}

/// What a host allows in one run. Read-only is a property of the run, not of the tools.
///
/// Built from [`RunPolicy::full`] or [`RunPolicy::read_only`] and the `with_…` methods:
///
/// ```
/// use toolwright_runtime::RunPolicy;
/// use toolwright_runtime::approval::Decision;
/// use toolwright_runtime::provider::Provider;
///
/// let policy = RunPolicy::full()
///     .disable("web_search")
///     .with_provider(Provider::Anthropic)
///     .with_approval(|request| {
///         if request.meta.name == "drawings_clear" {
///             Decision::deny("The user keeps their drawings.")
///         } else {
///             Decision::Approve
///         }
///     });
/// assert!(!policy.is_read_only());
/// assert!(policy.is_disabled("web_search"));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct RunPolicy {
    read_only: bool,
    disabled: BTreeSet<String>,
    /// Tools the host withholds for now, each with the message its calls are refused with.
    withheld: BTreeMap<String, String>,
    approver: Option<Arc<dyn Approver>>,
    approval_ttl: Duration,
    clock: Arc<dyn Clock>,
    dialect: Option<Dialect>,
    /// The host's deferral rules, on top of the tools declared `defer_loading`.
    defer: Vec<Defer>,
    /// The registry's own `tool_search` whatever the provider offers.
    local_search: bool,
    /// What the run's searches loaded, when the host keeps it.
    loaded: Option<Loaded>,
}

/// A host's rule deferring tools of a run, on top of those declared `defer_loading = true`: a
/// deferred tool is left out of the eager tool list and loaded when a tool search finds it.
/// Rules never make a tool eager that its declaration defers.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Defer {
    /// Every tool that runs on an upstream MCP server (a pinned tool of the proxy).
    Upstream,
    /// Every tool past the first `n` of the run's eager tools, in name order: the first `n`
    /// listed tools that nothing else defers stay eager.
    After(usize),
    /// The tool of this name.
    Tool(String),
}

/// The tools a run's searches loaded, in the order they were found: the run's tool list appends
/// them after its eager part ([`Registry::definitions`](crate::Registry::definitions)), so the
/// eager part stays byte-identical and prompt caches keep hitting. Clones share one list: give
/// each conversation (or MCP session) its own.
#[derive(Debug, Clone, Default)]
pub struct Loaded(Arc<Mutex<Vec<&'static str>>>);

impl Loaded {
    /// An empty list.
    pub fn new() -> Self {
        Loaded::default()
    }

    /// The loaded tools, in the order they were found.
    pub fn names(&self) -> Vec<&'static str> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// True when the search loaded the tool.
    pub fn contains(&self, name: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(&name)
    }

    /// Appends the tools not loaded yet, in order; true when one was new.
    pub(crate) fn add(&self, names: &[&'static str]) -> bool {
        let mut loaded = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let before = loaded.len();
        for name in names {
            if !loaded.contains(name) {
                loaded.push(name);
            }
        }
        loaded.len() > before
    }
}

impl Default for RunPolicy {
    fn default() -> Self {
        RunPolicy {
            read_only: false,
            disabled: BTreeSet::new(),
            withheld: BTreeMap::new(),
            approver: None,
            approval_ttl: DEFAULT_APPROVAL_TTL,
            clock: Arc::new(SystemClock),
            dialect: None,
            defer: Vec::new(),
            local_search: false,
            loaded: None,
        }
    }
}

impl fmt::Debug for RunPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunPolicy")
            .field("read_only", &self.read_only)
            .field("disabled", &self.disabled)
            .field("withheld", &self.withheld.keys().collect::<Vec<_>>())
            .field("approver", &self.approver.as_ref().map(|_| "approver"))
            .field("approval_ttl", &self.approval_ttl)
            .field("dialect", &self.dialect)
            .field("defer", &self.defer)
            .field("local_search", &self.local_search)
            .finish_non_exhaustive()
    }
}

impl RunPolicy {
    /// Every registered tool may run (subject to an approver, if one is added).
    pub fn full() -> Self {
        RunPolicy::default()
    }

    /// Only `read-only` tools are listed and may be called.
    pub fn read_only() -> Self {
        RunPolicy::full().into_read_only()
    }

    /// This policy, and read-only: only `read-only` tools are listed and may be called.
    #[must_use]
    pub fn into_read_only(mut self) -> Self {
        self.read_only = true;
        self
    }

    /// Switches a tool off for this run: never listed, never called.
    #[must_use]
    pub fn disable(mut self, name: impl Into<String>) -> Self {
        self.disabled.insert(name.into());
        self
    }

    /// Switches every one of these tools off for this run.
    #[must_use]
    pub fn disable_all<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.disabled.extend(names.into_iter().map(Into::into));
        self
    }

    /// Withholds a tool for now: never listed, and its calls refused (`TOOL_NOT_ALLOWED`) with
    /// `reason` as the whole message, before anything looks at their arguments. The proxy
    /// withholds a pinned tool whose upstream definition changed since it was pinned.
    #[must_use]
    pub fn withhold(mut self, name: impl Into<String>, reason: impl Into<String>) -> Self {
        self.withheld.insert(name.into(), reason.into());
        self
    }

    /// Withholds every one of these tools, each with its reason (see [`RunPolicy::withhold`]).
    #[must_use]
    pub fn withhold_all<I, N, R>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = (N, R)>,
        N: Into<String>,
        R: Into<String>,
    {
        self.withheld
            .extend(tools.into_iter().map(|(n, r)| (n.into(), r.into())));
        self
    }

    /// Installs a closure that decides at once on each valid destructive call (see
    /// [`crate::approval`]). Without an approver, every valid call runs.
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
        self.approver = Some(Arc::new(approver));
        self
    }

    /// How long a deferred approval stays valid ([`DEFAULT_APPROVAL_TTL`] unless set).
    #[must_use]
    pub fn with_approval_ttl(mut self, ttl: Duration) -> Self {
        self.approval_ttl = ttl;
        self
    }

    /// The clock deferred approvals are issued and checked against (the system's clock unless
    /// set: tests inject one).
    #[must_use]
    pub fn with_clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Offers the run's tools to `provider`, in its own request shape: [`Registry::definitions`]
    /// exports in its dialect, and with OpenAI's strict mode the `null`s it sends for optional
    /// fields are accepted as absent.
    ///
    /// [`Registry::definitions`]: crate::Registry::definitions
    #[must_use]
    pub fn with_provider(self, provider: Provider) -> Self {
        self.with_dialect(provider.dialect())
    }

    /// Offers the run's tools in a dialect: [`Registry::definitions`] exports in it (MCP, say, for
    /// a consumer that is not a model provider). `with_provider` names a provider's.
    ///
    /// [`Registry::definitions`]: crate::Registry::definitions
    #[must_use]
    pub fn with_dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = Some(dialect);
        self
    }

    /// Defers more tools in this run (see [`Defer`]); the tools declared `defer_loading` are
    /// deferred whatever the rules say.
    #[must_use]
    pub fn defer(mut self, rule: Defer) -> Self {
        self.defer.push(rule);
        self
    }

    /// Finds deferred tools with the registry's own `tool_search` tool whatever the provider:
    /// without it, a run offered to Anthropic or the OpenAI Responses API uses the provider's
    /// tool search, and every other run the registry's.
    #[must_use]
    pub fn with_local_search(mut self) -> Self {
        self.local_search = true;
        self
    }

    /// Keeps what this run's `tool_search` calls load in `loaded`: the loaded tools are appended
    /// to the run's tool list. Without it a search still returns the definitions it found.
    #[must_use]
    pub fn with_loaded(mut self, loaded: Loaded) -> Self {
        self.loaded = Some(loaded);
        self
    }

    /// The host's deferral rules.
    pub fn deferral_rules(&self) -> &[Defer] {
        &self.defer
    }

    /// True when the run's deferred tools are found by the registry's `tool_search` (the
    /// provider has no tool search of its own, or [`RunPolicy::with_local_search`]; the rule is
    /// [`toolwright_core::dialect::deferral::searches_locally`]).
    pub fn searches_locally(&self) -> bool {
        toolwright_core::dialect::deferral::searches_locally(self.dialect, self.local_search)
    }

    /// What the run's searches loaded, when the host keeps it.
    pub fn loaded(&self) -> Option<&Loaded> {
        self.loaded.as_ref()
    }

    /// True when only `read-only` tools are listed and may be called.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// True when the user switched the tool off for this run.
    pub fn is_disabled(&self, name: &str) -> bool {
        self.disabled.contains(name)
    }

    /// True when the host withholds the tool for now.
    pub fn is_withheld(&self, name: &str) -> bool {
        self.withheld.contains_key(name)
    }

    /// The tools switched off, sorted.
    pub fn disabled(&self) -> impl Iterator<Item = &str> {
        self.disabled.iter().map(String::as_str)
    }

    /// How long a deferred approval stays valid.
    pub fn approval_ttl(&self) -> Duration {
        self.approval_ttl
    }

    /// The current time by the policy's clock.
    pub fn now(&self) -> SystemTime {
        self.clock.now()
    }

    /// When an approval asked now expires: [`RunPolicy::approval_ttl`] from now by the policy's
    /// clock, in seconds since the Unix epoch (a part of a second counting as a whole one).
    pub fn approval_expiry(&self) -> u64 {
        crate::approval::expiry(self.now(), self.approval_ttl)
    }

    /// The dialect the run's tools are offered in (`None`: the canonical schemas).
    pub fn dialect(&self) -> Option<Dialect> {
        self.dialect
    }

    /// The approver of the tool's valid calls: the policy's, for a tool that is not read-only.
    pub fn approver_of(&self, meta: &ToolMeta) -> Option<&dyn Approver> {
        self.approver
            .as_deref()
            .filter(|_| !meta.safety.is_read_only())
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
            self.withheld
                .get(meta.name)
                .map(|reason| Refusal::Withheld {
                    reason: reason.clone(),
                })
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
    fn a_withheld_tool_is_refused_with_its_reason_and_not_listed() {
        let policy = RunPolicy::full().withhold("read", "The tool `read` changed upstream.");
        assert!(policy.is_withheld("read") && !policy.lists(&READ) && policy.lists(&WRITE));
        let refusal = policy.listing_refusal(&READ).expect("refused");
        let answer = serde_json::to_value(refusal.answer("read", Some(&READ))).expect("JSON");
        assert_eq!(answer["error"]["code"], "TOOL_NOT_ALLOWED");
        assert_eq!(
            answer["error"]["message"],
            "The tool `read` changed upstream."
        );
        assert_eq!(answer["stateChanged"], false);
        // A run's read-only rule and the user's switches come first.
        let both = RunPolicy::full().disable("read").withhold("read", "r");
        assert_eq!(both.listing_refusal(&READ), Some(Refusal::Disabled));
    }

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
        assert!(RunPolicy::full().approver_of(&WRITE).is_none());
        let policy = RunPolicy::full().with_approval(|_| Decision::Approve);
        assert!(policy.approver_of(&READ).is_none());
        assert!(policy.approver_of(&WRITE).is_some());
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
        assert_eq!(policy.approval_ttl(), DEFAULT_APPROVAL_TTL);
    }
}

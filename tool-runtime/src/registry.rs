//! The registry: every tool of a host, its compiled schema and its time limit, and the one
//! `execute` entry every call goes through.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::task::Poll;
use std::time::Duration;

use futures_util::FutureExt as _;
use serde_json::Value;
use toolwright_core::model::is_valid_tool_name;
use toolwright_core::{Mode, Safety, ToolMeta, ToolSpec};
use tracing::{Instrument as _, Span};

use crate::approval::{ApprovalRequest, DENY_REASON_LIMIT, Decision};
use crate::definitions::DialectCache;
use crate::envelope::{
    ACTION_APPROVAL_PENDING, ACTION_DENIED, ACTION_DISABLED, ACTION_FAILED,
    ACTION_FAILED_DESTRUCTIVE, ACTION_INPUT_INVALID, ACTION_NOT_FOUND, ACTION_OUTPUT_TOO_LARGE,
    ACTION_OUTPUT_TOO_LARGE_CHANGED, ACTION_READ_ONLY_RUN, ACTION_REFUSED_BY_TOOL, ACTION_TIMEOUT,
    ACTION_TIMEOUT_DESTRUCTIVE, ErrorBody, RuntimeCode, ToolResult,
};
use crate::limits::Limits;
use crate::policy::{Refusal, RunPolicy};
use crate::tool::{BoxFuture, CallResult, ExclusiveFn, Handler, SharedFn, ToolDef, ToolError};
use crate::trace;
use crate::validate::{INPUT_INVALID_PREFIX, InputSchema, bounded};

/// The time limit of a call when the builder sets none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How many close names a `TOOL_NOT_FOUND` message lists at most.
pub const CLOSE_NAME_LIMIT: usize = 3;

/// How much of a deserialization error (which may quote the input) a report keeps.
const INPUT_MESSAGE_LIMIT: usize = 100;

/// The longest tool name a message quotes in full.
const NAME_QUOTE_LIMIT: usize = 64;

/// One registered tool.
pub(crate) struct Registered<C> {
    pub(crate) def: ToolDef<C>,
    schema: InputSchema,
    pub(crate) spec: ToolSpec,
    timeout: Duration,
    /// The largest `data` a success may carry, in bytes of its JSON text.
    max_output_bytes: Option<u64>,
    /// The tool's provider definitions and strict-mode nullable fields, computed once on demand.
    pub(crate) dialects: DialectCache,
}

/// Every tool of a host, with its schema compiled once. Immutable once built.
///
/// Built with [`Registry::builder`]; `Send + Sync` for any context type.
pub struct Registry<C> {
    pub(crate) tools: BTreeMap<&'static str, Registered<C>>,
    pub(crate) limits: Limits,
    /// Redacts arguments and results recorded on spans; `None`: they are not recorded.
    pub(crate) trace_content: Option<crate::trace::Redact>,
}

impl<C> fmt::Debug for Registry<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Collects tools, declared manifests and time limits, then checks them all at once.
///
/// # Time limits and output budgets
///
/// A tool may declare its time limit (`timeout`) and the budget of its output
/// (`max_output_bytes`) in its manifest or its `#[tool]` attribute. The declaration replaces the
/// host's default for that tool ([`RegistryBuilder::default_timeout`],
/// [`RegistryBuilder::default_max_output_bytes`]); the host may lower it per tool
/// ([`RegistryBuilder::timeout`], [`RegistryBuilder::max_output_bytes`]), never raise it: a
/// per-tool limit above the declaration is a [`RegistryProblem::AboveDeclared`] at `build()`.
/// Where nothing is declared, the per-tool limit, else the default applies.
pub struct RegistryBuilder<C> {
    tools: Vec<ToolDef<C>>,
    declared: Vec<&'static ToolMeta>,
    default_timeout: Duration,
    timeouts: BTreeMap<String, Duration>,
    default_max_output_bytes: Option<u64>,
    output_budgets: BTreeMap<String, u64>,
    limits: Limits,
    trace_content: Option<crate::trace::Redact>,
}

impl<C> fmt::Debug for RegistryBuilder<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegistryBuilder")
            .field("tools", &self.tools)
            .field(
                "declared",
                &self.declared.iter().map(|m| m.name).collect::<Vec<_>>(),
            )
            .field("default_timeout", &self.default_timeout)
            .field("timeouts", &self.timeouts)
            .field("default_max_output_bytes", &self.default_max_output_bytes)
            .field("output_budgets", &self.output_budgets)
            .field("limits", &self.limits)
            .field("trace_content", &self.trace_content.is_some())
            .finish()
    }
}

/// One reason a registry cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryProblem {
    /// The name does not fit every provider.
    #[error("tool name `{name}` (`{location}`) is not valid, expected `^[a-z][a-z0-9_]{{0,63}}$`")]
    InvalidName {
        /// The name.
        name: String,
        /// Where the tool was declared.
        location: String,
    },
    /// Two tools share a name.
    #[error("two tools are named `{name}`: `{first}` and `{second}`")]
    DuplicateName {
        /// The shared name.
        name: String,
        /// Where the first was declared.
        first: String,
        /// Where the second was declared.
        second: String,
    },
    /// A declared manifest tool has no implementation.
    #[error(
        "tool `{name}` is declared in `{location}` but has no implementation; register it with `.tool(...)`"
    )]
    MissingImplementation {
        /// The tool.
        name: String,
        /// Its manifest.
        location: String,
    },
    /// The implementation does not match its declaration.
    #[error(
        "tool `{name}` is declared {declared} in `{declared_location}` but its implementation (`{location}`) is {found}"
    )]
    Drift {
        /// The tool.
        name: String,
        /// What the manifest declares.
        declared: String,
        /// The manifest.
        declared_location: String,
        /// What the implementation says.
        found: String,
        /// The implementation.
        location: String,
    },
    /// A read-only or parallel tool asks for `&mut C`.
    #[error(
        "tool `{name}` is {safety} and {mode} but its handler takes the context exclusively (`&mut C`); only sequential, destructive tools may; take `&C` instead"
    )]
    ExclusiveHandler {
        /// The tool.
        name: String,
        /// Its safety.
        safety: Safety,
        /// Its mode.
        mode: Mode,
    },
    /// The input schema does not compile.
    #[error("the input schema of tool `{name}` (`{location}`) does not compile: {message}")]
    InvalidSchema {
        /// The tool.
        name: String,
        /// Where it was declared.
        location: String,
        /// Why.
        message: String,
    },
    /// Frozen JSON text (a schema or an example) is not JSON.
    #[error("the metadata of tool `{name}` (`{location}`) is not valid JSON: {message}")]
    InvalidMetadata {
        /// The tool.
        name: String,
        /// Where it was declared.
        location: String,
        /// Why.
        message: String,
    },
    /// A time limit names a tool that is not registered.
    #[error("a time limit is set for `{name}`, which is not a registered tool")]
    UnknownTimeout {
        /// The name given.
        name: String,
    },
    /// A time limit of zero.
    #[error("the time limit of `{name}` must be greater than zero")]
    ZeroTimeout {
        /// The tool, or `*` for the default.
        name: String,
    },
    /// An output budget names a tool that is not registered.
    #[error("an output budget is set for `{name}`, which is not a registered tool")]
    UnknownOutputBudget {
        /// The name given.
        name: String,
    },
    /// An output budget of zero.
    #[error("the output budget of `{name}` must be greater than zero")]
    ZeroOutputBudget {
        /// The tool, or `*` for the default.
        name: String,
    },
    /// The host set a limit above the one the tool declares: a host may only lower it.
    #[error(
        "the {limit} of `{name}` is set to {given}, above the {declared} its declaration (`{location}`) allows; a host may lower a declared limit, never raise it"
    )]
    AboveDeclared {
        /// The tool.
        name: String,
        /// `time limit` or `output budget`.
        limit: String,
        /// What the host set.
        given: String,
        /// What the tool declares.
        declared: String,
        /// Where it is declared.
        location: String,
    },
}

impl RegistryProblem {
    fn tool_name(&self) -> &str {
        match self {
            RegistryProblem::InvalidName { name, .. }
            | RegistryProblem::DuplicateName { name, .. }
            | RegistryProblem::MissingImplementation { name, .. }
            | RegistryProblem::Drift { name, .. }
            | RegistryProblem::ExclusiveHandler { name, .. }
            | RegistryProblem::InvalidSchema { name, .. }
            | RegistryProblem::InvalidMetadata { name, .. }
            | RegistryProblem::UnknownTimeout { name }
            | RegistryProblem::ZeroTimeout { name }
            | RegistryProblem::UnknownOutputBudget { name }
            | RegistryProblem::ZeroOutputBudget { name }
            | RegistryProblem::AboveDeclared { name, .. } => name,
        }
    }
}

/// Why a registry cannot be built: every problem found, sorted by tool name.
///
/// `Debug` writes the same text as `Display`: a `main` returning `Result<_, RegistryError>`
/// prints the error with `Debug`, and should print the readable problems.
#[derive(Clone, PartialEq, Eq)]
pub struct RegistryError {
    problems: Vec<RegistryProblem>,
}

impl RegistryError {
    /// Every problem, sorted by tool name then message.
    pub fn problems(&self) -> &[RegistryProblem] {
        &self.problems
    }
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.problems.as_slice() {
            [one] => write!(f, "{one}"),
            problems => {
                write!(
                    f,
                    "the tool registry cannot be built ({} problems):",
                    problems.len()
                )?;
                for problem in problems {
                    write!(f, "\n- {problem}")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Debug for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for RegistryError {}

impl<C> Default for RegistryBuilder<C> {
    fn default() -> Self {
        RegistryBuilder {
            tools: Vec::new(),
            declared: Vec::new(),
            default_timeout: DEFAULT_TIMEOUT,
            timeouts: BTreeMap::new(),
            default_max_output_bytes: None,
            output_budgets: BTreeMap::new(),
            limits: Limits::default(),
            trace_content: None,
        }
    }
}

impl<C> RegistryBuilder<C> {
    /// Registers a tool.
    #[must_use]
    pub fn tool(mut self, def: ToolDef<C>) -> Self {
        self.tools.push(def);
        self
    }

    /// Registers several tools.
    #[must_use]
    pub fn tools(mut self, defs: impl IntoIterator<Item = ToolDef<C>>) -> Self {
        self.tools.extend(defs);
        self
    }

    /// Declares the manifest tools that must all have an implementation (the generator's list of
    /// every manifest tool).
    #[must_use]
    pub fn declared(mut self, metas: &[&'static ToolMeta]) -> Self {
        self.declared.extend_from_slice(metas);
        self
    }

    /// The time limit of every tool that neither declares one nor gets its own
    /// ([`DEFAULT_TIMEOUT`] unless set).
    #[must_use]
    pub fn default_timeout(mut self, limit: Duration) -> Self {
        self.default_timeout = limit;
        self
    }

    /// The time limit of one tool: at most what the tool declares, if it declares one (see
    /// [the builder's documentation](RegistryBuilder)).
    #[must_use]
    pub fn timeout(mut self, name: impl Into<String>, limit: Duration) -> Self {
        self.timeouts.insert(name.into(), limit);
        self
    }

    /// The output budget of every tool that neither declares one nor gets its own, in bytes of
    /// the JSON text of a success's `data` (none unless set: outputs are not bounded).
    #[must_use]
    pub fn default_max_output_bytes(mut self, bytes: u64) -> Self {
        self.default_max_output_bytes = Some(bytes);
        self
    }

    /// The output budget of one tool, in bytes: at most what the tool declares, if it declares
    /// one. A success whose `data` is larger is answered `TOOL_FAILED` instead (see
    /// [`crate::envelope::ACTION_OUTPUT_TOO_LARGE`]).
    #[must_use]
    pub fn max_output_bytes(mut self, name: impl Into<String>, bytes: u64) -> Self {
        self.output_budgets.insert(name.into(), bytes);
        self
    }

    /// Records each call's arguments and result on its span (the OpenTelemetry attributes
    /// `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result`), each passed through `redact`
    /// first (see [`crate::trace`]). Without it they are never recorded.
    #[must_use]
    pub fn trace_content(
        mut self,
        redact: impl Fn(&str) -> String + Send + Sync + 'static,
    ) -> Self {
        self.trace_content = Some(std::sync::Arc::new(redact));
        self
    }

    /// Bounds on arguments, error messages and messages' calls ([`Limits::default`] unless set).
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Checks everything and compiles each schema once.
    ///
    /// # Errors
    /// Every problem found: duplicate or invalid names, declared tools without an implementation
    /// or disagreeing with it, `&mut C` handlers on read-only or parallel tools, schemas that do
    /// not compile, time limits and output budgets for unknown tools, of zero, or above what the
    /// tool declares.
    pub fn build(self) -> Result<Registry<C>, RegistryError> {
        let mut problems = Vec::new();
        let mut tools: BTreeMap<&'static str, Registered<C>> = BTreeMap::new();
        if self.default_timeout.is_zero() {
            problems.push(RegistryProblem::ZeroTimeout {
                name: "*".to_owned(),
            });
        }
        if self.default_max_output_bytes == Some(0) {
            problems.push(RegistryProblem::ZeroOutputBudget {
                name: "*".to_owned(),
            });
        }
        let host = HostLimits {
            default_timeout: self.default_timeout,
            timeouts: &self.timeouts,
            default_max_output_bytes: self.default_max_output_bytes,
            output_budgets: &self.output_budgets,
        };
        // Where each name was first registered, including tools that fail their own checks.
        let mut seen: BTreeMap<&'static str, &'static str> = BTreeMap::new();
        for def in self.tools {
            let meta = def.meta;
            if let Some(first) = seen.get(meta.name) {
                problems.push(RegistryProblem::DuplicateName {
                    name: meta.name.to_owned(),
                    first: (*first).to_owned(),
                    second: meta.source.to_owned(),
                });
                continue;
            }
            seen.insert(meta.name, meta.source);
            match register(def, &host) {
                Ok(registered) => {
                    tools.insert(meta.name, registered);
                }
                Err(mut found) => {
                    problems.append(&mut found);
                }
            }
        }
        let mut declared: BTreeMap<&'static str, &'static ToolMeta> = BTreeMap::new();
        for meta in self.declared {
            match declared.get(meta.name) {
                Some(first) if !std::ptr::eq(*first, meta) => {
                    problems.push(RegistryProblem::DuplicateName {
                        name: meta.name.to_owned(),
                        first: first.source.to_owned(),
                        second: meta.source.to_owned(),
                    });
                }
                Some(_) => {}
                None => {
                    declared.insert(meta.name, meta);
                }
            }
        }
        for (name, manifest) in &declared {
            match tools.get(name) {
                None if !problems.iter().any(|p| p.tool_name() == *name) => {
                    problems.push(RegistryProblem::MissingImplementation {
                        name: (*name).to_owned(),
                        location: manifest.source.to_owned(),
                    });
                }
                None => {}
                Some(registered) => {
                    if let Some(problem) = drift(manifest, registered) {
                        problems.push(problem);
                    }
                }
            }
        }
        for (name, limit) in &self.timeouts {
            if !tools.contains_key(name.as_str())
                && !problems.iter().any(|p| p.tool_name() == name.as_str())
            {
                problems.push(RegistryProblem::UnknownTimeout { name: name.clone() });
            } else if limit.is_zero() {
                problems.push(RegistryProblem::ZeroTimeout { name: name.clone() });
            }
        }
        for (name, bytes) in &self.output_budgets {
            if !tools.contains_key(name.as_str())
                && !problems.iter().any(|p| p.tool_name() == name.as_str())
            {
                problems.push(RegistryProblem::UnknownOutputBudget { name: name.clone() });
            } else if *bytes == 0 {
                problems.push(RegistryProblem::ZeroOutputBudget { name: name.clone() });
            }
        }
        if problems.is_empty() {
            Ok(Registry {
                tools,
                limits: self.limits,
                trace_content: self.trace_content,
            })
        } else {
            problems.sort_by(|a, b| {
                (a.tool_name(), a.to_string()).cmp(&(b.tool_name(), b.to_string()))
            });
            problems.dedup();
            Err(RegistryError { problems })
        }
    }
}

/// The time limits and output budgets the host set.
struct HostLimits<'a> {
    default_timeout: Duration,
    timeouts: &'a BTreeMap<String, Duration>,
    default_max_output_bytes: Option<u64>,
    output_budgets: &'a BTreeMap<String, u64>,
}

/// The limit a tool runs under: the host's own for it (never above the declared one), else the
/// declared one, else the host's default.
fn effective<T: PartialOrd + Copy>(
    declared: Option<T>,
    host: Option<T>,
    default: T,
    above: impl FnOnce(T, T) -> RegistryProblem,
    problems: &mut Vec<RegistryProblem>,
) -> T {
    match (declared, host) {
        (Some(declared), Some(host)) if host > declared => {
            problems.push(above(host, declared));
            declared
        }
        (_, Some(host)) => host,
        (Some(declared), None) => declared,
        (None, None) => default,
    }
}

fn register<C>(
    def: ToolDef<C>,
    host: &HostLimits<'_>,
) -> Result<Registered<C>, Vec<RegistryProblem>> {
    let meta = def.meta;
    let name = meta.name.to_owned();
    let source = meta.source.to_owned();
    let mut problems = Vec::new();
    if !is_valid_tool_name(meta.name) {
        problems.push(RegistryProblem::InvalidName {
            name: name.clone(),
            location: source.clone(),
        });
    }
    if matches!(def.handler, Handler::Exclusive(_))
        && (meta.safety.is_read_only() || !meta.mode.is_sequential())
    {
        problems.push(RegistryProblem::ExclusiveHandler {
            name: name.clone(),
            safety: meta.safety,
            mode: meta.mode,
        });
    }
    let spec = match ToolSpec::from_meta(meta) {
        Ok(spec) => Some(spec),
        Err(e) => {
            problems.push(RegistryProblem::InvalidMetadata {
                name: name.clone(),
                location: source.clone(),
                message: e.to_string(),
            });
            None
        }
    };
    let schema = match &spec {
        Some(spec) => match InputSchema::compile(&spec.input_schema) {
            Ok(schema) => Some(schema),
            Err(e) => {
                problems.push(RegistryProblem::InvalidSchema {
                    name: name.clone(),
                    location: source.clone(),
                    message: e.message,
                });
                None
            }
        },
        None => None,
    };
    let above = |limit: &str, given: String, declared: String| RegistryProblem::AboveDeclared {
        name: name.clone(),
        limit: limit.to_owned(),
        given,
        declared,
        location: source.clone(),
    };
    if meta.timeout_ms == Some(0) {
        problems.push(RegistryProblem::ZeroTimeout { name: name.clone() });
    }
    if meta.max_output_bytes == Some(0) {
        problems.push(RegistryProblem::ZeroOutputBudget { name: name.clone() });
    }
    let timeout = effective(
        meta.timeout_ms.map(Duration::from_millis),
        host.timeouts.get(meta.name).copied(),
        host.default_timeout,
        |given, declared| above("time limit", describe(given), describe(declared)),
        &mut problems,
    );
    let max_output_bytes = effective(
        meta.max_output_bytes.map(Some),
        host.output_budgets.get(meta.name).copied().map(Some),
        host.default_max_output_bytes,
        |given, declared| {
            let bytes = |b: Option<u64>| format!("{} bytes", b.unwrap_or_default());
            above("output budget", bytes(given), bytes(declared))
        },
        &mut problems,
    );
    match (spec, schema) {
        (Some(spec), Some(schema)) if problems.is_empty() => Ok(Registered {
            def,
            schema,
            spec,
            timeout,
            max_output_bytes,
            dialects: DialectCache::default(),
        }),
        _ => Err(problems),
    }
}

fn drift<C>(manifest: &'static ToolMeta, registered: &Registered<C>) -> Option<RegistryProblem> {
    let found = registered.def.meta;
    if std::ptr::eq(manifest, found) {
        return None;
    }
    let problem = |declared: String, found_text: String| RegistryProblem::Drift {
        name: manifest.name.to_owned(),
        declared,
        declared_location: manifest.source.to_owned(),
        found: found_text,
        location: found.source.to_owned(),
    };
    if manifest.safety != found.safety || manifest.mode != found.mode {
        return Some(problem(
            format!("{}, {}", manifest.safety, manifest.mode),
            format!("{}, {}", found.safety, found.mode),
        ));
    }
    match manifest.input_schema.to_value() {
        Ok(schema) if schema == registered.spec.input_schema => None,
        Ok(_) => Some(problem(
            "with one input schema".to_owned(),
            "built with another".to_owned(),
        )),
        Err(e) => Some(RegistryProblem::InvalidMetadata {
            name: manifest.name.to_owned(),
            location: manifest.source.to_owned(),
            message: e.to_string(),
        }),
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
        let span = self.call_span(name, "", arguments);
        let result = async {
            match self.admit(policy, "", name, arguments, None).await {
                Admission::Run(tool, arguments) => tool.run(ctx, &arguments).await,
                Admission::Answered(result) => result,
                Admission::Deferred(_) => cannot_wait(name),
            }
        }
        .instrument(span.clone())
        .await;
        self.end_call(&span, self.limits.bound_result(result))
    }

    /// The span of one call ([`crate::trace`]), its arguments recorded when the host opted in.
    pub(crate) fn call_span(&self, name: &str, call_id: &str, arguments: &Value) -> Span {
        let span = trace::call_span(name, call_id, || self.meta(name));
        trace::record_arguments(&span, self.trace_content.as_ref(), &self.limits, arguments);
        span
    }

    fn meta(&self, name: &str) -> Option<&'static ToolMeta> {
        self.tools.get(name).map(|t| t.def.meta)
    }

    /// Records how a call ended on its span, and hands the result on.
    pub(crate) fn end_call(&self, span: &Span, result: ToolResult) -> ToolResult {
        trace::record_result(span, self.trace_content.as_ref(), &result);
        result
    }

    /// A call answered without a chance to run (past the batch bound, behind a refused
    /// approval): its span opens and closes with its answer.
    pub(crate) fn answered_call(
        &self,
        call_id: &str,
        name: &str,
        result: ToolResult,
    ) -> ToolResult {
        let span = trace::call_span(name, call_id, || self.meta(name));
        self.end_call(&span, result)
    }

    /// Check 2, the bounds, validation and the approver: the tool and the arguments it
    /// receives (without the `null`s of the policy's dialect, or as the approver edited them),
    /// the envelope refusing the call, or the validated arguments of a deferred call.
    pub(crate) async fn admit<'a>(
        &'a self,
        policy: &RunPolicy,
        call_id: &str,
        name: &str,
        arguments: &'a Value,
        arguments_error: Option<&str>,
    ) -> Admission<'a, C> {
        let Some(tool) = self.tools.get(name) else {
            return Admission::Answered(self.not_found(policy, name));
        };
        let meta = tool.def.meta;
        // The bounds come before anything walks the arguments (validation, the approver,
        // deserialization), and after the refusals that do not look at them.
        if let Some(refusal) = policy.listing_refusal(meta) {
            return Admission::Answered(not_allowed(name, refusal));
        }
        if let Some(problem) = arguments_error {
            return Admission::Answered(input_invalid(format!(
                "{INPUT_INVALID_PREFIX}/: {}",
                bounded(problem, 2 * INPUT_MESSAGE_LIMIT)
            )));
        }
        if let Err(exceeded) = self.limits.check_arguments(arguments) {
            return Admission::Answered(input_invalid(format!("{INPUT_INVALID_PREFIX}{exceeded}")));
        }
        let arguments = tool.accepted_arguments(policy, arguments);
        if let Err(errors) = tool.schema.check(&arguments) {
            return Admission::Answered(input_invalid(errors.report()));
        }
        let Some(approver) = policy
            .approval
            .as_ref()
            .filter(|_| policy.needs_approval(meta))
        else {
            return Admission::Run(tool, arguments);
        };
        let request = ApprovalRequest {
            meta,
            call_id,
            arguments: &arguments,
        };
        match approver.decide(request).await {
            Decision::Approve => Admission::Run(tool, arguments),
            Decision::Deny { reason } => Admission::Answered(denied(name, &reason)),
            Decision::Edit { arguments } => match self.recheck(policy, tool, arguments) {
                Ok(edited) => Admission::Run(tool, Cow::Owned(edited)),
                Err(refused) => Admission::Answered(refused),
            },
            Decision::Defer => Admission::Deferred(arguments.into_owned()),
        }
    }

    /// Arguments a person gave (edited, or approved from a saved state) checked as a call's are:
    /// the bounds, the dialect's `null`s, the schema.
    pub(crate) fn recheck(
        &self,
        policy: &RunPolicy,
        tool: &Registered<C>,
        arguments: Value,
    ) -> Result<Value, ToolResult> {
        if let Err(exceeded) = self.limits.check_arguments(&arguments) {
            return Err(input_invalid(format!("{INPUT_INVALID_PREFIX}{exceeded}")));
        }
        let stripped = match tool.accepted_arguments(policy, &arguments) {
            Cow::Owned(stripped) => Some(stripped),
            Cow::Borrowed(_) => None,
        };
        let arguments = stripped.unwrap_or(arguments);
        match tool.schema.check(&arguments) {
            Ok(()) => Ok(arguments),
            Err(errors) => Err(input_invalid(errors.report())),
        }
    }

    pub(crate) fn not_found(&self, policy: &RunPolicy, name: &str) -> ToolResult {
        let offered: Vec<&str> = self.resolve(policy).iter().map(|m| m.name).collect();
        let close = close_names(name, &offered);
        let mut message = format!(
            "The tool `{}` does not exist.",
            bounded(name, NAME_QUOTE_LIMIT)
        );
        if !close.is_empty() {
            let listed: Vec<String> = close.iter().map(|n| format!("`{n}`")).collect();
            message.push_str(&format!(" Close names: {}.", listed.join(", ")));
        }
        ToolResult::failure(
            ErrorBody::runtime(RuntimeCode::NotFound, message, ACTION_NOT_FOUND),
            false,
        )
    }
}

/// What the checks before a call make of it.
pub(crate) enum Admission<'a, C> {
    /// The call runs, with these arguments.
    Run(&'a Registered<C>, Cow<'a, Value>),
    /// The call is answered without running.
    Answered(ToolResult),
    /// The approver deferred the call; these are its validated arguments.
    Deferred(Value),
}

fn input_invalid(message: String) -> ToolResult {
    ToolResult::failure(
        ErrorBody::runtime(RuntimeCode::InputInvalid, message, ACTION_INPUT_INVALID),
        false,
    )
}

pub(crate) fn not_allowed(name: &str, refusal: Refusal) -> ToolResult {
    let (message, action) = match refusal {
        Refusal::ReadOnlyRun => (
            format!("The tool `{name}` changes state and this run is read-only."),
            ACTION_READ_ONLY_RUN,
        ),
        Refusal::Disabled => (
            format!("The tool `{name}` is disabled by the user."),
            ACTION_DISABLED,
        ),
        Refusal::Denied => (
            format!("The call to `{name}` was not approved."),
            ACTION_DENIED,
        ),
    };
    ToolResult::failure(
        ErrorBody::runtime(RuntimeCode::NotAllowed, message, action),
        false,
    )
}

/// The answer to a call the approver denied, with the person's reason (bounded).
pub(crate) fn denied(name: &str, reason: &str) -> ToolResult {
    let reason = reason.trim();
    if reason.is_empty() {
        return not_allowed(name, Refusal::Denied);
    }
    ToolResult::failure(
        ErrorBody::runtime(
            RuntimeCode::NotAllowed,
            format!(
                "The call to `{name}` was not approved: {}",
                bounded(reason, DENY_REASON_LIMIT)
            ),
            ACTION_DENIED,
        ),
        false,
    )
}

/// The answer to a deferred call where the host answers every call at once.
pub(crate) fn cannot_wait(name: &str) -> ToolResult {
    ToolResult::failure(
        ErrorBody::runtime(
            RuntimeCode::NotAllowed,
            format!(
                "The call to `{name}` waits for a person's approval, and this host cannot wait for it; it was not run."
            ),
            ACTION_APPROVAL_PENDING,
        ),
        false,
    )
}

impl<C> Registered<C> {
    /// Runs the tool with validated arguments, the context shared or to itself as its handler
    /// asks.
    pub(crate) async fn run(&self, ctx: &mut C, arguments: &Value) -> ToolResult {
        match self.def.handler {
            Handler::Shared(f) => self.run_shared(f, ctx, arguments).await,
            Handler::Exclusive(f) => self.run_exclusive(f, ctx, arguments).await,
        }
    }

    pub(crate) async fn run_shared(
        &self,
        f: SharedFn<C>,
        ctx: &C,
        arguments: &Value,
    ) -> ToolResult {
        match catch_panic(move || f(ctx, arguments)) {
            Ok(future) => self.finish(future).await,
            Err(_) => self.panicked(),
        }
    }

    pub(crate) async fn run_exclusive(
        &self,
        f: ExclusiveFn<C>,
        ctx: &mut C,
        arguments: &Value,
    ) -> ToolResult {
        match catch_panic(move || f(ctx, arguments)) {
            Ok(future) => self.finish(future).await,
            Err(_) => self.panicked(),
        }
    }

    async fn finish(&self, future: BoxFuture<'_, CallResult>) -> ToolResult {
        // The time limit counts from here. Most tools answer on their first poll: that poll
        // runs before a timer is set up, and only a tool that is still pending gets one (with
        // the same deadline).
        let start = tokio::time::Instant::now();
        let mut future = AssertUnwindSafe(future).catch_unwind();
        let first = std::future::poll_fn(|cx| Poll::Ready(future.poll_unpin(cx))).await;
        let outcome = match first {
            Poll::Ready(outcome) => Ok(outcome),
            Poll::Pending => match start.checked_add(self.timeout) {
                Some(deadline) if tokio::time::Instant::now() >= deadline => {
                    // As a timer polled after that first poll would have found it elapsed.
                    return self.timed_out();
                }
                Some(deadline) => tokio::time::timeout_at(deadline, future).await,
                // A limit past the clock's range (set in code) never elapses.
                None => Ok(future.await),
            },
        };
        match outcome {
            Err(_elapsed) => self.timed_out(),
            Ok(Err(_panic)) => self.panicked(),
            Ok(Ok(result)) => self.envelope(result),
        }
    }

    fn destructive(&self) -> bool {
        !self.def.meta.safety.is_read_only()
    }

    /// The recovery hint of a `TOOL_FAILED` after the tool ran: a destructive tool's says it may
    /// have changed state.
    fn failed_action(&self) -> &'static str {
        if self.destructive() {
            ACTION_FAILED_DESTRUCTIVE
        } else {
            ACTION_FAILED
        }
    }

    fn panicked(&self) -> ToolResult {
        let name = self.def.meta.name;
        ToolResult::failure(
            ErrorBody::runtime(
                RuntimeCode::Failed,
                format!("The tool `{name}` failed unexpectedly."),
                self.failed_action(),
            ),
            self.destructive(),
        )
    }

    fn timed_out(&self) -> ToolResult {
        let name = self.def.meta.name;
        let action = if self.destructive() {
            ACTION_TIMEOUT_DESTRUCTIVE
        } else {
            ACTION_TIMEOUT
        };
        ToolResult::failure(
            ErrorBody::runtime(
                RuntimeCode::Timeout,
                format!(
                    "The tool `{name}` did not finish within {}.",
                    describe(self.timeout)
                ),
                action,
            ),
            self.destructive(),
        )
    }

    /// The answer to a success whose `data` is over the tool's output budget: `TOOL_FAILED`, but
    /// retryable with a narrower request, its `stateChanged` kept. The recovery hint is
    /// [`ACTION_OUTPUT_TOO_LARGE`] (or [`ACTION_OUTPUT_TOO_LARGE_CHANGED`] when the call changed
    /// state), followed by the hints of the tool's declared errors about a request too large.
    fn over_budget(&self, size: u64, budget: u64, state_changed: bool) -> ToolResult {
        let meta = self.def.meta;
        let mut action = if state_changed {
            ACTION_OUTPUT_TOO_LARGE_CHANGED
        } else {
            ACTION_OUTPUT_TOO_LARGE
        }
        .to_owned();
        for hint in narrowing_hints(meta) {
            action.push(' ');
            action.push_str(hint);
        }
        ToolResult::failure(
            ErrorBody {
                code: RuntimeCode::Failed.as_str().to_owned(),
                message: format!(
                    "The output of `{}` is {size} bytes, more than its budget of {budget} bytes, so it was not returned: a narrower request is needed.",
                    meta.name
                ),
                retryable: true,
                recommended_action: action,
            },
            state_changed,
        )
    }

    /// The envelope of what the adapter answered.
    fn envelope(&self, result: CallResult) -> ToolResult {
        let meta = self.def.meta;
        match result {
            Ok(output) => {
                let state_changed = output.state_changed && self.destructive();
                let size = output.data.json().len() as u64;
                match self.max_output_bytes {
                    Some(budget) if size > budget => self.over_budget(size, budget, state_changed),
                    _ => ToolResult::success(output.data, state_changed),
                }
            }
            Err(ToolError::Declared { code, detail }) => match meta.error(code) {
                Some(declared) => {
                    let mut message = declared.message.to_owned();
                    if let Some(detail) = detail.as_deref().map(str::trim).filter(|d| !d.is_empty())
                    {
                        message.push(' ');
                        message.push_str(detail);
                    }
                    ToolResult::failure(
                        ErrorBody {
                            code: declared.code.to_owned(),
                            message,
                            retryable: declared.retryable,
                            recommended_action: declared.recommended_action.to_owned(),
                        },
                        false,
                    )
                }
                // A code the tool does not declare is a failure without a declared code, after
                // the tool ran: a destructive tool may have changed state half-way.
                None => ToolResult::failure(
                    ErrorBody::runtime(
                        RuntimeCode::Failed,
                        format!(
                            "The tool `{}` failed with the undeclared error code `{}`.",
                            meta.name,
                            bounded(code, NAME_QUOTE_LIMIT)
                        ),
                        self.failed_action(),
                    ),
                    self.destructive(),
                ),
            },
            // Answered by the adapter before the tool's code ran. `#[tool]`'s adapters start the
            // message with the pointer of the value that failed (a JSON Pointer starts with
            // `/`, a serde message never does); a message without one is about the root.
            Err(ToolError::Input(message)) => {
                let at = if message.starts_with('/') { "" } else { "/: " };
                ToolResult::failure(
                    ErrorBody::runtime(
                        RuntimeCode::InputInvalid,
                        format!(
                            "{INPUT_INVALID_PREFIX}{at}{}",
                            bounded(&message, INPUT_MESSAGE_LIMIT)
                        ),
                        ACTION_INPUT_INVALID,
                    ),
                    false,
                )
            }
            // A refusal comes before the tool changed anything.
            Err(ToolError::NotAllowed(message)) => ToolResult::failure(
                ErrorBody::runtime(
                    RuntimeCode::NotAllowed,
                    bounded(&message, 300),
                    ACTION_REFUSED_BY_TOOL,
                ),
                false,
            ),
            // A failure without a declared code may come after the tool changed state (its
            // output could not be serialized, say): a destructive tool never reassures.
            Err(ToolError::Failed(message)) => ToolResult::failure(
                ErrorBody::runtime(
                    RuntimeCode::Failed,
                    format!(
                        "The tool `{}` failed: {}",
                        meta.name,
                        bounded(&message, 300)
                    ),
                    self.failed_action(),
                ),
                self.destructive(),
            ),
        }
    }
}

/// The recovery hints of the tool's declared errors about a request too large, in declaration
/// order: those whose code has a part `TOO` (`RANGE_TOO_LARGE`, `TOO_MANY_SYMBOLS`). Such an
/// error tells how to narrow a request, which is what an output over its budget needs too.
/// Codes about a range or a limit in general (`DATE_OUT_OF_RANGE`, `PANE_LIMIT_REACHED`) are
/// not taken: their hints are about where, or about state, not about size.
pub fn narrowing_hints(meta: &ToolMeta) -> impl Iterator<Item = &'static str> {
    meta.errors
        .iter()
        .filter(|e| e.code.split('_').any(|part| part == "TOO"))
        .map(|e| e.recommended_action)
}

/// Runs `f`, catching a panic (the adapter may panic before it returns its future).
fn catch_panic<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    std::panic::catch_unwind(AssertUnwindSafe(f))
}

/// `30 s`, `1.5 s`, `250 ms`.
fn describe(limit: Duration) -> String {
    let millis = limit.as_millis();
    if millis >= 1000 && millis.is_multiple_of(1000) {
        format!("{} s", millis / 1000)
    } else if millis >= 1000 {
        format!("{:.1} s", limit.as_secs_f64())
    } else {
        format!("{millis} ms")
    }
}

/// Up to [`CLOSE_NAME_LIMIT`] names close to `name`: small edit distance, or a long common
/// prefix, closest first.
pub fn close_names<'a>(name: &str, candidates: &[&'a str]) -> Vec<&'a str> {
    if name.chars().count() > 4 * NAME_QUOTE_LIMIT {
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

    #[test]
    fn durations_read_naturally() {
        assert_eq!(describe(Duration::from_secs(30)), "30 s");
        assert_eq!(describe(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(describe(Duration::from_millis(250)), "250 ms");
    }
}

//! Collecting tools, declared manifests, time limits and output budgets, and checking them all
//! at once into a [`Registry`].

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use toolwright_core::model::{Upstream, is_valid_tool_name};
use toolwright_core::{ToolMeta, ToolSpec};

use super::error::{RegistryError, RegistryProblem};
use super::{DEFAULT_TIMEOUT, DialectCache, Registered, Registry};
use crate::handler::{Handler, ToolDef};
use crate::limits::Limits;
use crate::refusal::describe;
use crate::trace::Redact;
use crate::validate::InputSchema;

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
    upstreams: BTreeMap<String, Upstream>,
    limits: Limits,
    trace_content: Option<Redact>,
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
            .field("upstreams", &self.upstreams.keys().collect::<Vec<_>>())
            .field("limits", &self.limits)
            .field("trace_content", &self.trace_content.is_some())
            .finish()
    }
}

impl<C> Default for RegistryBuilder<C> {
    fn default() -> Self {
        RegistryBuilder {
            tools: Vec::new(),
            declared: Vec::new(),
            default_timeout: DEFAULT_TIMEOUT,
            timeouts: BTreeMap::new(),
            default_max_output_bytes: None,
            output_budgets: BTreeMap::new(),
            upstreams: BTreeMap::new(),
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
    /// one. A success whose `data` is larger is answered `TOOL_FAILED` instead, retryable, asking
    /// for a narrower request.
    #[must_use]
    pub fn max_output_bytes(mut self, name: impl Into<String>, bytes: u64) -> Self {
        self.output_budgets.insert(name.into(), bytes);
        self
    }

    /// Says that the tool `name` runs on an upstream MCP server, pinned as `upstream` (what a
    /// proxy registers for each pinned tool): its spec carries the pin, so the run rule
    /// [`Defer::Upstream`](crate::policy::Defer::Upstream) defers it and an OpenAI Responses
    /// request groups it with the other deferred tools of its server in one namespace.
    #[must_use]
    pub fn upstream(mut self, name: impl Into<String>, upstream: Upstream) -> Self {
        self.upstreams.insert(name.into(), upstream);
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
    /// not compile, time limits, output budgets and upstreams for unknown tools, limits of zero
    /// or above what the tool declares, deprecated tools whose `replacement` is neither registered nor declared.
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
        // The deprecated tools that name a replacement, checked once every name is known.
        let mut replaced: Vec<&'static ToolMeta> = Vec::new();
        for def in self.tools {
            let meta = def.meta;
            if meta.deprecated.is_some_and(|d| d.replacement.is_some()) {
                replaced.push(meta);
            }
            if let Some(first) = seen.get(meta.name) {
                problems.push(RegistryProblem::DuplicateName {
                    name: meta.name.to_owned(),
                    first: (*first).to_owned(),
                    second: meta.source.to_owned(),
                });
                continue;
            }
            seen.insert(meta.name, meta.source);
            if meta.name == super::deferral::TOOL_SEARCH {
                problems.push(RegistryProblem::ReservedName {
                    name: meta.name.to_owned(),
                    location: meta.source.to_owned(),
                });
                continue;
            }
            match register(def, &host) {
                Ok(mut registered) => {
                    registered.spec.upstream = self.upstreams.get(meta.name).cloned();
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
        unknown_replacements(&replaced, &seen, &declared, &mut problems);
        for (name, limit) in &self.timeouts {
            if !tools.contains_key(name.as_str())
                && !problems.iter().any(|p| p.tool_name() == name.as_str())
            {
                problems.push(RegistryProblem::UnknownTimeout { name: name.clone() });
            } else if limit.is_zero() {
                problems.push(RegistryProblem::ZeroTimeout { name: name.clone() });
            }
        }
        for name in self.upstreams.keys() {
            if !tools.contains_key(name.as_str())
                && !problems.iter().any(|p| p.tool_name() == name.as_str())
            {
                problems.push(RegistryProblem::UnknownUpstream { name: name.clone() });
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
                search: super::deferral::Search::default(),
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

/// A [`RegistryProblem::UnknownReplacement`] for each tool of `replaced` whose `replacement` is
/// neither a registered tool (`seen`, those failing their own checks included) nor a declared
/// one. A manifest's replacement is checked within its set when the manifests load; here the
/// set is what the host registers, so a code-first tool's is checked too.
fn unknown_replacements(
    replaced: &[&'static ToolMeta],
    seen: &BTreeMap<&'static str, &'static str>,
    declared: &BTreeMap<&'static str, &'static ToolMeta>,
    problems: &mut Vec<RegistryProblem>,
) {
    let known: Vec<&str> = seen
        .keys()
        .chain(declared.keys().filter(|name| !seen.contains_key(*name)))
        .copied()
        .collect();
    for meta in replaced {
        let Some(replacement) = meta.deprecated.and_then(|d| d.replacement) else {
            continue;
        };
        if known.contains(&replacement) {
            continue;
        }
        let others: Vec<&str> = known
            .iter()
            .copied()
            .filter(|name| *name != meta.name)
            .collect();
        problems.push(RegistryProblem::UnknownReplacement {
            name: meta.name.to_owned(),
            location: meta.source.to_owned(),
            replacement: replacement.to_owned(),
            close: toolwright_core::schema::closest(replacement, &others).map(str::to_owned),
        });
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
            output: std::sync::OnceLock::new(),
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

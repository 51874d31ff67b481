//! Provider dialects: tool definitions in the exact shape each provider accepts.
//!
//! A tool's canonical input schema is plain JSON Schema 2020-12 (from a manifest, or from schemars
//! for code-first tools). Every provider accepts a different subset of it. Each dialect here has
//!
//! - one table of rules ([`Dialect::rules`]), one entry per rule, each with a stable id;
//! - a converter that rewrites the canonical schema into what the provider accepts (moving
//!   constraints it cannot express into the description text: the registry keeps enforcing the
//!   canonical schema, so nothing is lost at run time);
//! - a checker that runs after every conversion and verifies every rule of the table on the
//!   converted definition.
//!
//! Every schema is first converted to draft 2020-12 (draft-07 and 2019-09 constructs rewritten by
//! [`crate::schema::draft::to_2020_12`], `$schema` dropped). A tool that still breaks a rule is
//! reported with a [`Violation`] naming the tool, the JSON Pointer into its exported definition
//! (`/parameters/properties/style`) and the rule: [`export`] fails, [`catalog`] leaves the tool
//! out of that provider's catalog and lists why. Nothing is emitted that the provider would
//! reject at request time. Whether a schema is valid JSON Schema
//! 2020-12 (and compiles: patterns, references) is decided by `jsonschema`, on every schema.
//!
//! Each definition is built one way: [`convert`] makes it a JSON value, an export is the array
//! of them sorted by tool name ([`export`] for one request, [`catalog`] for the checked-in file),
//! and `serde_json` writes the text (pretty-printed, with a final newline). Deferred tools
//! (`defer_loading = true`) follow the eager ones in each provider's deferral form, with its
//! tool search or the registry's own `tool_search` (see [`deferral`]); the runtime arranges a
//! run's list with the same code.
//!
//! | dialect | shape of one definition |
//! |---|---|
//! | [`Dialect::Mcp`] | `{name, title, description, inputSchema, outputSchema?, annotations}` (`tools/list`) |
//! | [`Dialect::OpenAi`] | `{type: "function", function: {name, description, parameters, strict}}` (Chat Completions `tools`) |
//! | [`Dialect::OpenAiResponses`] | `{type: "function", name, description, parameters, strict}` (Responses `tools`) |
//! | [`Dialect::Anthropic`] | `{name, description, input_schema}` |
//! | [`Dialect::Gemini`] | `{name, description, parameters?}` (one entry of `functionDeclarations`, OpenAPI subset) |
//!
//! ## Deprecated tools
//!
//! A deprecated tool stays in every export (deprecation never removes a tool by itself); its
//! description ends with what its deprecation declares, after a blank line
//! ([`exported_description`]), in every dialect. MCP also carries the declarations themselves in
//! `_meta` (see [`mcp`]).
//!
//! ## What an export may change
//!
//! An export never accepts less than the canonical schema unless the provider demands it, and
//! then this table says so. Everything else it changes only widens (a keyword the provider does
//! not take moves into the description) or restates (the root of tool arguments is always an
//! object: a root without `type` gets `"type": "object"`).
//!
//! | dialect | narrowed, because the provider demands it |
//! |---|---|
//! | [`Dialect::Mcp`], [`Dialect::Anthropic`] | nothing |
//! | [`Dialect::OpenAi`], [`Dialect::OpenAiResponses`] | in strict mode only (`"strict": true`): every object is closed (`additionalProperties: false`) and every property required, optional ones nullable (the registry reads their `null`s as absent). A tool strict mode cannot express is exported with `"strict": false` and its schema as it is ([`Catalog::non_strict`] says why) |
//! | [`Dialect::Gemini`] | a root object without properties is a function without `parameters` (the subset has no free-form object); what the subset cannot express at all is left out (see [`gemini`]) |

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::OnceLock;

use serde_json::Value;

use crate::model::ToolSpec;

pub mod anthropic;
mod checks;
pub mod deferral;
pub mod gemini;
mod lower;
pub mod mcp;
mod nulls;
pub mod openai;
mod report;

use checks::Verdict;
use deferral::{DeferredTool, Group};
pub use nulls::{NullStripper, openai_nullable_pointers, strip_openai_nulls};
pub use report::{Converted, Rule, Violation};
use report::{Report, checked};

#[doc(hidden)]
pub use crate::schema::{DRAFT_2020_12, join as join_pointer};

crate::word_enum! {
    /// A consumer of tool definitions; its word is the spelling used on the command line and in
    /// file names (`generated/providers/<word>.json`).
    ///
    /// The two OpenAI APIs take the same function (one conversion, strict mode where it can
    /// express the tool) in different request shapes, so each is a dialect of its own, named as
    /// the runtime's provider adapters are (`openai` is Chat Completions, `openai-responses` the
    /// Responses API): sending one API's shape to the other is refused at request time.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum Dialect {
        /// Model Context Protocol `tools/list`.
        Mcp => "mcp",
        /// OpenAI Chat Completions function tools:
        /// `{type: "function", function: {name, description, parameters, strict}}`.
        OpenAi => "openai",
        /// OpenAI Responses function tools: `{type: "function", name, description, parameters,
        /// strict}`.
        OpenAiResponses => "openai-responses",
        /// Anthropic tool use.
        Anthropic => "anthropic",
        /// Google Gemini `functionDeclarations` with `parameters` (OpenAPI subset).
        Gemini => "gemini",
    }
}

impl Dialect {
    /// True for the two OpenAI APIs: their definitions carry `strict`, and a strict one makes
    /// optional fields required but nullable.
    pub const fn is_openai(self) -> bool {
        matches!(self, Dialect::OpenAi | Dialect::OpenAiResponses)
    }

    /// The file the export is written to: `<name>.json`.
    pub fn file_name(self) -> String {
        format!("{}.json", self.as_str())
    }

    /// The rules this dialect's checker verifies, one entry per rule.
    pub const fn rules(self) -> &'static [Rule] {
        match self {
            Dialect::Mcp => mcp::RULES,
            Dialect::OpenAi | Dialect::OpenAiResponses => openai::RULES,
            Dialect::Anthropic => anthropic::RULES,
            Dialect::Gemini => gemini::RULES,
        }
    }

    /// The rule with this id in this dialect's table.
    pub fn rule(self, id: &str) -> Option<&'static Rule> {
        self.rules().iter().find(|r| r.id == id)
    }
}

/// A dialect name that is not one of [`Dialect::ACCEPTED`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown dialect `{0}`, expected one of {accepted}", accepted = crate::text::backticked(Dialect::ACCEPTED))]
pub struct UnknownDialect(pub String);

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Dialect::from_word(s).ok_or_else(|| UnknownDialect(s.to_owned()))
    }
}

/// Every violation of one export. Display: one violation per line. Built with
/// [`ExportError::new`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.lines())]
#[non_exhaustive]
pub struct ExportError {
    /// The dialect being exported.
    pub dialect: Dialect,
    /// Sorted by tool, pointer and rule.
    pub violations: Vec<Violation>,
}

impl ExportError {
    /// The violations of an export to `dialect`, sorted, each once.
    pub fn new(dialect: Dialect, mut violations: Vec<Violation>) -> Self {
        violations.sort();
        violations.dedup();
        ExportError {
            dialect,
            violations,
        }
    }

    /// One line per violation, each led by the dialect.
    fn lines(&self) -> String {
        let lines: Vec<String> = (self.violations.iter())
            .map(|v| format!("{}: {v}", self.dialect))
            .collect();
        lines.join("\n")
    }
}

/// The catalog of the tools a provider can express, and why each of the others was left out.
/// Unlike [`export`], no limit of a single request applies (OpenAI's 128 functions): a project
/// may declare more tools than one run offers. The checked-in
/// `generated/providers/<dialect>.json` is its [`Catalog::tool_list`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Catalog {
    /// The definitions of the tools the dialect takes, one per tool, sorted by name, each as it
    /// is without deferral (what the lock digests).
    pub definitions: Value,
    /// The violations of the tools left out, sorted (each tool's every violation).
    pub excluded: Vec<Violation>,
    /// OpenAI only: for each tool exported with `"strict": false`, the strict-mode rules it
    /// breaks, sorted (for the caller to report as warnings, or as errors when strict mode is
    /// required: [`Catalog::strict_only`]). Empty for the other dialects.
    pub non_strict: Vec<Violation>,
    /// The dialect.
    dialect: Dialect,
    /// The deferred tools of [`Catalog::definitions`], each with its [`Group`].
    deferred: BTreeMap<String, Option<OwnedGroup>>,
}

/// A [`Group`] a catalog keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
enum OwnedGroup {
    Server(String),
    Category(String),
}

impl OwnedGroup {
    fn of(group: Group<'_>) -> Self {
        match group {
            Group::Server(server) => OwnedGroup::Server(server.to_owned()),
            Group::Category(category) => OwnedGroup::Category(category.to_owned()),
        }
    }

    fn group(&self) -> Group<'_> {
        match self {
            OwnedGroup::Server(server) => Group::Server(server),
            OwnedGroup::Category(category) => Group::Category(category),
        }
    }
}

impl Catalog {
    /// The names of the tools left out, each once, sorted.
    pub fn excluded_tools(&self) -> Vec<&str> {
        tool_names(&self.excluded)
    }

    /// The names of the tools exported with `"strict": false`, each once, sorted.
    pub fn non_strict_tools(&self) -> Vec<&str> {
        tool_names(&self.non_strict)
    }

    /// The catalog as a request's tool list starts (the file `generated/providers/<dialect>.json`
    /// and what `tool-manifest export` prints): [`Catalog::definitions`] when no tool is
    /// deferred; otherwise the eager tools, unchanged, then the provider's tool search and the
    /// deferred tools in its form, or the registry's `tool_search` alone (no search has found
    /// anything yet), as [`deferral::arrange`] lists them.
    pub fn tool_list(&self) -> Value {
        let Some(definitions) = self.definitions.as_array() else {
            return self.definitions.clone();
        };
        if self.deferred.is_empty() {
            return self.definitions.clone();
        }
        let mut eager = Vec::with_capacity(definitions.len());
        let mut deferred = Vec::new();
        for definition in definitions {
            let name = exported_name(self.dialect, definition);
            match name.and_then(|name| self.deferred.get_key_value(name)) {
                Some((name, group)) => deferred.push(DeferredTool {
                    name,
                    group: group.as_ref().map(OwnedGroup::group),
                    definition: Some(definition),
                }),
                None => eager.push(definition.clone()),
            }
        }
        Value::Array(deferral::arrange(
            Some(self.dialect),
            false,
            eager,
            &deferred,
            &[],
        ))
    }

    /// The catalog when strict mode is required: the tools exported with `"strict": false`
    /// are left out instead, their strict-mode violations moved to [`Catalog::excluded`].
    #[must_use]
    pub fn strict_only(mut self) -> Catalog {
        if self.non_strict.is_empty() {
            return self;
        }
        let names: Vec<String> = self
            .non_strict_tools()
            .into_iter()
            .map(str::to_owned)
            .collect();
        if let Value::Array(definitions) = &mut self.definitions {
            definitions.retain(|d| {
                openai::function_name(d).is_none_or(|name| !names.iter().any(|n| n == name))
            });
        }
        self.deferred.retain(|name, _| !names.contains(name));
        self.excluded.append(&mut self.non_strict);
        self.excluded.sort();
        self.excluded.dedup();
        self
    }
}

/// The name of a tool's definition in `dialect` (`/function/name` for Chat Completions,
/// `/name` for the others).
pub fn exported_name(dialect: Dialect, definition: &Value) -> Option<&str> {
    let name = if dialect == Dialect::OpenAi {
        definition.pointer("/function/name")
    } else {
        definition.get("name")
    };
    name.and_then(Value::as_str)
}

/// The tools `violations` name, each once, in order.
fn tool_names(violations: &[Violation]) -> Vec<&str> {
    let mut names: Vec<&str> = violations.iter().map(|v| v.tool.as_str()).collect();
    names.dedup();
    names
}

/// The [`Catalog`] of `specs` for `dialect`: each tool converted and checked, names unique. It
/// never fails the set: a tool the dialect cannot express is left out and its violations listed
/// in [`Catalog::excluded`], for the caller to report (a warning, or an error when the provider
/// is required).
pub fn catalog(dialect: Dialect, specs: &[ToolSpec]) -> Catalog {
    let (sorted, prepared) = prepare_all(specs);
    catalog_of(dialect, &sorted, &prepared)
}

/// The [`catalog`] of each of `dialects`, in their order, every tool prepared once for all of
/// them ([`Prepared`]: its schemas judged once, the OpenAI decision made once).
pub fn catalogs(dialects: &[Dialect], specs: &[ToolSpec]) -> Vec<Catalog> {
    let (sorted, prepared) = prepare_all(specs);
    dialects
        .iter()
        .map(|dialect| catalog_of(*dialect, &sorted, &prepared))
        .collect()
}

/// The specs sorted by name, and each prepared.
fn prepare_all(specs: &[ToolSpec]) -> (Vec<&ToolSpec>, Vec<Prepared>) {
    let mut sorted: Vec<&ToolSpec> = specs.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let prepared = sorted.iter().map(|spec| Prepared::new(spec)).collect();
    (sorted, prepared)
}

fn catalog_of(dialect: Dialect, sorted: &[&ToolSpec], prepared: &[Prepared]) -> Catalog {
    let mut definitions = Vec::with_capacity(sorted.len());
    let mut excluded = Vec::new();
    let mut non_strict = Vec::new();
    let mut deferred = BTreeMap::new();
    let set = check_set(dialect, sorted, None);
    for (spec, prepared) in sorted.iter().zip(prepared) {
        let mut found: Vec<Violation> = set
            .iter()
            .filter(|v| v.tool == spec.name)
            .cloned()
            .collect();
        match prepared.convert(dialect) {
            Ok(mut converted) if found.is_empty() => {
                definitions.push(converted.definition);
                non_strict.append(&mut converted.non_strict);
                if spec.defer_loading {
                    deferred.insert(spec.name.clone(), Group::of(spec).map(OwnedGroup::of));
                }
            }
            Ok(_) => {}
            Err(mut violations) => found.append(&mut violations),
        }
        excluded.append(&mut found);
    }
    excluded.sort();
    excluded.dedup();
    non_strict.sort();
    non_strict.dedup();
    Catalog {
        definitions: Value::Array(definitions),
        excluded,
        non_strict,
        dialect,
        deferred,
    }
}

/// The definitions of `specs` for `dialect` as one request offers them: a JSON array in the
/// provider's own request shape, the tools not deferred first, sorted by tool name, then the
/// deferred ones in the provider's deferral form or the registry's `tool_search` (as
/// [`deferral::arrange`] lists them; no search has found anything yet). Without a deferred
/// tool, the definitions alone.
///
/// # Errors
/// Every tool that breaks a rule of the dialect after conversion, deferred or not, and every
/// rule about the whole set (unique names, the number of functions one request lists), all
/// reported together.
pub fn export(dialect: Dialect, specs: &[ToolSpec]) -> Result<Value, ExportError> {
    let mut sorted: Vec<&ToolSpec> = specs.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));

    let mut violations = Vec::new();
    let mut definitions = Vec::with_capacity(sorted.len());
    let mut deferred = Vec::new();
    for spec in &sorted {
        match convert(dialect, spec) {
            Ok(converted) if spec.defer_loading => deferred.push((*spec, converted.definition)),
            Ok(converted) => definitions.push(converted.definition),
            Err(mut found) => violations.append(&mut found),
        }
    }
    let listed: Vec<&ToolSpec> = (sorted.iter().copied())
        .filter(|spec| !spec.defer_loading)
        .collect();
    violations.extend(check_set(dialect, &sorted, Some(&listed)));

    if !violations.is_empty() {
        return Err(ExportError::new(dialect, violations));
    }
    let deferred: Vec<DeferredTool<'_>> = deferred
        .iter()
        .map(|(spec, definition)| DeferredTool::new(spec, Some(definition)))
        .collect();
    Ok(Value::Array(deferral::arrange(
        Some(dialect),
        false,
        definitions,
        &deferred,
        &[],
    )))
}

/// `value` as the text of a JSON file: `serde_json`'s pretty form (two-space indent) and a final
/// newline. `to_string_pretty` writes into a buffer directly, where the alternate `Display` of a
/// [`Value`] (the same serializer) goes through a formatter at every write (rendering the outputs
/// of 1,000 tools took 8 % longer that way). A `Value` always serializes; were it ever refused,
/// `Display` writes the same text.
#[doc(hidden)]
pub fn pretty_line(value: &Value) -> String {
    match serde_json::to_string_pretty(value) {
        Ok(mut text) => {
            text.push('\n');
            text
        }
        Err(_) => format!("{value:#}\n"),
    }
}

/// The definition of one tool for `dialect`, converted and then checked against every rule,
/// with what the preferred form could not express: an OpenAI tool that strict mode cannot
/// express is exported with `"strict": false` and the strict-mode violations are listed in
/// [`Converted::non_strict`] (the decision is made once per tool, the same for both OpenAI
/// APIs). A caller converting one tool for several dialects keeps a [`Prepared`].
///
/// # Errors
/// Every rule the tool still breaks, with the pointer into the definition (for OpenAI, the
/// rules of the form it was last tried in: without `strict`).
pub fn convert(dialect: Dialect, spec: &ToolSpec) -> Result<Converted, Vec<Violation>> {
    Prepared::new(spec).convert(dialect)
}

/// The description a provider is given: the tool's own, and for a deprecated tool, its
/// [`Deprecation::notice`](crate::model::Deprecation::notice) after a blank line:
///
/// ```text
/// Draws a line on a pane.
///
/// Deprecated since version 2.0.0; it may be removed after 2027-06-30. Use `drawing_create` instead. <note>
/// ```
pub fn exported_description(spec: &ToolSpec) -> Cow<'_, str> {
    match &spec.deprecated {
        None => Cow::Borrowed(&spec.description),
        Some(deprecation) if spec.description.trim().is_empty() => Cow::Owned(deprecation.notice()),
        Some(deprecation) => Cow::Owned(format!(
            "{}\n\n{}",
            spec.description.trim_end(),
            deprecation.notice()
        )),
    }
}

/// A tool made ready for export to every dialect: its description as providers are given it
/// ([`exported_description`]), its schemas in draft 2020-12 form (draft-07
/// and 2019-09 constructs converted, `$schema` dropped, and a root without `type` given
/// `"type": "object"`: tool arguments are always an object, and every provider wants it
/// written), each judged by `jsonschema` once (meta-validation and compilation are most of the
/// cost of an export), and the OpenAI decision (strict or not) made once for both APIs. Each
/// is computed on first use.
#[derive(Debug)]
pub struct Prepared {
    spec: ToolSpec,
    input: OnceLock<Verdict>,
    output: OnceLock<Option<Verdict>>,
    openai: OnceLock<openai::Decision>,
}

impl Prepared {
    /// Prepares `spec`.
    pub fn new(spec: &ToolSpec) -> Self {
        let mut spec = spec.clone();
        if let Cow::Owned(description) = exported_description(&spec) {
            spec.description = description;
        }
        spec.input_schema = crate::schema::draft::to_2020_12(&spec.input_schema);
        if let Value::Object(root) = &mut spec.input_schema
            && !root.contains_key("type")
        {
            root.insert("type".to_owned(), Value::String("object".to_owned()));
        }
        spec.output_schema = spec
            .output_schema
            .map(|s| crate::schema::draft::to_2020_12(&s));
        Prepared {
            spec,
            input: OnceLock::new(),
            output: OnceLock::new(),
            openai: OnceLock::new(),
        }
    }

    fn input(&self) -> &Verdict {
        self.input
            .get_or_init(|| Verdict::of(&self.spec.input_schema))
    }

    fn output(&self) -> Option<&Verdict> {
        self.output
            .get_or_init(|| self.spec.output_schema.as_ref().map(Verdict::of))
            .as_ref()
    }

    /// The tool's definition for `dialect`, as [`convert`] says.
    ///
    /// # Errors
    /// As [`convert`].
    pub fn convert(&self, dialect: Dialect) -> Result<Converted, Vec<Violation>> {
        let spec = &self.spec;
        let plain = |definition| Converted {
            definition,
            non_strict: Vec::new(),
        };
        let openai = || {
            self.openai
                .get_or_init(|| openai::function(spec, self.input()))
        };
        match dialect {
            Dialect::Mcp => checked(
                &spec.name,
                |r| mcp::convert(spec, r),
                |d, r| mcp::check(d, spec, Some((self.input(), self.output())), r),
            )
            .map(plain),
            Dialect::OpenAi => openai::in_api(openai(), openai::Api::ChatCompletions),
            Dialect::OpenAiResponses => openai::in_api(openai(), openai::Api::Responses),
            Dialect::Anthropic => checked(
                &spec.name,
                |r| anthropic::convert(spec, r),
                |d, r| anthropic::check(d, Some((&spec.input_schema, self.input())), r),
            )
            .map(plain),
            Dialect::Gemini => checked(
                &spec.name,
                |r| gemini::convert(spec, self.input(), r),
                gemini::check,
            )
            .map(plain),
        }
    }
}

/// Only the checker: the violations of an already converted definition (empty when it passes).
/// Useful to verify a definition written by hand or by an older version. The rules about the
/// canonical schema itself (`openai.valid-schema`, `gemini.valid-schema`) and the rules about a
/// whole set run in [`convert`] and [`export`] only.
pub fn check(dialect: Dialect, definition: &Value, spec: &ToolSpec) -> Vec<Violation> {
    let mut report = Report::new(&spec.name);
    match dialect {
        Dialect::Mcp => mcp::check(definition, spec, None, &mut report),
        Dialect::OpenAi => openai::check(definition, openai::Api::ChatCompletions, &mut report),
        Dialect::OpenAiResponses => {
            openai::check(definition, openai::Api::Responses, &mut report);
        }
        Dialect::Anthropic => anthropic::check(definition, None, &mut report),
        Dialect::Gemini => gemini::check(definition, &mut report),
    }
    let mut violations = report.violations;
    violations.sort();
    violations.dedup();
    violations
}

/// Rules about the whole set: unique names, and, for one request, the number of functions it
/// lists (`listed`: the tools not deferred, sorted).
fn check_set(
    dialect: Dialect,
    sorted: &[&ToolSpec],
    listed: Option<&[&ToolSpec]>,
) -> Vec<Violation> {
    let mut violations = Vec::new();
    // Every dialect's table has its `<dialect>.unique-name` rule.
    let unique = dialect
        .rules()
        .iter()
        .map(|r| r.id)
        .find(|id| id.ends_with(".unique-name"))
        .unwrap_or_default();
    let name = if dialect == Dialect::OpenAi {
        "/function/name"
    } else {
        "/name"
    };
    for pair in sorted.windows(2) {
        if let [a, b] = pair
            && a.name == b.name
        {
            violations.push(Violation::new(
                &b.name,
                name,
                unique,
                format!("tool name `{}` is declared more than once", b.name),
            ));
        }
    }
    if let Some(listed) = listed
        && dialect.is_openai()
        && listed.len() > openai::MAX_FUNCTIONS
    {
        violations.push(Violation::new(
            &listed[openai::MAX_FUNCTIONS].name,
            "",
            "openai.max-functions",
            format!(
                "the export has {} functions, at most {} are accepted in one request",
                listed.len(),
                openai::MAX_FUNCTIONS
            ),
        ));
    }
    violations
}

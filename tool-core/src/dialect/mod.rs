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
//! of them sorted by tool name ([`export`], [`export_catalog`]), and `serde_json` writes the
//! text ([`export_json`]).
//!
//! | dialect | shape of one definition |
//! |---|---|
//! | [`Dialect::Mcp`] | `{name, title, description, inputSchema, outputSchema?, annotations}` (`tools/list`) |
//! | [`Dialect::OpenAi`] | `{type: "function", function: {name, description, parameters, strict}}` (Chat Completions `tools`) |
//! | [`Dialect::OpenAiResponses`] | `{type: "function", name, description, parameters, strict}` (Responses `tools`) |
//! | [`Dialect::Anthropic`] | `{name, description, input_schema}` |
//! | [`Dialect::Gemini`] | `{name, description, parameters?}` (one entry of `functionDeclarations`, OpenAPI subset) |
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

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

use crate::model::ToolSpec;

pub mod anthropic;
pub mod gemini;
pub mod mcp;
pub mod openai;
pub(crate) mod schema;

pub use openai::{openai_nullable_pointers, strip_openai_nulls};
pub(crate) use schema::*;
pub use schema::{ANNOTATIONS, DRAFT_2020_12, join as join_pointer, required_names, types_of};

/// A consumer of tool definitions.
///
/// The two OpenAI APIs take the same function (one conversion, strict mode where it can
/// express the tool) in different request shapes, so each is a dialect of its own, named as
/// the runtime's provider adapters are (`openai` is Chat Completions, `openai-responses` the
/// Responses API): sending one API's shape to the other is refused at request time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dialect {
    /// Model Context Protocol `tools/list`.
    Mcp,
    /// OpenAI Chat Completions function tools:
    /// `{type: "function", function: {name, description, parameters, strict}}`.
    OpenAi,
    /// OpenAI Responses function tools: `{type: "function", name, description, parameters,
    /// strict}`.
    OpenAiResponses,
    /// Anthropic tool use.
    Anthropic,
    /// Google Gemini `functionDeclarations` with `parameters` (OpenAPI subset).
    Gemini,
}

impl Dialect {
    /// Every dialect, in declaration order.
    pub const ALL: &'static [Dialect] = &[
        Dialect::Mcp,
        Dialect::OpenAi,
        Dialect::OpenAiResponses,
        Dialect::Anthropic,
        Dialect::Gemini,
    ];

    /// Every accepted spelling, in declaration order.
    pub const ACCEPTED: &'static [&'static str] =
        &["mcp", "openai", "openai-responses", "anthropic", "gemini"];

    /// The spelling used on the command line and in file names (`generated/providers/<name>.json`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Dialect::Mcp => "mcp",
            Dialect::OpenAi => "openai",
            Dialect::OpenAiResponses => "openai-responses",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
        }
    }

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

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A dialect name that is not one of [`Dialect::ACCEPTED`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDialect(pub String);

impl fmt::Display for UnknownDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let accepted = crate::model::backticked(Dialect::ACCEPTED);
        write!(
            f,
            "unknown dialect `{}`, expected one of {accepted}",
            self.0
        )
    }
}

impl std::error::Error for UnknownDialect {}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Dialect::ALL
            .iter()
            .copied()
            .find(|d| d.as_str() == s)
            .ok_or_else(|| UnknownDialect(s.to_owned()))
    }
}

/// One rule of a provider: what it rejects at request time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rule {
    /// Stable id, `<dialect>.<rule>` (`openai.closed-objects`).
    pub id: &'static str,
    /// What the provider requires, in one sentence.
    pub text: &'static str,
}

/// A tool that breaks a rule of a dialect, after conversion. Built with [`Violation::new`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub struct Violation {
    /// The tool's name.
    pub tool: String,
    /// JSON Pointer (RFC 6901) into the tool's exported definition (`/name`,
    /// `/parameters/properties/style`); empty for the whole definition or the whole export.
    /// Below the schema key it follows the canonical schema, except inside inlined references.
    pub pointer: String,
    /// The id of the broken rule (an entry of [`Dialect::rules`]).
    pub rule: &'static str,
    /// What exactly is wrong there.
    pub message: String,
}

impl Violation {
    /// `tool` breaks `rule` at `pointer` (into its exported definition), as `message` says.
    pub fn new(
        tool: impl Into<String>,
        pointer: impl Into<String>,
        rule: &'static str,
        message: impl Into<String>,
    ) -> Self {
        Violation {
            tool: tool.into(),
            pointer: pointer.into(),
            rule,
            message: message.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(
            f,
            "tool `{}` at `{}`: {} (rule `{}`)",
            self.tool, pointer, self.message, self.rule
        )
    }
}

/// Every violation of one export. Display: one violation per line. Built with
/// [`ExportError::new`].
#[derive(Debug, Clone, PartialEq, Eq)]
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
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in self.violations.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{}: {v}", self.dialect)?;
        }
        Ok(())
    }
}

impl std::error::Error for ExportError {}

/// The definitions of every tool of a set for `dialect` (the checked-in
/// `generated/providers/<dialect>.json`): each tool converted and checked, names unique. Unlike
/// [`export`], no limit of a single request applies (OpenAI's 128 functions): a project may
/// declare more tools than one run offers.
///
/// # Errors
/// Every violation of every tool, with the tool, the JSON Pointer and the rule.
pub fn export_catalog(dialect: Dialect, specs: &[ToolSpec]) -> Result<Value, ExportError> {
    export_with(dialect, specs, false)
}

/// The catalog of the tools a provider can express, and why each of the others was left out.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Catalog {
    /// The definitions of the tools the dialect takes, sorted by name.
    pub definitions: Value,
    /// The violations of the tools left out, sorted (each tool's every violation).
    pub excluded: Vec<Violation>,
    /// OpenAI only: for each tool exported with `"strict": false`, the strict-mode rules it
    /// breaks, sorted (for the caller to report as warnings, or as errors when strict mode is
    /// required: [`Catalog::strict_only`]). Empty for the other dialects.
    pub non_strict: Vec<Violation>,
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
        self.excluded.append(&mut self.non_strict);
        self.excluded.sort();
        self.excluded.dedup();
        self
    }
}

/// The tools `violations` name, each once, in order.
fn tool_names(violations: &[Violation]) -> Vec<&str> {
    let mut names: Vec<&str> = violations.iter().map(|v| v.tool.as_str()).collect();
    names.dedup();
    names
}

/// [`export_catalog`] that never fails the set: a tool the dialect cannot express is left out
/// and its violations listed in [`Catalog::excluded`], for the caller to report (a warning, or
/// an error when the provider is required).
pub fn catalog(dialect: Dialect, specs: &[ToolSpec]) -> Catalog {
    let mut sorted: Vec<&ToolSpec> = specs.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let mut definitions = Vec::with_capacity(sorted.len());
    let mut excluded = Vec::new();
    let mut non_strict = Vec::new();
    let set = check_set(dialect, &sorted, false);
    for spec in &sorted {
        let mut found: Vec<Violation> = set
            .iter()
            .filter(|v| v.tool == spec.name)
            .cloned()
            .collect();
        match conversion(dialect, spec) {
            Ok(mut converted) if found.is_empty() => {
                definitions.push(converted.definition);
                non_strict.append(&mut converted.non_strict);
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
    }
}

/// The definitions of `specs` for `dialect` as one request offers them: a JSON array in the
/// provider's own request shape, sorted by tool name.
///
/// # Errors
/// Every tool that breaks a rule of the dialect after conversion, and every rule about the whole
/// set (unique names, the number of functions per request), all reported together.
pub fn export(dialect: Dialect, specs: &[ToolSpec]) -> Result<Value, ExportError> {
    export_with(dialect, specs, true)
}

fn export_with(
    dialect: Dialect,
    specs: &[ToolSpec],
    one_request: bool,
) -> Result<Value, ExportError> {
    let mut sorted: Vec<&ToolSpec> = specs.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));

    let mut violations = Vec::new();
    let mut definitions = Vec::with_capacity(sorted.len());
    for spec in &sorted {
        match convert(dialect, spec) {
            Ok(definition) => definitions.push(definition),
            Err(mut found) => violations.append(&mut found),
        }
    }
    violations.extend(check_set(dialect, &sorted, one_request));

    if violations.is_empty() {
        Ok(Value::Array(definitions))
    } else {
        Err(ExportError::new(dialect, violations))
    }
}

/// [`export`] as the text of a file: pretty-printed by `serde_json`, keys sorted, ending in a
/// newline; byte-identical from run to run.
///
/// # Errors
/// As [`export`].
pub fn export_json(dialect: Dialect, specs: &[ToolSpec]) -> Result<String, ExportError> {
    Ok(pretty_line(&export(dialect, specs)?))
}

/// `value` as the text of a JSON file: `serde_json`'s pretty form (two-space indent) and a final
/// newline. (The alternate `Display` of a [`Value`] is `serde_json`'s pretty serializer; unlike
/// `to_string_pretty` it has no error to handle, as a `Value` always serializes.)
#[doc(hidden)]
pub fn pretty_line(value: &Value) -> String {
    format!("{value:#}\n")
}

/// The definition of one tool for `dialect`, converted and then checked against every rule.
///
/// # Errors
/// Every rule the tool still breaks, with the pointer into the definition.
pub fn convert(dialect: Dialect, spec: &ToolSpec) -> Result<Value, Vec<Violation>> {
    conversion(dialect, spec).map(|converted| converted.definition)
}

/// One tool's definition for a dialect, and what the provider's preferred form could not
/// express. Built by [`conversion`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Converted {
    /// The definition, in the dialect's request shape (what [`convert`] returns).
    pub definition: Value,
    /// OpenAI only: the strict-mode rules the tool breaks when it is exported with
    /// `"strict": false` (its schema is then offered as it is); empty when it is strict, and
    /// for every other dialect.
    pub non_strict: Vec<Violation>,
}

impl Converted {
    /// False exactly for an OpenAI function exported with `"strict": false`.
    pub fn is_strict(&self) -> bool {
        self.non_strict.is_empty()
    }
}

/// [`convert`], with what the preferred form could not express: an OpenAI tool that strict
/// mode cannot express is exported with `"strict": false` and the strict-mode violations are
/// listed in [`Converted::non_strict`] (the decision is made once per tool, the same for both
/// OpenAI APIs).
///
/// # Errors
/// Every rule the tool still breaks, with the pointer into the definition (for OpenAI, the
/// rules of the form it was last tried in: without `strict`).
pub fn conversion(dialect: Dialect, spec: &ToolSpec) -> Result<Converted, Vec<Violation>> {
    let spec = &export_form(spec);
    let plain = |definition| Converted {
        definition,
        non_strict: Vec::new(),
    };
    match dialect {
        Dialect::Mcp => checked(dialect, spec, |r| mcp::convert(spec, r)).map(plain),
        Dialect::OpenAi => openai::conversion(spec, openai::Api::ChatCompletions),
        Dialect::OpenAiResponses => openai::conversion(spec, openai::Api::Responses),
        Dialect::Anthropic => checked(dialect, spec, |r| anthropic::convert(spec, r)).map(plain),
        Dialect::Gemini => checked(dialect, spec, |r| gemini::convert(spec, r)).map(plain),
    }
}

/// The definition `convert` builds, then checked against every rule of `dialect`: the
/// violations of both.
pub(crate) fn checked(
    dialect: Dialect,
    spec: &ToolSpec,
    convert: impl FnOnce(&mut Report) -> Value,
) -> Result<Value, Vec<Violation>> {
    let mut report = Report::new(&spec.name);
    let definition = convert(&mut report);
    let refused = report.violations.clone();
    // What the checker finds where the converter already refused is a consequence, not news.
    for found in check(dialect, &definition, spec) {
        if !refused
            .iter()
            .any(|r| is_consequence(&found.pointer, &r.pointer))
        {
            report.violations.push(found);
        }
    }
    report.finish().map(|()| definition)
}

/// The spec with its schemas in draft 2020-12 form (what every provider is given): draft-07
/// and 2019-09 constructs converted, `$schema` dropped, and a root without `type` given
/// `"type": "object"` (tool arguments are always an object: that says nothing new, and every
/// provider wants it written).
fn export_form(spec: &ToolSpec) -> ToolSpec {
    let mut spec = spec.clone();
    spec.input_schema = crate::schema::draft::to_2020_12(&spec.input_schema);
    if let Value::Object(root) = &mut spec.input_schema
        && !root.contains_key("type")
    {
        root.insert("type".to_owned(), Value::String("object".to_owned()));
    }
    spec.output_schema = spec
        .output_schema
        .map(|s| crate::schema::draft::to_2020_12(&s));
    spec
}

/// Is a checker finding at `found` explained by a refusal at `refused`: the same place, below
/// it, or the schema directly holding it?
fn is_consequence(found: &str, refused: &str) -> bool {
    found == refused
        || found.starts_with(&format!("{refused}/"))
        || refused
            .strip_prefix(&format!("{found}/"))
            .is_some_and(|rest| !rest.contains('/'))
}

/// Only the checker: the violations of an already converted definition (empty when it passes).
/// Useful to verify a definition written by hand or by an older version. The rules about the
/// canonical schema itself (`openai.valid-schema`, `gemini.valid-schema`) and the rules about a
/// whole set run in [`convert`] and [`export`] only.
pub fn check(dialect: Dialect, definition: &Value, spec: &ToolSpec) -> Vec<Violation> {
    let mut report = Report::new(&spec.name);
    match dialect {
        Dialect::Mcp => mcp::check(definition, spec, &mut report),
        Dialect::OpenAi => openai::check(definition, openai::Api::ChatCompletions, &mut report),
        Dialect::OpenAiResponses => {
            openai::check(definition, openai::Api::Responses, &mut report);
        }
        Dialect::Anthropic => anthropic::check(definition, &mut report),
        Dialect::Gemini => gemini::check(definition, &mut report),
    }
    let mut violations = report.violations;
    violations.sort();
    violations.dedup();
    violations
}

/// Rules about the whole set: unique names, and the number of functions in one request.
fn check_set(dialect: Dialect, sorted: &[&ToolSpec], one_request: bool) -> Vec<Violation> {
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
    if one_request && dialect.is_openai() && sorted.len() > openai::MAX_FUNCTIONS {
        violations.push(Violation::new(
            &sorted[openai::MAX_FUNCTIONS].name,
            "",
            "openai.max-functions",
            format!(
                "the export has {} functions, at most {} are accepted in one request",
                sorted.len(),
                openai::MAX_FUNCTIONS
            ),
        ));
    }
    violations
}

/// Collects the violations of one tool.
#[derive(Debug)]
pub(crate) struct Report {
    tool: String,
    violations: Vec<Violation>,
}

impl Report {
    pub(crate) fn new(tool: &str) -> Self {
        Report {
            tool: tool.to_owned(),
            violations: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, pointer: &str, rule: &'static str, message: impl Into<String>) {
        self.violations
            .push(Violation::new(&self.tool, pointer, rule, message));
    }

    pub(crate) fn len(&self) -> usize {
        self.violations.len()
    }

    fn finish(mut self) -> Result<(), Vec<Violation>> {
        if self.violations.is_empty() {
            Ok(())
        } else {
            self.violations.sort();
            self.violations.dedup();
            Err(self.violations)
        }
    }
}

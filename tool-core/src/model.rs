//! The tool model: the single definition of a tool's safety, mode and metadata.
//!
//! This module is the only place where the words `read-only`, `destructive`, `parallel` and
//! `sequential` are parsed or printed. Everything else (manifests, the `#[tool]` attribute, the
//! docs, the provider exports, the runtime) goes through [`Safety`] and [`Mode`].
//!
//! There are two shapes of the same metadata:
//!
//! - [`ToolMeta`] is the *frozen* form: `'static`, built at compile time by the generator (from a
//!   manifest) or by the `#[tool]` attribute (from code), and held by the runtime registry. Nothing
//!   in it can be changed at run time.
//! - [`ToolSpec`] is the owned form the generator works with and the form `tools.json` is written
//!   in. [`ToolSpec::from_meta`] turns frozen metadata back into a spec, so code-first tools can be
//!   documented exactly like manifest tools.
//!
//! A tool's lifecycle declarations (its `version`, and [`Deprecation`]) and their rules are read
//! here too, by [`Lifecycle::mistakes`], for manifests and the attribute alike.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

mod lifecycle;
mod upstream;

pub use upstream::{DIGEST_PREFIX, Endpoint, Upstream, is_valid_digest, is_valid_server_id};

pub use lifecycle::{
    Deprecation, DeprecationMeta, Lifecycle, LifecycleKey, LifecycleMistake, check_date,
    parse_version,
};

/// Declares an enum whose values are words (`read-only`, `openai`, `TOOL_FAILED`): the enum,
/// `ALL` (every value), `ACCEPTED` (every word), `index`, `as_str`, `from_word` and `Display`,
/// from one list of `Variant => "word"`. The words are written nowhere else.
///
/// ```
/// toolwright_core::word_enum! {
///     /// A colour.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq)]
///     pub enum Colour {
///         /// Red.
///         Red => "red",
///         /// Dark blue.
///         DarkBlue => "dark-blue",
///     }
/// }
///
/// assert_eq!(Colour::DarkBlue.as_str(), "dark-blue");
/// assert_eq!(Colour::from_word("red"), Some(Colour::Red));
/// assert_eq!(Colour::ACCEPTED, ["red", "dark-blue"]);
/// assert_eq!(Colour::Red.to_string(), "red");
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! word_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $ty:ident {
            $($(#[$variant_meta:meta])* $variant:ident => $word:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $ty {
            $($(#[$variant_meta])* $variant),+
        }

        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];
            /// Every word, in declaration order.
            pub const ACCEPTED: &'static [&'static str] = &[$($word),+];

            /// The value's position in [`Self::ALL`]: the index of its entry in a table with
            /// one entry per value.
            pub const fn index(self) -> usize {
                self as usize
            }

            /// The word.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $word),+
                }
            }

            /// The value this word stands for.
            pub fn from_word(word: &str) -> ::core::option::Option<Self> {
                match word {
                    $($word => ::core::option::Option::Some($ty::$variant),)+
                    _ => ::core::option::Option::None,
                }
            }
        }

        impl ::core::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

crate::word_enum! {
    /// What a tool may do to the world.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum Safety {
        /// Reads state or outside data; changes nothing.
        ReadOnly => "read-only",
        /// Changes state, settings or the outside world.
        Destructive => "destructive",
    }
}

crate::word_enum! {
    /// How a tool may be scheduled among the other calls of one model message.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum Mode {
        /// May run side by side with the other calls of a message, sharing the context.
        Parallel => "parallel",
        /// Forces its whole message to run one call at a time, in order, with the context to
        /// itself.
        Sequential => "sequential",
    }
}

/// A word that is not one of the accepted values of [`Safety`] or [`Mode`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected `{what}` to be {}, found {found:?}", quoted_list(accepted))]
#[non_exhaustive]
pub struct UnknownValue {
    /// What was being parsed: `safety` or `mode`.
    pub what: &'static str,
    /// The word that was found.
    pub found: String,
    /// The accepted words, in their canonical spelling.
    pub accepted: &'static [&'static str],
}

pub use crate::text::{backticked, json_kind, quoted_list};

/// `FromStr` (an [`UnknownValue`] naming `what`) and the serde impls (the word) of a word enum.
macro_rules! parsed_words {
    ($($ty:ident: $what:literal),+) => {$(
        impl FromStr for $ty {
            type Err = UnknownValue;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $ty::from_word(s).ok_or_else(|| UnknownValue {
                    what: $what,
                    found: s.to_owned(),
                    accepted: Self::ACCEPTED,
                })
            }
        }

        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let word = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                word.parse().map_err(serde::de::Error::custom)
            }
        }
    )+};
}

parsed_words!(Safety: "safety", Mode: "mode");

impl Safety {
    /// What the level means, as written in the docs' safety table.
    pub const fn meaning(self) -> &'static str {
        match self {
            Safety::ReadOnly => "reads state or outside data; changes nothing",
            Safety::Destructive => "changes state, settings or the outside world",
        }
    }

    /// True for [`Safety::ReadOnly`].
    pub const fn is_read_only(self) -> bool {
        matches!(self, Safety::ReadOnly)
    }
}

impl Mode {
    /// True for [`Mode::Sequential`].
    pub const fn is_sequential(self) -> bool {
        matches!(self, Mode::Sequential)
    }
}

/// A JSON Schema held in frozen metadata.
#[derive(Clone, Copy)]
pub enum StaticSchema {
    /// Canonical JSON text, written by the generator from a manifest.
    Json(&'static str),
    /// Derived from a Rust type (schemars), for code-first tools. The function is deterministic.
    Derived(fn() -> Value),
}

impl StaticSchema {
    /// The schema as a JSON value.
    ///
    /// # Errors
    /// Fails only if generated JSON text was edited by hand into something that is not JSON.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        match self {
            StaticSchema::Json(text) => serde_json::from_str(text),
            StaticSchema::Derived(derive) => Ok(derive()),
        }
    }
}

impl fmt::Debug for StaticSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StaticSchema::Json(text) => f.debug_tuple("Json").field(text).finish(),
            StaticSchema::Derived(_) => f.write_str("Derived(..)"),
        }
    }
}

/// A declared domain error of a tool, frozen. Built with [`ErrorMeta::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ErrorMeta {
    /// `SCREAMING_SNAKE_CASE` code, unique within the tool.
    pub code: &'static str,
    /// What went wrong, as the model is told.
    pub message: &'static str,
    /// Whether the same call may succeed when retried (after the recommended action).
    pub retryable: bool,
    /// The recovery hint returned with the error.
    pub recommended_action: &'static str,
}

impl ErrorMeta {
    /// A declared error: its code, message, whether a retry may succeed, and the recovery hint.
    pub const fn new(
        code: &'static str,
        message: &'static str,
        retryable: bool,
        recommended_action: &'static str,
    ) -> Self {
        ErrorMeta {
            code,
            message,
            retryable,
            recommended_action,
        }
    }
}

/// An example call of a tool, frozen. Built with [`ExampleMeta::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExampleMeta {
    /// What the example shows.
    pub description: &'static str,
    /// The arguments, as canonical JSON text.
    pub input: &'static str,
}

impl ExampleMeta {
    /// An example: what it shows and its arguments as JSON text.
    pub const fn new(description: &'static str, input: &'static str) -> Self {
        ExampleMeta { description, input }
    }
}

/// The frozen metadata of one tool: produced at build time from exactly one declaration.
///
/// Built in a `static` with [`ToolMeta::new`] and the `const` methods that set the other
/// fields:
///
/// ```
/// use toolwright_core::{ErrorMeta, Mode, Safety, StaticSchema, ToolMeta};
///
/// static META: ToolMeta = ToolMeta::new(
///     "panes_list",
///     Safety::ReadOnly,
///     Mode::Parallel,
///     StaticSchema::Json(r#"{"type":"object"}"#),
/// )
/// .title("List panes")
/// .description("Lists the panes of the chart.")
/// .errors(&[ErrorMeta::new("CHART_CLOSED", "No chart is open.", false, "Open a chart first.")])
/// .source("tools/panes_list.toml");
///
/// assert_eq!(META.title, "List panes");
/// assert_eq!(META.category, None);
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ToolMeta {
    /// `^[a-z][a-z0-9_]{0,63}$`.
    pub name: &'static str,
    /// A short human title.
    pub title: &'static str,
    /// What the tool does, for the model.
    pub description: &'static str,
    /// What the tool may do to the world.
    pub safety: Safety,
    /// How the tool is scheduled.
    pub mode: Mode,
    /// An optional grouping for docs.
    pub category: Option<&'static str>,
    /// The JSON Schema of the arguments (draft 2020-12 unless its `$schema` names draft-07 or
    /// 2019-09).
    pub input_schema: StaticSchema,
    /// The JSON Schema of the tool's output, when declared.
    pub output_schema: Option<StaticSchema>,
    /// The declared domain errors.
    pub errors: &'static [ErrorMeta],
    /// Example calls.
    pub examples: &'static [ExampleMeta],
    /// Whether calling the tool again with the same arguments changes nothing more, as declared
    /// (`None`: not declared).
    pub idempotent: Option<bool>,
    /// Whether the tool reaches outside the application (the web, other services), as declared
    /// (`None`: not declared).
    pub open_world: Option<bool>,
    /// Example argument objects shown to providers that take them, as canonical JSON texts.
    pub input_examples: &'static [&'static str],
    /// Where the tool was declared: the manifest file (relative to its crate) or the Rust item.
    pub source: &'static str,
    /// The declared time limit of a call, in milliseconds (`timeout = "30s"`): the registry's
    /// default is replaced by it, and a host may only lower it.
    pub timeout_ms: Option<u64>,
    /// The declared budget of a success's `data`, in bytes of its JSON text
    /// (`max_output_bytes = 65536`): a larger output is answered `TOOL_FAILED` instead.
    pub max_output_bytes: Option<u64>,
    /// The declared semantic version of the tool (or of its tool set), `2.1.0`.
    pub version: Option<&'static str>,
    /// The declared deprecation: shown in the docs and the exports, it never removes the tool.
    pub deprecated: Option<DeprecationMeta>,
    /// Declared deferred (`defer_loading = true`): the tool is left out of a request's eager
    /// tool list and loaded when a tool search finds it (SPEC section 12).
    pub defer_loading: bool,
}

impl ToolMeta {
    /// The metadata of a tool with these name, safety, mode and input schema; the title is the
    /// name and everything else empty until set by the methods below.
    pub const fn new(
        name: &'static str,
        safety: Safety,
        mode: Mode,
        input_schema: StaticSchema,
    ) -> Self {
        ToolMeta {
            name,
            title: name,
            description: "",
            safety,
            mode,
            category: None,
            input_schema,
            output_schema: None,
            errors: &[],
            examples: &[],
            idempotent: None,
            open_world: None,
            input_examples: &[],
            source: "",
            timeout_ms: None,
            max_output_bytes: None,
            version: None,
            deprecated: None,
            defer_loading: false,
        }
    }

    /// Sets the title.
    #[must_use]
    pub const fn title(self, title: &'static str) -> Self {
        ToolMeta { title, ..self }
    }

    /// Sets the description.
    #[must_use]
    pub const fn description(self, description: &'static str) -> Self {
        ToolMeta {
            description,
            ..self
        }
    }

    /// Sets the category.
    #[must_use]
    pub const fn category(self, category: &'static str) -> Self {
        ToolMeta {
            category: Some(category),
            ..self
        }
    }

    /// Sets the output schema.
    #[must_use]
    pub const fn output_schema(self, output_schema: StaticSchema) -> Self {
        ToolMeta {
            output_schema: Some(output_schema),
            ..self
        }
    }

    /// Sets the declared errors.
    #[must_use]
    pub const fn errors(self, errors: &'static [ErrorMeta]) -> Self {
        ToolMeta { errors, ..self }
    }

    /// Sets the example calls.
    #[must_use]
    pub const fn examples(self, examples: &'static [ExampleMeta]) -> Self {
        ToolMeta { examples, ..self }
    }

    /// Declares whether a repeated call with the same arguments changes nothing more.
    #[must_use]
    pub const fn idempotent(self, idempotent: bool) -> Self {
        ToolMeta {
            idempotent: Some(idempotent),
            ..self
        }
    }

    /// Declares whether the tool reaches outside the application.
    #[must_use]
    pub const fn open_world(self, open_world: bool) -> Self {
        ToolMeta {
            open_world: Some(open_world),
            ..self
        }
    }

    /// Sets the example argument objects (canonical JSON texts).
    #[must_use]
    pub const fn input_examples(self, input_examples: &'static [&'static str]) -> Self {
        ToolMeta {
            input_examples,
            ..self
        }
    }

    /// Sets where the tool was declared.
    #[must_use]
    pub const fn source(self, source: &'static str) -> Self {
        ToolMeta { source, ..self }
    }

    /// Sets the declared time limit of a call, in milliseconds.
    #[must_use]
    pub const fn timeout_ms(self, timeout_ms: u64) -> Self {
        ToolMeta {
            timeout_ms: Some(timeout_ms),
            ..self
        }
    }

    /// Sets the declared budget of a success's `data`, in bytes of its JSON text.
    #[must_use]
    pub const fn max_output_bytes(self, max_output_bytes: u64) -> Self {
        ToolMeta {
            max_output_bytes: Some(max_output_bytes),
            ..self
        }
    }

    /// Sets the declared semantic version.
    #[must_use]
    pub const fn version(self, version: &'static str) -> Self {
        ToolMeta {
            version: Some(version),
            ..self
        }
    }

    /// Declares the tool deferred: loaded when a tool search finds it, not in the eager list.
    #[must_use]
    pub const fn defer_loading(self) -> Self {
        ToolMeta {
            defer_loading: true,
            ..self
        }
    }

    /// Declares the tool deprecated.
    #[must_use]
    pub const fn deprecated(self, deprecated: DeprecationMeta) -> Self {
        ToolMeta {
            deprecated: Some(deprecated),
            ..self
        }
    }

    /// The declared error with this code, if any.
    pub fn error(&self, code: &str) -> Option<&'static ErrorMeta> {
        self.errors.iter().find(|e| e.code == code)
    }
}

/// A declared domain error, owned. Built with [`ErrorSpec::new`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ErrorSpec {
    /// `SCREAMING_SNAKE_CASE` code.
    pub code: String,
    /// What went wrong.
    pub message: String,
    /// Whether a retry may succeed.
    pub retryable: bool,
    /// The recovery hint.
    pub recommended_action: String,
}

impl ErrorSpec {
    /// A declared error: its code, message, whether a retry may succeed, and the recovery hint.
    pub fn new(
        code: impl Into<String>,
        message: impl Into<String>,
        retryable: bool,
        recommended_action: impl Into<String>,
    ) -> Self {
        ErrorSpec {
            code: code.into(),
            message: message.into(),
            retryable,
            recommended_action: recommended_action.into(),
        }
    }
}

/// An example call, owned. Built with [`ExampleSpec::new`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ExampleSpec {
    /// What the example shows.
    pub description: String,
    /// The arguments.
    pub input: Value,
}

impl ExampleSpec {
    /// An example: what it shows and its arguments.
    pub fn new(description: impl Into<String>, input: Value) -> Self {
        ExampleSpec {
            description: description.into(),
            input,
        }
    }
}

/// The owned form of a tool's metadata: what the generator works with and what `tools.json`
/// holds (its serde form is exactly one entry of `tools.json`). Built with [`ToolSpec::new`] (or
/// read from `tools.json`); the other fields are set directly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolSpec {
    /// `^[a-z][a-z0-9_]{0,63}$`.
    pub name: String,
    /// A short human title.
    pub title: String,
    /// What the tool does, for the model.
    pub description: String,
    /// What the tool may do to the world.
    pub safety: Safety,
    /// How the tool is scheduled.
    pub mode: Mode,
    /// An optional grouping for docs.
    pub category: Option<String>,
    /// The JSON Schema of the arguments (draft 2020-12 unless its `$schema` names draft-07 or
    /// 2019-09).
    pub input_schema: Value,
    /// The JSON Schema of the output, when declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// The declared domain errors.
    pub errors: Vec<ErrorSpec>,
    /// Example calls.
    pub examples: Vec<ExampleSpec>,
    /// Whether a repeated call with the same arguments changes nothing more, when declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// Whether the tool reaches outside the application, when declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
    /// Example argument objects, each valid against the input schema.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input_examples: Vec<Value>,
    /// Where the tool was declared (manifest path relative to the manifest directory's crate,
    /// or the Rust item). Not part of `tools.json`.
    #[serde(skip)]
    pub source: String,
    /// The declared time limit of a call, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The declared budget of a success's `data`, in bytes of its JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_bytes: Option<u64>,
    /// The declared semantic version of the tool (or of its tool set), when declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The declared deprecation, when the tool is deprecated: shown in the docs and the
    /// exports, it never removes the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<Deprecation>,
    /// Declared deferred (`defer_loading = true`): left out of a request's eager tool list and
    /// loaded when a tool search finds it. Absent from `tools.json` when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub defer_loading: bool,
    /// Where a pinned third-party tool runs and what it was when pinned; `None` for the
    /// application's own tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<Upstream>,
}

impl ToolSpec {
    /// The spec of a tool with these name, safety, mode and input schema; the title is the
    /// name and everything else empty.
    pub fn new(name: impl Into<String>, safety: Safety, mode: Mode, input_schema: Value) -> Self {
        let name = name.into();
        ToolSpec {
            title: name.clone(),
            name,
            description: String::new(),
            safety,
            mode,
            category: None,
            input_schema,
            output_schema: None,
            errors: Vec::new(),
            examples: Vec::new(),
            idempotent: None,
            open_world: None,
            input_examples: Vec::new(),
            source: String::new(),
            timeout_ms: None,
            max_output_bytes: None,
            version: None,
            deprecated: None,
            defer_loading: false,
            upstream: None,
        }
    }

    /// Turns frozen metadata back into a spec (for docs and exports of code-first tools).
    ///
    /// # Errors
    /// Fails only if frozen JSON text is not JSON (generated code edited by hand).
    pub fn from_meta(meta: &ToolMeta) -> Result<Self, serde_json::Error> {
        Ok(ToolSpec {
            name: meta.name.to_owned(),
            title: meta.title.to_owned(),
            description: meta.description.to_owned(),
            safety: meta.safety,
            mode: meta.mode,
            category: meta.category.map(str::to_owned),
            input_schema: meta.input_schema.to_value()?,
            output_schema: meta.output_schema.map(|s| s.to_value()).transpose()?,
            errors: meta
                .errors
                .iter()
                .map(|e| ErrorSpec::new(e.code, e.message, e.retryable, e.recommended_action))
                .collect(),
            examples: meta
                .examples
                .iter()
                .map(|e| {
                    Ok(ExampleSpec::new(
                        e.description,
                        serde_json::from_str(e.input)?,
                    ))
                })
                .collect::<Result<_, serde_json::Error>>()?,
            idempotent: meta.idempotent,
            open_world: meta.open_world,
            input_examples: meta
                .input_examples
                .iter()
                .map(|text| serde_json::from_str(text))
                .collect::<Result<_, serde_json::Error>>()?,
            source: meta.source.to_owned(),
            timeout_ms: meta.timeout_ms,
            max_output_bytes: meta.max_output_bytes,
            version: meta.version.map(str::to_owned),
            deprecated: meta.deprecated.as_ref().map(Deprecation::from_meta),
            defer_loading: meta.defer_loading,
            // Frozen metadata is the application's own tool: nothing of it is pinned.
            upstream: None,
        })
    }
}

/// The longest time limit a tool may declare: one day (24 h). A tool that needs longer is not a
/// call a model waits for.
pub const MAX_TIMEOUT_MS: u64 = 24 * 60 * 60 * 1000;

/// Reads a declared time limit (`timeout = "30s"`) into milliseconds: the one parser of the
/// manifest key and the `#[tool]` attribute.
///
/// The grammar is humantime's: a number and a unit, optionally several summed (`"500ms"`,
/// `"30s"`, `"2m"`, `"1h 30m"`; units `ms`, `s`/`sec`, `m`/`min`, `h`/`hr`, and longer
/// spellings). The limit must be a whole number of milliseconds, more than zero and at most
/// [`MAX_TIMEOUT_MS`].
///
/// # Errors
/// What is wrong, to follow "expected `timeout` to be …".
pub fn parse_timeout(text: &str) -> Result<u64, String> {
    let duration = humantime::parse_duration(text).map_err(|e| e.to_string())?;
    if duration.is_zero() {
        return Err("a time limit must be more than zero".to_owned());
    }
    if duration.subsec_nanos() % 1_000_000 != 0 {
        return Err("a time limit is a whole number of milliseconds".to_owned());
    }
    match u64::try_from(duration.as_millis()) {
        Ok(ms) if ms <= MAX_TIMEOUT_MS => Ok(ms),
        _ => Err(format!(
            "a time limit is at most {}",
            format_timeout(MAX_TIMEOUT_MS)
        )),
    }
}

/// A time limit in milliseconds as a manifest writes it: `30s`, `500ms`, `1m 30s`.
pub fn format_timeout(ms: u64) -> String {
    humantime::format_duration(std::time::Duration::from_millis(ms)).to_string()
}

/// The title of a tool that declares none: its name with `_` as spaces and a capital first
/// letter (`drawing_create` → `Drawing create`). The `#[tool]` attribute and the import use it.
pub fn default_title(name: &str) -> String {
    let spaced = name.replace('_', " ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => spaced,
    }
}

/// Does `name` fit every provider? `^[a-z][a-z0-9_]{0,63}$`.
pub fn is_valid_tool_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 64
        && bytes[0].is_ascii_lowercase()
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_')
}

/// Codes the runtime returns itself; a tool may not declare them.
pub const RESERVED_CODES: &[&str] = &[
    "TOOL_INPUT_INVALID",
    "TOOL_NOT_ALLOWED",
    "TOOL_NOT_FOUND",
    "TOOL_TIMEOUT",
    "TOOL_FAILED",
];

/// The closest `SCREAMING_SNAKE_CASE` spelling of a code (`paneNotFound` → `PANE_NOT_FOUND`):
/// what a manifest's message suggests, and the code `#[derive(DeclaredError)]` gives a variant
/// (`PaneNotFound` → `PANE_NOT_FOUND`).
pub fn screaming_snake_case(code: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in code.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && previous_lower && !out.ends_with('_') {
                out.push('_');
            }
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            out.push(c.to_ascii_uppercase());
        } else {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            previous_lower = false;
        }
    }
    out.trim_end_matches('_').to_owned()
}

/// Is `code` `SCREAMING_SNAKE_CASE`? `^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`.
pub fn is_screaming_snake_case(code: &str) -> bool {
    let mut chars = code.chars();
    matches!(chars.next(), Some('A'..='Z'))
        && !code.ends_with('_')
        && !code.contains("__")
        && code
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names_and_near_misses_spell_as_codes() {
        for (written, code) in [
            ("PaneNotFound", "PANE_NOT_FOUND"),
            ("paneNotFound", "PANE_NOT_FOUND"),
            ("pane-not-found", "PANE_NOT_FOUND"),
            ("Pane not found!", "PANE_NOT_FOUND"),
            ("Timeout", "TIMEOUT"),
            ("Error2Big", "ERROR2_BIG"),
        ] {
            assert_eq!(screaming_snake_case(written), code, "{written}");
            assert!(is_screaming_snake_case(code));
        }
    }

    #[test]
    fn default_titles_read_like_words() {
        assert_eq!(default_title("drawing_create"), "Drawing create");
        assert_eq!(default_title("x"), "X");
        assert_eq!(default_title(""), "");
    }

    #[test]
    fn each_value_indexes_its_own_entry_of_a_table() {
        for (position, dialect) in crate::dialect::Dialect::ALL.iter().enumerate() {
            assert_eq!(dialect.index(), position, "{dialect}");
        }
        for (position, safety) in Safety::ALL.iter().enumerate() {
            assert_eq!(safety.index(), position, "{safety}");
        }
    }

    #[test]
    fn safety_and_mode_round_trip_through_their_one_spelling() {
        for safety in Safety::ALL {
            assert_eq!(safety.as_str().parse::<Safety>(), Ok(*safety));
            let json = serde_json::to_string(safety).expect("serialize");
            assert_eq!(json, format!("\"{}\"", safety.as_str()));
            assert_eq!(
                serde_json::from_str::<Safety>(&json).expect("deserialize"),
                *safety
            );
        }
        for mode in Mode::ALL {
            assert_eq!(mode.as_str().parse::<Mode>(), Ok(*mode));
        }
    }

    #[test]
    fn time_limits_are_whole_positive_milliseconds() {
        assert_eq!(parse_timeout("30s"), Ok(30_000));
        assert_eq!(parse_timeout("500ms"), Ok(500));
        assert_eq!(parse_timeout("2m"), Ok(120_000));
        assert_eq!(parse_timeout("1h 30m"), Ok(5_400_000));
        assert_eq!(parse_timeout("24h"), Ok(MAX_TIMEOUT_MS));
        for bad in ["", "30", "thirty seconds", "0s", "1500us", "25h", "-1s"] {
            assert!(parse_timeout(bad).is_err(), "{bad:?} was accepted");
        }
        for ms in [1, 500, 30_000, 90_000, 5_400_000] {
            assert_eq!(parse_timeout(&format_timeout(ms)), Ok(ms));
        }
        assert_eq!(format_timeout(30_000), "30s");
    }

    #[test]
    fn tool_names_fit_every_provider() {
        assert!(is_valid_tool_name("drawing_create"));
        assert!(is_valid_tool_name("a"));
        assert!(is_valid_tool_name(&"a".repeat(64)));
        assert!(!is_valid_tool_name(&"a".repeat(65)));
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name("Drawing"));
        assert!(!is_valid_tool_name("1tool"));
        assert!(!is_valid_tool_name("drawing-create"));
        assert!(!is_valid_tool_name("drawing.create"));
    }

    #[test]
    fn error_codes_are_screaming_snake_case() {
        assert!(is_screaming_snake_case("PANE_NOT_FOUND"));
        assert!(is_screaming_snake_case("E2"));
        assert!(!is_screaming_snake_case("pane_not_found"));
        assert!(!is_screaming_snake_case("PANE__NOT"));
        assert!(!is_screaming_snake_case("_PANE"));
        assert!(!is_screaming_snake_case("PANE_"));
        assert!(!is_screaming_snake_case("2PANE"));
        assert!(!is_screaming_snake_case(""));
    }

    #[test]
    fn frozen_metadata_converts_to_a_spec() {
        static META: ToolMeta = ToolMeta::new(
            "panes_list",
            Safety::ReadOnly,
            Mode::Parallel,
            StaticSchema::Json(r#"{"type":"object","additionalProperties":false}"#),
        )
        .title("List panes")
        .description("Lists the panes.")
        .category("panes")
        .examples(&[ExampleMeta::new("All panes", "{}")])
        .idempotent(true)
        .open_world(false)
        .input_examples(&[r#"{"all":true}"#])
        .source("tools/panes_list.toml")
        .timeout_ms(2_000)
        .max_output_bytes(4096)
        .version("2.1.0")
        .deprecated(
            DeprecationMeta::new("2.0.0")
                .sunset("2027-06-30")
                .replacement("panes_query"),
        );
        let spec = ToolSpec::from_meta(&META).expect("valid json");
        let json = serde_json::to_value(&spec).expect("serialize");
        assert_eq!(
            json,
            serde_json::json!({
                "name": "panes_list",
                "title": "List panes",
                "description": "Lists the panes.",
                "safety": "read-only",
                "mode": "parallel",
                "category": "panes",
                "inputSchema": {"type": "object", "additionalProperties": false},
                "errors": [],
                "examples": [{"description": "All panes", "input": {}}],
                "idempotent": true,
                "openWorld": false,
                "inputExamples": [{"all": true}],
                "timeoutMs": 2000,
                "maxOutputBytes": 4096,
                "version": "2.1.0",
                "deprecated": {"since": "2.0.0", "sunset": "2027-06-30", "replacement": "panes_query"}
            })
        );
        let back: ToolSpec = serde_json::from_value(json).expect("deserialize");
        assert_eq!(
            (back.timeout_ms, back.max_output_bytes),
            (Some(2_000), Some(4096))
        );
        assert_eq!(back.version.as_deref(), Some("2.1.0"));
        assert_eq!(back.deprecated, spec.deprecated);

        // Undeclared, they are not written at all.
        let plain = ToolSpec::new("a", Safety::ReadOnly, Mode::Parallel, serde_json::json!({}));
        let json = serde_json::to_value(&plain).expect("serialize");
        assert!(json.get("version").is_none() && json.get("deprecated").is_none());
    }
}

//! What a registered tool is: its frozen metadata and an adapter the registry calls.
//!
//! Tools are usually written as plain functions with `#[tool]`; the attribute emits the adapter.
//! The adapter receives arguments that the registry has already validated against the tool's
//! schema, deserializes them into the typed input (`T::deserialize(&value)`, no clone), calls the
//! function and turns its result into a [`ToolOutput`](crate::handler::ToolOutput) or a [`ToolError`].
//!
//! # Declaring a tool with `#[tool]`
//!
//! A code-first tool: the doc comment is its description, the input type's schemars schema its
//! input schema. [`tool_def!`](crate::tool_def) turns one tool into its [`ToolDef`](crate::handler::ToolDef),
//! [`tool_defs!`](crate::tool_defs) lists several for the registry (and checks them against the
//! tools a crate's manifests declare: `tool_defs![tools::ALL; ...]`).
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use toolwright_runtime::{NoArgs, Registry, ToolError, tool, tool_def, tool_defs};
//! use toolwright_runtime::handler::ToolDef;
//!
//! struct Chart {
//!     panes: Vec<String>,
//! }
//!
//! /// The arguments of `pane_create`.
//! #[derive(Deserialize, JsonSchema)]
//! struct PaneArgs {
//!     /// The new pane's ID.
//!     pane_id: String,
//! }
//!
//! /// Lists the panes of the chart.
//! #[tool(safety = "read-only", mode = "parallel")]
//! fn panes_list(chart: &Chart, _input: NoArgs) -> Result<Vec<String>, ToolError> {
//!     Ok(chart.panes.clone())
//! }
//!
//! /// Creates a pane.
//! #[tool(safety = "destructive", mode = "sequential", title = "Create a pane")]
//! async fn pane_create(chart: &mut Chart, input: PaneArgs) -> Result<(), ToolError> {
//!     chart.panes.push(input.pane_id);
//!     Ok(())
//! }
//!
//! let tool: ToolDef<Chart> = tool_def!(pane_create);
//! assert_eq!(tool.meta.description, "Creates a pane.");
//!
//! let registry = Registry::<Chart>::builder()
//!     .tools(tool_defs![panes_list, pane_create])
//!     .build()
//!     .expect("valid tools");
//! assert_eq!(registry.len(), 2);
//! ```
//!
//! # Where `stateChanged` comes from
//!
//! Every envelope says whether the call changed state, so that the model knows whether a retry
//! is safe. A read-only tool never changes state, whatever it returns. For a destructive tool:
//!
//! | the call | `stateChanged` |
//! |---|---|
//! | returns `Ok(T)` | `true` |
//! | returns `Ok(Unchanged(T))` | `false`: the tool changed nothing |
//! | returns `Ok(Changed { data, changed })` | `changed`, decided by the tool at run time |
//! | returns an output over its `max_output_bytes` (`TOOL_FAILED`) | what the output says, as above |
//! | fails with a code it declares (`E` or `Failure::Declared`, `E: DeclaredError`) | `false` |
//! | refuses with `ToolError::NotAllowed` (`Failure::NotAllowed`) | `false`: a refusal comes before any change |
//! | fails with `ToolError::Failed` (`Failure::Failed`) or with a code it does not declare (`TOOL_FAILED`) | `true`: it may have changed state half-way |
//! | returns an output that cannot be serialized (`TOOL_FAILED`) | `true`: it ran to the end |
//! | panics (`TOOL_FAILED`) or runs past its time limit (`TOOL_TIMEOUT`) | `true`: it may have changed state half-way |
//!
//! Calls that fail before the tool's code runs answer `stateChanged: false`: a refusal of the
//! run's policy or the approver, an unknown tool, arguments that fail the schema, and arguments
//! that pass the schema but cannot be deserialized into the tool's input type (all three
//! `TOOL_INPUT_INVALID`, the last one [`ToolError::Input`]).
//!
//! # Declaring the errors of a code-first tool
//!
//! A tool declares the codes it may fail with, each with its message, whether a retry may
//! succeed and the recovery hint the model gets: a manifest in its `[[errors]]`, a code-first
//! tool with `#[derive(DeclaredError)]` on an enum of them. The enum is then the one
//! declaration: `#[tool]` puts its codes in the tool's frozen metadata ([`ToolMeta::errors`](crate::handler::ToolMeta::errors)),
//! where the registry finds them for the envelope and the docs and exports read them, and the
//! tool can only fail with them (`E`, or [`Failure<E>`], which adds guidance and also has the
//! runtime's `TOOL_FAILED` and `TOOL_NOT_ALLOWED`).
//!
//! Each variant takes `#[declared(...)]` with the keys of a manifest's `[[errors]]` entry:
//! `retryable` and `recommended_action` (required), `code` (default: the variant's name in
//! `SCREAMING_SNAKE_CASE`) and `message` (default: the variant's doc comment).
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use toolwright_runtime::{DeclaredError, Failure, Registry, RunPolicy, tool, tool_def};
//! use toolwright_runtime::handler::ToolDef;
//!
//! /// Why `web_search` fails.
//! #[derive(Debug, DeclaredError)]
//! enum SearchError {
//!     /// The search service did not answer.
//!     #[declared(retryable = true, recommended_action = "Retry in a minute.")]
//!     Unavailable,
//!     #[declared(
//!         code = "QUERY_TOO_LONG",
//!         message = "The query is longer than 200 characters.",
//!         retryable = true,
//!         recommended_action = "Shorten the query and retry."
//!     )]
//!     TooLong { length: usize },
//! }
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct SearchArgs {
//!     query: String,
//! }
//!
//! /// Searches the web.
//! #[tool(safety = "read-only", mode = "parallel")]
//! fn web_search(input: SearchArgs) -> Result<Vec<String>, Failure<SearchError>> {
//!     let length = input.query.chars().count();
//!     if length > 200 {
//!         return Err(Failure::new(SearchError::TooLong { length })
//!             .detail(format!("This one has {length}.")));
//!     }
//!     Err(SearchError::Unavailable.into())
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let def: ToolDef<()> = tool_def!(web_search);
//! let meta = def.meta;
//! assert_eq!(meta.errors, SearchError::ERRORS);
//! assert_eq!(meta.errors[0].code, "UNAVAILABLE");
//! assert_eq!(meta.errors[0].message, "The search service did not answer.");
//!
//! let registry = Registry::<()>::builder().tool(tool_def!(web_search)).build()?;
//! let query = "x".repeat(201);
//! let result = registry
//!     .execute(&RunPolicy::full(), &mut (), "web_search", &serde_json::json!({"query": query}))
//!     .await;
//! assert_eq!(
//!     serde_json::to_string(&result)?,
//!     r#"{"success":false,"error":{"code":"QUERY_TOO_LONG","message":"The query is longer than 200 characters. This one has 201.","retryable":true,"recommendedAction":"Shorten the query and retry."},"stateChanged":false}"#
//! );
//! # Ok(())
//! # }
//! ```

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use toolwright_core::ErrorMeta;

/// Wrap a destructive tool's output in `Unchanged` to report that nothing was changed
/// (`stateChanged: false`). Any other output of a destructive tool reports a change, or says
/// whether it did with [`Changed`].
#[derive(Debug, Clone, PartialEq)]
pub struct Unchanged<T>(pub T);

/// A destructive tool's output and whether the call changed anything, decided at run time:
/// `stateChanged` is `changed` (a read-only tool's is always false).
///
/// ```
/// use toolwright_runtime::Changed;
/// use toolwright_runtime::handler::{IntoToolOutput, Safety};
///
/// // Deleting what is not there changes nothing.
/// let output = Changed::new(vec!["d1"], false)
///     .into_tool_output(Safety::Destructive)
///     .expect("a list serializes");
/// assert!(!output.state_changed);
/// assert_eq!(output.data.json(), r#"["d1"]"#);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Changed<T> {
    /// What the tool answers (the envelope's `data`).
    pub data: T,
    /// Whether the call changed state.
    pub changed: bool,
}

impl<T> Changed<T> {
    /// `data`, with `stateChanged: changed`.
    pub fn new(data: T, changed: bool) -> Self {
        Changed { data, changed }
    }
}

/// The input of a tool that takes no arguments.
///
/// Its schema is `{"type":"object","additionalProperties":false}`: a call with any property
/// fails validation (`TOOL_INPUT_INVALID`) before the tool runs, and `{}` is the only input.
///
/// ```
/// use toolwright_runtime::{NoArgs, ToolError, tool};
///
/// /// Lists the panes of the chart.
/// #[tool(safety = "read-only", mode = "parallel")]
/// fn panes_list(_input: NoArgs) -> Result<Vec<String>, ToolError> {
///     Ok(vec!["main".to_owned()])
/// }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// Written by hand: the derived schema would also carry an empty `properties`.
impl JsonSchema for NoArgs {
    fn schema_name() -> Cow<'static, str> {
        "NoArgs".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "object", "additionalProperties": false})
    }
}

/// The codes a tool declares, as an enum: the `Error` the generator writes for a manifest's
/// `[[errors]]`, or a code-first tool's enum with `#[derive(DeclaredError)]` (see [the module
/// docs](self#declaring-the-errors-of-a-code-first-tool)).
///
/// [`ERRORS`](Self::ERRORS) declares every code [`code`](Self::code) returns: `#[tool]` puts
/// it in a code-first tool's frozen metadata. The derive writes both from one list; a hand-written
/// implementation must keep them together (a code missing from `ERRORS` is answered
/// `TOOL_FAILED`, as undeclared).
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not declare error codes",
    label = "the codes a tool fails with must be declared",
    note = "add `#[derive(DeclaredError)]` to `{Self}`, with `#[declared(retryable = ..., recommended_action = \"...\")]` on each variant"
)]
pub trait DeclaredError {
    /// Every code of the type, with its message, retryable flag and recommended action.
    const ERRORS: &'static [ErrorMeta];

    /// The `SCREAMING_SNAKE_CASE` code, as declared in [`ERRORS`](Self::ERRORS).
    fn code(&self) -> &'static str;
}

/// How a tool with declared errors fails: with one of the codes it declares (and optional
/// guidance for the model, e.g. the valid pane IDs), or with one of the two outcomes the runtime
/// itself defines. It cannot invent a code: the declared side is its [`DeclaredError`] enum (a
/// manifest's generated `Error`, or a code-first tool's own).
///
/// ```
/// use toolwright_runtime::{DeclaredError, Failure};
///
/// #[derive(Debug, PartialEq, DeclaredError)]
/// enum Error {
///     /// The pane does not exist.
///     #[declared(retryable = true, recommended_action = "Call panes_list, then retry.")]
///     PaneNotFound,
/// }
///
/// let failure = Failure::new(Error::PaneNotFound).detail("Valid pane IDs: main.");
/// assert_eq!(failure.code(), "PANE_NOT_FOUND");
/// assert_eq!(failure.error(), Some(&Error::PaneNotFound));
/// assert_eq!(Failure::<Error>::failed("the chart is gone").code(), "TOOL_FAILED");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure<E> {
    /// A declared code, with guidance added to its declared message (`Valid pane IDs: main,
    /// lower.`). `stateChanged: false`: a declared error comes before any change.
    Declared {
        /// The declared code.
        error: E,
        /// Guidance added to the declared message.
        detail: Option<String>,
    },
    /// A failure without a declared code: `TOOL_FAILED` (for a destructive tool,
    /// `stateChanged: true`, since it may have changed state half-way).
    Failed(String),
    /// A refusal before anything changed: `TOOL_NOT_ALLOWED`, `stateChanged: false`.
    NotAllowed(String),
}

impl<E> Failure<E> {
    /// A declared error without extra guidance.
    pub fn new(error: E) -> Self {
        Failure::Declared {
            error,
            detail: None,
        }
    }

    /// Adds tool-specific guidance to a declared error's message (a failure without a declared
    /// code is left as it is).
    #[must_use]
    pub fn detail(self, detail: impl Into<String>) -> Self {
        match self {
            Failure::Declared { error, .. } => Failure::Declared {
                error,
                detail: Some(detail.into()),
            },
            other => other,
        }
    }

    /// A failure without a declared code (`TOOL_FAILED`), its message the text of `message`.
    pub fn failed(message: impl fmt::Display) -> Self {
        Failure::Failed(message.to_string())
    }

    /// A refusal before the tool changed anything (`TOOL_NOT_ALLOWED`).
    pub fn not_allowed(message: impl fmt::Display) -> Self {
        Failure::NotAllowed(message.to_string())
    }

    /// The declared code, when it is one.
    pub fn error(&self) -> Option<&E> {
        match self {
            Failure::Declared { error, .. } => Some(error),
            Failure::Failed(_) | Failure::NotAllowed(_) => None,
        }
    }
}

impl<E: DeclaredError> Failure<E> {
    /// The code the model sees: the declared one, `TOOL_FAILED` or `TOOL_NOT_ALLOWED`.
    pub fn code(&self) -> &'static str {
        match self {
            Failure::Declared { error, .. } => error.code(),
            Failure::Failed(_) => "TOOL_FAILED",
            Failure::NotAllowed(_) => "TOOL_NOT_ALLOWED",
        }
    }
}

impl<E: DeclaredError> From<E> for Failure<E> {
    fn from(error: E) -> Self {
        Failure::new(error)
    }
}

/// Why a tool call failed, before it is put into the envelope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// A code declared by the tool; the registry adds the declared message, retryable flag and
    /// recommended action.
    #[error("{code}{}", detail.as_ref().map(|d| format!(": {d}")).unwrap_or_default())]
    Declared {
        /// The declared code.
        code: &'static str,
        /// Tool-specific guidance appended to the declared message.
        detail: Option<String>,
    },
    /// The arguments passed validation but could not be deserialized into the typed input
    /// (`TOOL_INPUT_INVALID`, `stateChanged: false`): `#[tool]`'s adapters answer it before the
    /// tool's code runs. The message may start with the JSON Pointer of the value it is about
    /// (`/anchors/0/price: invalid type: …`); without one it is reported at `/`.
    #[error("{0}")]
    Input(String),
    /// The tool failed without a declared code (`TOOL_FAILED`).
    #[error("{0}")]
    Failed(String),
    /// The tool refused to run for a reason of the host's policy that only the tool can see (an
    /// execution environment that does not enforce what the tool requires, say): the registry
    /// answers `TOOL_NOT_ALLOWED` with `stateChanged: false`. Return it only before the tool
    /// changed anything.
    #[error("{0}")]
    NotAllowed(String),
}

impl ToolError {
    /// A failure without a declared code (`TOOL_FAILED`), its message the text of `message`:
    /// a string, or any error, so that `.map_err(ToolError::failed)?` converts an error
    /// `ToolError` has no `From` for (and a crate cannot add one: both types are foreign to it).
    ///
    /// ```
    /// use toolwright_runtime::ToolError;
    ///
    /// fn read(path: &str) -> Result<String, ToolError> {
    ///     let text = std::fs::read_to_string(path).map_err(ToolError::failed)?;
    ///     Ok(text)
    /// }
    ///
    /// assert!(matches!(read(""), Err(ToolError::Failed(_))));
    /// assert_eq!(ToolError::failed("no chart"), ToolError::Failed("no chart".to_owned()));
    /// ```
    pub fn failed(message: impl fmt::Display) -> Self {
        ToolError::Failed(message.to_string())
    }

    /// A refusal before the tool changed anything (`TOOL_NOT_ALLOWED`).
    pub fn not_allowed(message: impl Into<String>) -> Self {
        ToolError::NotAllowed(message.into())
    }
}

impl<E: DeclaredError> From<Failure<E>> for ToolError {
    fn from(failure: Failure<E>) -> Self {
        match failure {
            Failure::Declared { error, detail } => ToolError::Declared {
                code: error.code(),
                detail,
            },
            Failure::Failed(message) => ToolError::Failed(message),
            Failure::NotAllowed(reason) => ToolError::NotAllowed(reason),
        }
    }
}

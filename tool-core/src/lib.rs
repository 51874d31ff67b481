//! The tool model of the toolwright toolkit, which the generator (`toolwright-manifest`), the
//! `#[tool]` attribute (`toolwright-macros`) and the runtime (`toolwright-runtime`) all read.
//!
//! - [`model`]: [`Safety`], [`Mode`], the frozen [`ToolMeta`] and the owned [`ToolSpec`]: a
//!   tool's safety and mode are parsed here and nowhere else, and so are its lifecycle
//!   declarations (`version`, `deprecated`: [`Deprecation`]).
//! - [`schema`]: JSON Schema as the toolkit reads it: keywords, drafts, JSON Pointers and the
//!   typed tree every other module walks; validity is decided by `jsonschema`.
//! - [`dialect`]: the tool definitions each provider accepts (MCP, OpenAI Chat Completions and
//!   Responses, Anthropic, Gemini), built as JSON values and checked rule by rule.
//! - [`suggest`]: "did you mean" suggestions for misspelt names.
//! - [`text`]: text for messages and pages: bounded quotes, invisible characters shown,
//!   articles and lists.

// The README's examples run as doctests, from the package too.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod dialect;
pub mod model;
pub mod schema;
pub mod suggest;
pub mod text;

pub use model::{
    Deprecation, DeprecationMeta, Endpoint, ErrorMeta, ErrorSpec, ExampleMeta, ExampleSpec, Mode,
    Safety, StaticSchema, ToolMeta, ToolSpec, Upstream,
};

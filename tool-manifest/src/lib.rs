//! The tool model and the generator.
//!
//! - [`model`]: [`Safety`], [`Mode`], the frozen [`ToolMeta`] and the owned [`ToolSpec`]. Always
//!   available; the runtime depends on this alone.
//! - [`suggest`]: "did you mean" suggestions for misspelt names. Always available.
//! - With the `dialects` feature: provider tool definitions (MCP, OpenAI, Anthropic, Gemini) in
//!   [`dialect`], built as JSON values and checked rule by rule; schema validity is decided by
//!   `jsonschema`; and the schema model ([`schema`]): keywords, drafts, JSON Pointers and the
//!   typed tree every other module reads.
//! - With the `generator` feature (default, includes `dialects`): TOML manifests ([`manifest`]:
//!   every schema meta-validated and compiled by `jsonschema`, every example validated),
//!   whole-set checks ([`check`]), Rust code generation
//!   ([`codegen`]) with the build-script API ([`Builder`]), the reference docs ([`docs`]) and the
//!   checked-in outputs ([`outputs`]: `tools.json`, the schema files and the provider catalogs,
//!   all written by `serde_json`, and the docs pages), and [`import`]: existing tool
//!   definitions (MCP, OpenAI, BFCL) → manifests.

// The README's examples run as doctests, from the package too.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod model;
pub mod suggest;

pub use model::{
    ErrorMeta, ErrorSpec, ExampleMeta, ExampleSpec, Mode, Safety, StaticSchema, ToolMeta, ToolSpec,
};

#[cfg(feature = "generator")]
pub mod build;
#[cfg(feature = "generator")]
pub mod check;
#[cfg(feature = "generator")]
pub mod codegen;
#[cfg(feature = "generator")]
pub mod diagnostic;
#[cfg(feature = "dialects")]
pub mod dialect;
#[cfg(feature = "generator")]
pub mod docs;
#[cfg(feature = "generator")]
pub mod import;
#[cfg(feature = "generator")]
mod json_text;
#[cfg(feature = "generator")]
pub mod manifest;
#[cfg(feature = "generator")]
pub mod outputs;
#[cfg(feature = "dialects")]
pub mod schema;

#[cfg(feature = "generator")]
pub use build::Builder;
#[cfg(feature = "generator")]
pub use diagnostic::{Diagnostic, Diagnostics};

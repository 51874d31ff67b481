//! The generator: TOML manifests in, typed Rust inputs, frozen metadata, schemas, provider
//! catalogs and reference docs out.
//!
//! - [`manifest`]: TOML manifests, every schema meta-validated and compiled by `jsonschema`,
//!   every example validated; mistakes reported together at `file:line:col` ([`diagnostic`]).
//! - [`check`]: the checks of a whole set (unique names, replacements that name a tool of it).
//! - [`codegen`]: the Rust code of a tool set, and [`Builder`], the build-script API.
//! - [`docs`]: the reference pages; [`outputs`]: the checked-in outputs (`tools.json`, the
//!   schema files, the provider catalogs, the docs), all JSON written by `serde_json`.
//! - [`import`]: existing tool definitions (MCP, OpenAI, BFCL) → manifests.
//! - [`lock`]: `tools.lock`, the digests of every definition and export; [`diff`]: what
//!   changed between two versions of a tool set, and whom it breaks.
//!
//! The model these read and write ([`ToolSpec`], [`Safety`], [`Mode`]), the schema model and the
//! provider dialects are `toolwright-core`'s, re-exported here as [`model`], [`schema`] and
//! [`dialect`] for build scripts.

// The README's examples run as doctests, from the package too.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use toolwright_core::{
    Deprecation, DeprecationMeta, Endpoint, ErrorMeta, ErrorSpec, ExampleMeta, ExampleSpec, Mode,
    Safety, StaticSchema, ToolMeta, ToolSpec, Upstream,
};
pub use toolwright_core::{dialect, model, schema, suggest};

pub mod build;
pub mod check;
pub mod codegen;
pub mod diagnostic;
pub mod diff;
pub mod docs;
pub mod import;
mod json_text;
pub mod lock;
pub mod manifest;
pub mod outputs;

pub use build::Builder;
pub use diagnostic::{Diagnostic, Diagnostics};

//! The tool model and the generator.
//!
//! - [`model`]: [`Safety`], [`Mode`], the frozen [`ToolMeta`] and the owned [`ToolSpec`]. Always
//!   available; the runtime depends on this alone.
//! - [`suggest`]: "did you mean" suggestions for misspelt names. Always available.
//! - [`import`]: existing tool definitions (MCP, OpenAI, BFCL) → manifests, with the
//!   `generator` feature; [`import::default_title`] is always available.
//! - With the `generator` feature (default): TOML manifests ([`manifest`]), whole-set checks
//!   ([`check`]), JSON Schema support ([`schema`]), Rust code generation ([`codegen`]) with the
//!   build-script API ([`Builder`]), and the reference docs ([`docs`]).

pub mod import;
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
pub mod manifest;
#[cfg(feature = "generator")]
pub mod outputs;
#[cfg(feature = "generator")]
pub mod schema;

#[cfg(feature = "generator")]
pub use build::Builder;
#[cfg(feature = "generator")]
pub use diagnostic::{Diagnostic, Diagnostics};

//! The reference tool set: an in-memory demo chart and its agent tools, declared in
//! `tools/*.toml`, implemented in [`impls`], enforced by a [`Registry`].
//!
//! ```
//! use chart_tools::chart::Chart;
//! use serde_json::json;
//! use toolwright_runtime::RunPolicy;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let registry = chart_tools::registry().expect("every declared tool is implemented");
//! let mut chart = Chart::demo();
//! let policy = RunPolicy::read_only();
//! // The model is offered only the read-only tools ...
//! assert!(registry.resolve(&policy).iter().all(|tool| tool.safety.is_read_only()));
//! // ... and a forged write is refused without running.
//! let result = registry
//!     .execute(&policy, &mut chart, "drawings_clear", &json!({}))
//!     .await;
//! assert_eq!(result.code(), Some("TOOL_NOT_ALLOWED"));
//! assert!(!result.state_changed());
//! # }
//! ```

use toolwright_runtime::handler::ToolMeta;
use toolwright_runtime::registry::RegistryError;
use toolwright_runtime::{Registry, RegistryBuilder};

pub mod chart;
pub mod impls;
#[cfg(feature = "code-interpreter")]
pub mod interpreter;
pub mod run;
pub mod session;

/// The generated inputs, error enums and frozen metadata of `tools/*.toml`.
pub mod tools {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}

use chart::Chart;

/// Tools whose manifest is in `tools/` but which this build does not register.
///
/// `code_interpreter` runs code: it is registered only when the host opts in with the cargo
/// feature `code-interpreter`; without it the tool is in no list and a call to it answers
/// `TOOL_NOT_FOUND`.
#[cfg(not(feature = "code-interpreter"))]
pub const NOT_REGISTERED: &[&str] = &["code_interpreter"];

/// Tools whose manifest is in `tools/` but which this build does not register: none, with the
/// `code-interpreter` feature.
#[cfg(feature = "code-interpreter")]
pub const NOT_REGISTERED: &[&str] = &[];

/// The manifests every build must implement: [`tools::ALL`] but [`NOT_REGISTERED`].
pub fn declared_tools() -> Vec<&'static ToolMeta> {
    tools::ALL
        .iter()
        .copied()
        .filter(|meta| !NOT_REGISTERED.contains(&meta.name))
        .collect()
}

/// The registry of the demo chart's tools. Building it checks that every declared manifest has
/// its implementation and that no implementation drifted from its manifest.
///
/// # Errors
/// When a declared tool has no implementation or disagrees with its manifest (a build defect,
/// reported with every problem at once).
pub fn registry() -> Result<Registry<Chart>, RegistryError> {
    registry_builder().build()
}

/// The builder of [`registry`], for a host that sets more (time limits, what spans record).
pub fn registry_builder() -> RegistryBuilder<Chart> {
    let builder = Registry::builder()
        .tools(impls::tool_defs())
        .declared(&declared_tools());
    #[cfg(feature = "code-interpreter")]
    let builder = interpreter::register(builder);
    builder
}

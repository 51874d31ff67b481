//! The runtime registry: it enforces what each tool declared.
//!
//! (Crate docs are completed with the registry.)

pub mod tool;

pub use tool::{
    BoxFuture, CallResult, DeclaredError, ExclusiveFn, Failure, Handler, IntoToolOutput, SharedFn,
    ToolDef, ToolError, ToolOutput, Unchanged,
};
pub use tool_manifest::{
    ErrorMeta, ErrorSpec, ExampleMeta, ExampleSpec, Mode, Safety, StaticSchema, ToolMeta, ToolSpec,
};

// ---- registry, policy, validation, envelope, batches, settings (registry work) ----



// ---- redaction and secrets (redaction work) ----



// ---- the `#[tool]` attribute and its support (macro work) ----

pub use tool_macros::{tool, tool_def};

#[doc(hidden)]
pub mod __private;

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

pub mod credentials;
pub mod redact;
pub mod secrets;

pub use credentials::{
    Credential, CredentialError, CredentialKind, CredentialScope, CredentialStore, FileStore,
    HostedPlaceholder, HostedStore, MemoryStore,
};
pub use redact::{LOCAL_PATH, REDACTED, RedactedPrompt, Redactor, redact_string};
pub use secrets::{KeyStatus, ProviderSettings, SecretString, SettingsView};

// ---- the `#[tool]` attribute and its support (macro work) ----

pub use tool_macros::tool;

#[doc(hidden)]
pub mod __private;

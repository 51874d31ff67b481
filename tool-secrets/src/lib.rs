//! What a host keeps away from the model and from disk: prompt redaction, keys that never print,
//! and credential stores.
//!
//! - [`Redactor`] ([`redact_string`] for one-off use) rewrites a user prompt before it is stored
//!   or sent: auth values and `sk-…` keys become [`REDACTED`], home directories become
//!   [`LOCAL_PATH`], and the configured keys are removed wherever they occur (see [`redact`]).
//! - [`SecretString`] holds a key: it prints as `[REDACTED]`, does not serialize, and is zeroed
//!   when dropped. [`ProviderSettings`] holds the host's keys; a UI gets its [`SettingsView`],
//!   which only says whether each key is set (see [`secrets`]).
//! - [`CredentialStore`] persists keys per account and workspace: in memory ([`MemoryStore`]), in
//!   a private file replaced atomically ([`FileStore`]), or as a read-only placeholder for a
//!   hosted deployment ([`HostedStore`]) (see [`credentials`]).
//!
//! ```
//! use toolwright_secrets::{Redactor, SecretString};
//!
//! let key = SecretString::from("prov-Key_123");
//! let redactor = Redactor::new(&[&key]);
//! assert_eq!(
//!     redactor.redact("key prov-Key_123 in /home/alice/notes.txt"),
//!     "key [REDACTED] in [LOCAL_PATH]/notes.txt"
//! );
//! assert_eq!(format!("{key}"), "[REDACTED]");
//! ```

// The README's examples run as doctests, from the package too.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod credentials;
pub mod redact;
pub mod secrets;

pub use credentials::{
    Credential, CredentialError, CredentialKind, CredentialScope, CredentialStore, FileStore,
    HostedPlaceholder, HostedStore, MemoryStore,
};
pub use redact::{LOCAL_PATH, REDACTED, RedactedPrompt, Redactor, redact_string};
pub use secrets::{KeyStatus, ProviderSettings, SecretString, SettingsView};

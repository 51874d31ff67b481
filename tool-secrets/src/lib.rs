//! What a host keeps away from the model: prompt redaction and keys that never print.
//!
//! - [`Redactor`] ([`redact_string`] for one-off use) rewrites a user prompt before it is stored
//!   or sent: auth values and `sk-…` keys become [`REDACTED`], home directories become
//!   [`LOCAL_PATH`], and the configured keys are removed wherever they occur (see [`redact`]).
//! - [`SecretString`] holds a key: it prints as `[REDACTED]`, does not serialize, and is zeroed
//!   when dropped (see [`secrets`]).
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

pub mod redact;
pub mod secrets;

pub use redact::{LOCAL_PATH, REDACTED, RedactedPrompt, Redactor, redact_string};
pub use secrets::SecretString;

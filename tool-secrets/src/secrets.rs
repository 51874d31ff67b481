//! Secrets that cannot be printed or serialized by accident.
//!
//! [`SecretString`] holds a provider or search-service key. Its `Debug` and `Display` print
//! `[REDACTED]`, it does not implement `Serialize` (a struct holding one cannot derive
//! `Serialize` by mistake), and its bytes are overwritten with zeros when it is dropped (with the
//! `zeroize` crate; copies made by the caller through [`SecretString::expose_secret`] are not
//! tracked). It is a small newtype rather than `secrecy::SecretString` so that it also has a
//! `Display` (`[REDACTED]`, the spelling redaction uses), `FromStr` and `Deserialize` without
//! extra traits at call sites; the zeroing is the `zeroize` crate's, as in `secrecy`. The keys a
//! host holds are what [`crate::Redactor::new`] removes from user prompts.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer};

/// A secret text value (an API key): never shown by `Debug` or `Display`, never serialized.
///
/// ```
/// use toolwright_secrets::SecretString;
///
/// let key = SecretString::new("sk-proj-abc123");
/// assert_eq!(format!("{key:?}"), "SecretString([REDACTED])");
/// assert_eq!(key.to_string(), "[REDACTED]");
/// assert_eq!(key.expose_secret(), "sk-proj-abc123");
/// ```
#[derive(Clone, Default)]
pub struct SecretString(String);

impl SecretString {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The raw value. Call it only where the value is really needed (an `Authorization` header,
    /// the credential file) and never keep or log the result.
    pub fn expose_secret(&self) -> &str {
        &self.0
    }

    /// True when the secret is the empty string (treated as "no key").
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Drop for SecretString {
    fn drop(&mut self) {
        // `zeroize` writes zeros over the whole allocation (capacity included) with writes the
        // compiler may not remove as dead stores.
        zeroize::Zeroize::zeroize(&mut self.0);
    }
}

impl fmt::Debug for SecretString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretString([REDACTED])")
    }
}

impl fmt::Display for SecretString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[REDACTED]")
    }
}

impl From<String> for SecretString {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for SecretString {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

impl FromStr for SecretString {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self::new(s))
    }
}

/// Reading a secret from configuration is allowed; writing one out is not (no `Serialize`).
impl<'de> Deserialize<'de> for SecretString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self)
    }
}

//! Secrets that cannot be printed or serialized by accident, and the provider settings that hold
//! them.
//!
//! - [`SecretString`] holds a provider or search-service key. Its `Debug` and `Display` print
//!   `[REDACTED]`, it does not implement `Serialize` (a struct holding one cannot derive
//!   `Serialize` by mistake), and its bytes are overwritten with zeros when it is dropped (with
//!   the `zeroize` crate; copies made by the caller through [`SecretString::expose_secret`] are
//!   not tracked). It is a small newtype rather than `secrecy::SecretString` so that it also has
//!   a `Display` (`[REDACTED]`, the spelling redaction uses), `FromStr` and `Deserialize` without
//!   extra traits at call sites; the zeroing is the `zeroize` crate's, as in `secrecy`.
//! - [`ProviderSettings`] is what the host keeps: the provider, the model, the search service and
//!   the two keys. What a UI gets is its [`SettingsView`], which has no key at all, only a
//!   [`KeyStatus`] per key. Serializing a `ProviderSettings` writes its view.
//! - [`ProviderSettings::redactor`] builds the [`Redactor`] that removes the configured keys from
//!   user prompts (see [`crate::redact`]).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::credentials::Credential;
use crate::redact::Redactor;

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

/// Whether a key is available, as a UI may show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum KeyStatus {
    /// No key is configured.
    Unset,
    /// A key is configured (its value is never shown).
    Set,
    /// The host authenticates with its own HTTP client; the client holds only a placeholder.
    Hosted,
}

impl KeyStatus {
    /// The status of an optional credential.
    pub fn of(credential: Option<&Credential>) -> Self {
        match credential {
            None => KeyStatus::Unset,
            Some(Credential::Key(key)) if key.is_empty() => KeyStatus::Unset,
            Some(Credential::Key(_)) => KeyStatus::Set,
            Some(Credential::Hosted(_)) => KeyStatus::Hosted,
        }
    }

    /// True for [`KeyStatus::Set`] and [`KeyStatus::Hosted`]: requests can be authenticated.
    pub fn is_available(self) -> bool {
        !matches!(self, KeyStatus::Unset)
    }
}

/// The model provider and search-service settings of one account and workspace.
///
/// `Debug` shows the keys as `[REDACTED]`; `Serialize` writes the [`SettingsView`], which holds no
/// key. Keys are persisted through a [`crate::CredentialStore`], never with the settings.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ProviderSettings {
    /// The model provider (`openai`, `anthropic`, …), if chosen.
    pub provider: Option<String>,
    /// The model, if chosen.
    pub model: Option<String>,
    /// The web search service, if chosen.
    pub search_service: Option<String>,
    /// The provider key, or the hosted placeholder.
    pub provider_key: Option<Credential>,
    /// The search-service key, or the hosted placeholder.
    pub search_key: Option<Credential>,
}

/// What a UI gets of [`ProviderSettings`]: everything except the keys, which appear only as a
/// [`KeyStatus`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SettingsView {
    /// The model provider, if chosen.
    pub provider: Option<String>,
    /// The model, if chosen.
    pub model: Option<String>,
    /// The web search service, if chosen.
    pub search_service: Option<String>,
    /// Whether a provider key is set.
    pub provider_key: KeyStatus,
    /// Whether a search-service key is set.
    pub search_key: KeyStatus,
}

impl ProviderSettings {
    /// The configuration view: no key, only whether each one is set.
    pub fn view(&self) -> SettingsView {
        SettingsView {
            provider: self.provider.clone(),
            model: self.model.clone(),
            search_service: self.search_service.clone(),
            provider_key: KeyStatus::of(self.provider_key.as_ref()),
            search_key: KeyStatus::of(self.search_key.as_ref()),
        }
    }

    /// The real keys held (hosted placeholders and empty keys are not secrets).
    pub fn keys(&self) -> Vec<&SecretString> {
        [&self.provider_key, &self.search_key]
            .into_iter()
            .filter_map(|credential| match credential {
                Some(Credential::Key(key)) if !key.is_empty() => Some(key),
                _ => None,
            })
            .collect()
    }

    /// A redactor for user prompts that also removes the configured keys. Build it again when a
    /// key changes.
    pub fn redactor(&self) -> Redactor {
        Redactor::new(&self.keys())
    }
}

impl Serialize for ProviderSettings {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.view().serialize(serializer)
    }
}

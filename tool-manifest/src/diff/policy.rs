//! The policy over severities: the `[diff]` table of `tool-manifest.toml`.
//!
//! ```toml
//! [diff]
//! # Raise or lower a kind, for every tool (never silently: the report says what the default was).
//! severity = { description-changed = "info", property-removed = "error" }
//! # Accept one change of one tool, with the reason.
//! accept = [{ tool = "panes_list", kind = "safety-loosened", reason = "it now clears the cache it reads" }]
//! ```
//!
//! A safety loosening cannot be lowered for every tool: only accepted by naming its tool. When
//! both versions of a tool declare `version`, an error (after the policy) without a major bump
//! (a minor one below 1.0.0, as Cargo reads versions) is one more error.

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer};

use super::change::{Adjustment, Change, Kind, Severity};
use super::definition::ToolSet;

/// The `[diff]` table as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct DiffConfig {
    /// Another severity for a kind.
    pub severity: BTreeMap<Kind, Severity>,
    /// Changes accepted, one tool and one kind each.
    pub accept: Vec<Acceptance>,
}

/// One accepted change.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Acceptance {
    /// The tool (its new name when it was renamed).
    pub tool: String,
    /// The kind of change accepted.
    pub kind: Kind,
    /// Why: shown in every report that uses the acceptance.
    pub reason: String,
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let word = String::deserialize(deserializer)?;
        Kind::from_word(&word).ok_or_else(|| {
            let mut message = format!("unknown change kind `{word}`");
            if let Some(close) = crate::schema::closest(&word, Kind::ACCEPTED) {
                message.push_str(&format!("; did you mean `{close}`?"));
            } else {
                message.push_str(&format!(
                    ", expected one of {}",
                    crate::model::backticked(Kind::ACCEPTED)
                ));
            }
            de::Error::custom(message)
        })
    }
}

impl<'de> Deserialize<'de> for Severity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let word = String::deserialize(deserializer)?;
        Severity::from_word(&word).ok_or_else(|| {
            de::Error::custom(format!(
                "expected a severity, {}, found {word:?}",
                crate::model::quoted_list(Severity::ACCEPTED)
            ))
        })
    }
}

/// A `[diff]` table that cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PolicyError(pub String);

/// The severities of a diff: the defaults, the `[diff]` table, and the date a sunset is
/// compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    config: DiffConfig,
    today: String,
}

impl Default for Policy {
    /// The default severities, today.
    fn default() -> Self {
        Policy {
            config: DiffConfig::default(),
            today: today(),
        }
    }
}

/// Today's date, `YYYY-MM-DD` (UTC).
fn today() -> String {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    now.get(..10).unwrap_or("").to_owned()
}

impl Policy {
    /// The policy of a `[diff]` table.
    ///
    /// # Errors
    /// A `severity` entry that lowers `safety-loosened` (accept it per tool instead), or an
    /// acceptance without a reason.
    pub fn new(config: DiffConfig) -> Result<Policy, PolicyError> {
        if let Some(severity) = config.severity.get(&Kind::SafetyLoosened)
            && *severity != Severity::Error
        {
            return Err(PolicyError(format!(
                "`[diff] severity`: `safety-loosened` cannot be made {severity} for every tool; accept it for one tool, naming it: `accept = [{{ tool = \"…\", kind = \"safety-loosened\", reason = \"…\" }}]`"
            )));
        }
        for (i, acceptance) in config.accept.iter().enumerate() {
            if acceptance.reason.trim().is_empty() {
                return Err(PolicyError(format!(
                    "`[diff] accept[{i}]` (`{}`, `{}`): `reason` is empty, expected why the change is accepted",
                    acceptance.tool, acceptance.kind
                )));
            }
            if acceptance.tool.trim().is_empty() {
                return Err(PolicyError(format!(
                    "`[diff] accept[{i}]`: `tool` is empty, expected the tool whose change is accepted"
                )));
            }
        }
        Ok(Policy {
            config,
            today: today(),
        })
    }

    /// The same policy with sunsets compared to `date` (`YYYY-MM-DD`) instead of today.
    #[must_use]
    pub fn on(mut self, date: &str) -> Policy {
        date.clone_into(&mut self.today);
        self
    }

    /// The date sunsets are compared with.
    pub fn today(&self) -> &str {
        &self.today
    }

    /// Applies the table to `changes`, then the version rule; returns the acceptances that
    /// matched no change.
    pub(crate) fn apply(
        &self,
        changes: &mut Vec<Change>,
        old: &ToolSet,
        new: &ToolSet,
    ) -> Vec<Acceptance> {
        let mut used = vec![false; self.config.accept.len()];
        for change in changes.iter_mut() {
            let default = change.severity;
            if let Some(i) = self
                .config
                .accept
                .iter()
                .position(|a| a.tool == change.tool && a.kind == change.kind)
            {
                used[i] = true;
                change.severity = Severity::Info;
                change.adjusted = Some(Adjustment::Accepted {
                    default,
                    reason: self.config.accept[i].reason.clone(),
                });
            } else if let Some(severity) = self.config.severity.get(&change.kind)
                && *severity != default
            {
                change.severity = *severity;
                change.adjusted = Some(Adjustment::Severity { default });
            }
        }
        let mut bumps = Vec::new();
        let mut tools: Vec<&str> = changes
            .iter()
            .filter(|c| c.severity == Severity::Error)
            .map(|c| c.tool.as_str())
            .collect();
        tools.dedup();
        for tool in tools {
            let (Some(after), Some(before)) = (
                new.tools.get(tool),
                old.tools.get(tool).or_else(|| {
                    // A renamed tool: the old version under its old name.
                    changes
                        .iter()
                        .find(|c| c.tool == tool && c.kind == Kind::ToolRenamed)
                        .and_then(|c| c.from.as_ref()?.as_str())
                        .and_then(|name| old.tools.get(name))
                }),
            ) else {
                continue;
            };
            let (Some(a), Some(b)) = (&before.version, &after.version) else {
                continue;
            };
            let (Ok(a), Ok(b)) = (semver::Version::parse(a), semver::Version::parse(b)) else {
                continue;
            };
            let bumped = if a.major == 0 && b.major == 0 {
                b.minor > a.minor
            } else {
                b.major > a.major
            };
            if !bumped {
                let needed = if a.major == 0 {
                    format!("0.{}.0", a.minor + 1)
                } else {
                    format!("{}.0.0", a.major + 1)
                };
                let mut change = Change::new(
                    tool,
                    "/version",
                    Kind::MajorVersionNotBumped,
                    format!(
                        "breaking changes without a major version: {a} → {b}, expected at least {needed}"
                    ),
                )
                .values(Some(a.to_string().into()), Some(b.to_string().into()));
                if let Some(severity) = self.config.severity.get(&change.kind) {
                    change.adjusted = Some(Adjustment::Severity {
                        default: change.severity,
                    });
                    change.severity = *severity;
                }
                bumps.push(change);
            }
        }
        changes.extend(bumps);
        self.config
            .accept
            .iter()
            .zip(used)
            .filter(|(_, used)| !used)
            .map(|(a, _)| a.clone())
            .collect()
    }
}

impl fmt::Display for Acceptance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` of `{}` ({})", self.kind, self.tool, self.reason)
    }
}

//! What a dialect reports: the rules of its table, the violations of a tool, and what one
//! conversion gives.

use std::fmt;

use serde_json::Value;

/// One rule of a provider: what it rejects at request time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rule {
    /// Stable id, `<dialect>.<rule>` (`openai.closed-objects`).
    pub id: &'static str,
    /// What the provider requires, in one sentence.
    pub text: &'static str,
}

/// A tool that breaks a rule of a dialect, after conversion. Built with [`Violation::new`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub struct Violation {
    /// The tool's name.
    pub tool: String,
    /// JSON Pointer (RFC 6901) into the tool's exported definition (`/name`,
    /// `/parameters/properties/style`); empty for the whole definition or the whole export.
    /// Below the schema key it follows the canonical schema, except inside inlined references.
    pub pointer: String,
    /// The id of the broken rule (an entry of
    /// [`Dialect::rules`](super::Dialect::rules)).
    pub rule: &'static str,
    /// What exactly is wrong there.
    pub message: String,
}

impl Violation {
    /// `tool` breaks `rule` at `pointer` (into its exported definition), as `message` says.
    pub fn new(
        tool: impl Into<String>,
        pointer: impl Into<String>,
        rule: &'static str,
        message: impl Into<String>,
    ) -> Self {
        Violation {
            tool: tool.into(),
            pointer: pointer.into(),
            rule,
            message: message.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(
            f,
            "tool `{}` at `{}`: {} (rule `{}`)",
            self.tool, pointer, self.message, self.rule
        )
    }
}

/// One tool's definition for a dialect, and what the provider's preferred form could not
/// express. Built by [`convert`](super::convert).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Converted {
    /// The definition, in the dialect's request shape (what [`convert`](super::convert)
    /// returns).
    pub definition: Value,
    /// OpenAI only: the strict-mode rules the tool breaks when it is exported with
    /// `"strict": false` (its schema is then offered as it is); empty when it is strict, and
    /// for every other dialect.
    pub non_strict: Vec<Violation>,
}

impl Converted {
    /// False exactly for an OpenAI function exported with `"strict": false`.
    pub fn is_strict(&self) -> bool {
        self.non_strict.is_empty()
    }
}

/// Collects the violations of one tool.
#[derive(Debug)]
pub(crate) struct Report {
    pub(crate) tool: String,
    pub(crate) violations: Vec<Violation>,
}

impl Report {
    pub(crate) fn new(tool: &str) -> Self {
        Report {
            tool: tool.to_owned(),
            violations: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, pointer: &str, rule: &'static str, message: impl Into<String>) {
        self.violations
            .push(Violation::new(&self.tool, pointer, rule, message));
    }

    pub(crate) fn finish(mut self) -> Result<(), Vec<Violation>> {
        if self.violations.is_empty() {
            Ok(())
        } else {
            self.violations.sort();
            self.violations.dedup();
            Err(self.violations)
        }
    }
}

/// The definition `convert` builds, then checked by `check`: the violations of both, but for
/// what the checker finds where the converter already refused (a consequence, not news).
pub(crate) fn checked(
    tool: &str,
    convert: impl FnOnce(&mut Report) -> Value,
    check: impl FnOnce(&Value, &mut Report),
) -> Result<Value, Vec<Violation>> {
    let mut report = Report::new(tool);
    let definition = convert(&mut report);
    let mut found = Report::new(tool);
    check(&definition, &mut found);
    let refused = report.violations.len();
    for found in found.violations {
        if !report.violations[..refused]
            .iter()
            .any(|r| is_consequence(&found.pointer, &r.pointer))
        {
            report.violations.push(found);
        }
    }
    report.finish().map(|()| definition)
}

/// Is a checker finding at `found` explained by a refusal at `refused`: the same place, below
/// it, or the schema directly holding it?
fn is_consequence(found: &str, refused: &str) -> bool {
    found == refused
        || found.starts_with(&format!("{refused}/"))
        || refused
            .strip_prefix(&format!("{found}/"))
            .is_some_and(|rest| !rest.contains('/'))
}

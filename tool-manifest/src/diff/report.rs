//! A diff's report and its three forms: text for people (grouped by tool, worst first), JSON
//! (stable: the same bytes for the same inputs), and GitHub workflow annotations at the
//! manifest's file and line.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::change::{Change, Severity};
use super::definition::ToolSet;
use super::policy::Acceptance;

toolwright_core::word_enum! {
    /// How a report is printed.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Format {
        /// Grouped by tool, worst first.
        Text => "text",
        /// `{"changes": [...], "summary": {...}}`, stable.
        Json => "json",
        /// `::error file=…,line=…::…` lines for a GitHub Actions step.
        Github => "github",
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::from_word(s).ok_or_else(|| {
            format!(
                "expected a format, {}, found {s:?}",
                crate::model::quoted_list(Format::ACCEPTED)
            )
        })
    }
}

/// What a diff found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Report {
    /// Every change, sorted: tools with their worst change first, then by name; a tool's
    /// changes worst first, then by pointer and kind.
    pub changes: Vec<Change>,
    /// Acceptances of the policy that matched no change (stale entries of the `[diff]` table).
    #[serde(skip)]
    pub unused: Vec<Acceptance>,
}

/// The counts of a report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Summary {
    /// Changes of severity `error`.
    pub error: usize,
    /// Changes of severity `warning`.
    pub warning: usize,
    /// Changes of severity `info`.
    pub info: usize,
    /// Tools with at least one change.
    pub tools: usize,
}

impl Report {
    pub(crate) fn new(
        mut changes: Vec<Change>,
        unused: Vec<Acceptance>,
        old: &ToolSet,
        new: &ToolSet,
    ) -> Report {
        let mut worst: BTreeMap<String, Severity> = BTreeMap::new();
        for change in &changes {
            let entry = worst.entry(change.tool.clone()).or_insert(change.severity);
            *entry = (*entry).min(change.severity);
        }
        changes.sort_by(|a, b| {
            (
                worst[&a.tool],
                &a.tool,
                a.severity,
                &a.pointer,
                a.kind,
                &a.provider,
            )
                .cmp(&(
                    worst[&b.tool],
                    &b.tool,
                    b.severity,
                    &b.pointer,
                    b.kind,
                    &b.provider,
                ))
        });
        for change in &mut changes {
            let source = new
                .tools
                .get(&change.tool)
                .and_then(|d| d.source.as_ref())
                .or_else(|| {
                    let old_name = change
                        .from
                        .as_ref()
                        .filter(|_| change.kind == super::Kind::ToolRenamed)
                        .and_then(|v| v.as_str())
                        .unwrap_or(&change.tool);
                    old.tools.get(old_name).and_then(|d| d.source.as_ref())
                });
            if let Some(source) = source {
                change.location = Some(crate::manifest::locate(source, &change.pointer));
            }
        }
        Report { changes, unused }
    }

    /// The worst severity found.
    pub fn worst(&self) -> Option<Severity> {
        self.changes.iter().map(|c| c.severity).min()
    }

    /// Is any change at least as bad as `threshold`?
    pub fn fails(&self, threshold: Severity) -> bool {
        self.worst().is_some_and(|w| w <= threshold)
    }

    /// The counts.
    pub fn summary(&self) -> Summary {
        let mut summary = Summary::default();
        let mut tools: Vec<&str> = Vec::new();
        for change in &self.changes {
            match change.severity {
                Severity::Error => summary.error += 1,
                Severity::Warning => summary.warning += 1,
                Severity::Info => summary.info += 1,
            }
            if tools.last() != Some(&change.tool.as_str()) {
                tools.push(&change.tool);
            }
        }
        summary.tools = tools.len();
        summary
    }

    /// The report in `format`.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Text => self.text(),
            Format::Json => self.json(),
            Format::Github => self.github(),
        }
    }

    fn text(&self) -> String {
        let mut out = String::new();
        let mut tool: Option<&str> = None;
        for change in &self.changes {
            if tool != Some(&change.tool) {
                if tool.is_some() {
                    out.push('\n');
                }
                let _ = writeln!(out, "{}", change.tool);
                tool = Some(&change.tool);
            }
            let parties: Vec<&str> = change.parties.iter().map(|p| p.as_str()).collect();
            let pointer = if change.pointer.is_empty() {
                "(the tool)"
            } else {
                &change.pointer
            };
            let provider = change
                .provider
                .map(|p| format!(" [{p}]"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {:<7} {} at {pointer}{provider} (reaches: {})",
                change.severity.as_str(),
                change.kind,
                parties.join(", ")
            );
            let _ = writeln!(out, "          {}", change.message);
            if let Some(adjusted) = &change.adjusted {
                let _ = writeln!(out, "          {}", adjustment(adjusted));
            }
            if let Some(location) = &change.location {
                let _ = writeln!(out, "          at {location}");
            }
        }
        for acceptance in &self.unused {
            let _ = writeln!(
                out,
                "\nnote: the acceptance of {acceptance} matched no change; remove it from `[diff] accept`"
            );
        }
        let s = self.summary();
        if self.changes.is_empty() {
            out.push_str("no changes\n");
        } else {
            let _ = writeln!(
                out,
                "\n{} in {} tool{}",
                counts(&s),
                s.tools,
                if s.tools == 1 { "" } else { "s" }
            );
        }
        out
    }

    fn json(&self) -> String {
        #[derive(Serialize)]
        struct Out<'a> {
            changes: &'a [Change],
            summary: Summary,
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            unused_acceptances: &'a [Acceptance],
        }
        let out = Out {
            changes: &self.changes,
            summary: self.summary(),
            unused_acceptances: &self.unused,
        };
        match serde_json::to_value(&out) {
            Ok(value) => crate::dialect::pretty_line(&value),
            Err(e) => format!("{{\"error\": {:?}}}\n", e.to_string()),
        }
    }

    fn github(&self) -> String {
        let mut out = String::new();
        for change in &self.changes {
            let level = match change.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            let mut properties = Vec::new();
            if let Some(location) = &change.location {
                properties.push(format!(
                    "file={}",
                    property(&location.file.to_string_lossy().replace('\\', "/"))
                ));
                properties.push(format!("line={}", location.line));
            }
            properties.push(format!(
                "title={}",
                property(&format!("{}: {}", change.tool, change.kind))
            ));
            let mut message = format!("{} (at {})", change.message, shown(&change.pointer));
            if let Some(adjusted) = &change.adjusted {
                message.push_str(&format!("; {}", adjustment(adjusted)));
            }
            let _ = writeln!(
                out,
                "::{level} {}::{}",
                properties.join(","),
                data(&message)
            );
        }
        let s = self.summary();
        let _ = writeln!(
            out,
            "{}",
            data(&format!("tool-manifest diff: {}", counts(&s)))
        );
        out
    }
}

fn shown(pointer: &str) -> &str {
    if pointer.is_empty() {
        "the tool"
    } else {
        pointer
    }
}

fn counts(s: &Summary) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}, {}, {}",
        plural(s.error, "error"),
        plural(s.warning, "warning"),
        plural(s.info, "info")
    )
}

fn adjustment(adjusted: &super::Adjustment) -> String {
    match adjusted {
        super::Adjustment::Severity { default } => {
            format!("({default} by default; set by `[diff] severity`)")
        }
        super::Adjustment::Accepted { default, reason } => {
            format!("({default} by default; accepted by `[diff] accept`: {reason})")
        }
    }
}

/// The message of a workflow command, escaped as the runner reads it.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property of a workflow command, escaped as the runner reads it.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

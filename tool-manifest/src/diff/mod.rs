//! What changed between two versions of a tool set, and whom it breaks (SPEC section 9).
//!
//! A published tool definition is a contract with three parties ([`Party`]): clients that call
//! it, models whose prompts name it, and the policy that grants it permissions (auto-approval of
//! read-only tools, plan modes, read-only runs, parallel scheduling). [`diff`] compares two
//! [`ToolSet`]s (from manifests, a lock file, or any MCP server's `tools/list`) and reports every
//! change as a [`Change`]: `{tool, pointer, kind, severity, parties}`, with the severity of SPEC
//! section 9's table, adjusted by a [`Policy`] (the `[diff]` table of `tool-manifest.toml`).
//!
//! Schemas are compared by meaning, not text: both are put in one normal form (equivalent
//! spellings, key order, local `$ref`s inlined), then compared keyword by keyword, each change a
//! narrowing or a widening of the set of valid instances; compositions are decided by a proof
//! of inclusion or by a witness instance, and what neither decides is [`Kind::Undecided`], a
//! warning.
//!
//! ```
//! use serde_json::json;
//! use toolwright_manifest::diff::{self, Definition, Kind, Policy, Severity, ToolSet};
//!
//! let old = json!({"name": "read_file", "inputSchema": {"type": "object",
//!     "properties": {"path": {"type": "string"}}}, "annotations": {"readOnlyHint": true}});
//! let mut new = old.clone();
//! new["annotations"]["readOnlyHint"] = json!(false);
//! let set = |tool| ToolSet::from_mcp(&[(String::new(), tool)]).unwrap();
//! let report = diff::diff(&set(old), &set(new), &Policy::default());
//! assert_eq!(report.changes[0].kind, Kind::SafetyLoosened);
//! assert_eq!(report.changes[0].severity, Severity::Error);
//! ```

mod change;
mod definition;
mod normal;
mod policy;
mod report;
mod schema;
mod source;
mod subset;

use std::collections::BTreeMap;

pub use crate::manifest::Location;
pub use change::{Adjustment, Change, Kind, Party, Severity};
pub use definition::{Definition, Level, Origin, ToolSet};
pub use policy::{Acceptance, DiffConfig, Policy, PolicyError};
pub use report::{Format, Report};
pub use source::{Side, SourceError, load, load_at_ref};

use normal::collapse_whitespace;
use schema::Side as SchemaSide;

/// Every change from `old` to `new`, with the policy's severities, sorted: tools with their
/// worst change first, then by name; a tool's changes worst first, then by pointer.
pub fn diff(old: &ToolSet, new: &ToolSet, policy: &Policy) -> Report {
    let mut changes = Vec::new();
    let removed: Vec<&Definition> = old
        .tools
        .values()
        .filter(|d| !new.tools.contains_key(&d.name))
        .collect();
    let added: Vec<&Definition> = new
        .tools
        .values()
        .filter(|d| !old.tools.contains_key(&d.name))
        .collect();
    let renames = renames(&removed, &added);
    for definition in &removed {
        if let Some(to) = renames.get(definition.name.as_str()) {
            changes.push(
                Change::new(
                    &to.name,
                    "/name",
                    Kind::ToolRenamed,
                    format!("renamed from `{}`", definition.name),
                )
                .values(
                    Some(definition.name.clone().into()),
                    Some(to.name.clone().into()),
                ),
            );
            changes.extend(compare(definition, to));
            continue;
        }
        changes.push(removal(definition, policy.today()));
    }
    let renamed: Vec<&str> = renames.values().map(|d| d.name.as_str()).collect();
    for definition in &added {
        if renamed.contains(&definition.name.as_str()) {
            continue;
        }
        changes.push(Change::new(
            &definition.name,
            "",
            Kind::ToolAdded,
            "tool added",
        ));
    }
    for (name, before) in &old.tools {
        if let Some(after) = new.tools.get(name) {
            changes.extend(compare(before, after));
        }
    }
    let unused = policy.apply(&mut changes, old, new);
    Report::new(changes, unused, old, new)
}

/// The removal of a tool: an error, unless it was deprecated and its sunset has passed.
fn removal(definition: &Definition, today: &str) -> Change {
    let change = Change::new(&definition.name, "", Kind::ToolRemoved, "tool removed");
    match &definition.deprecated {
        Some(deprecated) => match &deprecated.sunset {
            Some(sunset) if sunset.as_str() < today => Change {
                message: format!("tool removed after its sunset ({sunset})"),
                ..change.severity(Severity::Info)
            },
            Some(sunset) => Change {
                message: format!(
                    "tool removed before its sunset ({sunset}): it was deprecated since {}, but clients were promised it until then",
                    deprecated.since
                ),
                ..change
            },
            None => Change {
                message: format!(
                    "tool removed: it was deprecated since {}, with no sunset date",
                    deprecated.since
                ),
                ..change
            },
        },
        None => change,
    }
}

/// Tools removed and added with the same meaning (their input schemas equal once texts are
/// left out, the same safety): each removed one that has exactly one such added one, which has
/// no other, was renamed.
fn renames<'a>(
    removed: &[&'a Definition],
    added: &[&'a Definition],
) -> BTreeMap<&'a str, &'a Definition> {
    let key = |d: &Definition| {
        let schema = strip_texts(&normal::normalize(&d.input));
        format!("{:?}|{}", d.level, crate::schema::canonical_text(&schema))
    };
    let removed_keys: Vec<String> = removed.iter().map(|d| key(d)).collect();
    let added_keys: Vec<String> = added.iter().map(|d| key(d)).collect();
    let mut found = BTreeMap::new();
    for (i, old) in removed.iter().enumerate() {
        let candidates: Vec<usize> = (0..added.len())
            .filter(|j| added_keys[*j] == removed_keys[i])
            .collect();
        let [j] = candidates[..] else { continue };
        let rivals = removed_keys.iter().filter(|k| **k == added_keys[j]).count();
        // An input schema without properties says little about what a tool is: its texts
        // must say it is the same tool.
        let trivial = normal::normalize(&added[j].input)
            .as_object()
            .is_none_or(|m| m.get("properties").is_none());
        // And two tools of one shape (a CRUD family's `{id}`) are not one renamed: the names
        // or the texts must be close too.
        let close = |a: &Option<String>, b: &Option<String>| match (a, b) {
            (Some(a), Some(b)) => strsim::normalized_levenshtein(a, b) >= 0.8,
            _ => false,
        };
        let same_texts =
            close(&old.description, &added[j].description) || close(&old.title, &added[j].title);
        let close_names = strsim::jaro_winkler(&old.name, &added[j].name) >= 0.8;
        if rivals == 1 && (same_texts || (!trivial && close_names)) {
            found.insert(old.name.as_str(), added[j]);
        }
    }
    found
}

/// A schema without its descriptions and titles.
fn strip_texts(value: &serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "description" | "title" | "default"))
                .map(|(k, v)| (k.clone(), strip_texts(v)))
                .collect(),
        ),
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(strip_texts).collect())
        }
        other => other.clone(),
    }
}

/// Every change from one definition of a tool to another (named as the new one), with default
/// severities: what the proxy of pinned upstream tools asks of a live definition.
pub fn compare(old: &Definition, new: &Definition) -> Vec<Change> {
    let tool = new.name.as_str();
    let mut changes = Vec::new();
    let text = |s: &Option<String>| s.as_deref().map(collapse_whitespace);
    if text(&old.title) != text(&new.title) {
        changes.push(
            Change::new(tool, new.title_pointer, Kind::TitleChanged, "title changed")
                .values(json_text(&old.title), json_text(&new.title)),
        );
    }
    if text(&old.description) != text(&new.description) {
        changes.push(
            Change::new(
                tool,
                "/description",
                Kind::DescriptionChanged,
                "description changed",
            )
            .values(json_text(&old.description), json_text(&new.description)),
        );
    }
    if old.level != new.level {
        let pointer = if (old.level == Level::ReadOnly) != (new.level == Level::ReadOnly) {
            "/annotations/readOnlyHint"
        } else {
            "/annotations/destructiveHint"
        };
        let (kind, why) = if new.level > old.level {
            (
                Kind::SafetyLoosened,
                "a permission change: what clients granted the tool as it was no longer fits what it may do",
            )
        } else {
            (
                Kind::SafetyTightened,
                "a new grant: clients that ask before a write stop asking",
            )
        };
        changes.push(
            Change::new(
                tool,
                pointer,
                kind,
                format!("{} → {}: {why}", old.level.as_str(), new.level.as_str()),
            )
            .values(
                Some(old.level.as_str().into()),
                Some(new.level.as_str().into()),
            ),
        );
    }
    if old.idempotent != new.idempotent {
        let inert = old.level == Level::ReadOnly && new.level == Level::ReadOnly;
        let kind = if inert {
            Kind::AnnotationNoop
        } else {
            Kind::IdempotentChanged
        };
        changes.push(
            Change::new(
                tool,
                "/annotations/idempotentHint",
                kind,
                format!(
                    "idempotent {} → {}{}",
                    old.idempotent,
                    new.idempotent,
                    if inert {
                        " (means nothing for a read-only tool)"
                    } else {
                        ""
                    }
                ),
            )
            .values(Some(old.idempotent.into()), Some(new.idempotent.into())),
        );
    }
    if old.open_world != new.open_world {
        changes.push(
            Change::new(
                tool,
                "/annotations/openWorldHint",
                Kind::OpenWorldChanged,
                format!("open world {} → {}", old.open_world, new.open_world),
            )
            .values(Some(old.open_world.into()), Some(new.open_world.into())),
        );
    }
    let declared = old.origin == Origin::Manifest && new.origin == Origin::Manifest;
    if declared {
        declarations(old, new, &mut changes);
    }
    changes.extend(schema::compare(
        tool,
        "/inputSchema",
        &old.input,
        &new.input,
        SchemaSide::Input,
    ));
    match (&old.output, &new.output) {
        (None, Some(_)) => changes.push(Change::new(
            tool,
            "/outputSchema",
            Kind::OutputSchemaAdded,
            "output schema declared",
        )),
        (Some(_), None) => changes.push(Change::new(
            tool,
            "/outputSchema",
            Kind::OutputSchemaRemoved,
            "output schema dropped: clients that read the structured output lose its contract",
        )),
        (Some(a), Some(b)) => changes.extend(schema::compare(
            tool,
            "/outputSchema",
            a,
            b,
            SchemaSide::Output,
        )),
        (None, None) => {}
    }
    for key in old.other.keys().chain(new.other.keys()) {
        let (a, b) = (old.other.get(key), new.other.get(key));
        if a != b && !changes.iter().any(|c| c.pointer == format!("/{key}")) {
            changes.push(
                Change::new(
                    tool,
                    crate::schema::join("", key),
                    Kind::OtherFieldChanged,
                    format!("`{key}` changed"),
                )
                .values(a.cloned(), b.cloned()),
            );
        }
    }
    if let (Some(a), Some(b)) = (&old.digests, &new.digests)
        && a.definition == b.definition
    {
        for (dialect, digest) in &b.exports {
            if a.exports.get(dialect).is_some_and(|d| d != digest) {
                let mut change = Change::new(
                    tool,
                    "",
                    Kind::ExportChanged,
                    format!(
                        "the {dialect} export changed while the definition did not (a new version of the generator writes it differently)"
                    ),
                );
                change.provider = Some(*dialect);
                changes.push(change);
            }
        }
    }
    changes
}

/// What only manifests declare: mode, category, limits, deferral, errors, deprecation.
fn declarations(old: &Definition, new: &Definition, changes: &mut Vec<Change>) {
    let tool = new.name.as_str();
    if let (Some(a), Some(b)) = (old.mode, new.mode)
        && a != b
    {
        let kind = if b.is_sequential() {
            Kind::ModeParallelToSequential
        } else {
            Kind::ModeSequentialToParallel
        };
        let why = if b.is_sequential() {
            "its calls no longer run beside others"
        } else {
            "it may now run beside other calls of a message, sharing their context"
        };
        changes.push(
            Change::new(tool, "/mode", kind, format!("{a} → {b}: {why}"))
                .values(Some(a.as_str().into()), Some(b.as_str().into())),
        );
    }
    if old.category != new.category {
        changes.push(
            Change::new(tool, "/category", Kind::CategoryChanged, "category changed")
                .values(json_text(&old.category), json_text(&new.category)),
        );
    }
    let ms = |v: Option<u64>| v.map(crate::model::format_timeout);
    if old.timeout_ms != new.timeout_ms {
        changes.push(
            Change::new(
                tool,
                "/timeout",
                Kind::TimeoutChanged,
                format!(
                    "time limit {} → {}",
                    ms(old.timeout_ms).unwrap_or_else(|| "none".into()),
                    ms(new.timeout_ms).unwrap_or_else(|| "none".into())
                ),
            )
            .values(
                old.timeout_ms.map(Into::into),
                new.timeout_ms.map(Into::into),
            ),
        );
    }
    if old.max_output_bytes != new.max_output_bytes {
        let shown = |v: Option<u64>| v.map_or_else(|| "none".to_owned(), |v| format!("{v} bytes"));
        changes.push(
            Change::new(
                tool,
                "/max_output_bytes",
                Kind::OutputBudgetChanged,
                format!(
                    "output budget {} → {}",
                    shown(old.max_output_bytes),
                    shown(new.max_output_bytes)
                ),
            )
            .values(
                old.max_output_bytes.map(Into::into),
                new.max_output_bytes.map(Into::into),
            ),
        );
    }
    if old.defer_loading != new.defer_loading {
        let loading = |deferred: bool| if deferred { "deferred" } else { "eager" };
        changes.push(
            Change::new(
                tool,
                "/defer_loading",
                Kind::DeferLoadingChanged,
                format!(
                    "loading {} → {}: when the tool is loaded, not what it accepts or does",
                    loading(old.defer_loading),
                    loading(new.defer_loading)
                ),
            )
            .values(
                Some(old.defer_loading.into()),
                Some(new.defer_loading.into()),
            ),
        );
    }
    errors(old, new, changes);
    match (&old.deprecated, &new.deprecated) {
        (None, Some(d)) => changes.push(Change::new(
            tool,
            "/deprecated",
            Kind::ToolDeprecated,
            format!(
                "deprecated since {}{}{}",
                d.since,
                d.sunset
                    .as_ref()
                    .map(|s| format!(", sunset {s}"))
                    .unwrap_or_default(),
                d.replacement
                    .as_ref()
                    .map(|r| format!(", replaced by `{r}`"))
                    .unwrap_or_default()
            ),
        )),
        (Some(_), None) => changes.push(
            Change::new(
                tool,
                "/deprecated",
                Kind::DeprecationChanged,
                "deprecation withdrawn",
            )
            .severity(Severity::Info),
        ),
        (Some(a), Some(b)) if a != b => changes.push(Change::new(
            tool,
            "/deprecated",
            Kind::DeprecationChanged,
            format!(
                "deprecation changed (sunset {} → {})",
                a.sunset.as_deref().unwrap_or("none"),
                b.sunset.as_deref().unwrap_or("none")
            ),
        )),
        _ => {}
    }
}

/// The declared errors: codes removed, renamed (same texts, another code) or added; `retryable`
/// flipped; texts changed.
fn errors(old: &Definition, new: &Definition, changes: &mut Vec<Change>) {
    let tool = new.name.as_str();
    let same_texts = |a: &crate::model::ErrorSpec, b: &crate::model::ErrorSpec| {
        collapse_whitespace(&a.message) == collapse_whitespace(&b.message)
            && collapse_whitespace(&a.recommended_action)
                == collapse_whitespace(&b.recommended_action)
    };
    let find =
        |set: &[crate::model::ErrorSpec], code: &str| set.iter().position(|e| e.code == code);
    let removed: Vec<&crate::model::ErrorSpec> = old
        .errors
        .iter()
        .filter(|e| find(&new.errors, &e.code).is_none())
        .collect();
    let mut added: Vec<&crate::model::ErrorSpec> = new
        .errors
        .iter()
        .filter(|e| find(&old.errors, &e.code).is_none())
        .collect();
    for error in removed {
        let at = crate::schema::join("/errors", &error.code);
        if let Some(i) = added.iter().position(|a| same_texts(a, error)) {
            let to = added.remove(i);
            changes.push(
                Change::new(
                    tool,
                    format!("{at}/code"),
                    Kind::ErrorCodeRenamed,
                    format!(
                        "error code `{}` renamed `{}`: clients that match the old code miss it",
                        error.code, to.code
                    ),
                )
                .values(
                    Some(error.code.clone().into()),
                    Some(to.code.clone().into()),
                ),
            );
        } else {
            changes.push(Change::new(
                tool,
                at,
                Kind::ErrorCodeRemoved,
                format!(
                    "error code `{}` removed: clients that handle it never see it again, and the failure it named comes back as another code",
                    error.code
                ),
            ));
        }
    }
    for error in added {
        changes.push(Change::new(
            tool,
            crate::schema::join("/errors", &error.code),
            Kind::ErrorCodeAdded,
            format!("error code `{}` added", error.code),
        ));
    }
    for before in &old.errors {
        let Some(i) = find(&new.errors, &before.code) else {
            continue;
        };
        let after = &new.errors[i];
        let at = crate::schema::join("/errors", &before.code);
        if before.retryable != after.retryable {
            changes.push(
                Change::new(
                    tool,
                    format!("{at}/retryable"),
                    Kind::RetryableFlipped,
                    format!(
                        "`{}` retryable {} → {}: clients retry what fails again, or stop retrying what would succeed",
                        before.code, before.retryable, after.retryable
                    ),
                )
                .values(Some(before.retryable.into()), Some(after.retryable.into())),
            );
        }
        for (key, a, b) in [
            ("message", &before.message, &after.message),
            (
                "recommended_action",
                &before.recommended_action,
                &after.recommended_action,
            ),
        ] {
            if collapse_whitespace(a) != collapse_whitespace(b) {
                changes.push(
                    Change::new(
                        tool,
                        format!("{at}/{key}"),
                        Kind::ErrorTextChanged,
                        format!("`{}` {key} changed", before.code),
                    )
                    .values(Some(a.clone().into()), Some(b.clone().into())),
                );
            }
        }
    }
}

fn json_text(text: &Option<String>) -> Option<serde_json::Value> {
    text.clone().map(Into::into)
}

#[cfg(test)]
mod tests;

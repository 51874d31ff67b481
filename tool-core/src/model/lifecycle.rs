//! A tool's lifecycle declarations: its `version` and its deprecation (`since`, `sunset`,
//! `replacement`, `note`), and the one reading of their rules, which the manifest parser and the
//! `#[tool]` attribute both call ([`Lifecycle::mistakes`]): the messages are the same wherever
//! a tool is declared.
//!
//! - `version` is a semantic version (`MAJOR.MINOR.PATCH`, optionally with a `-pre-release`
//!   and a `+build`), read by the `semver` crate;
//! - `since` is a version or a date `YYYY-MM-DD`, `sunset` a date; dates are real calendar days
//!   (humantime's reading of `YYYY-MM-DD 00:00:00`: months 1 to 12, the days of each month, leap
//!   years), from 1970 on;
//! - a `sunset` is not before a `since` that is a date, and a `since` that is a version is not
//!   after the tool's declared `version`;
//! - `replacement` is a valid tool name, not the tool's own (that it names a tool of the set is
//!   a rule of the whole set, checked where the set is known).
//!
//! A deprecation never removes a tool: it is shown in the docs and the exports
//! ([`Deprecation::notice`]).

use std::cmp::Ordering;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::is_valid_tool_name;
use crate::text::truncate;

/// The longest excerpt of a declared value that a message quotes.
const QUOTE_LIMIT: usize = 80;

/// A tool's deprecation, owned (in [`ToolSpec::deprecated`](super::ToolSpec::deprecated) and
/// `tools.json`). Built with [`Deprecation::new`]; the other fields are set directly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Deprecation {
    /// Since when the tool is deprecated: a version (`2.0.0`) or a date (`2026-06-30`).
    pub since: String,
    /// The date after which the tool may be removed (`2027-06-30`), when declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sunset: Option<String>,
    /// The tool to call instead, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    /// What else a caller should know (how to move to the replacement).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Deprecation {
    /// A deprecation since `since` (a version or a date), with nothing else declared.
    pub fn new(since: impl Into<String>) -> Self {
        Deprecation {
            since: since.into(),
            sunset: None,
            replacement: None,
            note: None,
        }
    }

    /// The owned form of frozen deprecation metadata.
    pub fn from_meta(meta: &DeprecationMeta) -> Self {
        Deprecation {
            since: meta.since.to_owned(),
            sunset: meta.sunset.map(str::to_owned),
            replacement: meta.replacement.map(str::to_owned),
            note: meta.note.map(str::to_owned),
        }
    }

    /// What the exports append to the tool's description (after a blank line): `Deprecated`,
    /// the [`sentence`](Deprecation::sentence) with the replacement in backticks, then the
    /// note as written: `Deprecated since version 2.0.0; it may be removed after 2027-06-30.
    /// Use `drawing_create` instead. <note>`.
    pub fn notice(&self) -> String {
        let mut out = format!("Deprecated {}", self.sentence(|tool| format!("`{tool}`")));
        if let Some(note) = self
            .note
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
        {
            out.push(' ');
            out.push_str(note);
        }
        out
    }

    /// What follows "Deprecated", without the note, the replacement written by `tool`:
    /// `since version 2.0.0; it may be removed after 2027-06-30. Use `drawing_create`
    /// instead.` A `since` that is a date reads `since 2026-06-30`. The docs write the same
    /// words, with the replacement as a link.
    pub fn sentence(&self, tool: impl Fn(&str) -> String) -> String {
        let mut out = String::from("since ");
        if !is_date_shaped(&self.since) {
            out.push_str("version ");
        }
        out.push_str(&self.since);
        match &self.sunset {
            Some(sunset) => {
                let _ = write!(out, "; it may be removed after {sunset}.");
            }
            None => out.push('.'),
        }
        if let Some(replacement) = &self.replacement {
            let _ = write!(out, " Use {} instead.", tool(replacement));
        }
        out
    }
}

/// A tool's deprecation, frozen (in [`ToolMeta::deprecated`](super::ToolMeta::deprecated)).
/// Built in a `static` with [`DeprecationMeta::new`] and the `const` methods that set the other
/// fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeprecationMeta {
    /// Since when the tool is deprecated: a version or a date.
    pub since: &'static str,
    /// The date after which the tool may be removed, when declared.
    pub sunset: Option<&'static str>,
    /// The tool to call instead, when there is one.
    pub replacement: Option<&'static str>,
    /// What else a caller should know.
    pub note: Option<&'static str>,
}

impl DeprecationMeta {
    /// A deprecation since `since`, with nothing else declared.
    pub const fn new(since: &'static str) -> Self {
        DeprecationMeta {
            since,
            sunset: None,
            replacement: None,
            note: None,
        }
    }

    /// Sets the date after which the tool may be removed.
    #[must_use]
    pub const fn sunset(self, sunset: &'static str) -> Self {
        DeprecationMeta {
            sunset: Some(sunset),
            ..self
        }
    }

    /// Sets the tool to call instead.
    #[must_use]
    pub const fn replacement(self, replacement: &'static str) -> Self {
        DeprecationMeta {
            replacement: Some(replacement),
            ..self
        }
    }

    /// Sets the note.
    #[must_use]
    pub const fn note(self, note: &'static str) -> Self {
        DeprecationMeta {
            note: Some(note),
            ..self
        }
    }
}

/// The lifecycle key a [`LifecycleMistake`] is about: where it is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LifecycleKey {
    /// `version`.
    Version,
    /// `since` of `deprecated`.
    Since,
    /// `sunset` of `deprecated`.
    Sunset,
    /// `replacement` of `deprecated`.
    Replacement,
}

impl LifecycleKey {
    /// The key as written.
    pub const fn as_str(self) -> &'static str {
        match self {
            LifecycleKey::Version => "version",
            LifecycleKey::Since => "since",
            LifecycleKey::Sunset => "sunset",
            LifecycleKey::Replacement => "replacement",
        }
    }
}

/// A lifecycle rule a declaration breaks: the key whose value is at fault, and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LifecycleMistake {
    /// Where the mistake is reported.
    pub key: LifecycleKey,
    /// What is wrong, in the toolkit's message style.
    pub message: String,
}

/// The lifecycle declarations of one tool as written (each `None` when absent, or when its
/// value is not even a string), for [`Lifecycle::mistakes`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lifecycle<'a> {
    /// `version`.
    pub version: Option<&'a str>,
    /// `since` of `deprecated`.
    pub since: Option<&'a str>,
    /// `sunset` of `deprecated`.
    pub sunset: Option<&'a str>,
    /// `replacement` of `deprecated`.
    pub replacement: Option<&'a str>,
}

impl<'a> Lifecycle<'a> {
    /// The declarations of a tool's `version` and `deprecated`.
    pub fn of(version: Option<&'a str>, deprecated: Option<&'a Deprecation>) -> Self {
        Lifecycle {
            version,
            since: deprecated.map(|d| d.since.as_str()),
            sunset: deprecated.and_then(|d| d.sunset.as_deref()),
            replacement: deprecated.and_then(|d| d.replacement.as_deref()),
        }
    }

    /// Every rule of the module's list that the declarations of tool `tool` break, in the
    /// order of the keys. A relation between two values is checked only when both are valid.
    pub fn mistakes(&self, tool: &str) -> Vec<LifecycleMistake> {
        let mut mistakes = Vec::new();
        let mut push = |key, message| mistakes.push(LifecycleMistake { key, message });
        let version = self.version.and_then(|text| {
            parse_version(text)
                .map_err(|e| push(LifecycleKey::Version, e))
                .ok()
        });
        let since = self.since.and_then(|text| {
            parse_since(text)
                .map_err(|e| push(LifecycleKey::Since, e))
                .ok()
        });
        let sunset = self.sunset.and_then(|text| {
            check_date("sunset", text)
                .map(|()| text)
                .map_err(|e| push(LifecycleKey::Sunset, e))
                .ok()
        });
        if let (Some(version), Some(Since::Version(since_version))) = (&version, &since)
            && since_version.cmp_precedence(version) == Ordering::Greater
        {
            push(
                LifecycleKey::Since,
                format!(
                    "expected `since` to be at most the tool's `version` ({:?}), found {:?}: a tool cannot be deprecated since a version after its own",
                    version.to_string(),
                    since_version.to_string()
                ),
            );
        }
        if let (Some(Since::Date(since)), Some(sunset)) = (&since, sunset)
            && sunset < since.as_str()
        {
            push(
                LifecycleKey::Sunset,
                format!(
                    "expected `sunset` to be on or after `since` ({since:?}), found {sunset:?}: a tool is deprecated before it may be removed"
                ),
            );
        }
        if let Some(replacement) = self.replacement {
            if !is_valid_tool_name(replacement) {
                push(
                    LifecycleKey::Replacement,
                    format!(
                        "invalid tool name `{}` in `replacement`, expected lowercase ASCII letters, digits and `_`, starting with a letter, at most 64 characters (`^[a-z][a-z0-9_]{{0,63}}$`)",
                        truncate(replacement, QUOTE_LIMIT)
                    ),
                );
            } else if replacement == tool {
                push(
                    LifecycleKey::Replacement,
                    format!(
                        "`replacement` names the tool itself, expected the tool to call instead of `{tool}`"
                    ),
                );
            }
        }
        mistakes.sort_by_key(|m| m.key);
        mistakes
    }
}

/// What a `since` is.
enum Since {
    Version(semver::Version),
    /// A valid date, `YYYY-MM-DD` (whose text sorts as the days do).
    Date(String),
}

/// Reads a declared `version`: a semantic version, `MAJOR.MINOR.PATCH` with an optional
/// `-pre-release` and `+build` (`2.1.0`, `3.0.0-rc.1`), as the `semver` crate reads it.
///
/// # Errors
/// The whole message: "expected `version` to be a semantic version …, found …: why".
pub fn parse_version(text: &str) -> Result<semver::Version, String> {
    semver::Version::parse(text).map_err(|why| {
        format!(
            "expected `version` to be a semantic version like \"2.1.0\" (`MAJOR.MINOR.PATCH`, optionally with a `-pre-release` and a `+build`), found {:?}: {why}",
            truncate(text, QUOTE_LIMIT)
        )
    })
}

/// Checks that the value of `key` (`sunset`, or a `since` written as a date) is a calendar date
/// `YYYY-MM-DD` from 1970 on.
///
/// # Errors
/// The whole message: "expected `sunset` to be a date `YYYY-MM-DD` …, found …: why".
pub fn check_date(key: &str, text: &str) -> Result<(), String> {
    date_mistake(text).map_or(Ok(()), |why| {
        Err(format!(
            "expected `{key}` to be a date `YYYY-MM-DD` like \"2027-06-30\", found {:?}: {why}",
            truncate(text, QUOTE_LIMIT)
        ))
    })
}

/// A `since`: a date when it has the shape of one (and must then be a valid one), a version
/// otherwise.
fn parse_since(text: &str) -> Result<Since, String> {
    if is_date_shaped(text) {
        return check_date("since", text).map(|()| Since::Date(text.to_owned()));
    }
    semver::Version::parse(text).map(Since::Version).map_err(|why| {
        format!(
            "expected `since` to be a version like \"2.0.0\" or a date `YYYY-MM-DD` like \"2026-06-30\", found {:?}: {why}",
            truncate(text, QUOTE_LIMIT)
        )
    })
}

/// `dddd-dd-dd`: the shape of a date, whatever its numbers.
fn is_date_shaped(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes.iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        })
}

/// The names of the months, for messages.
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Why `text` is not a calendar date `YYYY-MM-DD` from 1970 on, if it is not. Which days a
/// month has (leap years included) is humantime's reading of the date at midnight.
fn date_mistake(text: &str) -> Option<String> {
    if !is_date_shaped(text) {
        return Some("a date is written `YYYY-MM-DD`".to_owned());
    }
    let number = |range: std::ops::Range<usize>| text[range].parse::<usize>().unwrap_or_default();
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    if year < 1970 {
        return Some("dates before 1970 are not accepted".to_owned());
    }
    if !(1..=12).contains(&month) {
        return Some(format!("there is no month {month}"));
    }
    humantime::parse_rfc3339_weak(&format!("{text} 00:00:00"))
        .err()
        .map(|_| format!("{} {year} has no day {day}", MONTHS[month - 1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mistakes(lifecycle: Lifecycle<'_>) -> Vec<(LifecycleKey, String)> {
        lifecycle
            .mistakes("drawing_line")
            .into_iter()
            .map(|m| (m.key, m.message))
            .collect()
    }

    fn declared(
        version: Option<&'static str>,
        since: &'static str,
        sunset: Option<&'static str>,
    ) -> Lifecycle<'static> {
        Lifecycle {
            version,
            since: Some(since),
            sunset,
            replacement: None,
        }
    }

    #[test]
    fn versions_are_semantic_versions() {
        for good in [
            "2.1.0",
            "0.0.1",
            "3.0.0-rc.1",
            "1.2.3+build.5",
            "1.0.0-alpha+001",
        ] {
            assert!(parse_version(good).is_ok(), "{good}");
        }
        assert_eq!(
            parse_version("2.1"),
            Err("expected `version` to be a semantic version like \"2.1.0\" (`MAJOR.MINOR.PATCH`, optionally with a `-pre-release` and a `+build`), found \"2.1\": unexpected end of input while parsing minor version number".to_owned())
        );
        for bad in ["", "v2.1.0", "2.1.0.0", "01.0.0", "2.x.0", " 2.1.0"] {
            assert!(parse_version(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn dates_are_calendar_days() {
        for good in [
            "2027-06-30",
            "2024-02-29",
            "2000-02-29",
            "1970-01-01",
            "9999-12-31",
        ] {
            assert_eq!(check_date("sunset", good), Ok(()), "{good}");
        }
        for (bad, why) in [
            ("2027-6-30", "a date is written `YYYY-MM-DD`"),
            ("June 2027", "a date is written `YYYY-MM-DD`"),
            ("2027-06-30T00:00:00", "a date is written `YYYY-MM-DD`"),
            ("2027-13-01", "there is no month 13"),
            ("2027-00-10", "there is no month 0"),
            ("2027-06-31", "June 2027 has no day 31"),
            ("2027-02-29", "February 2027 has no day 29"),
            ("1900-02-29", "dates before 1970 are not accepted"),
            ("2100-02-29", "February 2100 has no day 29"),
            ("2027-01-00", "January 2027 has no day 0"),
        ] {
            assert_eq!(
                check_date("sunset", bad),
                Err(format!(
                    "expected `sunset` to be a date `YYYY-MM-DD` like \"2027-06-30\", found {bad:?}: {why}"
                )),
            );
        }
    }

    #[test]
    fn since_is_a_version_or_a_date() {
        assert!(mistakes(declared(None, "2.0.0", None)).is_empty());
        assert!(mistakes(declared(None, "2026-01-15", None)).is_empty());
        assert_eq!(
            mistakes(declared(None, "v2", None)),
            [(
                LifecycleKey::Since,
                "expected `since` to be a version like \"2.0.0\" or a date `YYYY-MM-DD` like \"2026-06-30\", found \"v2\": unexpected character 'v' while parsing major version number".to_owned()
            )]
        );
        // Shaped like a date: a date it must be.
        assert_eq!(
            mistakes(declared(None, "2026-02-30", None)),
            [(
                LifecycleKey::Since,
                "expected `since` to be a date `YYYY-MM-DD` like \"2027-06-30\", found \"2026-02-30\": February 2026 has no day 30".to_owned()
            )]
        );
    }

    #[test]
    fn a_sunset_is_not_before_a_since_date() {
        assert!(mistakes(declared(None, "2026-06-30", Some("2026-06-30"))).is_empty());
        assert!(mistakes(declared(None, "2.0.0", Some("2020-01-01"))).is_empty());
        assert_eq!(
            mistakes(declared(None, "2026-06-30", Some("2026-01-01"))),
            [(
                LifecycleKey::Sunset,
                "expected `sunset` to be on or after `since` (\"2026-06-30\"), found \"2026-01-01\": a tool is deprecated before it may be removed".to_owned()
            )]
        );
        assert_eq!(
            mistakes(declared(None, "2.0.0", Some("2027-02-29")))[0].0,
            LifecycleKey::Sunset
        );
    }

    #[test]
    fn a_since_version_is_not_after_the_tools_version() {
        for since in ["2.0.0", "2.1.0", "2.1.0-rc.1", "2.1.0+other"] {
            assert!(
                mistakes(declared(Some("2.1.0"), since, None)).is_empty(),
                "{since}"
            );
        }
        assert!(mistakes(declared(Some("2.1.0"), "2030-01-01", None)).is_empty());
        assert_eq!(
            mistakes(declared(Some("2.1.0"), "3.0.0", None)),
            [(
                LifecycleKey::Since,
                "expected `since` to be at most the tool's `version` (\"2.1.0\"), found \"3.0.0\": a tool cannot be deprecated since a version after its own".to_owned()
            )]
        );
        // An invalid version is one mistake, not two.
        let found = mistakes(declared(Some("2.1"), "3.0.0", None));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, LifecycleKey::Version);
    }

    #[test]
    fn a_replacement_is_another_valid_tool_name() {
        let with = |replacement| Lifecycle {
            since: Some("2.0.0"),
            replacement: Some(replacement),
            ..Lifecycle::default()
        };
        assert!(mistakes(with("drawing_create")).is_empty());
        assert_eq!(
            mistakes(with("Drawing-Create")),
            [(
                LifecycleKey::Replacement,
                "invalid tool name `Drawing-Create` in `replacement`, expected lowercase ASCII letters, digits and `_`, starting with a letter, at most 64 characters (`^[a-z][a-z0-9_]{0,63}$`)".to_owned()
            )]
        );
        assert_eq!(
            mistakes(with("drawing_line")),
            [(
                LifecycleKey::Replacement,
                "`replacement` names the tool itself, expected the tool to call instead of `drawing_line`".to_owned()
            )]
        );
    }

    #[test]
    fn every_mistake_is_reported_in_the_order_of_the_keys() {
        let found = mistakes(Lifecycle {
            version: Some("x"),
            since: Some("y"),
            sunset: Some("z"),
            replacement: Some("drawing_line"),
        });
        let keys: Vec<LifecycleKey> = found.iter().map(|(key, _)| *key).collect();
        assert_eq!(
            keys,
            [
                LifecycleKey::Version,
                LifecycleKey::Since,
                LifecycleKey::Sunset,
                LifecycleKey::Replacement
            ]
        );
    }

    #[test]
    fn the_notice_says_what_is_declared() {
        let mut deprecation = Deprecation::new("2.0.0");
        assert_eq!(deprecation.notice(), "Deprecated since version 2.0.0.");
        deprecation.sunset = Some("2027-06-30".to_owned());
        deprecation.replacement = Some("drawing_create".to_owned());
        deprecation.note = Some(" Use drawing_create with kind = \"line\". ".to_owned());
        assert_eq!(
            deprecation.notice(),
            "Deprecated since version 2.0.0; it may be removed after 2027-06-30. Use `drawing_create` instead. Use drawing_create with kind = \"line\"."
        );
        let mut by_date = Deprecation::new("2026-01-15");
        by_date.replacement = Some("drawing_create".to_owned());
        assert_eq!(
            by_date.notice(),
            "Deprecated since 2026-01-15. Use `drawing_create` instead."
        );
    }

    #[test]
    fn frozen_and_owned_deprecations_agree() {
        static META: DeprecationMeta = DeprecationMeta::new("2.0.0")
            .sunset("2027-06-30")
            .replacement("drawing_create")
            .note("Use kind = \"line\".");
        let owned = Deprecation::from_meta(&META);
        assert_eq!(owned.since, "2.0.0");
        assert_eq!(owned.sunset.as_deref(), Some("2027-06-30"));
        assert_eq!(owned.replacement.as_deref(), Some("drawing_create"));
        assert_eq!(owned.note.as_deref(), Some("Use kind = \"line\"."));
        assert_eq!(
            serde_json::to_value(Deprecation::new("2.0.0")).expect("serialize"),
            serde_json::json!({"since": "2.0.0"})
        );
    }
}

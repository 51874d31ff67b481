//! A manifest's lifecycle declarations: `version` and `deprecated`, read where they are
//! written; their rules are the model's ([`model::Lifecycle::mistakes`]), each mistake located
//! at the value it is about.

use std::ops::Range;
use std::path::Path;

use toml::de::{DeTable, DeValue};

use super::report::{Item, toml_type};
use super::{Parser, Section};
use crate::check::DeclaredReplacement;
use crate::model::{self, Deprecation, LifecycleKey};

/// The keys of `deprecated`.
pub const DEPRECATED_KEYS: &[&str] = &["since", "sunset", "replacement", "note"];

/// `deprecated`.
const DEPRECATED: Section = Section {
    keys: DEPRECATED_KEYS,
    context: " in `deprecated`",
};

/// A string value and where it is written.
type Text = (String, Range<usize>);

/// The string of a value.
fn text(value: Option<&Text>) -> Option<&str> {
    value.map(|(text, _)| text.as_str())
}

/// `deprecated` as read: each value that is a string, with where it is written.
#[derive(Default)]
pub(super) struct ReadDeprecation {
    since: Option<Text>,
    sunset: Option<Text>,
    replacement: Option<Text>,
    note: Option<Text>,
    /// Whether the table has the shape of a deprecation (every key known and a string, `since`
    /// present).
    well_formed: bool,
}

impl ReadDeprecation {
    /// The deprecation, when it is well formed.
    fn deprecation(&self) -> Option<Deprecation> {
        let text = |field: &Option<Text>| field.as_ref().map(|(text, _)| text.clone());
        let since = self.since.as_ref().filter(|_| self.well_formed)?;
        let mut deprecation = Deprecation::new(since.0.clone());
        deprecation.sunset = text(&self.sunset);
        deprecation.replacement = text(&self.replacement);
        deprecation.note = text(&self.note);
        Some(deprecation)
    }
}

/// What the lifecycle declarations of a manifest give the spec and the whole-set checks.
pub(super) struct ReadLifecycle {
    /// `version`: `Some(None)` when absent, `None` when it has a mistake.
    pub version: Option<Option<String>>,
    /// `deprecated`: `Some(None)` when absent, `None` when it has a mistake.
    pub deprecated: Option<Option<Deprecation>>,
    /// The `replacement`, for the check that it names a tool of the set (only when it is a
    /// valid name of another tool).
    pub replacement: Option<DeclaredReplacement>,
}

impl Parser<'_> {
    /// Reads `version` and `deprecated` of the tool `name` (when it has one) and checks their
    /// rules, every mistake at the value it is about.
    pub(super) fn lifecycle(
        &mut self,
        document: &DeTable<'_>,
        path: &Path,
        name: Option<&str>,
    ) -> ReadLifecycle {
        let version = document
            .get("version")
            .map(|item| self.report.string(item, "version"));
        let read = document
            .get("deprecated")
            .map(|item| self.read_deprecated(item));
        let deprecation = read.as_ref().and_then(|r| r.as_ref());
        let at = |field: fn(&ReadDeprecation) -> &Option<Text>| {
            deprecation.and_then(|d| field(d).as_ref())
        };
        let version_text = version.as_ref().and_then(|v| v.as_ref());
        let declared = model::Lifecycle {
            version: text(version_text),
            since: text(at(|d| &d.since)),
            sunset: text(at(|d| &d.sunset)),
            replacement: text(at(|d| &d.replacement)),
        };
        let mut valid = true;
        for mistake in declared.mistakes(name.unwrap_or_default()) {
            let span = match mistake.key {
                LifecycleKey::Version => version_text,
                LifecycleKey::Since => at(|d| &d.since),
                LifecycleKey::Sunset => at(|d| &d.sunset),
                LifecycleKey::Replacement => at(|d| &d.replacement),
            };
            let offset = span.map_or(0, |(_, span)| span.start);
            self.error(offset, mistake.message);
            valid = false;
        }
        let replacement = at(|d| &d.replacement)
            .filter(|(replacement, _)| {
                model::is_valid_tool_name(replacement) && Some(replacement.as_str()) != name
            })
            .zip(name)
            .map(|((replacement, span), tool)| {
                let (line, column) = self.report.line_col(span.start);
                DeclaredReplacement {
                    tool: tool.to_owned(),
                    replacement: replacement.clone(),
                    file: path.to_path_buf(),
                    line,
                    column,
                }
            });
        ReadLifecycle {
            version: match version {
                None => Some(None),
                Some(Some((version, _))) if valid => Some(Some(version)),
                Some(_) => None,
            },
            deprecated: match read {
                None => Some(None),
                // `None` when it is not well formed.
                Some(Some(read)) if valid => read.deprecation().map(Some),
                Some(_) => None,
            },
            replacement,
        }
    }

    /// `deprecated`: a table of `since` (required), `sunset`, `replacement` and `note`, all
    /// strings. `None` when it is not a table.
    fn read_deprecated(&mut self, item: &Item<'_>) -> Option<ReadDeprecation> {
        let DeValue::Table(table) = item.get_ref() else {
            self.error(
                item.span().start,
                format!(
                    "expected `deprecated` to be a table like `{{ since = \"2.0.0\", sunset = \"2027-06-30\", replacement = \"new_tool\", note = \"…\" }}` (only `since` is required), found {}",
                    toml_type(item.get_ref())
                ),
            );
            return None;
        };
        let before = self.report.count();
        self.unknown_keys(table, DEPRECATED);
        let since = self
            .required(
                table,
                "since",
                item.span().start,
                DEPRECATED,
                ", expected the version (\"2.0.0\") or the date (\"2026-06-30\") since which the tool is deprecated",
            )
            .and_then(|item| self.report.string(item, "since"));
        let mut optional = |key: &str| {
            table
                .get(key)
                .and_then(|item| self.report.string(item, key))
        };
        let (sunset, replacement, note) = (
            optional("sunset"),
            optional("replacement"),
            optional("note"),
        );
        Some(ReadDeprecation {
            well_formed: self.report.count() == before,
            since,
            sunset,
            replacement,
            note,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::manifest::{load_dir, parse_manifest};
    use crate::model::{Deprecation, ToolSpec};

    /// A valid manifest of `drawing_line` with `lines` after its `mode`.
    fn manifest(lines: &str) -> String {
        format!(
            "name = \"drawing_line\"\ntitle = \"Draw a line\"\ndescription = \"Draws a line.\"\nsafety = \"destructive\"\nmode = \"sequential\"\n{lines}\n[input]\ntype = \"object\"\n"
        )
    }

    fn parse(lines: &str) -> Result<ToolSpec, Vec<String>> {
        parse_manifest(Path::new("tools/drawing_line.toml"), &manifest(lines)).map_err(|e| {
            e.0.iter()
                .map(|d| format!("{}:{}: {}", d.line, d.column, d.message))
                .collect()
        })
    }

    fn errors(lines: &str) -> Vec<String> {
        parse(lines).expect_err("the manifest has mistakes")
    }

    #[test]
    fn version_and_deprecation_are_read() {
        let spec = parse(
            "version = \"2.1.0\"\ndeprecated = { since = \"2.0.0\", sunset = \"2027-06-30\", replacement = \"drawing_create\", note = \"Use drawing_create with kind = \\\"line\\\".\" }",
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(spec.version.as_deref(), Some("2.1.0"));
        let mut expected = Deprecation::new("2.0.0");
        expected.sunset = Some("2027-06-30".to_owned());
        expected.replacement = Some("drawing_create".to_owned());
        expected.note = Some("Use drawing_create with kind = \"line\".".to_owned());
        assert_eq!(spec.deprecated, Some(expected));

        // A `[deprecated]` table, and a date as `since`.
        let text =
            manifest("").replace("[input]", "[deprecated]\nsince = \"2026-01-15\"\n\n[input]");
        let spec = parse_manifest(Path::new("tools/drawing_line.toml"), &text)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(spec.deprecated, Some(Deprecation::new("2026-01-15")));
        assert_eq!(spec.version, None);

        let spec = parse("").unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!((spec.version, spec.deprecated), (None, None));
    }

    #[test]
    fn a_version_is_a_semantic_version() {
        assert_eq!(
            errors("version = \"2.1\""),
            [
                "6:11: expected `version` to be a semantic version like \"2.1.0\" (`MAJOR.MINOR.PATCH`, optionally with a `-pre-release` and a `+build`), found \"2.1\": unexpected end of input while parsing minor version number"
            ]
        );
        assert_eq!(
            errors("version = 2"),
            ["6:11: expected `version` to be a string, found an integer"]
        );
    }

    #[test]
    fn a_deprecation_is_a_table_with_a_since() {
        assert_eq!(
            errors("deprecated = true"),
            [
                "6:14: expected `deprecated` to be a table like `{ since = \"2.0.0\", sunset = \"2027-06-30\", replacement = \"new_tool\", note = \"…\" }` (only `since` is required), found a boolean"
            ]
        );
        assert_eq!(
            errors("deprecated = { note = \"Gone.\" }"),
            [
                "6:14: missing key `since` in `deprecated`, expected the version (\"2.0.0\") or the date (\"2026-06-30\") since which the tool is deprecated"
            ]
        );
        // A misspelt key is suggested, and not reported missing again.
        assert_eq!(
            errors("deprecated = { sinse = \"2.0.0\", sunet = \"2027-06-30\" }"),
            [
                "6:16: unknown key `sinse` in `deprecated`, expected one of `since`, `sunset`, `replacement`, `note`; did you mean `since`?",
                "6:33: unknown key `sunet` in `deprecated`, expected one of `since`, `sunset`, `replacement`, `note`; did you mean `sunset`?",
            ]
        );
        assert_eq!(
            errors("deprecated = { since = \"2.0.0\", note = 3, replacement = \"\" }"),
            [
                "6:40: expected `note` to be a string, found an integer",
                "6:57: expected `replacement` to be a non-empty string, found an empty one",
            ]
        );
    }

    #[test]
    fn every_rule_is_checked_and_located_at_its_value() {
        // Each value wrong at once: every mistake, each at its value.
        assert_eq!(
            errors(
                "version = \"1.0.0\"\ndeprecated = { since = \"2.0.0\", sunset = \"2027-02-29\", replacement = \"drawing_line\" }"
            ),
            [
                "7:24: expected `since` to be at most the tool's `version` (\"1.0.0\"), found \"2.0.0\": a tool cannot be deprecated since a version after its own",
                "7:42: expected `sunset` to be a date `YYYY-MM-DD` like \"2027-06-30\", found \"2027-02-29\": February 2027 has no day 29",
                "7:70: `replacement` names the tool itself, expected the tool to call instead of `drawing_line`",
            ]
        );
        assert_eq!(
            errors(
                "deprecated = { since = \"2026-06-30\", sunset = \"2026-01-01\", replacement = \"Drawing\" }"
            ),
            [
                "6:47: expected `sunset` to be on or after `since` (\"2026-06-30\"), found \"2026-01-01\": a tool is deprecated before it may be removed",
                "6:75: invalid tool name `Drawing` in `replacement`, expected lowercase ASCII letters, digits and `_`, starting with a letter, at most 64 characters (`^[a-z][a-z0-9_]{0,63}$`)",
            ]
        );
        assert_eq!(
            errors("deprecated = { since = \"next\" }"),
            [
                "6:24: expected `since` to be a version like \"2.0.0\" or a date `YYYY-MM-DD` like \"2026-06-30\", found \"next\": unexpected character 'n' while parsing major version number"
            ]
        );
    }

    #[test]
    fn a_replacement_is_a_tool_of_the_set() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let write = |name: &str, text: &str| {
            std::fs::write(dir.path().join(format!("{name}.toml")), text).expect("written");
        };
        write(
            "drawing_line",
            &manifest("deprecated = { since = \"2.0.0\", replacement = \"drawing_creat\" }"),
        );
        write(
            "drawing_create",
            &manifest("").replace("drawing_line", "drawing_create"),
        );
        let found: Vec<String> = load_dir(dir.path())
            .specs
            .expect_err("an unknown replacement")
            .0
            .iter()
            .map(|d| format!("{}:{}: {}", d.line, d.column, d.message))
            .collect();
        assert_eq!(
            found,
            [
                "6:47: unknown tool `drawing_creat` in `replacement`, expected the name of a tool of this set; did you mean `drawing_create`?"
            ]
        );

        write(
            "drawing_line",
            &manifest("deprecated = { since = \"2.0.0\", replacement = \"drawing_create\" }"),
        );
        let specs = load_dir(dir.path()).specs.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(specs.len(), 2);

        // A replacement whose own manifest has mistakes is still a tool of the set: only its
        // mistakes are reported.
        write(
            "drawing_create",
            &manifest("")
                .replace("drawing_line", "drawing_create")
                .replace("mode = \"sequential\"", "mode = \"serial\""),
        );
        let found = load_dir(dir.path()).specs.expect_err("a mistake");
        assert_eq!(found.0.len(), 1, "{found}");
        assert!(found.0[0].message.contains("\"serial\""), "{found}");
    }
}

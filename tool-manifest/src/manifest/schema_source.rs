//! Where a manifest's schemas come from, and their checks: a table of the manifest (`[input]`,
//! converted to JSON) or a JSON file it names (`input = { file = "…" }`, whose numbers must read
//! exactly); each node located for messages, in the manifest or in the file; the draft read from
//! `$schema`, the schema meta-validated against its draft (the violations in the manifest's
//! words, by [`super::meta`]) and compiled by `jsonschema`.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toml::de::DeValue;

use super::limits::{MAX_MANIFEST_BYTES, MAX_SCHEMA_DEPTH, QUOTE_LIMIT};
use super::meta;
use super::report::{Item, Report, toml_type};
use crate::codegen;
use crate::diagnostic::Diagnostic;
use crate::json_text;
use crate::schema::{self, Draft, display_pointer, join, truncate};

/// The one key of a schema given as a file: `input = { file = "x.input.json" }`.
pub const SCHEMA_FILE_KEY: &str = "file";

/// Where the keys and values of a TOML value converted to JSON are written, found by JSON
/// Pointer when a message needs a location (the TOML tree is walked along the pointer: nothing is
/// recorded for the many values that need no message).
#[derive(Debug, Clone, Copy)]
pub(super) struct SpanIndex<'a, 'i> {
    /// The converted value.
    root: &'a Item<'i>,
    /// Where its key is written.
    key: usize,
}

impl<'a, 'i> SpanIndex<'a, 'i> {
    /// The locations of `root`, whose key is written at `key`.
    pub(super) fn new(root: &'a Item<'i>, key: usize) -> Self {
        SpanIndex { root, key }
    }

    /// The key (when it has one) and the value of the nearest ancestor-or-self of `pointer`.
    fn nearest(&self, pointer: &str) -> (Option<usize>, usize) {
        let mut found = (Some(self.key), self.root.span().start);
        let mut item = self.root;
        for token in schema::JsonPointer::from_escaped(pointer).tokens() {
            let next = match item.get_ref() {
                DeValue::Table(table) => table
                    .get_key_value(token.as_ref())
                    .map(|(key, value)| (Some(key.span().start), value)),
                DeValue::Array(items) => token
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| items.get(i))
                    .map(|value| (None, value)),
                _ => None,
            };
            let Some((key, value)) = next else {
                break;
            };
            found = (key, value.span().start);
            item = value;
        }
        found
    }

    /// Where a keyword is written: its key when it has one, else its value.
    pub(super) fn key_offset(&self, pointer: &str) -> usize {
        let (key, value) = self.nearest(pointer);
        key.unwrap_or(value)
    }

    /// Where a value is written.
    pub(super) fn value_offset(&self, pointer: &str) -> usize {
        self.nearest(pointer).1
    }
}

/// Where the nodes of a schema are written: in the manifest, or in a JSON file (its path, its
/// text, and where the manifest names it).
#[derive(Debug, Clone, Copy)]
enum Locator<'a, 'i> {
    Toml(SpanIndex<'a, 'i>),
    Json(&'a Path, &'a str, usize),
}

impl Locator<'_, '_> {
    /// A mistake at `pointer` of the schema: at its key (`key`) or its value in the manifest, at
    /// the node in a JSON file, or named by its pointer when the file cannot say where.
    fn report(&self, report: &mut Report<'_>, pointer: &str, key: bool, message: String) {
        match *self {
            Locator::Toml(index) => report.error(
                if key {
                    index.key_offset(pointer)
                } else {
                    index.value_offset(pointer)
                },
                message,
            ),
            Locator::Json(path, text, named_at) => {
                report.push(named_at, || match json_text::offset(text, pointer, key) {
                    Some(offset) => {
                        let (line, column) = Diagnostic::line_col(text, offset);
                        Diagnostic::at(path, line, column, message)
                    }
                    None => Diagnostic::file(
                        path,
                        format!("at `{}`: {message}", display_pointer(pointer)),
                    ),
                })
            }
        }
    }
}

/// A schema read from a manifest: the value (canonical: no `$schema` naming 2020-12), its
/// draft and its compiled validator.
pub(super) struct LoadedSchema {
    pub(super) value: Value,
    draft: Draft,
    pub(super) validator: jsonschema::Validator,
    /// The validator of [`codegen::type_ranges`]'s schema, built when an example needs it.
    ranges: std::cell::OnceCell<Option<jsonschema::Validator>>,
}

impl LoadedSchema {
    /// The validator that refuses what the generated Rust types cannot hold; `None` when they
    /// hold every value of the schema's integers' bounds.
    pub(super) fn ranges(&self) -> Option<&jsonschema::Validator> {
        self.ranges
            .get_or_init(|| {
                let bounded = codegen::type_ranges(&self.value)?;
                self.draft.options().build(&bounded).ok()
            })
            .as_ref()
    }
}

/// `[input]` or `[output]` (`which`, its key written at `key`): a table converted to JSON, or a
/// JSON file (`{ file = "…" }`, recorded in `files`); its draft read from `$schema`,
/// meta-validated against that draft and compiled. The `default` and `examples` keywords inside
/// are annotations: JSON Schema does not require them to match, and neither does the manifest.
/// A key of `manifest_keys` that JSON Schema does not have is a manifest key written after the
/// table, where it landed in the schema: a mistake, not a schema's choice.
pub(super) fn load(
    report: &mut Report<'_>,
    files: &mut Vec<PathBuf>,
    which: &str,
    key: Range<usize>,
    item: &Item<'_>,
    manifest_keys: &[&str],
) -> Option<LoadedSchema> {
    let DeValue::Table(table) = item.get_ref() else {
        report.error(
            item.span().start,
            format!(
                "expected `{which}` to be a table (a JSON Schema object) or `{{ {SCHEMA_FILE_KEY} = \"….json\" }}`, found {}",
                toml_type(item.get_ref())
            ),
        );
        return None;
    };
    let index = SpanIndex::new(item, key.start);
    let json_path;
    let json_text;
    let (mut schema, locator) = match table.get(SCHEMA_FILE_KEY) {
        Some(file) if table.len() == 1 => {
            let (name, span) = report.string(file, SCHEMA_FILE_KEY)?;
            let at = span.start;
            json_path = report.file().parent().unwrap_or(Path::new("")).join(name);
            files.push(json_path.clone());
            let (schema, text) = read_file(report, &json_path, at, which)?;
            json_text = text;
            (schema, Locator::Json(&json_path, &json_text, at))
        }
        _ => {
            let schema = json_of(report, item, "", Some(key))?;
            let misplaced: Vec<&str> = table
                .keys()
                .map(|k| k.get_ref().as_ref())
                .filter(|k| manifest_keys.contains(k) && schema::keywords::keyword(k).is_none())
                .collect();
            for key in &misplaced {
                report.error(
                    index.key_offset(&join("", key)),
                    format!(
                        "`{key}` is a manifest key, not a JSON Schema keyword: keys after `[{which}]` belong to the {which} schema, move it above `[{which}]`"
                    ),
                );
            }
            if !misplaced.is_empty() {
                return None;
            }
            (schema, Locator::Toml(index))
        }
    };
    let draft = match schema::read_draft(&mut schema) {
        Ok(draft) => draft,
        Err(issue) => {
            locator.report(report, &issue.pointer, true, issue.message);
            return None;
        }
    };
    let validator = compile(report, &schema, draft, locator, which)?;
    Some(LoadedSchema {
        value: schema,
        draft,
        validator,
        ranges: std::cell::OnceCell::new(),
    })
}

/// Reads a schema file named at `offset`: JSON text of at most [`MAX_MANIFEST_BYTES`], every
/// number of which `serde_json` reads as written.
fn read_file(
    report: &mut Report<'_>,
    path: &Path,
    offset: usize,
    which: &str,
) -> Option<(Value, String)> {
    let shown = path.display().to_string();
    let text = match std::fs::metadata(path) {
        Ok(meta) if meta.len() > MAX_MANIFEST_BYTES as u64 => {
            report.error(
                offset,
                format!(
                    "the {which} schema file `{}` is {} bytes, more than the {MAX_MANIFEST_BYTES} a schema may have",
                    truncate(&shown, QUOTE_LIMIT),
                    meta.len()
                ),
            );
            return None;
        }
        _ => match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                report.error(
                    offset,
                    format!(
                        "cannot read the {which} schema file `{}`: {e}",
                        truncate(&shown, QUOTE_LIMIT)
                    ),
                );
                return None;
            }
        },
    };
    let value = match serde_json::from_str::<Value>(&text) {
        Ok(value) => value,
        Err(e) => {
            report.push(offset, || {
                let message = format!("the {which} schema file is not JSON: {e}");
                Diagnostic::at(path, e.line(), e.column().max(1), message)
            });
            return None;
        }
    };
    // A number `serde_json` reads as another one would be validated, exported and documented
    // as that other number: refused where it is written.
    let inexact = json_text::inexact_numbers(&text, "read");
    let exact = inexact.is_empty();
    for (at, message) in inexact {
        report.push(offset, || {
            let (line, column) = Diagnostic::line_col(&text, at);
            Diagnostic::at(path, line, column, message)
        });
    }
    exact.then_some((value, text))
}

/// Meta-validates against the schema's draft, then builds the validator (which checks what the
/// meta-schema cannot, such as regular expressions).
fn compile(
    report: &mut Report<'_>,
    schema: &Value,
    draft: Draft,
    locator: Locator<'_, '_>,
    which: &str,
) -> Option<jsonschema::Validator> {
    let meta = draft.meta_validator();
    let mut seen = Vec::new();
    for error in meta.iter_errors(schema) {
        let (pointer, what) = meta::describe(&error, draft);
        let message = format!(
            "the {which} schema is not valid JSON Schema ({}) at `{}`: {what}",
            draft.name(),
            display_pointer(&pointer),
        );
        if !seen.contains(&message) {
            locator.report(report, &pointer, false, message.clone());
            seen.push(message);
        }
    }
    if !seen.is_empty() {
        return None;
    }
    match draft.options().build(schema) {
        Ok(validator) => Some(validator),
        Err(error) => {
            let pointer = error.instance_path().as_str().to_owned();
            let message = format!(
                "the {which} schema cannot be compiled at `{}`: {}",
                display_pointer(&pointer),
                truncate(&error.to_string(), QUOTE_LIMIT * 2)
            );
            locator.report(report, &pointer, false, message);
            None
        }
    }
}

/// Converts a TOML value to JSON. Integers stay integers and floats stay floats; a datetime or a
/// non-finite float has no JSON form. `pointer` is the JSON Pointer of `item`, `key` where its
/// key is written.
pub(super) fn json_of(
    report: &mut Report<'_>,
    item: &Item<'_>,
    pointer: &str,
    key: Option<Range<usize>>,
) -> Option<Value> {
    let offset = item.span().start;
    if matches!(item.get_ref(), DeValue::Array(_) | DeValue::Table(_)) {
        let level = pointer.bytes().filter(|b| *b == b'/').count() + 1;
        if level > MAX_SCHEMA_DEPTH {
            report.error(
                key.as_ref().map_or(offset, |k| k.start),
                format!(
                    "tables and arrays are nested deeper than {MAX_SCHEMA_DEPTH} levels at `{}`, expected at most {MAX_SCHEMA_DEPTH}",
                    truncate(display_pointer(pointer), QUOTE_LIMIT)
                ),
            );
            return None;
        }
    }
    match item.get_ref() {
        DeValue::String(s) => Some(Value::String(s.to_string())),
        DeValue::Boolean(b) => Some(Value::Bool(*b)),
        DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
            Ok(n) => Some(Value::from(n)),
            Err(_) => {
                report.error(offset, format!("integer `{i}` does not fit in 64 bits"));
                None
            }
        },
        DeValue::Float(f) => match f
            .as_str()
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
        {
            Some(n) => Some(Value::Number(n)),
            None => {
                report.error(
                    offset,
                    format!("float `{f}` has no JSON form, expected a finite number"),
                );
                None
            }
        },
        DeValue::Datetime(d) => {
            report.error(
                offset,
                format!("datetime `{d}` has no JSON form, expected a string (write it in quotes: \"{d}\")"),
            );
            None
        }
        // Every element is converted (and its mistakes reported) even after one fails.
        DeValue::Array(items) => {
            let values: Vec<Option<Value>> = items
                .iter()
                .enumerate()
                .map(|(i, element)| json_of(report, element, &format!("{pointer}/{i}"), None))
                .collect();
            values.into_iter().collect::<Option<_>>().map(Value::Array)
        }
        DeValue::Table(table) => {
            let entries: Vec<Option<(String, Value)>> = table
                .iter()
                .map(|(k, v)| {
                    let name: &str = k.get_ref();
                    let value = json_of(report, v, &join(pointer, name), Some(k.span()));
                    value.map(|value| (name.to_owned(), value))
                })
                .collect();
            entries
                .into_iter()
                .collect::<Option<_>>()
                .map(Value::Object)
        }
    }
}

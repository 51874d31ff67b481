//! TOML manifests → [`ToolSpec`], with every mistake located at `file:line:col`.
//!
//! One tool per file, the file stem being the tool name:
//!
//! ```toml
//! name = "drawing_create"
//! title = "Create a drawing"
//! description = "Draws a trend line or a horizontal line on a pane."
//! safety = "destructive"
//! mode = "sequential"
//! category = "drawings"          # optional
//! idempotent = false             # optional: a repeated call changes something more
//! open_world = false             # optional: reaches nothing outside the application
//! timeout = "10s"                # optional: the time limit of a call (humantime: "500ms", "2m")
//! max_output_bytes = 65536       # optional: the budget of a success's `data`, in bytes of JSON
//!
//! [input]                        # a JSON Schema object, written in TOML
//! type = "object"
//! required = ["pane_id"]
//! properties.pane_id = { type = "string" }
//!
//! [[errors]]
//! code = "PANE_NOT_FOUND"
//! message = "No pane has this ID."
//! retryable = true
//! recommended_action = "Call `panes_list` and retry with one of its IDs."
//!
//! [[examples]]
//! description = "Draw on the main pane"
//! input = { pane_id = "main" }
//! ```
//!
//! A schema may also be a JSON file next to the manifest (TOML cannot write `null`):
//! `input = { file = "drawing_create.input.json" }`, the same for `output`; the path is relative
//! to the manifest, and a mistake in the file is located at its `file:line:col` (a number
//! `serde_json` would read as another one, such as an integer past 64 bits or `-0`, included).
//! `input_examples = [{ pane_id = "main" }]` lists example argument objects shown to providers
//! that take them.
//!
//! Every schema is checked by `jsonschema` in its own draft (draft-07, 2019-09 or 2020-12, named
//! by its `$schema`; 2020-12 without one): `[input]` and `[output]` are meta-validated against
//! their draft's meta-schema (a violation is written as what the keyword must be: "`type` must
//! be one of …, found "int"") and compiled (which checks what the meta-schema cannot, such as
//! patterns), and every `[[examples]]` input and every `input_examples` entry is validated by a
//! compiled validator, then against the ranges of the generated Rust integers (an example the
//! generated `Input` cannot hold is a mistake). Every valid schema is accepted (a `default` or
//! `examples` annotation that does not match its schema included, as JSON Schema allows): the
//! code generator maps what it cannot type precisely to `serde_json::Value`.
//!
//! The parser collects every mistake of a file (and [`load_dir`], reading the files one after
//! another, every mistake of every file) rather than stopping at the first.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::check::{self, DeclaredName};
use crate::codegen;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::model::{self, ErrorSpec, ExampleSpec, Mode, Safety, ToolSpec};
use crate::schema::join;
use crate::schema::{self, Draft, closest, display_pointer, truncate};

mod meta;

/// The keys of a manifest, in the order they are documented.
pub const KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "safety",
    "mode",
    "category",
    "idempotent",
    "open_world",
    "timeout",
    "max_output_bytes",
    "input",
    "output",
    "input_examples",
    "errors",
    "examples",
];

/// The one key of a schema given as a file: `input = { file = "x.input.json" }`.
pub const SCHEMA_FILE_KEY: &str = "file";

/// The keys of one `[[errors]]` entry.
pub const ERROR_KEYS: &[&str] = &["code", "message", "retryable", "recommended_action"];

/// The keys of one `[[examples]]` entry.
pub const EXAMPLE_KEYS: &[&str] = &["description", "input"];

/// Codes the runtime returns itself; a tool may not declare them.
pub use crate::model::RESERVED_CODES;

/// Longest excerpt of a user-written value quoted in a message.
const QUOTE_LIMIT: usize = 80;

/// The largest manifest read, in bytes (1 MiB): a tool's declaration is a few kilobytes.
pub const MAX_MANIFEST_BYTES: usize = 1 << 20;

/// The deepest nesting of tables and arrays in `[input]`, `[output]` and an example's `input`
/// (TOML itself stops at a few hundred levels; no tool's arguments need more than a handful).
pub const MAX_SCHEMA_DEPTH: usize = 32;

/// The longest diagnostic message, in characters (before invisible characters are escaped).
const MESSAGE_LIMIT: usize = 1000;

/// The most diagnostics reported for one file; the rest are counted.
pub const MAX_DIAGNOSTICS_PER_FILE: usize = 100;

/// One manifest, read: the spec when it is valid, every mistake otherwise, and the declared
/// name (when there is one) for the whole-set checks.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Parsed {
    /// The tool, when the manifest has no mistake.
    pub spec: Option<ToolSpec>,
    /// The `name` value and where it is written, when it is a string.
    pub name: Option<DeclaredName>,
    /// Every mistake of the file.
    pub diagnostics: Vec<Diagnostic>,
    /// The schema files the manifest names (`input = { file = "…" }`), resolved.
    pub files: Vec<PathBuf>,
}

/// Parses one manifest. `path` is used for messages, for the file-stem rule and as
/// [`ToolSpec::source`] (as given: the caller decides whether it is relative).
///
/// # Errors
/// Every mistake of the file, sorted by location.
pub fn parse_manifest(path: &Path, text: &str) -> Result<ToolSpec, Diagnostics> {
    let parsed = parse(path, text);
    match parsed.spec {
        Some(spec) if parsed.diagnostics.is_empty() => Ok(spec),
        _ => Err(Diagnostics(parsed.diagnostics).sorted()),
    }
}

/// Parses one manifest, keeping what the whole-set checks need even when it has mistakes.
pub fn parse(path: &Path, text: &str) -> Parsed {
    if text.len() > MAX_MANIFEST_BYTES {
        return too_large(path, text);
    }
    let mut parser = Parser {
        file: path.to_path_buf(),
        text,
        diagnostics: Vec::new(),
        suppressed: 0,
        first_suppressed: 0,
        files: Vec::new(),
    };
    let (spec, name) = parser.manifest(path);
    let mut diagnostics = parser.diagnostics;
    if parser.suppressed > 0 {
        let (line, column) = Diagnostic::line_col(text, parser.first_suppressed);
        diagnostics.push(Diagnostic::at(
            path,
            line,
            column,
            format!(
                "too many mistakes: {} more, the first of them here (only the first {MAX_DIAGNOSTICS_PER_FILE} are listed)",
                parser.suppressed
            ),
        ));
    }
    Parsed {
        spec: if diagnostics.is_empty() { spec } else { None },
        name,
        diagnostics,
        files: parser.files,
    }
}

/// A manifest over [`MAX_MANIFEST_BYTES`], located where it crosses the limit; nothing of it is
/// parsed.
fn too_large(path: &Path, text: &str) -> Parsed {
    let mut end = MAX_MANIFEST_BYTES.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let (line, column) = Diagnostic::line_col(text, end);
    Parsed {
        spec: None,
        name: None,
        files: Vec::new(),
        diagnostics: vec![Diagnostic::at(
            path,
            line,
            column,
            format!(
                "the manifest is {} bytes, more than the {MAX_MANIFEST_BYTES} a manifest may have (it crosses the limit here)",
                text.len()
            ),
        )],
    }
}

/// Loads every `*.toml` file directly in `dir` (in file-name order; hidden files are skipped), then runs the whole-set
/// checks (duplicate names).
///
/// # Errors
/// Every diagnostic of every file, sorted; a missing, unreadable or empty directory is an error
/// about the directory itself.
pub fn load_dir(dir: &Path) -> Result<Vec<ToolSpec>, Diagnostics> {
    load_dir_with_files(dir).0
}

/// [`load_dir`], and every schema file the manifests name (for a build script's
/// `rerun-if-changed`), also when a manifest has mistakes.
///
/// # Errors
/// As [`load_dir`], in the first of the pair.
pub fn load_dir_with_files(dir: &Path) -> (Result<Vec<ToolSpec>, Diagnostics>, Vec<PathBuf>) {
    let files = match manifest_files(dir) {
        Ok(files) => files,
        Err(d) => return (Err(Diagnostics(vec![d])), Vec::new()),
    };
    let mut specs = Vec::new();
    let mut names = Vec::new();
    let mut diagnostics = Vec::new();
    let mut schema_files = Vec::new();
    for (file, length) in &files {
        let parsed = load_file(file, *length);
        diagnostics.extend(parsed.diagnostics);
        names.extend(parsed.name);
        specs.extend(parsed.spec);
        schema_files.extend(parsed.files);
    }
    diagnostics.extend(check::duplicate_names(&names));
    if !diagnostics.is_empty() {
        return (Err(Diagnostics(diagnostics).sorted()), schema_files);
    }
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    (Ok(specs), schema_files)
}

/// Reads and parses one manifest of `length` bytes (as listed).
fn load_file(file: &Path, length: u64) -> Parsed {
    let refused = |message: String| Parsed {
        spec: None,
        name: None,
        diagnostics: vec![Diagnostic::file(file, message)],
        files: Vec::new(),
    };
    // A huge file is refused before it is read.
    if length > MAX_MANIFEST_BYTES as u64 {
        return refused(format!(
            "the manifest is {length} bytes, more than the {MAX_MANIFEST_BYTES} a manifest may have"
        ));
    }
    match std::fs::read(file) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => parse(file, &text),
            Err(e) => refused(format!(
                "the manifest is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            )),
        },
        Err(e) => refused(format!("cannot read the manifest: {e}")),
    }
}

/// The `*.toml` files directly in `dir` with their lengths, sorted.
pub(crate) fn manifest_files(dir: &Path) -> Result<Vec<(PathBuf, u64)>, Diagnostic> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        let why = if e.kind() == std::io::ErrorKind::NotFound {
            "the manifest directory does not exist".to_owned()
        } else {
            format!("cannot read the manifest directory: {e}")
        };
        Diagnostic::file(dir, why)
    })?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| {
            Diagnostic::file(dir, format!("cannot read the manifest directory: {e}"))
        })?;
        let path = entry.path();
        let is_toml = path.extension().is_some_and(|ext| ext == "toml");
        // Hidden files (editor lock and backup files) are not manifests.
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if !is_toml || hidden {
            continue;
        }
        // `metadata` follows symlinks: a linked manifest counts.
        if let Ok(metadata) = std::fs::metadata(&path)
            && metadata.is_file()
        {
            files.push((path, metadata.len()));
        }
    }
    if files.is_empty() {
        return Err(Diagnostic::file(
            dir,
            "no manifests in this directory, expected one `<tool name>.toml` file per tool",
        ));
    }
    files.sort();
    Ok(files)
}

type Item<'i> = Spanned<DeValue<'i>>;

/// A table of a manifest with a fixed set of keys.
#[derive(Debug, Clone, Copy)]
struct Section {
    keys: &'static [&'static str],
    /// Follows a key in messages.
    context: &'static str,
}

/// The top level.
const TOP: Section = Section {
    keys: KEYS,
    context: "",
};
/// One `[[errors]]` entry.
const ERROR_ENTRY: Section = Section {
    keys: ERROR_KEYS,
    context: " in `[[errors]]`",
};
/// One `[[examples]]` entry.
const EXAMPLE_ENTRY: Section = Section {
    keys: EXAMPLE_KEYS,
    context: " in `[[examples]]`",
};

/// Where the keys and values of a TOML value converted to JSON are written, found by JSON
/// Pointer when a message needs a location (the TOML tree is walked along the pointer: nothing is
/// recorded for the many values that need no message).
#[derive(Debug, Clone, Copy)]
struct SpanIndex<'a, 'i> {
    /// The converted value.
    root: &'a Item<'i>,
    /// Where its key is written.
    key: usize,
}

impl SpanIndex<'_, '_> {
    /// The key (when it has one) and the value of the nearest ancestor-or-self of `pointer`.
    fn nearest(&self, pointer: &str) -> (Option<usize>, usize) {
        let mut found = (Some(self.key), self.root.span().start);
        let Some(rest) = pointer.strip_prefix('/') else {
            return found;
        };
        let mut item = self.root;
        for token in rest.split('/') {
            let token = schema::pointer::unescape(token);
            match item.get_ref() {
                DeValue::Table(table) => match table.get_key_value(token.as_ref()) {
                    Some((key, value)) => {
                        found = (Some(key.span().start), value.span().start);
                        item = value;
                    }
                    None => break,
                },
                DeValue::Array(items) => match token.parse().ok().and_then(|i: usize| items.get(i))
                {
                    Some(value) => {
                        found = (None, value.span().start);
                        item = value;
                    }
                    None => break,
                },
                _ => break,
            }
        }
        found
    }

    /// Where a keyword is written: its key when it has one, else its value.
    fn key_offset(&self, pointer: &str) -> usize {
        let (key, value) = self.nearest(pointer);
        key.unwrap_or(value)
    }

    /// Where a value is written.
    fn value_offset(&self, pointer: &str) -> usize {
        self.nearest(pointer).1
    }
}

/// Where the nodes of a schema are written: in the manifest (located by [`SpanIndex`]) or in a
/// JSON file (located by [`json_offset`]).
#[derive(Debug, Clone, Copy)]
enum Locator<'a, 'i> {
    Toml(SpanIndex<'a, 'i>),
    /// A JSON file and its text.
    Json(&'a Path, &'a str),
}

/// A schema read from a manifest: the value (canonical: no `$schema` naming 2020-12), its
/// draft and its compiled validator.
struct LoadedSchema {
    value: Value,
    draft: Draft,
    validator: jsonschema::Validator,
    /// The validator of [`codegen::type_ranges`]'s schema, built when an example needs it.
    ranges: std::cell::OnceCell<Option<jsonschema::Validator>>,
}

impl LoadedSchema {
    /// The validator that refuses what the generated Rust types cannot hold; `None` when they
    /// hold every value of the schema's integers' bounds.
    fn ranges(&self) -> Option<&jsonschema::Validator> {
        self.ranges
            .get_or_init(|| {
                let bounded = codegen::type_ranges(&self.value)?;
                self.draft.options().build(&bounded).ok()
            })
            .as_ref()
    }
}

struct Parser<'t> {
    file: PathBuf,
    text: &'t str,
    diagnostics: Vec<Diagnostic>,
    /// Mistakes past [`MAX_DIAGNOSTICS_PER_FILE`]: counted, not located (locating each costs a
    /// pass over the text).
    suppressed: usize,
    /// Where the first of them is.
    first_suppressed: usize,
    /// The schema files named so far.
    files: Vec<PathBuf>,
}

impl Parser<'_> {
    fn error(&mut self, offset: usize, message: impl Into<String>) {
        if self.diagnostics.len() >= MAX_DIAGNOSTICS_PER_FILE {
            if self.suppressed == 0 {
                self.first_suppressed = offset;
            }
            self.suppressed += 1;
            return;
        }
        // Messages quote what the file says: bounded, and with invisible or reordering
        // characters escaped so that what is shown is what is written.
        let message = truncate(&message.into(), MESSAGE_LIMIT);
        let (line, column) = Diagnostic::line_col(self.text, offset);
        self.diagnostics
            .push(Diagnostic::at(&self.file, line, column, message));
    }

    fn manifest(&mut self, path: &Path) -> (Option<ToolSpec>, Option<DeclaredName>) {
        let (document, errors) = DeTable::parse_recoverable(self.text);
        if !errors.is_empty() {
            for error in errors {
                let message = format!("invalid TOML: {}", error.message());
                match error.span().map(|span| span.start).or_else(|| {
                    // TOML's limit on dotted keys has no location: point at the longest key.
                    message
                        .contains("recursion")
                        .then(|| longest_key_line(self.text))
                        .flatten()
                }) {
                    Some(offset) => self.error(offset, message),
                    None => self.diagnostics.push(Diagnostic::file(
                        &self.file,
                        truncate(&message, MESSAGE_LIMIT),
                    )),
                }
            }
            return (None, None);
        }
        let document = document.into_inner();
        self.unknown_keys(&document, TOP);

        let name = self
            .required(&document, "name", 0, TOP, "")
            .and_then(|item| self.string(item, "name"));
        let declared = name.as_ref().map(|(name, span)| {
            let (line, column) = Diagnostic::line_col(self.text, span.start);
            DeclaredName {
                name: name.clone(),
                file: self.file.clone(),
                line,
                column,
            }
        });
        if let Some((name, span)) = &name {
            self.check_name(path, name, span.start);
        }
        let title = self.required_string(&document, "title", 0, TOP);
        let description = self.required_string(&document, "description", 0, TOP);
        let safety = self.word::<Safety>(&document, "safety", Safety::ACCEPTED);
        let mode = self.word::<Mode>(&document, "mode", Mode::ACCEPTED);
        let category = match document.get("category") {
            Some(item) => self.string(item, "category").map(|(c, _)| Some(c)),
            None => Some(None),
        };
        let idempotent = self.optional_boolean(&document, "idempotent");
        let open_world = self.optional_boolean(&document, "open_world");
        let timeout_ms = match document.get("timeout") {
            Some(item) => self.timeout(item).map(Some),
            None => Some(None),
        };
        let max_output_bytes = match document.get("max_output_bytes") {
            Some(item) => self.positive_integer(item, "max_output_bytes").map(Some),
            None => Some(None),
        };

        let input = match document.get_key_value("input") {
            Some((key, item)) => self.schema("input", key.span(), item),
            None if misspelled(&document, "input", TOP) => None,
            None => {
                self.error(0, "missing table `[input]`, expected the JSON Schema of the arguments (`[input]` with `type = \"object\"`)");
                None
            }
        };
        let output = match document.get_key_value("output") {
            Some((key, item)) => self
                .schema("output", key.span(), item)
                .map(|schema| Some(schema.value)),
            None => Some(None),
        };
        let errors = self.errors(&document);
        let examples = self.examples(&document, input.as_ref());
        let input_examples = self.input_examples(&document, input.as_ref());

        let spec = (|| {
            let mut spec = ToolSpec::new(name?.0, safety?, mode?, input?.value);
            spec.title = title?;
            spec.description = description?;
            spec.category = category?;
            spec.output_schema = output?;
            spec.errors = errors?;
            spec.examples = examples?;
            spec.idempotent = idempotent?;
            spec.open_world = open_world?;
            spec.input_examples = input_examples?;
            spec.source = source_path(path);
            spec.timeout_ms = timeout_ms?;
            spec.max_output_bytes = max_output_bytes?;
            Some(spec)
        })();
        (spec, declared)
    }

    fn check_name(&mut self, path: &Path, name: &str, offset: usize) {
        if !model::is_valid_tool_name(name) {
            self.error(
                offset,
                format!(
                    "invalid tool name `{}`, expected lowercase ASCII letters, digits and `_`, starting with a letter, at most 64 characters (`^[a-z][a-z0-9_]{{0,63}}$`)",
                    truncate(name, QUOTE_LIMIT)
                ),
            );
        }
        if let Some(stem) = path.file_stem().and_then(|s| s.to_str())
            && stem != name
        {
            let stem = truncate(stem, QUOTE_LIMIT);
            self.error(
                offset,
                format!(
                    "tool name `{}` differs from the file stem `{stem}`, expected `name = \"{stem}\"` (or rename the file)",
                    truncate(name, QUOTE_LIMIT)
                ),
            );
        }
    }

    /// Reports every key of `table` that the section does not have, suggesting the closest.
    fn unknown_keys(&mut self, table: &DeTable<'_>, section: Section) {
        let allowed = section.keys;
        for key in table.keys() {
            let word = key.get_ref().as_ref();
            if allowed.contains(&word) {
                continue;
            }
            let mut message = format!(
                "unknown key `{}`{}, expected one of {}",
                truncate(word, QUOTE_LIMIT),
                section.context,
                model::backticked(allowed)
            );
            if let Some(close) = closest(word, allowed) {
                message.push_str(&format!("; did you mean `{close}`?"));
            }
            self.error(key.span().start, message);
        }
    }

    /// The value of a required key; a missing key is reported at `missing_at`, unless an
    /// unknown key of the table is its misspelling (that key's message already says so).
    fn required<'a, 'i>(
        &mut self,
        table: &'a DeTable<'i>,
        key: &str,
        missing_at: usize,
        section: Section,
        hint: &str,
    ) -> Option<&'a Item<'i>> {
        let item = table.get(key);
        if item.is_none() && !misspelled(table, key, section) {
            self.error(
                missing_at,
                format!("missing key `{key}`{}{hint}", section.context),
            );
        }
        item
    }

    /// A required non-empty string; a missing key is reported at `at`.
    fn required_string(
        &mut self,
        table: &DeTable<'_>,
        key: &str,
        at: usize,
        section: Section,
    ) -> Option<String> {
        self.required(table, key, at, section, "")
            .and_then(|item| self.string(item, key))
            .map(|(s, _)| s)
    }

    /// A non-empty string.
    fn string(&mut self, item: &Item<'_>, key: &str) -> Option<(String, Range<usize>)> {
        match item.get_ref() {
            DeValue::String(s) if s.trim().is_empty() => {
                self.error(
                    item.span().start,
                    format!("expected `{key}` to be a non-empty string, found an empty one"),
                );
                None
            }
            DeValue::String(s) => Some((s.to_string(), item.span())),
            other => {
                self.error(
                    item.span().start,
                    format!(
                        "expected `{key}` to be a string, found {}",
                        toml_type(other)
                    ),
                );
                None
            }
        }
    }

    fn boolean(&mut self, item: &Item<'_>, key: &str) -> Option<bool> {
        match item.get_ref() {
            DeValue::Boolean(b) => Some(*b),
            other => {
                self.error(
                    item.span().start,
                    format!(
                        "expected `{key}` to be `true` or `false`, found {}",
                        toml_type(other)
                    ),
                );
                None
            }
        }
    }

    /// An optional boolean key: `Some(None)` when absent, `None` when it is not a boolean.
    fn optional_boolean(&mut self, table: &DeTable<'_>, key: &str) -> Option<Option<bool>> {
        match table.get(key) {
            Some(item) => self.boolean(item, key).map(Some),
            None => Some(None),
        }
    }

    /// `timeout`: a duration string, read by [`model::parse_timeout`], in milliseconds.
    fn timeout(&mut self, item: &Item<'_>) -> Option<u64> {
        let (text, span) = self.string(item, "timeout")?;
        match model::parse_timeout(&text) {
            Ok(ms) => Some(ms),
            Err(why) => {
                self.error(
                    span.start,
                    format!(
                        "expected `timeout` to be a time limit like \"30s\", \"500ms\" or \"2m\", found {:?}: {why}",
                        truncate(&text, QUOTE_LIMIT)
                    ),
                );
                None
            }
        }
    }

    /// An integer greater than zero.
    fn positive_integer(&mut self, item: &Item<'_>, key: &str) -> Option<u64> {
        let found = match item.get_ref() {
            DeValue::Integer(i) => match u64::from_str_radix(i.as_str(), i.radix()) {
                Ok(n) if n > 0 => return Some(n),
                _ => format!("`{i}`"),
            },
            other => toml_type(other),
        };
        self.error(
            item.span().start,
            format!("expected `{key}` to be a positive integer (bytes), found {found}"),
        );
        None
    }

    /// `safety` or `mode`, parsed only through their `FromStr`.
    fn word<T: FromStr<Err = model::UnknownValue>>(
        &mut self,
        table: &DeTable<'_>,
        key: &str,
        accepted: &[&str],
    ) -> Option<T> {
        let choices: Vec<String> = accepted
            .iter()
            .map(|w| format!("`{key} = {w:?}`"))
            .collect();
        let hint = format!(", expected {}", choices.join(" or "));
        let item = self.required(table, key, 0, TOP, &hint)?;
        let (word, span) = match item.get_ref() {
            DeValue::String(s) => (s.to_string(), item.span()),
            _ => self.string(item, key)?,
        };
        match word.parse::<T>() {
            Ok(value) => Some(value),
            Err(e) => {
                self.error(span.start, e.to_string());
                None
            }
        }
    }

    /// `[input]` or `[output]` (`which`): a table converted to JSON, or a JSON file
    /// (`{ file = "…" }`); its draft read from `$schema`, meta-validated against that draft and
    /// compiled. Returns the canonical schema and its validator (for the examples). The
    /// `default` and `examples` keywords inside are annotations: JSON Schema does not require
    /// them to match, and neither does the manifest.
    fn schema(&mut self, which: &str, key: Range<usize>, item: &Item<'_>) -> Option<LoadedSchema> {
        let DeValue::Table(table) = item.get_ref() else {
            self.error(
                item.span().start,
                format!(
                    "expected `{which}` to be a table (a JSON Schema object) or `{{ {SCHEMA_FILE_KEY} = \"….json\" }}`, found {}",
                    toml_type(item.get_ref())
                ),
            );
            return None;
        };
        let index = SpanIndex {
            root: item,
            key: key.start,
        };
        let file_ref = match table.get(SCHEMA_FILE_KEY) {
            Some(file) if table.len() == 1 => Some(file),
            _ => None,
        };
        let json_path;
        let json_text;
        let (mut schema, locator) = match file_ref {
            Some(file) => {
                let (name, span) = self.string(file, SCHEMA_FILE_KEY)?;
                json_path = self.file.parent().unwrap_or(Path::new("")).join(&name);
                let (schema, text) = self.schema_file(&json_path, span.start, which)?;
                json_text = text;
                (schema, Locator::Json(&json_path, &json_text))
            }
            None => {
                let schema = self.json_of(item, "", Some(key))?;
                // A manifest key written after `[input]` lands in the schema, where JSON Schema
                // ignores it: a mistake, not a schema's choice.
                let misplaced: Vec<&str> = table
                    .keys()
                    .map(|k| k.get_ref().as_ref())
                    .filter(|k| KEYS.contains(k) && schema::keywords::keyword(k).is_none())
                    .collect();
                if !misplaced.is_empty() {
                    for key in misplaced {
                        self.error(
                            index.key_offset(&schema::join("", key)),
                            format!(
                                "`{key}` is a manifest key, not a JSON Schema keyword: keys after `[{which}]` belong to the {which} schema, move it above `[{which}]`"
                            ),
                        );
                    }
                    return None;
                }
                (schema, Locator::Toml(index))
            }
        };
        let draft = match schema::read_draft(&mut schema) {
            Ok(draft) => draft,
            Err(issue) => {
                self.report(locator, &issue.pointer, true, issue.message);
                return None;
            }
        };
        let validator = self.compile(&schema, draft, locator, which)?;
        Some(LoadedSchema {
            value: schema,
            draft,
            validator,
            ranges: std::cell::OnceCell::new(),
        })
    }

    /// Reads a schema file named at `offset`: JSON text of at most [`MAX_MANIFEST_BYTES`].
    fn schema_file(&mut self, path: &Path, offset: usize, which: &str) -> Option<(Value, String)> {
        self.files.push(path.to_path_buf());
        let shown = path.display().to_string();
        let text = match std::fs::metadata(path) {
            Ok(meta) if meta.len() > MAX_MANIFEST_BYTES as u64 => {
                self.error(
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
                    self.error(
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
        match serde_json::from_str::<Value>(&text) {
            Ok(value) => {
                // A number `serde_json` reads as another one would be validated, exported and
                // documented as that other number: refused where it is written.
                let mut exact = true;
                for literal in crate::json_text::literals(&text).unwrap_or_default() {
                    let Some(why) = crate::json_text::inexact(literal.text) else {
                        continue;
                    };
                    exact = false;
                    let (line, column) = Diagnostic::line_col(&text, literal.offset);
                    self.diagnostics.push(Diagnostic::at(
                        path,
                        line,
                        column,
                        truncate(
                            &format!(
                                "the number {} at `{}` cannot be read exactly: {why}",
                                truncate(literal.text, QUOTE_LIMIT / 2),
                                display_pointer(&literal.pointer)
                            ),
                            MESSAGE_LIMIT,
                        ),
                    ));
                }
                exact.then_some((value, text))
            }
            Err(e) => {
                self.diagnostics.push(Diagnostic::at(
                    path,
                    e.line(),
                    e.column().max(1),
                    truncate(
                        &format!("the {which} schema file is not JSON: {e}"),
                        MESSAGE_LIMIT,
                    ),
                ));
                None
            }
        }
    }

    /// A mistake at `pointer` of a schema: at its key (`key`) or its value in a manifest, or
    /// named by its pointer in a JSON file.
    fn report(&mut self, locator: Locator<'_, '_>, pointer: &str, key: bool, message: String) {
        match locator {
            Locator::Toml(index) => {
                let offset = if key {
                    index.key_offset(pointer)
                } else {
                    index.value_offset(pointer)
                };
                self.error(offset, message);
            }
            Locator::Json(path, text) => {
                if self.diagnostics.len() >= MAX_DIAGNOSTICS_PER_FILE {
                    self.suppressed += 1;
                    return;
                }
                let message = truncate(&message, MESSAGE_LIMIT);
                self.diagnostics
                    .push(match json_offset(text, pointer, key) {
                        Some(offset) => {
                            let (line, column) = Diagnostic::line_col(text, offset);
                            Diagnostic::at(path, line, column, message)
                        }
                        None => Diagnostic::file(
                            path,
                            format!("at `{}`: {message}", display_pointer(pointer)),
                        ),
                    });
            }
        }
    }

    /// Meta-validates against the schema's draft, then builds the validator (which checks
    /// what the meta-schema cannot, such as regular expressions).
    fn compile(
        &mut self,
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
                self.report(locator, &pointer, false, message.clone());
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
                self.report(
                    locator,
                    &pointer,
                    false,
                    format!(
                        "the {which} schema cannot be compiled at `{}`: {}",
                        display_pointer(&pointer),
                        truncate(&error.to_string(), QUOTE_LIMIT * 2)
                    ),
                );
                None
            }
        }
    }

    fn errors(&mut self, document: &DeTable<'_>) -> Option<Vec<ErrorSpec>> {
        let Some(entries) = self.entries(document, "errors") else {
            return Some(Vec::new());
        };
        let mut ok = true;
        let mut specs = Vec::new();
        let mut codes: BTreeMap<String, usize> = BTreeMap::new();
        for entry in entries {
            let Some(table) = entry.get_ref().as_table() else {
                ok = false;
                continue;
            };
            let at = entry.span().start;
            self.unknown_keys(table, ERROR_ENTRY);
            let code = self
                .required(table, "code", at, ERROR_ENTRY, "")
                .and_then(|i| self.string(i, "code"));
            if let Some((code, span)) = &code {
                self.check_code(code, span.start, &mut codes);
            }
            let message = self.required_string(table, "message", at, ERROR_ENTRY);
            let retryable = self
                .required(table, "retryable", at, ERROR_ENTRY, "")
                .and_then(|i| self.boolean(i, "retryable"));
            let action = self.required_string(table, "recommended_action", at, ERROR_ENTRY);
            match (code, message, retryable, action) {
                (Some((code, _)), Some(message), Some(retryable), Some(action)) => {
                    specs.push(ErrorSpec::new(code, message, retryable, action))
                }
                _ => ok = false,
            }
        }
        ok.then_some(specs)
    }

    fn check_code(&mut self, code: &str, offset: usize, codes: &mut BTreeMap<String, usize>) {
        let shown = truncate(code, QUOTE_LIMIT);
        if !model::is_screaming_snake_case(code) {
            let suggestion = model::screaming_snake_case(code);
            let expected = if model::is_screaming_snake_case(&suggestion) && suggestion != code {
                format!("expected upper-case words joined by `_`, such as `{suggestion}`")
            } else {
                "expected upper-case words joined by `_`, such as `PANE_NOT_FOUND`".to_owned()
            };
            self.error(
                offset,
                format!("error code `{shown}` is not SCREAMING_SNAKE_CASE, {expected}"),
            );
        } else if RESERVED_CODES.contains(&code) {
            self.error(
                offset,
                format!(
                    "error code `{shown}` is reserved by the runtime, expected a code of the tool's own (the reserved codes are {})",
                    model::backticked(RESERVED_CODES)
                ),
            );
        }
        match codes.get(code) {
            Some(first) => {
                let (line, _) = Diagnostic::line_col(self.text, *first);
                self.error(
                    offset,
                    format!("duplicate error code `{shown}`, first declared at line {line}"),
                );
            }
            None => {
                codes.insert(code.to_owned(), offset);
            }
        }
    }

    fn examples(
        &mut self,
        document: &DeTable<'_>,
        input: Option<&LoadedSchema>,
    ) -> Option<Vec<ExampleSpec>> {
        let Some(entries) = self.entries(document, "examples") else {
            return Some(Vec::new());
        };
        let mut ok = true;
        let mut specs = Vec::new();
        for (number, entry) in entries.iter().enumerate().map(|(i, e)| (i + 1, e)) {
            let Some(table) = entry.get_ref().as_table() else {
                ok = false;
                continue;
            };
            let at = entry.span().start;
            self.unknown_keys(table, EXAMPLE_ENTRY);
            let description = self.required_string(table, "description", at, EXAMPLE_ENTRY);
            let example_input = match table.get_key_value("input") {
                None => {
                    if !misspelled(table, "input", EXAMPLE_ENTRY) {
                        self.error(
                            at,
                            "missing key `input` in `[[examples]]`, expected a table of arguments",
                        );
                    }
                    None
                }
                Some((_, item)) if !item.get_ref().is_table() => {
                    self.error(
                        item.span().start,
                        format!(
                            "expected `input` of example {number} to be a table of arguments, found {}",
                            toml_type(item.get_ref())
                        ),
                    );
                    None
                }
                Some((key, item)) => {
                    let index = SpanIndex {
                        root: item,
                        key: key.span().start,
                    };
                    self.json_of(item, "", Some(key.span())).map(|v| (v, index))
                }
            };
            if let (Some((value, index)), Some(schema)) = (&example_input, input) {
                self.validate_example(&format!("example {number}"), value, index, schema);
            }
            match (description, example_input) {
                (Some(description), Some((input, _))) => {
                    specs.push(ExampleSpec::new(description, input))
                }
                _ => ok = false,
            }
        }
        ok.then_some(specs)
    }

    /// `[input_examples]`: example argument objects, each valid against the input schema.
    fn input_examples(
        &mut self,
        document: &DeTable<'_>,
        input: Option<&LoadedSchema>,
    ) -> Option<Vec<Value>> {
        let Some((key, item)) = document.get_key_value("input_examples") else {
            return Some(Vec::new());
        };
        let DeValue::Array(entries) = item.get_ref() else {
            self.error(
                item.span().start,
                format!(
                    "expected `input_examples` to be an array of argument tables, found {}",
                    toml_type(item.get_ref())
                ),
            );
            return None;
        };
        let mut ok = true;
        let mut values = Vec::with_capacity(entries.len());
        for (i, entry) in entries.iter().enumerate() {
            if !entry.get_ref().is_table() {
                self.error(
                    entry.span().start,
                    format!(
                        "expected each entry of `input_examples` to be a table of arguments, found {}",
                        toml_type(entry.get_ref())
                    ),
                );
                ok = false;
                continue;
            }
            let index = SpanIndex {
                root: entry,
                key: key.span().start,
            };
            let Some(value) = self.json_of(entry, "", None) else {
                ok = false;
                continue;
            };
            if let Some(schema) = input {
                let errors = self.diagnostics.len();
                self.validate_example(&format!("input example {}", i + 1), &value, &index, schema);
                ok &= self.diagnostics.len() == errors;
            }
            values.push(value);
        }
        ok.then_some(values)
    }

    /// Validates an example against the input schema, then, when it is valid, against the
    /// ranges of the generated Rust integers: an example the generated `Input` cannot hold
    /// would pass `check` and fail the tool's own test of it.
    fn validate_example(
        &mut self,
        number: &str,
        value: &Value,
        index: &SpanIndex,
        schema: &LoadedSchema,
    ) {
        let errors = self.diagnostics.len();
        self.schema_errors(number, value, index, &schema.validator);
        if self.diagnostics.len() > errors {
            return;
        }
        let Some(ranges) = schema.ranges() else {
            return;
        };
        for error in ranges.iter_errors(value) {
            let leaf = match meta::deepest(&error) {
                meta::Deepest::Leaf(leaf, _) | meta::Deepest::Types(leaf, _) => leaf,
            };
            let pointer = leaf.instance_path().as_str().to_owned();
            let limit = match leaf.kind() {
                ValidationErrorKind::Minimum { limit }
                | ValidationErrorKind::Maximum { limit }
                | ValidationErrorKind::ExclusiveMaximum { limit } => Some(limit),
                _ => None,
            };
            let expected = match limit.and_then(codegen::IntegerRange::bounded_by) {
                Some(range) => format!(
                    "expected an integer from {} to {} (`{}`)",
                    range.min, range.max, range.rust
                ),
                None => "expected a smaller integer".to_owned(),
            };
            self.error(
                index.value_offset(&pointer),
                format!(
                    "{number} cannot be held by the generated Rust type at `{}`: {expected}, found {}",
                    display_pointer(&pointer),
                    truncate(&leaf.instance().to_string(), QUOTE_LIMIT)
                ),
            );
        }
    }

    fn schema_errors(
        &mut self,
        number: &str,
        value: &Value,
        index: &SpanIndex,
        validator: &jsonschema::Validator,
    ) {
        for error in validator.iter_errors(value) {
            let pointer = error.instance_path().as_str().to_owned();
            if let ValidationErrorKind::AdditionalProperties { unexpected } = error.kind() {
                // Point at each unexpected key rather than at the object holding it.
                for name in unexpected {
                    let at = join(&pointer, name);
                    self.error(
                        index.key_offset(&at),
                        format!(
                            "{number} fails the input schema at `{at}`: unexpected property `{}` (the schema does not allow other properties)",
                            truncate(name, QUOTE_LIMIT)
                        ),
                    );
                }
                continue;
            }
            self.error(
                index.value_offset(&pointer),
                format!(
                    "{number} fails the input schema at `{}`: {}",
                    display_pointer(&pointer),
                    truncate(&error.to_string(), QUOTE_LIMIT * 2)
                ),
            );
        }
    }

    /// The entries of an array of tables (`[[errors]]`, or `errors = [{ ... }]`); wrong shapes
    /// are reported. `None` when the key is absent or not an array.
    fn entries<'a, 'i>(&mut self, document: &'a DeTable<'i>, key: &str) -> Option<&'a [Item<'i>]> {
        let item = document.get(key)?;
        let DeValue::Array(entries) = item.get_ref() else {
            self.error(
                item.span().start,
                format!(
                    "expected `{key}` to be an array of tables (`[[{key}]]`), found {}",
                    toml_type(item.get_ref())
                ),
            );
            return None;
        };
        for entry in entries.iter() {
            if !entry.get_ref().is_table() {
                self.error(
                    entry.span().start,
                    format!(
                        "expected each entry of `{key}` to be a table, found {}",
                        toml_type(entry.get_ref())
                    ),
                );
            }
        }
        Some(entries)
    }

    /// Converts a TOML value to JSON. Integers stay integers and floats stay floats; a datetime
    /// or a non-finite float has no JSON form. `pointer` is the JSON Pointer of `item`, `key`
    /// where its key is written.
    fn json_of(
        &mut self,
        item: &Item<'_>,
        pointer: &str,
        key: Option<Range<usize>>,
    ) -> Option<Value> {
        let offset = item.span().start;
        if matches!(item.get_ref(), DeValue::Array(_) | DeValue::Table(_)) {
            let level = pointer.bytes().filter(|b| *b == b'/').count() + 1;
            if level > MAX_SCHEMA_DEPTH {
                self.error(
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
                    self.error(offset, format!("integer `{i}` does not fit in 64 bits"));
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
                    self.error(
                        offset,
                        format!("float `{f}` has no JSON form, expected a finite number"),
                    );
                    None
                }
            },
            DeValue::Datetime(d) => {
                self.error(
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
                    .map(|(i, element)| self.json_of(element, &format!("{pointer}/{i}"), None))
                    .collect();
                values.into_iter().collect::<Option<_>>().map(Value::Array)
            }
            DeValue::Table(table) => {
                let entries: Vec<Option<(String, Value)>> = table
                    .iter()
                    .map(|(k, v)| {
                        let name: &str = k.get_ref();
                        let value = self.json_of(v, &join(pointer, name), Some(k.span()));
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
}

/// Where the node at `pointer` of a JSON text is written: its key when `key` and it has one,
/// else its value (the nearest ancestor when the pointer leads nowhere). `jsonc-parser` keeps
/// the ranges `serde_json` does not; it reads the text strictly, as JSON. `None` when it cannot.
fn json_offset(text: &str, pointer: &str, key: bool) -> Option<usize> {
    use jsonc_parser::ast::Value as Node;
    use jsonc_parser::common::Ranged;
    let mut node = crate::json_text::parse(text)?;
    let mut found = (None, node.range().start);
    for token in schema::JsonPointer::from_escaped(pointer).tokens() {
        let next = match node {
            Node::Object(object) => object
                .properties
                .into_iter()
                .find(|p| p.name.as_str() == token)
                .map(|p| (Some(p.range.start), p.value)),
            Node::Array(array) => token
                .parse::<usize>()
                .ok()
                .and_then(|i| array.elements.into_iter().nth(i))
                .map(|v| (None, v)),
            _ => None,
        };
        let Some((key_at, value)) = next else {
            break;
        };
        found = (key_at, value.range().start);
        node = value;
    }
    Some(if key {
        found.0.unwrap_or(found.1)
    } else {
        found.1
    })
}

/// The start of the line whose key (before `=`, or in a `[table]` header) has the most dotted
/// parts, when some key has at least two.
fn longest_key_line(text: &str) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let key = if trimmed.starts_with('[') {
            trimmed
        } else {
            trimmed.split('=').next().unwrap_or_default()
        };
        let dots = key.matches('.').count();
        if dots > 0 && best.is_none_or(|(most, _)| dots > most) {
            best = Some((dots, start));
        }
        start += line.len();
    }
    best.map(|(_, offset)| offset)
}

/// The path as given, with `/` separators on every platform.
fn source_path(path: &Path) -> String {
    path.to_string_lossy()
        .replace(std::path::MAIN_SEPARATOR, "/")
}

/// Is an unknown key of `table` a misspelling of `key` (the suggestion made for it)?
fn misspelled(table: &DeTable<'_>, key: &str, section: Section) -> bool {
    let allowed = section.keys;
    table.keys().any(|k| {
        let word = k.get_ref().as_ref();
        !allowed.contains(&word) && closest(word, allowed) == Some(key)
    })
}

/// `a string`, `an integer`, … for messages.
fn toml_type(value: &DeValue<'_>) -> String {
    let word = value.type_str();
    format!("{} {word}", schema::article(word))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const VALID: &str = r#"
name = "drawing_create"
title = "Create a drawing"
description = "Draws a line on a pane."
safety = "destructive"
mode = "sequential"
category = "drawings"

[input]
type = "object"
additionalProperties = false
required = ["pane_id", "anchors"]

[input.properties.pane_id]
type = "string"
description = "The pane."

[input.properties.anchors]
type = "array"
minItems = 1
items = { type = "object", required = ["time", "price"], properties = { time = { type = "integer", minimum = 0 }, price = { type = "number" } } }

[input.properties.width]
type = "number"
default = 1.0
maximum = 1e3

[output]
type = "object"
properties.drawing_id = { type = "string" }

[[errors]]
code = "PANE_NOT_FOUND"
message = "No pane has this ID."
retryable = true
recommended_action = "Call `panes_list` and retry with one of its IDs."

[[examples]]
description = "A line on the main pane"
input = { pane_id = "main", anchors = [{ time = 1, price = 2.5 }], width = 2 }
"#;

    fn parse_ok(text: &str) -> ToolSpec {
        parse_manifest(Path::new("tools/drawing_create.toml"), text)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn errors(text: &str) -> Vec<String> {
        parse_manifest(Path::new("tools/drawing_create.toml"), text)
            .expect_err("the manifest has mistakes")
            .0
            .iter()
            .map(|d| format!("{}:{}: {}", d.line, d.column, d.message))
            .collect()
    }

    #[test]
    fn a_valid_manifest_becomes_a_spec() {
        let spec = parse_ok(VALID);
        assert_eq!(spec.name, "drawing_create");
        assert_eq!(spec.safety, Safety::Destructive);
        assert_eq!(spec.mode, Mode::Sequential);
        assert_eq!(spec.category.as_deref(), Some("drawings"));
        assert_eq!(spec.source, "tools/drawing_create.toml");
        assert_eq!(spec.errors.len(), 1);
        assert!(spec.errors[0].retryable);
        assert_eq!(
            spec.examples[0].input,
            json!({"pane_id": "main", "anchors": [{"time": 1, "price": 2.5}], "width": 2})
        );
        assert_eq!(
            spec.output_schema,
            Some(json!({"type": "object", "properties": {"drawing_id": {"type": "string"}}}))
        );
        let anchors = &spec.input_schema["properties"]["anchors"];
        assert_eq!(anchors["items"]["properties"]["time"]["minimum"], json!(0));
    }

    #[test]
    fn integers_stay_integers_and_floats_stay_floats() {
        let spec = parse_ok(VALID);
        let width = &spec.input_schema["properties"]["width"];
        assert!(width["default"].is_f64(), "1.0 stays a float: {width}");
        assert!(width["maximum"].is_f64());
        assert!(
            spec.examples[0].input["width"].is_i64(),
            "2 stays an integer"
        );
        let canonical = serde_json::to_string(width).expect("serialize");
        assert_eq!(
            canonical,
            r#"{"default":1.0,"maximum":1000.0,"type":"number"}"#
        );
    }

    #[test]
    fn errors_and_examples_are_optional() {
        let text = "name = \"drawing_create\"\ntitle = \"t\"\ndescription = \"d\"\nsafety = \"read-only\"\nmode = \"parallel\"\n[input]\ntype = \"object\"\n";
        let spec = parse_ok(text);
        assert!(spec.errors.is_empty() && spec.examples.is_empty());
        assert_eq!(spec.category, None);
        assert_eq!(spec.output_schema, None);
    }

    #[test]
    fn datetimes_and_infinities_have_no_json_form() {
        let text = VALID.replace("default = 1.0", "default = inf\nexamples = [1979-05-27]");
        assert_eq!(
            errors(&text),
            vec![
                "25:11: float `inf` has no JSON form, expected a finite number".to_owned(),
                "26:13: datetime `1979-05-27` has no JSON form, expected a string (write it in quotes: \"1979-05-27\")"
                    .to_owned(),
            ]
        );
    }

    #[test]
    fn meta_schema_violations_point_at_the_value() {
        let text = VALID.replace("minItems = 1", "minItems = -1");
        let found = errors(&text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with(
                "20:12: the input schema is not valid JSON Schema (2020-12) at `/properties/anchors/minItems`: `minItems` must be at least 0, found -1"
            ),
            "{found:?}"
        );
    }

    #[test]
    fn an_invalid_pattern_is_reported() {
        let text = VALID.replace("description = \"The pane.\"", "pattern = \"([a-z\"");
        let found = errors(&text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0],
            r#"16:11: the input schema cannot be compiled at `/properties/pane_id/pattern`: "([a-z" is not a "regex""#
        );
    }

    #[test]
    fn declared_limits_are_read_and_checked_where_they_are_written() {
        let with = |lines: &str| {
            VALID.replace(
                "category = \"drawings\"\n",
                &format!("category = \"drawings\"\n{lines}\n"),
            )
        };
        let spec = parse_ok(&with("timeout = \"1m 30s\"\nmax_output_bytes = 0x10000"));
        assert_eq!(spec.timeout_ms, Some(90_000));
        assert_eq!(spec.max_output_bytes, Some(65_536));
        let spec = parse_ok(VALID);
        assert_eq!((spec.timeout_ms, spec.max_output_bytes), (None, None));

        let found = errors(&with("timeout = \"30 secs please\"\nmax_output_bytes = 0"));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[0].starts_with(
                "8:11: expected `timeout` to be a time limit like \"30s\", \"500ms\" or \"2m\", found \"30 secs please\": "
            ),
            "{found:?}"
        );
        assert_eq!(
            found[1],
            "9:20: expected `max_output_bytes` to be a positive integer (bytes), found `0`"
        );
        let found = errors(&with("timeout = 30\nmax_output_bytes = \"64k\""));
        assert_eq!(
            found,
            vec![
                "8:11: expected `timeout` to be a string, found an integer".to_owned(),
                "9:20: expected `max_output_bytes` to be a positive integer (bytes), found a string"
                    .to_owned(),
            ]
        );
        let found = errors(&with("timeout = \"0ms\"\nmax_output_bytes = -5"));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[0].ends_with("a time limit must be more than zero"),
            "{found:?}"
        );
        assert!(found[1].ends_with("found `-5`"), "{found:?}");
    }
}

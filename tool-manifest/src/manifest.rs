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
//! version = "2.1.0"              # optional: the semantic version of the tool (or of its set)
//! defer_loading = true           # optional: left out of the eager tool list, found by tool search
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
//! A tool that is on its way out says so (`since` is required, the other keys optional):
//!
//! ```toml
//! deprecated = { since = "2.0.0", sunset = "2027-06-30", replacement = "drawing_create", note = "Use drawing_create with kind = \"line\"." }
//! ```
//!
//! `since` is a version or a date `YYYY-MM-DD`, `sunset` (after which the tool may be removed)
//! a date, not before a `since` date; a `since` version is not after the tool's `version`, and
//! `replacement` names another tool of the set. The rules are the model's
//! ([`model::Lifecycle`]), shared with `#[tool]`. A deprecated tool is still generated and
//! exported: its docs page and its exported description say it is deprecated.
//!
//! A third-party tool pinned from a live MCP server names it in an `[upstream]` table (read by
//! `upstream`; the keys are [`UPSTREAM_KEYS`]):
//!
//! ```toml
//! [upstream]
//! server = "everything"          # the server's id, shared by the manifests of its tools
//! command = ["npx", "-y", "@modelcontextprotocol/server-everything"]   # or url = "https://…/mcp"
//! tool = "echo"                  # the tool's name on the server
//! digest = "sha256:…"            # `lock::digest` of the pinned definition
//! definition = { file = "echo.upstream.json" }   # the upstream `Tool` object, as pinned
//! trust_hints = true             # optional: `safety` and `mode` were taken from the hints
//! ```
//!
//! The definition file must still have the declared digest (an edited pin is refused), and the
//! server's annotations are not trusted: a pinned manifest declares `safety` and `mode` itself.
//! A URL may not hold credentials. The tool becomes [`ToolSpec::upstream`].
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
//!
//! The work is split by job: this module reads a manifest's keys; `schema_source` reads its
//! schemas (a table or a JSON file) and checks them, `examples` checks its examples against them,
//! `report` keeps the mistakes of all of it, located, and `limits` bounds it
//! ([`MAX_MANIFEST_BYTES`], [`MAX_SCHEMA_DEPTH`], [`MAX_DIAGNOSTICS_PER_FILE`]).

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde_json::Value;
use toml::de::{DeTable, DeValue};

use crate::check::{self, DeclaredName, DeclaredReplacement};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::model::{self, ErrorSpec, ExampleSpec, Mode, RESERVED_CODES, Safety, ToolSpec};
use crate::schema::{closest, truncate};
use limits::QUOTE_LIMIT;
use report::{Item, Report, toml_type};
use schema_source::{LoadedSchema, SpanIndex};

mod examples;
mod lifecycle;
mod limits;
mod locate;
mod meta;
mod report;
mod schema_source;
mod upstream;

pub use lifecycle::DEPRECATED_KEYS;
pub use limits::{MAX_DIAGNOSTICS_PER_FILE, MAX_MANIFEST_BYTES, MAX_SCHEMA_DEPTH};
pub use locate::{Location, locate};
pub use schema_source::SCHEMA_FILE_KEY;
pub use upstream::UPSTREAM_KEYS;
pub use upstream::url_mistake;

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
    "version",
    "deprecated",
    "defer_loading",
    "upstream",
    "input",
    "output",
    "input_examples",
    "errors",
    "examples",
];

/// The keys of one `[[errors]]` entry.
pub const ERROR_KEYS: &[&str] = &["code", "message", "retryable", "recommended_action"];

/// The keys of one `[[examples]]` entry.
pub const EXAMPLE_KEYS: &[&str] = &["description", "input"];

/// Parses one manifest. `path` is used for messages, for the file-stem rule, as the base of the
/// schema files it names and as [`ToolSpec::source`] (as given: the caller decides whether it is
/// relative).
///
/// # Errors
/// Every mistake of the file, sorted by location.
pub fn parse_manifest(path: &Path, text: &str) -> Result<ToolSpec, Diagnostics> {
    let parsed = parse(path, text, true);
    match parsed.spec {
        Some(spec) => Ok(spec),
        None => Err(Diagnostics(parsed.diagnostics).sorted()),
    }
}

/// A directory of manifests, loaded by [`load_dir`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Loaded {
    /// The tools, sorted by name; every mistake of every file, sorted, when there is one.
    pub specs: Result<Vec<ToolSpec>, Diagnostics>,
    /// Every file the loading read or tried to read: each manifest, then the schema files it
    /// names (`input = { file = "…" }`) and its pinned definition, also when a manifest has mistakes (what a build script
    /// watches with `rerun-if-changed`).
    pub files: Vec<PathBuf>,
}

/// Loads every `*.toml` file directly in `dir` (in file-name order; hidden files are skipped),
/// then runs the whole-set checks (duplicate names, replacements that name no tool of the set).
///
/// A missing, unreadable or empty directory is a mistake about the directory itself; a file over
/// [`MAX_MANIFEST_BYTES`] is refused from its size, without being read.
pub fn load_dir(dir: &Path) -> Loaded {
    load(dir, true)
}

/// [`load_dir`] without checking the examples against their schemas: what `diff` reads, the
/// definitions (a version whose examples were not updated with its schema is still a version
/// to compare).
pub fn load_definitions(dir: &Path) -> Loaded {
    load(dir, false)
}

fn load(dir: &Path, examples_checked: bool) -> Loaded {
    let manifests = match manifest_files(dir) {
        Ok(manifests) => manifests,
        Err(d) => {
            return Loaded {
                specs: Err(Diagnostics(vec![d])),
                files: Vec::new(),
            };
        }
    };
    let mut specs = Vec::new();
    let mut names = Vec::new();
    let mut replacements = Vec::new();
    let mut diagnostics = Vec::new();
    let mut files = Vec::new();
    for (file, length) in manifests {
        let parsed = load_file(&file, length, examples_checked);
        files.push(file);
        files.extend(parsed.files);
        diagnostics.extend(parsed.diagnostics);
        names.extend(parsed.name);
        replacements.extend(parsed.replacement);
        specs.extend(parsed.spec);
    }
    diagnostics.extend(check::duplicate_names(&names));
    diagnostics.extend(check::unknown_replacements(&replacements, &names));
    let specs = if diagnostics.is_empty() {
        specs.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(specs)
    } else {
        Err(Diagnostics(diagnostics).sorted())
    };
    Loaded { specs, files }
}

/// One manifest, read: the spec when it is valid, every mistake otherwise, and the declared
/// name (when there is one) for the whole-set checks.
struct Parsed {
    spec: Option<ToolSpec>,
    name: Option<DeclaredName>,
    /// The `replacement` of its deprecation, when it names another tool.
    replacement: Option<DeclaredReplacement>,
    diagnostics: Vec<Diagnostic>,
    /// The schema files the manifest names, resolved.
    files: Vec<PathBuf>,
}

impl Parsed {
    /// A manifest refused as a whole.
    fn refused(diagnostic: Diagnostic) -> Self {
        Parsed {
            spec: None,
            name: None,
            replacement: None,
            diagnostics: vec![diagnostic],
            files: Vec::new(),
        }
    }
}

/// Parses one manifest, keeping what the whole-set checks need even when it has mistakes.
fn parse(path: &Path, text: &str, examples_checked: bool) -> Parsed {
    if text.len() > MAX_MANIFEST_BYTES {
        // Located where the text crosses the limit; nothing of it is parsed.
        let mut end = MAX_MANIFEST_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let (line, column) = Diagnostic::line_col(text, end);
        return Parsed::refused(Diagnostic::at(
            path,
            line,
            column,
            format!(
                "the manifest is {} bytes, more than the {MAX_MANIFEST_BYTES} a manifest may have (it crosses the limit here)",
                text.len()
            ),
        ));
    }
    let mut parser = Parser {
        report: Report::new(path, text),
        files: Vec::new(),
        examples_checked,
    };
    let (spec, name, replacement) = parser.manifest(path);
    let diagnostics = parser.report.into_diagnostics();
    Parsed {
        spec: spec.filter(|_| diagnostics.is_empty()),
        name,
        replacement,
        diagnostics,
        files: parser.files,
    }
}

/// Reads and parses one manifest of `length` bytes (as listed).
fn load_file(file: &Path, length: u64, examples_checked: bool) -> Parsed {
    let refused = |message: String| Parsed::refused(Diagnostic::file(file, message));
    // A huge file is refused before it is read.
    if length > MAX_MANIFEST_BYTES as u64 {
        return refused(format!(
            "the manifest is {length} bytes, more than the {MAX_MANIFEST_BYTES} a manifest may have"
        ));
    }
    match std::fs::read(file) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => parse(file, &text, examples_checked),
            Err(e) => refused(format!(
                "the manifest is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            )),
        },
        Err(e) => refused(format!("cannot read the manifest: {e}")),
    }
}

/// The `*.toml` files directly in `dir` with their lengths, sorted.
fn manifest_files(dir: &Path) -> Result<Vec<(PathBuf, u64)>, Diagnostic> {
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

/// Reads the keys of one manifest.
struct Parser<'t> {
    report: Report<'t>,
    /// The schema files named so far.
    files: Vec<PathBuf>,
    /// Whether the examples are validated against the input schema.
    examples_checked: bool,
}

impl Parser<'_> {
    fn error(&mut self, offset: usize, message: impl Into<String>) {
        self.report.error(offset, message);
    }

    /// The spec of the manifest, the name it declares and the replacement its deprecation names.
    fn manifest(
        &mut self,
        path: &Path,
    ) -> (
        Option<ToolSpec>,
        Option<DeclaredName>,
        Option<DeclaredReplacement>,
    ) {
        let text = self.report.text();
        let (document, errors) = DeTable::parse_recoverable(text);
        if !errors.is_empty() {
            for error in errors {
                let message = format!("invalid TOML: {}", error.message());
                match error.span().map(|span| span.start).or_else(|| {
                    // TOML's limit on dotted keys has no location: point at the longest key.
                    message
                        .contains("recursion")
                        .then(|| longest_key_line(text))
                        .flatten()
                }) {
                    Some(offset) => self.error(offset, message),
                    None => self.report.push(0, || Diagnostic::file(path, message)),
                }
            }
            return (None, None, None);
        }
        let document = document.into_inner();
        self.unknown_keys(&document, TOP);

        let name = self
            .required(&document, "name", 0, TOP, "")
            .and_then(|item| self.report.string(item, "name"));
        let declared = name.as_ref().map(|(name, span)| {
            let (line, column) = self.report.line_col(span.start);
            DeclaredName {
                name: name.clone(),
                file: path.to_path_buf(),
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
        let category = self.optional(&document, "category", |p, item, key| {
            p.report.string(item, key).map(|(c, _)| c)
        });
        let idempotent = self.optional(&document, "idempotent", Self::boolean);
        let open_world = self.optional(&document, "open_world", Self::boolean);
        let defer_loading = self.optional(&document, "defer_loading", Self::boolean);
        let timeout_ms = self.optional(&document, "timeout", Self::timeout);
        let max_output_bytes = self.optional(&document, "max_output_bytes", Self::positive_integer);
        let lifecycle = self.lifecycle(&document, path, name.as_ref().map(|(n, _)| n.as_str()));
        let upstream = self.upstream(&document);

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
            spec.version = lifecycle.version?;
            spec.deprecated = lifecycle.deprecated?;
            spec.defer_loading = defer_loading?.unwrap_or(false);
            spec.upstream = upstream?;
            Some(spec)
        })();
        (spec, declared, lifecycle.replacement)
    }

    /// `[input]` or `[output]`, read and checked by [`schema_source::load`].
    fn schema(&mut self, which: &str, key: Range<usize>, item: &Item<'_>) -> Option<LoadedSchema> {
        schema_source::load(&mut self.report, &mut self.files, which, key, item, KEYS)
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
            .and_then(|item| self.report.string(item, key))
            .map(|(s, _)| s)
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

    /// An optional key, its value read by `read`: `Some(None)` when absent, `None` when the value
    /// has a mistake.
    fn optional<T>(
        &mut self,
        table: &DeTable<'_>,
        key: &str,
        read: impl FnOnce(&mut Self, &Item<'_>, &str) -> Option<T>,
    ) -> Option<Option<T>> {
        table
            .get(key)
            .map_or(Some(None), |item| read(self, item, key).map(Some))
    }

    /// `timeout`: a duration string, read by [`model::parse_timeout`], in milliseconds.
    fn timeout(&mut self, item: &Item<'_>, key: &str) -> Option<u64> {
        let (text, span) = self.report.string(item, key)?;
        match model::parse_timeout(&text) {
            Ok(ms) => Some(ms),
            Err(why) => {
                self.error(
                    span.start,
                    format!(
                        "expected `{key}` to be a time limit like \"30s\", \"500ms\" or \"2m\", found {:?}: {why}",
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
        let mut hint = format!(", expected {}", choices.join(" or "));
        // A pinned tool's server declares hints the import did not trust: say where they are.
        if table.contains_key("upstream") {
            hint.push_str(&upstream::untrusted_hints(key));
        }
        let item = self.required(table, key, 0, TOP, &hint)?;
        let (word, span) = match item.get_ref() {
            DeValue::String(s) => (s.to_string(), item.span()),
            _ => self.report.string(item, key)?,
        };
        match word.parse::<T>() {
            Ok(value) => Some(value),
            Err(e) => {
                self.error(span.start, e.to_string());
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
                .and_then(|i| self.report.string(i, "code"));
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
                let (line, _) = self.report.line_col(*first);
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
                    let label = format!("example {number}");
                    self.arguments(&label, item, Some(key.span()), key.span().start, input)
                }
            };
            match (description, example_input) {
                (Some(description), Some(input)) => {
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
            let label = format!("input example {}", i + 1);
            match self.arguments(&label, entry, None, key.span().start, input) {
                Some(value) => values.push(value),
                None => ok = false,
            }
        }
        ok.then_some(values)
    }

    /// The arguments of an example (`label`: `example 2`, `input example 1`) converted to JSON and
    /// checked against the input schema by [`examples::check`]. `own_key` is where the
    /// arguments' own key is written (an entry of an array has none), `key` where a mistake about
    /// them as a whole points.
    fn arguments(
        &mut self,
        label: &str,
        item: &Item<'_>,
        own_key: Option<Range<usize>>,
        key: usize,
        input: Option<&LoadedSchema>,
    ) -> Option<Value> {
        let value = schema_source::json_of(&mut self.report, item, "", own_key)?;
        if let Some(schema) = input.filter(|_| self.examples_checked) {
            let index = SpanIndex::new(item, key);
            examples::check(&mut self.report, label, &value, &index, schema);
        }
        Some(value)
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

    #[test]
    fn defer_loading_is_a_boolean_false_when_absent() {
        let with = |line: &str| {
            VALID.replace(
                "category = \"drawings\"\n",
                &format!("category = \"drawings\"\n{line}\n"),
            )
        };
        assert!(!parse_ok(VALID).defer_loading);
        assert!(parse_ok(&with("defer_loading = true")).defer_loading);
        assert!(!parse_ok(&with("defer_loading = false")).defer_loading);
        assert_eq!(
            errors(&with("defer_loading = \"yes\"")),
            vec!["8:17: expected `defer_loading` to be `true` or `false`, found a string"]
        );
        let found = errors(&with("defer_load = true"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("8:1: unknown key `defer_load`, expected one of ")
                && found[0].ends_with("; did you mean `defer_loading`?"),
            "{found:?}"
        );
    }

    /// The upstream `Tool` object of the pinned manifests below.
    const ECHO: &str = r#"{"name":"echo","description":"Echoes back the input","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}},"annotations":{"readOnlyHint":true}}"#;

    fn echo_digest() -> String {
        crate::lock::digest(&serde_json::from_str(ECHO).expect("json"))
    }

    /// A pinned manifest of `echo` whose `[upstream]` table holds `table` (`{digest}` is the
    /// digest of [`ECHO`]).
    fn pinned_text(top: &str, table: &str) -> String {
        format!(
            "name = \"echo\"\ntitle = \"Echo\"\ndescription = \"Echoes back the input\"\n{top}\n[input]\ntype = \"object\"\n\n[upstream]\n{}",
            table.replace("{digest}", &echo_digest())
        )
    }

    const SAFE: &str = "safety = \"read-only\"\nmode = \"parallel\"";

    const TABLE: &str = "server = \"everything\"\ncommand = [\"npx\", \"-y\", \"@modelcontextprotocol/server-everything\"]\ntool = \"echo\"\ndigest = \"{digest}\"\ndefinition = { file = \"echo.upstream.json\" }\n";

    /// Parses `text` as `echo.toml` in a directory whose `echo.upstream.json` holds
    /// `definition`; the mistakes as `file:line:col: message`, the file named by its name.
    fn parse_pinned(text: &str, definition: &str) -> Result<ToolSpec, Vec<String>> {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(dir.path().join("echo.upstream.json"), definition).expect("written");
        parse_manifest(&dir.path().join("echo.toml"), text).map_err(|e| {
            e.0.iter()
                .map(|d| {
                    let file = d.file.file_name().unwrap_or_default().to_string_lossy();
                    format!("{file}:{}:{}: {}", d.line, d.column, d.message)
                })
                .collect()
        })
    }

    fn pinned_errors(top: &str, table: &str) -> Vec<String> {
        parse_pinned(&pinned_text(top, table), ECHO).expect_err("the manifest has mistakes")
    }

    #[test]
    fn a_pinned_manifest_holds_its_upstream_and_definition() {
        let spec =
            parse_pinned(&pinned_text(SAFE, TABLE), ECHO).unwrap_or_else(|e| panic!("{e:?}"));
        let command = ["npx", "-y", "@modelcontextprotocol/server-everything"]
            .map(str::to_owned)
            .to_vec();
        let expected = model::Upstream::new(
            "everything",
            model::Endpoint::Command(command),
            "echo",
            echo_digest(),
        )
        .definition(serde_json::from_str(ECHO).expect("json"));
        assert_eq!(spec.upstream, Some(expected));

        let table = TABLE
            .replace(
                "command = [\"npx\", \"-y\", \"@modelcontextprotocol/server-everything\"]",
                "url = \"https://example.com/mcp\"",
            )
            .replace("tool = \"echo\"", "tool = \"echo\"\ntrust_hints = true");
        let spec =
            parse_pinned(&pinned_text(SAFE, &table), ECHO).unwrap_or_else(|e| panic!("{e:?}"));
        let upstream = spec.upstream.expect("pinned");
        assert_eq!(
            upstream.endpoint,
            model::Endpoint::Url("https://example.com/mcp".to_owned())
        );
        assert!(upstream.trust_hints);

        // A manifest of the application's own tool has none.
        assert_eq!(parse_ok(VALID).upstream, None);
    }

    #[test]
    fn a_pinned_manifest_may_defer_its_tool() {
        let top = format!("{SAFE}\ndefer_loading = true");
        let spec =
            parse_pinned(&pinned_text(&top, TABLE), ECHO).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(spec.defer_loading);
        assert!(spec.upstream.is_some());
        let spec =
            parse_pinned(&pinned_text(SAFE, TABLE), ECHO).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(!spec.defer_loading);
    }

    #[test]
    fn the_definition_file_is_one_of_the_files_loaded() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(dir.path().join("echo.upstream.json"), ECHO).expect("written");
        std::fs::write(dir.path().join("echo.toml"), pinned_text(SAFE, TABLE)).expect("written");
        let loaded = load_dir(dir.path());
        assert_eq!(
            loaded.files,
            [
                dir.path().join("echo.toml"),
                dir.path().join("echo.upstream.json")
            ]
        );
        let specs = loaded.specs.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            specs[0].upstream.as_ref().map(|u| u.tool.as_str()),
            Some("echo")
        );
    }

    #[test]
    fn an_upstream_without_safety_or_mode_says_the_hints_are_not_trusted() {
        assert_eq!(
            pinned_errors("", TABLE),
            [
                "echo.toml:1:1: missing key `mode`, expected `mode = \"parallel\"` or `mode = \"sequential\"`; the upstream's hints are not trusted: declare how the tool's calls may be scheduled (the hints are in the comment above), or import with --trust-hints",
                "echo.toml:1:1: missing key `safety`, expected `safety = \"read-only\"` or `safety = \"destructive\"`; the upstream's hints are not trusted: declare what the tool may do (the hints are in the comment above), or import with --trust-hints",
            ]
        );
        // Without `[upstream]`, the message is the one every manifest gets.
        let text = VALID.replace("safety = \"destructive\"\n", "");
        assert_eq!(
            errors(&text),
            [
                "1:1: missing key `safety`, expected `safety = \"read-only\"` or `safety = \"destructive\"`"
            ]
        );
    }

    #[test]
    fn the_keys_of_upstream_are_checked_where_they_are_written() {
        let with = |from: &str, to: &str| pinned_errors(SAFE, &TABLE.replacen(from, to, 1));
        assert_eq!(
            with("server = \"everything\"", "server = \"Everything!\""),
            [
                "echo.toml:10:10: invalid server id `Everything!` in `[upstream]`, expected lowercase ASCII letters, digits, `_` and `-`, starting with a letter, at most 64 characters (`^[a-z][a-z0-9_-]{0,63}$`)"
            ]
        );
        assert_eq!(
            with("server = \"everything\"\n", ""),
            [
                "echo.toml:9:1: missing key `server` in `[upstream]`, expected the id of the server the tool runs on (`server = \"everything\"`)"
            ]
        );
        assert_eq!(
            with("tool = \"echo\"", "tool = \"\""),
            ["echo.toml:12:8: expected `tool` to be a non-empty string, found an empty one"]
        );
        assert_eq!(
            with("digest = \"{digest}\"", "digest = \"sha256:ABC\""),
            [
                "echo.toml:13:10: expected `digest` to be `sha256:` and 64 lowercase hex digits, found \"sha256:ABC\""
            ]
        );
        assert_eq!(
            pinned_errors(SAFE, &format!("{TABLE}trust_hint = true\n")),
            [
                "echo.toml:15:1: unknown key `trust_hint` in `[upstream]`, expected one of `server`, `command`, `url`, `tool`, `digest`, `definition`, `trust_hints`; did you mean `trust_hints`?"
            ]
        );
        assert_eq!(
            pinned_errors(SAFE, &format!("{TABLE}trust_hints = \"yes\"\n")),
            ["echo.toml:15:15: expected `trust_hints` to be `true` or `false`, found a string"]
        );
        let text = pinned_text(&format!("{SAFE}\nupstream = \"everything\""), "")
            .replace("[upstream]\n", "");
        assert_eq!(
            parse_pinned(&text, ECHO).expect_err("a mistake"),
            [
                "echo.toml:6:12: expected `upstream` to be a table (`[upstream]` with `server`, `command` or `url`, `tool`, `digest` and `definition`), found a string"
            ]
        );
    }

    #[test]
    fn an_upstream_is_a_command_or_a_url() {
        const COMMAND: &str =
            "command = [\"npx\", \"-y\", \"@modelcontextprotocol/server-everything\"]";
        let with = |to: &str| pinned_errors(SAFE, &TABLE.replacen(COMMAND, to, 1));
        assert_eq!(
            with("command = []"),
            [
                "echo.toml:11:11: expected `command` to be the program and its arguments, a non-empty array of strings (`[\"npx\", \"-y\", \"…\"]`), found an empty one"
            ]
        );
        assert_eq!(
            with("command = \"npx server\""),
            [
                "echo.toml:11:11: expected `command` to be the program and its arguments, a non-empty array of strings (`[\"npx\", \"-y\", \"…\"]`), found a string"
            ]
        );
        assert_eq!(
            with("command = [\"npx\", 3, \"\"]"),
            [
                "echo.toml:11:19: expected each entry of `command` to be a string, found an integer",
                "echo.toml:11:22: expected each entry of `command` to be a non-empty string, found an empty one",
            ]
        );
        assert_eq!(
            with(&format!("{COMMAND}\nurl = \"https://example.com/mcp\"")),
            [
                "echo.toml:12:7: `command` and `url` are both given in `[upstream]`, expected exactly one: the command that starts the server or the URL it answers at"
            ]
        );
        assert_eq!(
            with(""),
            [
                "echo.toml:9:1: missing key `command` or `url` in `[upstream]`, expected the command that starts the server (`command = [\"npx\", \"-y\", \"…\"]`) or the URL it answers at (`url = \"https://…/mcp\"`)"
            ]
        );
        assert_eq!(
            with("url = \"https://user:secret@example.com/mcp\""),
            [
                "echo.toml:11:7: an upstream URL may not hold credentials; pass them to the proxy with --header"
            ]
        );
        assert_eq!(
            with("url = \"file:///tmp/server\""),
            [
                "echo.toml:11:7: expected `url` to be an `http` or `https` URL (`https://…/mcp`), found \"file:///tmp/server\""
            ]
        );
        // A misspelt `url` is suggested, not reported missing.
        assert_eq!(
            with("ulr = \"https://example.com/mcp\""),
            [
                "echo.toml:11:1: unknown key `ulr` in `[upstream]`, expected one of `server`, `command`, `url`, `tool`, `digest`, `definition`, `trust_hints`; did you mean `url`?"
            ]
        );
    }

    #[test]
    fn the_pinned_definition_must_be_what_was_pinned() {
        let text = pinned_text(SAFE, TABLE);
        let edited = ECHO.replace(
            "Echoes back the input",
            "Echoes back the input, and mails it",
        );
        assert_eq!(
            parse_pinned(&text, &edited).expect_err("an edited pin"),
            [
                "echo.toml:14:23: the pinned definition `echo.upstream.json` does not match `digest`: it was edited since it was pinned; re-pin the tool by importing it again"
            ]
        );
        // Key order and layout are not part of the digest.
        let value: Value = serde_json::from_str(ECHO).expect("json");
        let pretty = serde_json::to_string_pretty(&value).expect("pretty");
        assert!(parse_pinned(&text, &pretty).is_ok());

        let other = ECHO.replace("\"name\":\"echo\"", "\"name\":\"add\"");
        let found = parse_pinned(&text, &other).expect_err("another tool");
        assert_eq!(
            found[1],
            "echo.toml:14:23: the pinned definition `echo.upstream.json` holds the tool `add`, expected the tool `echo` that `tool` names"
        );
        assert_eq!(found.len(), 2, "the digest differs too: {found:?}");

        assert_eq!(
            parse_pinned(&text, "[1, 2]").expect_err("not an object"),
            [
                "echo.toml:14:23: expected the pinned definition `echo.upstream.json` to be an MCP `Tool` object, found an array"
            ]
        );
        let found = parse_pinned(&text, "{\"name\": \"echo\",\n}").expect_err("not JSON");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("echo.upstream.json:2:1: the pinned definition is not JSON: "),
            "{found:?}"
        );
        let missing = text.replace("echo.upstream.json", "gone.upstream.json");
        let found = parse_pinned(&missing, ECHO).expect_err("no file");
        assert!(
            found[0].starts_with(
                "echo.toml:14:23: cannot read the pinned definition `gone.upstream.json`: "
            ),
            "{found:?}"
        );
        let text = pinned_text(
            SAFE,
            &TABLE.replace(
                "{ file = \"echo.upstream.json\" }",
                "\"echo.upstream.json\"",
            ),
        );
        assert_eq!(
            parse_pinned(&text, ECHO).expect_err("not a file table"),
            [
                "echo.toml:14:14: expected `definition` to be `{ file = \"….upstream.json\" }`, the JSON file of the pinned upstream definition, found a string"
            ]
        );
    }
}

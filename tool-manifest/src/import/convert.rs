//! Definitions → [`Tool`]s (what a manifest holds) → files.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use super::bfcl;
use super::json::Json;
use super::source::{self, Format, Found, Refused};
use super::text::{FileRef, entry};
use super::upstream::Pin;
use crate::codegen::snake_case;
use crate::json_text;
use crate::model::default_title;
use crate::model::{Mode, Safety, is_valid_tool_name};
use crate::schema::display_pointer;

/// The longest tool name (`^[a-z][a-z0-9_]{0,63}$`).
const MAX_NAME: usize = 64;

/// Why an imported tool's safety needs a person's review: it was not declared read-only, so it
/// is `destructive`, which may be more than the tool does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Review {
    /// The source has no `readOnlyHint` (MCP's default is `false`; OpenAI and BFCL have none).
    NoReadOnlyHint,
    /// The source declares `readOnlyHint: false` (a hint, which nothing checks).
    ReadOnlyHintFalse,
}

impl Review {
    /// The comment line written above `safety` in the manifest.
    pub const fn comment(self) -> &'static str {
        match self {
            Review::NoReadOnlyHint => {
                "# safety: the source declares no readOnlyHint; review: is this tool read-only?"
            }
            Review::ReadOnlyHintFalse => {
                "# safety: the source declares readOnlyHint false; review: is this tool read-only?"
            }
        }
    }

    fn reason(self) -> &'static str {
        match self {
            Review::NoReadOnlyHint => "the source declares no readOnlyHint",
            Review::ReadOnlyHintFalse => "the source declares readOnlyHint false",
        }
    }
}

/// One imported tool: what its manifest and schema files hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// Where its definition is in the input (`tools[3]`, `line 4`).
    pub place: String,
    /// The name as the source wrote it.
    pub source_name: String,
    /// A valid tool name, unique among the imported tools.
    pub name: String,
    /// The source's title, or one derived from the name.
    pub title: String,
    /// The source's description, or the title.
    pub description: String,
    /// `read-only` when the source declares `readOnlyHint: true`, `destructive` otherwise.
    pub safety: Safety,
    /// `parallel` for read-only tools, `sequential` for destructive ones.
    pub mode: Mode,
    /// Why the safety needs a review, when it does.
    pub review: Option<Review>,
    /// The source's `idempotentHint`.
    pub idempotent: Option<bool>,
    /// The source's `openWorldHint`.
    pub open_world: Option<bool>,
    /// The input schema as pretty JSON text (the source's, or BFCL's mapped).
    pub input: String,
    /// The output schema as pretty JSON text, when the source has one.
    pub output: Option<String>,
    /// What pins a tool of a live server ([`pinned`](super::pinned)): its `[upstream]` table
    /// and definition file; `None` for an imported definition the application implements.
    pub pin: Option<Pin>,
}

impl Tool {
    /// `<name>.toml`.
    pub fn manifest_file(&self) -> String {
        format!("{}.toml", self.name)
    }

    /// `<name>.input.json`.
    pub fn input_file(&self) -> String {
        format!("{}.input.json", self.name)
    }

    /// `<name>.output.json`, when the tool has an output schema.
    pub fn output_file(&self) -> Option<String> {
        self.output
            .as_ref()
            .map(|_| format!("{}.output.json", self.name))
    }

    /// `<name>.upstream.json`, when the tool is pinned.
    pub fn upstream_file(&self) -> Option<String> {
        self.pin
            .as_ref()
            .map(|_| format!("{}.upstream.json", self.name))
    }

    /// Whether the tool's safety needs a person's review: an imported tool not declared
    /// read-only, and a pinned tool whose hints were not trusted (its manifest declares no
    /// safety until someone does).
    pub fn needs_review(&self) -> bool {
        match &self.pin {
            Some(pin) if !pin.trust_hints => true,
            _ => self.review.is_some(),
        }
    }

    /// The manifest's text: each value written by `toml` (strings escaped by it), the review
    /// comment as a line of its own. A pinned tool whose hints are not trusted has its safety
    /// and mode suggested in comments, and its `[upstream]` table last.
    ///
    /// # Errors
    /// Only if `toml` cannot write a string.
    pub fn manifest(&self) -> Result<String, toml::ser::Error> {
        let mut out = String::with_capacity(256 + self.description.len());
        entry(&mut out, "name", &self.name)?;
        entry(&mut out, "title", &self.title)?;
        entry(&mut out, "description", &self.description)?;
        match &self.pin {
            Some(pin) => pin.safety(&mut out, self.safety, self.mode)?,
            None => {
                if let Some(review) = self.review {
                    out.push_str(review.comment());
                    out.push('\n');
                }
                entry(&mut out, "safety", self.safety.as_str())?;
                entry(&mut out, "mode", self.mode.as_str())?;
            }
        }
        if let Some(idempotent) = self.idempotent {
            entry(&mut out, "idempotent", &idempotent)?;
        }
        if let Some(open_world) = self.open_world {
            entry(&mut out, "open_world", &open_world)?;
        }
        entry(
            &mut out,
            "input",
            &FileRef {
                file: &self.input_file(),
            },
        )?;
        if let Some(file) = self.output_file() {
            entry(&mut out, "output", &FileRef { file: &file })?;
        }
        if let (Some(pin), Some(file)) = (&self.pin, self.upstream_file()) {
            pin.table(&mut out, &file)?;
        }
        Ok(out)
    }

    /// Every file of the tool: `(file name, contents)`, the manifest first.
    ///
    /// # Errors
    /// Only if `toml` cannot write a string.
    pub fn files(&self) -> Result<Vec<(String, String)>, toml::ser::Error> {
        let mut files = vec![
            (self.manifest_file(), self.manifest()?),
            (self.input_file(), self.input.clone()),
        ];
        if let (Some(file), Some(output)) = (self.output_file(), &self.output) {
            files.push((file, output.clone()));
        }
        if let (Some(file), Some(pin)) = (self.upstream_file(), &self.pin) {
            files.push((file, pin.definition.clone()));
        }
        Ok(files)
    }
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// Something the import changed or filled in.
    Note(String),
    /// A definition, or a tool's files, that could not be imported (the tool is skipped).
    Error(String),
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Line::Note(text) => f.write_str(text),
            Line::Error(text) => write!(f, "error: {text}"),
        }
    }
}

/// An input that cannot be read at all: not JSON, or none of the accepted shapes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// What [`read`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// The tools, in input order.
    pub tools: Vec<Tool>,
    /// Every change and every refused definition, in input order.
    pub report: Vec<Line>,
    /// How many definitions were refused.
    pub refused: usize,
}

/// Reads tool definitions: one JSON value (a `tools/list` result, a JSON-RPC response, an array
/// of definitions or one definition) or JSON Lines of definitions.
///
/// # Errors
/// When the input is not JSON or has none of these shapes. A definition that cannot be imported
/// is reported ([`Line::Error`], naming its place) and the others are read.
pub fn read(text: &str, format: Format) -> Result<Reading, InputError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let values = parse(text)?;
    let definitions = source::definitions(values).map_err(InputError)?;
    Ok(Reading::of(definitions, |(place, value), taken, report| {
        source::read(&place, &value, format).and_then(|found| convert(found, taken, report, None))
    }))
}

impl Reading {
    /// Each definition converted by `convert` (which takes the names already given and the
    /// report), in order; one it refuses is reported and counted, and the others are read.
    pub(super) fn of<T>(
        definitions: Vec<T>,
        mut convert: impl FnMut(T, &mut HashSet<String>, &mut Vec<Line>) -> Result<Tool, Refused>,
    ) -> Reading {
        let mut reading = Reading {
            tools: Vec::with_capacity(definitions.len()),
            report: Vec::new(),
            refused: 0,
        };
        let mut taken = HashSet::new();
        for definition in definitions {
            match convert(definition, &mut taken, &mut reading.report) {
                Ok(tool) => reading.tools.push(tool),
                Err(refused) => {
                    reading
                        .report
                        .push(Line::Error(format!("{refused}; the tool is skipped")));
                    reading.refused += 1;
                }
            }
        }
        reading
    }
}

/// Every JSON value of the text, with the line it starts on (JSON Lines hold several).
/// `serde_json` finds where each value ends, and says why a text is not JSON; each value is then
/// read into a [`Json`], its numbers as written.
fn parse(text: &str) -> Result<Vec<(usize, Json)>, InputError> {
    let mut values = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<serde_json::Value>();
    let (mut counted, mut line) = (0, 1);
    while let Some(next) = stream.next() {
        next.map_err(|e| InputError(format!("the input is not JSON: {e}")))?;
        let end = stream.byte_offset();
        // The value starts at the first character that is not white space after the last one.
        let before = text.get(counted..end).unwrap_or("");
        let start = counted + (before.len() - before.trim_start().len());
        line += text.get(counted..start).unwrap_or("").matches('\n').count();
        let value = text.get(start..end).and_then(Json::parse).ok_or_else(|| {
            InputError(format!(
                "the JSON value starting at line {line} cannot be read with its numbers as written"
            ))
        })?;
        values.push((line, value));
        line += text.get(start..end).unwrap_or("").matches('\n').count();
        counted = end;
    }
    Ok(values)
}

/// A valid tool name for `name`: itself when valid, else its words in snake case
/// (`get-issue!` → `get_issue`, `activateParkingBrake` → `activate_parking_brake`), starting
/// with a letter and at most 64 characters long.
pub fn valid_name(name: &str) -> String {
    if is_valid_tool_name(name) {
        return name.to_owned();
    }
    let words = snake_case(name);
    let fixed = match words.chars().next() {
        None => "tool".to_owned(),
        Some(c) if c.is_ascii_lowercase() => words,
        Some(_) => format!("tool_{words}"),
    };
    shorten(&fixed, MAX_NAME)
}

/// The first `max` characters of an ASCII name, without trailing `_`.
fn shorten(name: &str, max: usize) -> String {
    name.get(..max)
        .unwrap_or(name)
        .trim_end_matches('_')
        .to_owned()
}

/// `name`, or `name_2`, `name_3`, … : the first one not taken (still at most 64 characters).
fn unique_name(name: &str, taken: &HashSet<String>) -> String {
    if !taken.contains(name) {
        return name.to_owned();
    }
    (2usize..)
        .map(|n| {
            let suffix = format!("_{n}");
            format!("{}{suffix}", shorten(name, MAX_NAME - suffix.len()))
        })
        .find(|candidate| !taken.contains(candidate))
        .unwrap_or_else(|| name.to_owned())
}

/// The schema written when an OpenAI function declares no parameters: no arguments at all.
const NO_PARAMETERS: &str =
    "{\n  \"type\": \"object\",\n  \"properties\": {},\n  \"additionalProperties\": false\n}\n";

/// A definition as a [`Tool`], its name made valid and unique among `taken`, what was filled in
/// reported. `pinned` is `Some(trust_hints)` for a tool pinned from a live server: its safety
/// is then the author's to declare unless the hints are trusted, and the report says which.
pub(super) fn convert(
    found: Found,
    taken: &mut HashSet<String>,
    report: &mut Vec<Line>,
    pinned: Option<bool>,
) -> Result<Tool, Refused> {
    let valid = valid_name(&found.name);
    let name = unique_name(&valid, taken);
    if name != found.name {
        report.push(Line::Note(if name == valid {
            format!("renamed {:?} -> {name:?}", found.name)
        } else {
            format!(
                "renamed {:?} -> {name:?}: the name {valid:?} is taken by an earlier tool",
                found.name
            )
        }));
    }
    taken.insert(name.clone());

    let title = match found.title {
        Some(title) => title,
        None => {
            let title = default_title(&name);
            report.push(Line::Note(format!(
                "{name}: no title; {title:?} is derived from the name"
            )));
            title
        }
    };
    let description = match found.description {
        Some(description) => description,
        None => {
            report.push(Line::Note(format!(
                "{name}: no description; the title {title:?} is used"
            )));
            title.clone()
        }
    };
    let (safety, mode, review) = match found.read_only {
        Some(true) => (Safety::ReadOnly, Mode::Parallel, None),
        Some(false) => (
            Safety::Destructive,
            Mode::Sequential,
            Some(Review::ReadOnlyHintFalse),
        ),
        None => (
            Safety::Destructive,
            Mode::Sequential,
            Some(Review::NoReadOnlyHint),
        ),
    };
    match pinned {
        None => {
            if let Some(review) = review {
                report.push(Line::Note(format!(
                    "{name}: safety {:?}, mode {:?}: {}; review {name}.toml",
                    safety.as_str(),
                    mode.as_str(),
                    review.reason()
                )));
            }
        }
        Some(false) => report.push(Line::Note(format!(
            "{name}: no safety or mode declared: the upstream's hints are not trusted; declare them in {name}.toml (suggested: safety {:?}, mode {:?})",
            safety.as_str(),
            mode.as_str(),
        ))),
        Some(true) => report.push(Line::Note(format!(
            "{name}: safety {:?}, mode {:?}: safety taken from the upstream's hints, which nothing checks",
            safety.as_str(),
            mode.as_str(),
        ))),
    }
    // The other hints are the server's claims too: copied only when its hints are trusted.
    let trusted = pinned != Some(false);

    let input = match found.input {
        Some((key, schema)) => schema_text(&name, &found.place, key, schema, found.bfcl, report)?,
        None => {
            report.push(Line::Note(format!(
                "{name}: no parameters; the input is an object without properties"
            )));
            NO_PARAMETERS.to_owned()
        }
    };
    let output = match found.output {
        Some((key, schema)) => Some(schema_text(
            &name,
            &found.place,
            key,
            schema,
            found.bfcl,
            report,
        )?),
        None => None,
    };
    Ok(Tool {
        place: found.place,
        source_name: found.name,
        name,
        title,
        description,
        safety,
        mode,
        review,
        idempotent: found.idempotent.filter(|_| trusted),
        open_world: found.open_world.filter(|_| trusted),
        input,
        output,
        pin: None,
    })
}

/// A schema as pretty JSON text, BFCL's type names mapped (each mapping reported).
fn schema_text(
    name: &str,
    place: &str,
    key: &str,
    mut schema: Json,
    is_bfcl: bool,
    report: &mut Vec<Line>,
) -> Result<String, Refused> {
    if is_bfcl {
        for mapped in bfcl::map(&mut schema) {
            let to = match mapped.to {
                Some(to) => format!("{to:?}"),
                None => "no type (any value)".to_owned(),
            };
            report.push(Line::Note(format!(
                "{name}: {key} at {}: BFCL type {:?} -> {to}",
                display_pointer(&mapped.pointer),
                mapped.from
            )));
        }
    }
    let refused = |message: String| Refused {
        place: source::join(place, key),
        message,
    };
    let text = schema
        .pretty()
        .map_err(|e| refused(format!("cannot be written as JSON: {e}")))?;
    // A number `serde_json` would read as another one is refused: the manifest loader, the
    // registry and the exports all read the schema with `serde_json`.
    match json_text::inexact_numbers(&text, "kept").into_iter().next() {
        Some((_, message)) => Err(refused(message)),
        None => Ok(text),
    }
}

/// What [`write`](fn@write) did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outcome {
    /// The names of the tools written, in input order.
    pub imported: Vec<String>,
    /// How many of them need their safety reviewed.
    pub need_review: usize,
    /// How many definitions were not imported (refused, or their files exist or could not
    /// be written).
    pub skipped: usize,
    /// Every file written.
    pub written: Vec<PathBuf>,
    /// The report: the reading's lines, then what writing refused.
    pub report: Vec<Line>,
}

impl Outcome {
    /// `imported N tools into DIR (M need review)`.
    pub fn summary(&self, dir: &Path) -> String {
        let count = self.imported.len();
        format!(
            "imported {count} tool{} into {} ({} need review)",
            if count == 1 { "" } else { "s" },
            dir.display(),
            self.need_review
        )
    }
}

/// Writes each tool's files into `dir` (which must exist). A tool whose files exist is skipped
/// unless `force` is set; a file that cannot be written skips its tool. Both are reported.
pub fn write(reading: Reading, dir: &Path, force: bool) -> Outcome {
    let mut outcome = Outcome {
        skipped: reading.refused,
        report: reading.report,
        ..Outcome::default()
    };
    for tool in reading.tools {
        let files = match tool.files() {
            Ok(files) => files,
            Err(e) => {
                outcome.report.push(Line::Error(format!(
                    "{}: the manifest cannot be written as TOML: {e}; the tool is skipped",
                    tool.name
                )));
                outcome.skipped += 1;
                continue;
            }
        };
        if !force {
            let existing: Vec<&str> = files
                .iter()
                .map(|(file, _)| file.as_str())
                .filter(|file| dir.join(file).symlink_metadata().is_ok())
                .collect();
            if !existing.is_empty() {
                outcome.report.push(Line::Error(format!(
                    "{}: {} exist{} in {}; pass --force to overwrite; the tool is skipped",
                    tool.name,
                    existing.join(", "),
                    if existing.len() == 1 { "s" } else { "" },
                    dir.display()
                )));
                outcome.skipped += 1;
                continue;
            }
        }
        let mut failed = false;
        for (file, contents) in &files {
            let path = dir.join(file);
            if let Err(e) = std::fs::write(&path, contents) {
                outcome.report.push(Line::Error(format!(
                    "{}: cannot write {}: {e}; the tool is skipped",
                    tool.name,
                    path.display()
                )));
                failed = true;
                break;
            }
            outcome.written.push(path);
        }
        if failed {
            outcome.skipped += 1;
            continue;
        }
        if tool.needs_review() {
            outcome.need_review += 1;
        }
        outcome.imported.push(tool.name);
    }
    outcome
}

/// The MCP `Tool` objects of a `tools/list` result, a JSON-RPC response, a `Tool` array or JSON
/// Lines of them (the shapes [`read`] takes), each with its place in the input (`tools[3]`), as
/// plain JSON values: what `diff` reads of any server.
///
/// # Errors
/// Text that is not JSON or none of these shapes.
pub(crate) fn mcp_tools(text: &str) -> Result<Vec<(String, serde_json::Value)>, InputError> {
    let definitions = super::source::definitions(parse(text)?).map_err(InputError)?;
    definitions
        .into_iter()
        .map(|(place, json)| {
            serde_json::to_value(&json)
                .map(|value| (place.clone(), value))
                .map_err(|e| InputError(format!("{place}: {e}")))
        })
        .collect()
}

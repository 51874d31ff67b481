//! The checked-in outputs of a tool set: the tools index, one schema per tool, one catalog per
//! provider and the docs.
//!
//! [`render`] computes every output file in memory (deterministic: sorted names, no timestamps,
//! no absolute paths unless the directories given are absolute). Every JSON file is written by
//! `serde_json`, pretty-printed with a final newline: `tools.json` is the specs sorted by name
//! (each in its serde form), `schemas/<name>.json` a tool's input schema, and
//! `providers/<dialect>.json` the tool list of [`dialect::catalog`]
//! ([`Catalog::tool_list`](dialect::Catalog::tool_list): its definitions, the deferred tools in
//! the provider's deferral form). The pages are those of [`crate::docs::render`]. What it gives,
//! [`Rendered`], says which files on disk are not current ([`Rendered::stale`]) and brings them
//! up to date ([`Rendered::write`]: only the files whose content differs, all or nothing).
//!
//! The generator owns some directories entirely ([`OutputDirs::owned`]): a file there that is no
//! longer produced is stale, and [`Rendered::write`] deletes it.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use serde::Serialize;
use tempfile::NamedTempFile;

use crate::dialect::{self, Dialect, ExportError};
use crate::lock::Lock;
use crate::model::ToolSpec;

/// Where the outputs go. Paths are used as given (relative paths are relative to the current
/// directory, normally the repository root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputDirs {
    /// `tools.json` and `schemas/<name>.json` go here (`generated`).
    pub out: PathBuf,
    /// The docs pages go here (`docs/tools`).
    pub docs: PathBuf,
    /// The lock file (`tools.lock`, next to the manifests), when one is kept.
    pub lock: Option<PathBuf>,
}

/// A directory whose files of one extension are all produced by the generator.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OwnedDir {
    /// The directory.
    pub dir: PathBuf,
    /// The extension (without the dot) of the files the generator writes there.
    pub extension: &'static str,
}

impl OutputDirs {
    /// `<out>/tools.json`: every tool, sorted by name.
    pub fn tools_index(&self) -> PathBuf {
        self.out.join("tools.json")
    }

    /// `<out>/schemas`: one input schema per tool.
    pub fn schemas(&self) -> PathBuf {
        self.out.join("schemas")
    }

    /// `<out>/providers`: one file of tool definitions per provider dialect.
    pub fn providers(&self) -> PathBuf {
        self.out.join("providers")
    }

    /// The directories the generator owns: there, a file of the given extension that is not
    /// produced any more is stale and is removed by `generate`.
    pub fn owned(&self) -> Vec<OwnedDir> {
        vec![
            OwnedDir {
                dir: self.schemas(),
                extension: "json",
            },
            OwnedDir {
                dir: self.providers(),
                extension: "json",
            },
            OwnedDir {
                dir: self.docs.clone(),
                extension: "md",
            },
        ]
    }
}

/// Every output file for `specs`, keyed by path (`<out>/tools.json`, `<out>/schemas/<name>.json`,
/// `<out>/providers/<dialect>.json`, `<docs>/<page>`), with the tools each provider leaves out
/// and the OpenAI functions that are not strict. The specs may come in any order. A tool a
/// provider cannot express is left out of that provider's catalog, unless the provider is one of
/// `required`, which must take every tool. There is a catalog for each [`Dialect`]: OpenAI's two
/// APIs get one each (`openai.json` for Chat Completions, `openai-responses.json` for
/// Responses), as their request shapes differ.
///
/// # Errors
/// A required provider that cannot express a tool ([`RenderError::Export`], every violation
/// named: tool, JSON Pointer, rule; nothing is written), or a file that cannot be written as
/// JSON.
pub fn render(
    specs: &[ToolSpec],
    dirs: &OutputDirs,
    required: &[Dialect],
) -> Result<Rendered, RenderError> {
    let mut sorted: Vec<&ToolSpec> = specs.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));

    let mut files = BTreeMap::new();
    let index = dirs.tools_index();
    let text = json_file(&sorted).map_err(|source| RenderError::Json {
        path: index.clone(),
        source,
    })?;
    files.insert(index, text);
    let schemas = dirs.schemas();
    for spec in &sorted {
        files.insert(
            schemas.join(format!("{}.json", spec.name)),
            dialect::pretty_line(&spec.input_schema),
        );
    }
    let providers = dirs.providers();
    let mut excluded = Vec::new();
    let mut non_strict = Vec::new();
    // Every tool is prepared once for the five catalogs: its canonical schema judged by
    // `jsonschema` once, the OpenAI decision made once.
    let catalogs = dialect::catalogs(Dialect::ALL, specs);
    let lock = dirs
        .lock
        .as_ref()
        .map(|path| (path.clone(), Lock::of(&sorted, &catalogs)));
    for (dialect, catalog) in Dialect::ALL.iter().zip(catalogs) {
        files.insert(
            providers.join(dialect.file_name()),
            dialect::pretty_line(&catalog.tool_list()),
        );
        // The Responses catalog mirrors the Chat Completions one: reported once.
        let reported = *dialect != Dialect::OpenAiResponses;
        if !catalog.excluded.is_empty() {
            let error = ExportError::new(*dialect, catalog.excluded);
            if required.contains(dialect) {
                return Err(RenderError::Export(error));
            }
            if reported {
                excluded.push(error);
            }
        }
        if !catalog.non_strict.is_empty() && reported {
            non_strict.push(ExportError::new(*dialect, catalog.non_strict));
        }
    }
    for (page, text) in crate::docs::render(specs) {
        files.insert(dirs.docs.join(page), text);
    }
    if let Some((path, lock)) = &lock {
        files.insert(path.clone(), lock.text());
    }
    Ok(Rendered {
        files,
        excluded,
        non_strict,
        lock,
        dirs: dirs.clone(),
    })
}

/// What [`render`] produces: the files, the tools left out of a provider's catalog, and the
/// OpenAI functions that are not strict.
///
/// The Responses catalog (`openai-responses.json`) holds the functions of the Chat Completions
/// one (`openai.json`) in the other request shape, decided the same way: its tools are not
/// listed a second time.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Rendered {
    /// Every output file, keyed by path.
    pub files: BTreeMap<PathBuf, String>,
    /// For each provider, why each tool it leaves out could not be expressed (warnings).
    pub excluded: Vec<ExportError>,
    /// The tools exported to OpenAI with `"strict": false`, with the strict-mode rules each
    /// breaks (warnings; errors where strict mode is required). Empty when every function is
    /// strict.
    pub non_strict: Vec<ExportError>,
    /// The lock file and its content, when one is kept.
    lock: Option<(PathBuf, Lock)>,
    /// Where the files go: the owned directories are searched for orphans.
    dirs: OutputDirs,
}

impl Rendered {
    /// Every file that is missing or differs on disk, then every file of an owned directory that
    /// is no longer produced (an orphan), sorted by path: what `tool-manifest check` reports.
    ///
    /// # Errors
    /// A file or directory that exists but cannot be read.
    pub fn stale(&self) -> Result<Vec<StaleFile>, OutputError> {
        let mut found = Vec::new();
        for (path, content) in &self.files {
            let staleness = match read_existing(path)? {
                None => Staleness::Missing,
                Some(existing) if existing != content.as_bytes() => Staleness::Changed,
                Some(_) => continue,
            };
            let tools = match &self.lock {
                Some((lock_path, lock)) if lock_path == path => changed_tools(lock, path)?,
                _ => Vec::new(),
            };
            found.push(StaleFile {
                path: path.clone(),
                staleness,
                tools,
            });
        }
        for path in self.orphans()? {
            found.push(StaleFile {
                path,
                staleness: Staleness::Orphaned,
                tools: Vec::new(),
            });
        }
        found.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(found)
    }

    /// Brings the outputs on disk up to date, as `tool-manifest generate` does: writes every file
    /// whose content differs (all or nothing: every new content is staged next to its file
    /// before any is renamed into place), then removes the orphans.
    ///
    /// # Errors
    /// The first file system operation that fails.
    pub fn write(&self) -> Result<Changes, OutputError> {
        let written = write_changed(&self.files)?;
        let removed = self.orphans()?;
        for path in &removed {
            std::fs::remove_file(path).map_err(|e| OutputError::new("remove", path, e))?;
        }
        Ok(Changes { written, removed })
    }

    /// Files in the owned directories (of the owned extension, directly in the directory) that
    /// are not produced, sorted.
    fn orphans(&self) -> Result<Vec<PathBuf>, OutputError> {
        let mut found = Vec::new();
        for owned in self.dirs.owned() {
            let entries = match std::fs::read_dir(&owned.dir) {
                Ok(entries) => entries,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(OutputError::new("list", &owned.dir, e)),
            };
            for entry in entries {
                let entry = entry.map_err(|e| OutputError::new("list", &owned.dir, e))?;
                let path = owned.dir.join(entry.file_name());
                let matches = path.extension().is_some_and(|ext| ext == owned.extension);
                if matches && path.is_file() && !self.files.contains_key(&path) {
                    found.push(path);
                }
            }
        }
        found.sort();
        found.dedup();
        Ok(found)
    }
}

/// The tools whose entries in the lock file at `path` differ from `lock` (all of them when the
/// file is missing or is no lock).
fn changed_tools(lock: &Lock, path: &Path) -> Result<Vec<String>, OutputError> {
    let on_disk = read_existing(path)?
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| Lock::parse(&text).ok());
    Ok(match on_disk {
        Some(on_disk) => lock.changed(&on_disk),
        None => lock.tools.keys().cloned().collect(),
    })
}

/// `value` as the text of a JSON file: `serde_json::to_string_pretty` and a final newline.
fn json_file(value: &impl Serialize) -> Result<String, serde_json::Error> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    Ok(text)
}

/// Why the outputs cannot be rendered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// A tool cannot be exported in a form a required provider accepts.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// A file cannot be written as JSON (`serde_json` refuses only maps whose keys are not
    /// strings, which a tool spec does not have).
    #[error("cannot write `{}` as JSON: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
}

/// A file system operation that failed, with the path it was about.
#[derive(Debug, thiserror::Error)]
#[error("cannot {action} `{}`: {source}", path.display())]
#[non_exhaustive]
pub struct OutputError {
    /// What was being done: `read`, `write`, `remove`, `list`.
    pub action: &'static str,
    /// The file or directory.
    pub path: PathBuf,
    /// The cause.
    #[source]
    pub source: io::Error,
}

impl OutputError {
    fn new(action: &'static str, path: &Path, source: io::Error) -> Self {
        OutputError {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Why an output file is not current.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Staleness {
    /// The file should exist and does not.
    Missing,
    /// The file exists with other content.
    Changed,
    /// The file is in a directory the generator owns but is no longer produced.
    Orphaned,
}

impl fmt::Display for Staleness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Staleness::Missing => "missing",
            Staleness::Changed => "out of date",
            Staleness::Orphaned => "no longer generated",
        })
    }
}

/// An output file that is not current.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StaleFile {
    /// The file.
    pub path: PathBuf,
    /// Why it is stale.
    pub staleness: Staleness,
    /// For the lock file: the tools whose definitions changed while it did not.
    pub tools: Vec<String>,
}

impl fmt::Display for StaleFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.path.display(), self.staleness)?;
        if !self.tools.is_empty() {
            let names: Vec<String> = self.tools.iter().map(|t| format!("`{t}`")).collect();
            write!(
                f,
                ": the definition of {} changed and the lock did not",
                names.join(", ")
            )?;
        }
        Ok(())
    }
}

/// The current content of `path`, `None` when it does not exist.
fn read_existing(path: &Path) -> Result<Option<Vec<u8>>, OutputError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(OutputError::new("read", path, e)),
    }
}

/// Writes every file whose content differs from disk (creating directories as needed), all or
/// nothing: every new content is first written to a temporary file next to its target, and only
/// when all are written are they renamed into place. When staging fails nothing is replaced;
/// when a rename fails the files already replaced get their previous content back. Returns the
/// paths written, in order.
///
/// # Errors
/// The first file that cannot be read, written or renamed into place.
pub(crate) fn write_changed(
    files: &BTreeMap<PathBuf, String>,
) -> Result<Vec<PathBuf>, OutputError> {
    // What differs, and what it held before (for putting it back).
    let mut changed: Vec<(&PathBuf, &String, Option<Vec<u8>>)> = Vec::new();
    for (path, content) in files {
        let before = read_existing(path)?;
        if before.as_deref() != Some(content.as_bytes()) {
            changed.push((path, content, before));
        }
    }
    // Every new content is staged before anything is replaced; a temporary file that is not
    // renamed into place is removed when it is dropped.
    let staged: Vec<NamedTempFile> = changed
        .iter()
        .map(|(path, content, _)| stage(path, content.as_bytes()))
        .collect::<Result<_, _>>()?;
    for (i, ((path, _, _), temporary)) in changed.iter().zip(staged).enumerate() {
        if let Err(e) = temporary.persist(path) {
            for (done, _, before) in &changed[..i] {
                restore(done, before.as_deref());
            }
            return Err(OutputError::new("write", path, e.error));
        }
    }
    Ok(changed.into_iter().map(|(path, ..)| path.clone()).collect())
}

/// Writes `content` to a temporary file in the directory of `path`.
fn stage(path: &Path, content: &[u8]) -> Result<NamedTempFile, OutputError> {
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(parent)
        .map_err(|e| OutputError::new("create the directory", parent, e))?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let mut temporary = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(parent)
        .map_err(|e| OutputError::new("write", path, e))?;
    temporary
        .write_all(content)
        .map_err(|e| OutputError::new("write", temporary.path(), e))?;
    Ok(temporary)
}

/// Puts back what `path` held before this run (removes it when it did not exist). Best effort:
/// the error being reported is the one that made the run fail.
fn restore(path: &Path, before: Option<&[u8]>) {
    match before {
        None => {
            let _ = std::fs::remove_file(path);
        }
        Some(bytes) => {
            if let Ok(temporary) = stage(path, bytes) {
                let _ = temporary.persist(path);
            }
        }
    }
}

/// What [`Rendered::write`] changed on disk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Changes {
    /// Files written (new or changed).
    pub written: Vec<PathBuf>,
    /// Files removed (no longer produced).
    pub removed: Vec<PathBuf>,
}

impl Changes {
    /// Nothing was written or removed.
    pub fn is_empty(&self) -> bool {
        self.written.is_empty() && self.removed.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Mode, Safety};
    use serde_json::json;

    fn spec(name: &str) -> ToolSpec {
        let mut spec = ToolSpec::new(
            name,
            Safety::ReadOnly,
            Mode::Parallel,
            json!({"type": "object"}),
        );
        spec.title = format!("Title of {name}");
        spec.description = "d".to_owned();
        spec.source = format!("tools/{name}.toml");
        spec
    }

    fn dirs(root: &Path) -> OutputDirs {
        OutputDirs {
            out: root.join("generated"),
            docs: root.join("docs/tools"),
            lock: None,
        }
    }

    #[test]
    fn every_json_file_reads_back_as_what_it_was_made_from() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tools");
        let mut specs = crate::manifest::load_dir(&fixtures)
            .specs
            .expect("the fixture manifests");
        let mut odd = spec("odd");
        odd.input_schema = json!({"type": "object", "properties": {"a": {"type": "string",
            "description": "line\nbreak \"quoted\"", "enum": [], "default": {}}}});
        odd.output_schema =
            Some(json!({"type": "object", "properties": {"n": {"type": "integer"}}}));
        specs.push(odd);
        specs.push(spec("bare"));
        specs.reverse();
        let dirs = OutputDirs {
            out: "generated".into(),
            docs: "docs/tools".into(),
            lock: None,
        };
        let files = render(&specs, &dirs, &[]).expect("the specs export").files;
        for (path, text) in &files {
            assert!(
                text.ends_with('\n') && !text.ends_with("\n\n"),
                "{}",
                path.display()
            );
        }

        let mut sorted: Vec<ToolSpec> = specs
            .iter()
            .map(|spec| {
                let mut spec = spec.clone();
                spec.source = String::new();
                spec
            })
            .collect();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        let index: Vec<ToolSpec> =
            serde_json::from_str(&files[&dirs.tools_index()]).expect("tools.json is JSON");
        assert_eq!(index, sorted);

        for spec in &specs {
            let path = dirs.schemas().join(format!("{}.json", spec.name));
            let schema: serde_json::Value =
                serde_json::from_str(&files[&path]).expect("a schema file is JSON");
            assert_eq!(schema, spec.input_schema, "{}", spec.name);
        }
        for dialect in Dialect::ALL {
            let path = dirs.providers().join(dialect.file_name());
            let catalog: serde_json::Value =
                serde_json::from_str(&files[&path]).expect("a catalog is JSON");
            assert_eq!(
                catalog,
                dialect::catalog(*dialect, &specs).tool_list(),
                "{dialect}"
            );
        }
    }

    #[test]
    fn a_tool_a_provider_cannot_express_is_left_out_unless_the_provider_is_required() {
        let specs = [spec("a_tool"), spec("bad name!")];
        let out = dirs(Path::new("out"));
        let rendered = render(&specs, &out, &[]).expect("no provider is required");
        assert_eq!(
            rendered.excluded.len(),
            Dialect::ALL.len() - 1,
            "every provider refuses the name (the Responses catalog mirrors the Chat Completions one)"
        );
        assert!(
            rendered
                .excluded
                .iter()
                .all(|e| e.dialect != Dialect::OpenAiResponses)
        );
        for error in &rendered.excluded {
            assert!(
                error.violations.iter().all(|v| v.tool == "bad name!"),
                "{error}"
            );
        }
        let mcp = &rendered.files[&out.providers().join("mcp.json")];
        assert!(
            mcp.contains("\"a_tool\"") && !mcp.contains("bad name!"),
            "{mcp}"
        );
        let err = render(&specs, &out, &[Dialect::Mcp])
            .expect_err("a required provider must take every tool");
        let RenderError::Export(err) = err else {
            panic!("an export error: {err}");
        };
        assert_eq!(err.dialect, Dialect::Mcp);
        assert!(
            err.violations
                .iter()
                .any(|v| v.tool == "bad name!" && v.pointer == "/name"),
            "{err}"
        );
        assert!(
            err.violations.iter().all(|v| v.tool == "bad name!"),
            "{err}"
        );
    }

    #[test]
    fn a_deferred_tool_is_written_in_each_providers_deferral_form() {
        let mut deferred = spec("b_tool");
        deferred.defer_loading = true;
        let specs = [deferred, spec("a_tool"), spec("c_tool")];
        let mut out = dirs(Path::new("out"));
        out.lock = Some("tools/tools.lock".into());
        let rendered = render(&specs, &out, &[]).expect("the specs export");
        let file = |dialect: Dialect| -> Vec<serde_json::Value> {
            let text = &rendered.files[&out.providers().join(dialect.file_name())];
            serde_json::from_str(text).expect("a catalog is JSON")
        };
        let definition = |dialect: Dialect, name: &str| {
            let spec = specs.iter().find(|s| s.name == name).expect("a tool");
            dialect::convert(dialect, spec)
                .expect("converts")
                .definition
        };

        let anthropic = file(Dialect::Anthropic);
        let mut flagged = definition(Dialect::Anthropic, "b_tool");
        flagged["defer_loading"] = json!(true);
        assert_eq!(
            anthropic,
            [
                definition(Dialect::Anthropic, "a_tool"),
                definition(Dialect::Anthropic, "c_tool"),
                json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}),
                flagged,
            ]
        );
        let responses = file(Dialect::OpenAiResponses);
        assert_eq!(responses[2], json!({"type": "tool_search"}));
        assert_eq!(responses[3]["name"], "b_tool");
        assert_eq!(responses[3]["defer_loading"], true);
        for dialect in [Dialect::OpenAi, Dialect::Gemini, Dialect::Mcp] {
            assert_eq!(
                file(dialect),
                [
                    definition(dialect, "a_tool"),
                    definition(dialect, "c_tool"),
                    dialect::deferral::tool_search_definition(Some(dialect)).clone(),
                ],
                "{dialect}: the registry's search stands in for the deferred tool"
            );
        }

        // The lock digests each tool's own definition in every dialect, deferred or not.
        let (_, lock) = rendered.lock.as_ref().expect("a lock");
        let exports = &lock.tools["b_tool"].exports;
        assert_eq!(exports.len(), Dialect::ALL.len(), "{exports:?}");
        assert_eq!(
            exports["anthropic"],
            crate::lock::digest(&definition(Dialect::Anthropic, "b_tool"))
        );
        assert!(!lock.tools.contains_key(dialect::deferral::TOOL_SEARCH));
    }

    #[test]
    fn files_no_longer_produced_are_stale_and_removed() {
        let root = tempfile::tempdir().expect("temp dir");
        let dirs = dirs(root.path());
        let before =
            render(&[spec("a_tool"), spec("b_tool")], &dirs, &[]).expect("fixture specs export");
        before.write().expect("generate");
        let notes = dirs.docs.join("notes.txt");
        std::fs::write(&notes, "kept: not a generated extension").expect("write");

        let after = render(&[spec("a_tool")], &dirs, &[]).expect("fixture specs export");
        let gone = vec![
            dirs.schemas().join("b_tool.json"),
            dirs.docs.join("b_tool.md"),
        ];
        let mut stale_paths: Vec<(PathBuf, Staleness)> = after
            .stale()
            .expect("stale")
            .into_iter()
            .map(|s| (s.path, s.staleness))
            .collect();
        stale_paths.retain(|(_, s)| *s == Staleness::Orphaned);
        let mut expected: Vec<(PathBuf, Staleness)> = gone
            .iter()
            .map(|p| (p.clone(), Staleness::Orphaned))
            .collect();
        expected.sort();
        assert_eq!(stale_paths, expected);

        let changes = after.write().expect("generate");
        let mut removed = changes.removed.clone();
        removed.sort();
        let mut gone_sorted = gone.clone();
        gone_sorted.sort();
        assert_eq!(removed, gone_sorted);
        assert!(gone.iter().all(|p| !p.exists()));
        assert!(notes.exists());
        assert_eq!(after.stale().expect("stale"), vec![]);
    }

    #[test]
    fn a_failed_write_leaves_the_previous_outputs_intact() {
        let dir = tempfile::tempdir().expect("temp dir");
        let a = dir.path().join("out/a.json");
        let b = dir.path().join("out/b.json");
        let z = dir.path().join("out/z.json");
        let mut files: BTreeMap<PathBuf, String> = BTreeMap::new();
        files.insert(a.clone(), "a1\n".to_owned());
        files.insert(b.clone(), "b1\n".to_owned());
        write_changed(&files).expect("first run");

        // The second run changes `a`, adds `c`, and cannot replace `z` (a directory is in its
        // way): the files renamed before the failure get their previous content back.
        std::fs::create_dir_all(z.join("in-the-way")).expect("mkdir");
        let c = dir.path().join("out/c.json");
        files.insert(a.clone(), "a2\n".to_owned());
        files.insert(c.clone(), "c2\n".to_owned());
        files.insert(z.clone(), "z2\n".to_owned());
        let error = write_changed(&files).expect_err("z cannot be written");
        assert!(error.to_string().contains("z.json"), "{error}");
        assert_eq!(std::fs::read_to_string(&a).expect("a"), "a1\n");
        assert_eq!(std::fs::read_to_string(&b).expect("b"), "b1\n");
        assert!(!c.exists(), "a file new in the failed run is removed");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("out"))
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");

        // Once the way is clear, the same run succeeds.
        std::fs::remove_dir_all(&z).expect("clear");
        let written = write_changed(&files).expect("third run");
        assert_eq!(written, [a.clone(), c.clone(), z.clone()]);
        assert_eq!(std::fs::read_to_string(&z).expect("z"), "z2\n");
    }
}

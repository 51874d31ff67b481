//! `tool-manifest`: generates the checked-in outputs of a tool set, or checks they are current.
//!
//! ```text
//! tool-manifest generate [--manifests DIR] [--out DIR] [--docs DIR] [--config FILE]
//! tool-manifest check    [--manifests DIR] [--out DIR] [--docs DIR] [--config FILE]
//! tool-manifest export --dialect mcp|openai|openai-responses|anthropic|gemini [--read-only] [--manifests DIR] [--config FILE]
//! tool-manifest import [--from mcp|openai|bfcl|auto] [--out DIR] [--force] FILE|-
//! tool-manifest import --from-mcp [--server ID] [--trust-hints] [--out DIR] [--force] -- COMMAND ARGS…
//! tool-manifest import --from-mcp-url URL [--header NAME:VALUE]… [--server ID] [--trust-hints] [--out DIR] [--force]
//! tool-manifest diff   [--against REF | --against-live] [--format text|json|github] [--fail-on error|warning] [OLD] [NEW]
//! ```
//!
//! Defaults come from `tool-manifest.toml` in the current directory (keys `manifests`, `out`,
//! `docs`, `lock`, paths relative to the file; `required_providers`, e.g. `["mcp"]`;
//! `required_strict`, `true` or `false`; and the `[diff]` table of severities and acceptances).
//! `generate` also writes the lock file (`lock`, default `<manifests>/tools.lock`), and `check`
//! names the tools whose definitions changed while it did not. Exit codes: 0 ok; 1 `check` found stale outputs (each
//! is named, with the command that refreshes them); 2 invalid manifests (every diagnostic is
//! printed) or any other failure.
//!
//! A tool a provider cannot express (a map under Gemini, say) is left out of that provider's
//! catalog: `generate` and `check` print a warning naming the tool's manifest, the JSON Pointer
//! and the rule, and go on. For a provider listed in `required_providers` it is an error (exit
//! code 2). A tool OpenAI's strict mode cannot express is exported with `"strict": false`, with
//! a warning per strict-mode rule it breaks; with `required_strict = true` that is an error.
//! `export --dialect D` prints the definitions of the tools D can express (a deferred tool,
//! `defer_loading = true`, in D's deferral form after the others, or the registry's `tool_search`
//! in its place where D has none) and reports the others on standard error (with `required_strict`, an OpenAI tool that is not strict is left
//! out); it exits 0 when every tool was exported, 1 when some were left out, 2 on invalid
//! manifests.
//!
//! `import` writes one manifest per tool (`<name>.toml`, with its schemas in `<name>.input.json`
//! and `<name>.output.json`) into `--out` (default: the current directory) from MCP tool
//! definitions (a `tools/list` result, a JSON-RPC response or an array of `Tool` objects), OpenAI
//! function definitions or BFCL function docs (JSON or JSON Lines; `-` reads standard input).
//! Every change it makes (renamed tools, mapped BFCL types, filled-in titles and descriptions,
//! safety defaulted to `destructive`) is a line on standard error, then a summary. Existing
//! files are kept unless `--force` is given. Exit codes: 0 every tool imported; 1 some were
//! skipped (each is named with its place in the input); 2 the input cannot be read.
//!
//! `import --from-mcp -- COMMAND ARGS…` (stdio) and `--from-mcp-url URL` (Streamable HTTP) ask a
//! live server for its `tools/list` and pin each tool: its manifest keeps the upstream
//! definition (in `<name>.upstream.json`, with its digest and where the server is in an
//! `[upstream]` table: no header, no credential) and leaves `safety` and `mode` for you to
//! declare, the server's own hints in a comment (`--trust-hints` takes them as declared, and
//! says so in the manifest). A name another server's pinned manifest has in `--out` is prefixed
//! with the server's id.
//!
//! `diff OLD NEW` compares two tool sets, each a directory of manifests, a lock file or a JSON
//! file of MCP `tools/list`; `--against REF` takes OLD from the manifests at git revision REF
//! (and NEW, when not given, from the manifests directory); `--against-live` compares the pinned
//! definitions of the manifests with what their servers list now. Exit codes: 0; 1 when a change
//! is at least as bad as `--fail-on`; 2 when a side cannot be read.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use serde::Deserialize;
use serde::de::{self, Visitor};
use toml::Spanned;
use toml::de::{DeTable, Deserializer};

use toolwright_manifest::diagnostic::{Diagnostic, Diagnostics};
use toolwright_manifest::dialect::{self, Dialect};
use toolwright_manifest::diff::{self, DiffConfig, Policy, Severity};
use toolwright_manifest::import::{self, Format};
use toolwright_manifest::manifest;
use toolwright_manifest::outputs::{self, OutputDirs, Rendered};

// The live servers' side of `import` and `diff`, apart from the file-reading commands.
#[path = "cli/live.rs"]
mod live;

/// The name of the config file looked up in the current directory.
const CONFIG_FILE: &str = "tool-manifest.toml";

/// Exit code of `check` when outputs are stale.
const EXIT_STALE: u8 = 1;
/// Exit code of `export` when some tools were left out.
const EXIT_LEFT_OUT: u8 = 1;
/// Exit code of `import` when some definitions were not imported.
const EXIT_SKIPPED: u8 = 1;
/// Exit code of `diff` when a change is at least as bad as `--fail-on`.
const EXIT_BREAKING: u8 = 1;
/// Exit code for invalid manifests, a bad config or any other failure.
const EXIT_INVALID: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "tool-manifest",
    version,
    about = "Generates tool schemas, the tools index and the tool docs from TOML manifests"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Writes `<out>/tools.json`, `<out>/schemas/<name>.json` and the docs (only files that changed).
    Generate(Locations),
    /// Exits 0 when every output is current, 1 when some are stale, 2 when a manifest is invalid.
    Check(Locations),
    /// Prints the tool definitions in one provider's dialect as JSON.
    Export(ExportArgs),
    /// Writes a manifest per tool from MCP, OpenAI or BFCL tool definitions.
    Import(ImportArgs),
    /// Reports what changed between two tool sets and whom it breaks.
    Diff(DiffArgs),
}

#[derive(Debug, Args)]
struct DiffArgs {
    /// The old tool set: a directory of manifests, a lock file or MCP `tools/list` JSON.
    #[arg(value_name = "OLD", required_unless_present_any = ["against", "against_live"])]
    old: Option<PathBuf>,
    /// The new tool set (default: the manifests directory).
    #[arg(value_name = "NEW")]
    new: Option<PathBuf>,
    /// Take the old tool set from the manifests directory at this git revision (a branch, a tag,
    /// a commit), read from the repository without a checkout.
    #[arg(long, value_name = "REF", conflicts_with = "old")]
    against: Option<String>,
    /// Compare the pinned definitions of the manifests (their `[upstream]` tables) with what
    /// their servers list now: what re-pinning would take in.
    #[arg(long, conflicts_with_all = ["old", "new", "against"])]
    against_live: bool,
    /// `text` (grouped by tool, worst first), `json` (stable) or `github` (workflow annotations).
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    format: diff::Format,
    /// Exit 1 when a change is at least this bad: `error` or `warning`.
    #[arg(long, value_name = "SEVERITY", value_parser = severity)]
    fail_on: Option<Severity>,
    #[command(flatten)]
    source: Source,
}

/// `--fail-on`: `error` or `warning`.
fn severity(text: &str) -> Result<Severity, String> {
    match Severity::from_word(text) {
        Some(Severity::Info) | None => {
            Err(format!("expected \"error\" or \"warning\", found {text:?}"))
        }
        Some(severity) => Ok(severity),
    }
}

#[derive(Debug, Args)]
struct ImportArgs {
    /// What the file holds: `mcp`, `openai`, `bfcl`, or `auto` (each definition by its shape).
    #[arg(long, value_name = "FORMAT", default_value_t = Format::Auto)]
    from: Format,
    /// Where the manifests and schema files go (created if missing).
    #[arg(long, value_name = "DIR", default_value = ".")]
    out: PathBuf,
    /// Overwrite existing files.
    #[arg(long)]
    force: bool,
    /// Pin the tools of a live MCP server started by the command after `--` (stdio).
    #[arg(long, requires = "command", conflicts_with_all = ["file", "from_mcp_url"])]
    from_mcp: bool,
    /// Pin the tools of a live MCP server at this Streamable HTTP URL.
    #[arg(long, value_name = "URL", conflicts_with = "file")]
    from_mcp_url: Option<String>,
    /// A header sent to the server at `--from-mcp-url`, `NAME:VALUE` (repeatable; never
    /// written to a manifest).
    #[arg(long, value_name = "NAME:VALUE", requires = "from_mcp_url")]
    header: Vec<String>,
    /// The id of the live server in the manifests' `[upstream]` tables (default: from the
    /// name the server gives itself).
    #[arg(long, value_name = "ID")]
    server: Option<String>,
    /// Take `safety` and `mode` from the live server's own hints instead of declaring them
    /// (recorded as `trust_hints = true`; nothing checks a server's hints).
    #[arg(long)]
    trust_hints: bool,
    /// The tool definitions (JSON or JSON Lines); `-` reads standard input.
    #[arg(value_name = "FILE", required_unless_present_any = ["from_mcp", "from_mcp_url"])]
    file: Option<PathBuf>,
    /// With `--from-mcp`: the server's command and its arguments.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(Debug, Args)]
struct ExportArgs {
    /// The provider dialect: `mcp`, `openai` (Chat Completions), `openai-responses`,
    /// `anthropic` or `gemini`.
    #[arg(long, value_name = "DIALECT")]
    dialect: Dialect,
    /// Only the read-only tools (what a read-only run exposes).
    #[arg(long)]
    read_only: bool,
    #[command(flatten)]
    source: Source,
}

/// Where the manifests are: what `export` reads (it writes no file).
#[derive(Debug, Args)]
struct Source {
    /// The directory of `<tool name>.toml` manifests.
    #[arg(long, value_name = "DIR")]
    manifests: Option<PathBuf>,
    /// The config file with the defaults of the directories.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

/// Where the manifests are and where their outputs go: what `generate` and `check` work on.
#[derive(Debug, Args)]
struct Locations {
    #[command(flatten)]
    source: Source,
    /// Where `tools.json` and `schemas/` go.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Where the docs pages go.
    #[arg(long, value_name = "DIR")]
    docs: Option<PathBuf>,
}

/// What the command works on, resolved from the flags and the config file.
#[derive(Debug)]
struct Resolved {
    manifests: PathBuf,
    dirs: OutputDirs,
    required: Vec<Dialect>,
    required_strict: bool,
}

/// The defaults read from the config file, `tool-manifest.toml`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Config {
    /// The directory of the manifests; like `out` and `docs`, relative to the config file.
    manifests: Option<Directory>,
    out: Option<Directory>,
    docs: Option<Directory>,
    /// The lock file (default: `tools.lock` in the manifests directory).
    lock: Option<Directory>,
    /// The severities and acceptances of `diff`.
    diff: DiffConfig,
    /// The providers that must express every tool.
    #[serde(deserialize_with = "providers")]
    required_providers: Vec<Dialect>,
    /// Whether every OpenAI function must be strict.
    required_strict: bool,
}

impl Config {
    /// The keys of the file, as serde names `Config`'s fields (a test holds the two equal).
    const KEYS: [&str; 7] = [
        "manifests",
        "out",
        "docs",
        "lock",
        "diff",
        "required_providers",
        "required_strict",
    ];
}

/// A directory path of the config file: a non-empty string.
#[derive(Debug)]
struct Directory(PathBuf);

/// A failure that ends the command with exit code 2, as it is printed.
#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error("{0}")]
    Diagnostics(Diagnostics),
    #[error("error: {0}")]
    Message(String),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Generate(locations) => generate(locations),
        Command::Check(locations) => check(locations),
        Command::Export(args) => export(args),
        Command::Import(args) => import(args),
        Command::Diff(args) => diff(args),
    };
    result.unwrap_or_else(|failure| {
        eprintln!("{failure}");
        ExitCode::from(EXIT_INVALID)
    })
}

fn generate(locations: &Locations) -> Result<ExitCode, Failure> {
    let rendered = render(locations)?;
    let changes = rendered.write().map_err(message)?;
    if changes.is_empty() {
        println!("up to date ({} files)", rendered.files.len());
    }
    for path in &changes.written {
        println!("wrote {}", path.display());
    }
    for path in &changes.removed {
        println!("removed {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn check(locations: &Locations) -> Result<ExitCode, Failure> {
    let rendered = render(locations)?;
    let stale = rendered.stale().map_err(message)?;
    if stale.is_empty() {
        println!("up to date ({} files)", rendered.files.len());
        return Ok(ExitCode::SUCCESS);
    }
    for file in &stale {
        eprintln!("stale: {file}");
    }
    eprintln!("run `{}` to refresh", refresh_command(locations));
    Ok(ExitCode::from(EXIT_STALE))
}

fn export(args: &ExportArgs) -> Result<ExitCode, Failure> {
    let (config_path, config) = read_config(&args.source, &[])?;
    let manifests = pick(
        &args.source.manifests,
        config.manifests,
        "manifests",
        &config_path,
    )?;
    let mut specs = manifest::load_dir(&manifests)
        .specs
        .map_err(Failure::Diagnostics)?;
    if args.read_only {
        specs.retain(|spec| spec.safety.is_read_only());
    }
    let mut catalog = dialect::catalog(args.dialect, &specs);
    if config.required_strict {
        catalog = catalog.strict_only();
    }
    println!("{:#}", catalog.tool_list());
    if !catalog.non_strict.is_empty() {
        warn_non_strict(
            &dialect::ExportError::new(args.dialect, catalog.non_strict),
            &specs,
        );
    }
    if catalog.excluded.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    warn_left_out(
        &dialect::ExportError::new(args.dialect, catalog.excluded),
        &specs,
    );
    Ok(ExitCode::from(EXIT_LEFT_OUT))
}

/// One warning per violation of a tool a provider leaves out, at the tool's manifest.
fn warn_left_out(error: &dialect::ExportError, specs: &[toolwright_manifest::ToolSpec]) {
    warn(
        error,
        specs,
        &format!("left out of the {} catalog", error.dialect),
    );
}

/// One warning per strict-mode rule an OpenAI function exported without it breaks.
fn warn_non_strict(error: &dialect::ExportError, specs: &[toolwright_manifest::ToolSpec]) {
    warn(
        error,
        specs,
        &format!("exported to {} with `strict: false`", error.dialect),
    );
}

/// `warning: <manifest>: <what>: <violation>`, one line per violation.
fn warn(error: &dialect::ExportError, specs: &[toolwright_manifest::ToolSpec], what: &str) {
    for violation in &error.violations {
        let file = specs
            .iter()
            .find(|s| s.name == violation.tool)
            .map_or("", |s| s.source.as_str());
        let line =
            toolwright_manifest::schema::truncate(&format!("{file}: {what}: {violation}"), 2000);
        eprintln!("warning: {line}");
    }
}

fn import(args: &ImportArgs) -> Result<ExitCode, Failure> {
    let reading = match &args.file {
        Some(file) => read_import(file, args.from)?,
        None => read_live(args)?,
    };
    std::fs::create_dir_all(&args.out)
        .map_err(|e| Failure::Message(format!("cannot create `{}`: {e}", args.out.display())))?;
    let outcome = import::write(reading, &args.out, args.force);
    for path in &outcome.written {
        println!("wrote {}", path.display());
    }
    for line in &outcome.report {
        eprintln!("{line}");
    }
    eprintln!("{}", outcome.summary(&args.out));
    if outcome.skipped > 0 {
        eprintln!(
            "skipped {} tool{} (see the errors above)",
            outcome.skipped,
            if outcome.skipped == 1 { "" } else { "s" }
        );
        return Ok(ExitCode::from(EXIT_SKIPPED));
    }
    Ok(ExitCode::SUCCESS)
}

/// The definitions of a file (or standard input) to import.
fn read_import(file: &Path, format: Format) -> Result<import::Reading, Failure> {
    let text = if file.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())
            .map_err(|e| Failure::Message(format!("cannot read standard input: {e}")))?
    } else {
        std::fs::read_to_string(file)
            .map_err(|e| Failure::Message(format!("cannot read `{}`: {e}", file.display())))?
    };
    import::read(&text, format).map_err(|e| {
        let input = if file.as_os_str() == "-" {
            "standard input".to_owned()
        } else {
            format!("`{}`", file.display())
        };
        Failure::Message(format!("{input}: {e}"))
    })
}

/// The tools of a live server, as pinned manifests: a name another server's pinned manifest
/// already has in `--out` is prefixed with this server's id.
fn read_live(args: &ImportArgs) -> Result<import::Reading, Failure> {
    let (endpoint, pinned_endpoint) = match &args.from_mcp_url {
        Some(url) => {
            let mut headers = Vec::new();
            for header in &args.header {
                let (name, value) = header.split_once(':').ok_or_else(|| {
                    Failure::Message(format!(
                        "--header takes NAME:VALUE, found {:?}",
                        header.split(':').next().unwrap_or_default()
                    ))
                })?;
                headers.push((name.trim().to_owned(), value.trim().to_owned()));
            }
            live::url(url, headers).map_err(Failure::Message)?
        }
        None => live::command(&args.command).map_err(Failure::Message)?,
    };
    let listed = live::list(&endpoint).map_err(Failure::Message)?;
    let server = match &args.server {
        Some(id) => id.clone(),
        None => live::server_id(&listed.server_name),
    };
    let mut reading = import::pinned(listed.tools, &server, &pinned_endpoint, args.trust_hints)
        .map_err(|e| Failure::Message(format!("{e} (pass a server id with --server)")))?;
    live::prefix_taken(&mut reading, &args.out, &server);
    Ok(reading)
}

fn diff(args: &DiffArgs) -> Result<ExitCode, Failure> {
    let (config_path, config) = read_config(&args.source, &[]).or_else(|failure| {
        // Two paths need no config file: the default policy applies.
        match (&args.old, &args.new, &args.source.config) {
            (Some(_), Some(_), None) => Ok((PathBuf::from(CONFIG_FILE), Config::default())),
            _ => Err(failure),
        }
    })?;
    let policy = Policy::new(config.diff.clone())
        .map_err(|e| Failure::Message(format!("{}: {e}", config_path.display())))?;
    let manifests = || {
        pick(
            &args.source.manifests,
            config
                .manifests
                .as_ref()
                .map(|Directory(d)| Directory(d.clone())),
            "manifests",
            &config_path,
        )
    };
    let failed = |e: diff::SourceError| match e {
        diff::SourceError::Manifests(d) => Failure::Diagnostics(d),
        other => Failure::Message(other.to_string()),
    };
    let (old, new) = if args.against_live {
        let specs = manifest::load_definitions(&manifests()?)
            .specs
            .map_err(Failure::Diagnostics)?;
        live::against_live(&specs).map_err(Failure::Message)?
    } else {
        let old = match (&args.against, &args.old) {
            (Some(reference), _) => diff::load_at_ref(reference, &manifests()?).map_err(failed)?,
            (None, Some(path)) => diff::load(path).map_err(failed)?,
            (None, None) => {
                return Err(Failure::Message(
                    "expected OLD, `--against REF` or `--against-live`".into(),
                ));
            }
        };
        let new = match &args.new {
            Some(path) => diff::load(path).map_err(failed)?,
            None => diff::load(&manifests()?).map_err(failed)?,
        };
        diff::Side::pair(old, new)
    };
    let report = diff::diff(&old, &new, &policy);
    print!("{}", report.render(args.format));
    Ok(match args.fail_on {
        Some(threshold) if report.fails(threshold) => ExitCode::from(EXIT_BREAKING),
        _ => ExitCode::SUCCESS,
    })
}

/// The resolved locations and every output file the manifests there produce.
fn render(locations: &Locations) -> Result<Rendered, Failure> {
    let resolved = resolve(locations)?;
    let specs = manifest::load_dir(&resolved.manifests)
        .specs
        .map_err(Failure::Diagnostics)?;
    let rendered = outputs::render(&specs, &resolved.dirs, &resolved.required).map_err(message)?;
    if resolved.required_strict && !rendered.non_strict.is_empty() {
        let listed: Vec<String> = rendered
            .non_strict
            .iter()
            .map(ToString::to_string)
            .collect();
        return Err(Failure::Message(format!(
            "`required_strict` is set and OpenAI's strict mode cannot express every tool:\n{}",
            listed.join("\n")
        )));
    }
    for error in &rendered.excluded {
        warn_left_out(error, &specs);
    }
    for error in &rendered.non_strict {
        warn_non_strict(error, &specs);
    }
    Ok(rendered)
}

/// Any other failure, by its message.
fn message(error: impl std::fmt::Display) -> Failure {
    Failure::Message(error.to_string())
}

/// `cargo tool-manifest generate`, with the flags this run was given.
fn refresh_command(locations: &Locations) -> String {
    let mut command = "cargo tool-manifest generate".to_owned();
    let flags = [
        ("--manifests", &locations.source.manifests),
        ("--out", &locations.out),
        ("--docs", &locations.docs),
        ("--config", &locations.source.config),
    ];
    for (flag, value) in flags {
        if let Some(value) = value {
            command.push_str(&format!(" {flag} {}", value.display()));
        }
    }
    command
}

/// Flags win over the config file; the config file is optional when every flag is given.
fn resolve(locations: &Locations) -> Result<Resolved, Failure> {
    let outputs = [("--out", &locations.out), ("--docs", &locations.docs)];
    let (config_path, config) = read_config(&locations.source, &outputs)?;
    let manifests = pick(
        &locations.source.manifests,
        config.manifests,
        "manifests",
        &config_path,
    )?;
    let lock = match config.lock {
        Some(Directory(path)) => path,
        None => manifests.join(toolwright_manifest::lock::LOCK_FILE),
    };
    Ok(Resolved {
        required: config.required_providers,
        required_strict: config.required_strict,
        dirs: OutputDirs {
            out: pick(&locations.out, config.out, "out", &config_path)?,
            docs: pick(&locations.docs, config.docs, "docs", &config_path)?,
            lock: Some(lock),
        },
        manifests,
    })
}

/// The config file's path and defaults. A missing `tool-manifest.toml` (none named with
/// `--config`) reads as empty when `--manifests` and every flag of `outputs` are given, and is an
/// error naming the missing flags otherwise.
fn read_config(
    source: &Source,
    outputs: &[(&str, &Option<PathBuf>)],
) -> Result<(PathBuf, Config), Failure> {
    let config_path = source
        .config
        .clone()
        .unwrap_or_else(|| PathBuf::from(CONFIG_FILE));
    let config = match std::fs::read_to_string(&config_path) {
        Ok(text) => parse_config(&config_path, &text).map_err(Failure::Diagnostics)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && source.config.is_none() => {
            let missing: Vec<String> = std::iter::once(("--manifests", &source.manifests))
                .chain(outputs.iter().copied())
                .filter(|(_, v)| v.is_none())
                .map(|(flag, _)| format!("`{flag}`"))
                .collect();
            if !missing.is_empty() {
                let flags = if missing.len() == 1 { "flag" } else { "flags" };
                return Err(Failure::Message(format!(
                    "no `{CONFIG_FILE}` in the current directory, expected it or the {flags} {}",
                    missing.join(", ")
                )));
            }
            Config::default()
        }
        Err(e) => {
            return Err(Failure::Message(format!(
                "cannot read `{}`: {e}",
                config_path.display()
            )));
        }
    };
    Ok((config_path, config))
}

/// The directory a flag gives, else the config file's, else an error naming both ways.
fn pick(
    flag: &Option<PathBuf>,
    configured: Option<Directory>,
    key: &str,
    config_path: &Path,
) -> Result<PathBuf, Failure> {
    flag.clone()
        .or(configured.map(|Directory(dir)| dir))
        .ok_or_else(|| {
            Failure::Message(format!(
                "no `{key}` directory: pass `--{key} DIR` or set `{key} = \"DIR\"` in `{}`",
                config_path.display()
            ))
        })
}

/// Reads the config file, reporting every mistake at its `file:line:col`.
fn parse_config(path: &Path, text: &str) -> Result<Config, Diagnostics> {
    let at = |span: Option<Range<usize>>, message: String| match span {
        Some(span) => {
            let (line, column) = Diagnostic::line_col(text, span.start);
            Diagnostic::at(path, line, column, message)
        }
        None => Diagnostic::file(path, message),
    };
    let located = |e: toml::de::Error| at(e.span(), e.message().to_owned());
    let (table, errors) = DeTable::parse_recoverable(text);
    let mut diagnostics: Vec<Diagnostic> = errors
        .iter()
        .map(|e| at(e.span(), format!("invalid TOML: {}", e.message())))
        .collect();
    if diagnostics.is_empty() {
        // `serde` stops at the first mistake: each key is read alone first, so that every
        // mistake is reported.
        for (key, value) in table.get_ref() {
            let mut alone = DeTable::new();
            alone.insert(key.clone(), value.clone());
            let alone = Deserializer::from(Spanned::new(table.span(), alone));
            // A known key's message names it; serde's own for an unknown key already does.
            let name = key.get_ref();
            diagnostics.extend(Config::deserialize(alone).err().map(|e| {
                if Config::KEYS.contains(&name.as_ref()) {
                    at(e.span(), format!("`{name}`: {}", e.message()))
                } else {
                    located(e)
                }
            }));
        }
    }
    if !diagnostics.is_empty() {
        return Err(Diagnostics(diagnostics).sorted());
    }
    let mut config = Config::deserialize(Deserializer::from(table))
        .map_err(|e| Diagnostics(vec![located(e)]))?;
    // The directories are relative to the config file.
    let base = path.parent().unwrap_or_else(|| Path::new(""));
    let within = |dir: &mut Option<Directory>| {
        if let Some(Directory(dir)) = dir {
            *dir = base.join(&*dir);
        }
    };
    within(&mut config.manifests);
    within(&mut config.out);
    within(&mut config.docs);
    within(&mut config.lock);
    Ok(config)
}

/// A string of the config file read by `read` (whose error is the message), `expecting` naming it
/// in messages. A visitor, so that `toml` locates a refused string where it is written (in a list
/// too).
struct Text<T> {
    expecting: &'static str,
    read: fn(&str) -> Result<T, String>,
}

impl<T> Visitor<'_> for Text<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
        (self.read)(text).map_err(E::custom)
    }
}

impl<'de> Deserialize<'de> for Directory {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(Text {
            expecting: "a directory path (a non-empty string)",
            read: |text| match text.trim() {
                "" => Err(
                    "expected a directory path (a non-empty string), found an empty string".into(),
                ),
                _ => Ok(Directory(PathBuf::from(text))),
            },
        })
    }
}

/// `required_providers`: provider names, each read by [`Dialect`]'s `FromStr`.
fn providers<'de, D: de::Deserializer<'de>>(deserializer: D) -> Result<Vec<Dialect>, D::Error> {
    struct Provider(Dialect);
    impl<'de> Deserialize<'de> for Provider {
        fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_str(Text {
                expecting: "a provider name",
                read: |text| text.parse().map(Provider).map_err(|e| e.to_string()),
            })
        }
    }
    let names = Vec::<Provider>::deserialize(deserializer)?;
    Ok(names.into_iter().map(|Provider(dialect)| dialect).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_are_the_fields_serde_reads() {
        let Err(e) = parse_config(Path::new("t.toml"), "unknown = 1\n") else {
            panic!("an unknown key is refused");
        };
        let listed = Config::KEYS.map(|key| format!("`{key}`")).join(", ");
        assert!(
            e.to_string()
                .ends_with(&format!("expected one of {listed}")),
            "{e}"
        );
    }
}

//! The API a build script calls to turn a directory of manifests into Rust code, in the spirit
//! of `prost_build::Config`.
//!
//! ```no_run
//! // build.rs
//! fn main() {
//!     // Reads `tools/*.toml`, writes `$OUT_DIR/tools.rs`.
//!     if let Err(e) = toolwright_manifest::Builder::new().compile() {
//!         eprintln!("{e}");
//!         std::process::exit(1);
//!     }
//! }
//! ```
//!
//! and in the crate (which depends on `toolwright-runtime`):
//!
//! ```ignore
//! pub mod tools {
//!     include!(concat!(env!("OUT_DIR"), "/tools.rs"));
//! }
//! ```

// The examples are build scripts: their `fn main` is the point.
#![allow(clippy::needless_doctest_main)]

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::codegen::{self, CodegenError};
use crate::diagnostic::Diagnostics;
use crate::dialect::{Dialect, ExportError};
use crate::manifest;
use crate::outputs;

/// Generates the Rust code of a directory of manifests into `OUT_DIR`.
///
/// Every setting has a default suited to a build script: manifests in `tools/` next to the
/// crate's `Cargo.toml`, output in `$OUT_DIR/tools.rs`.
///
/// ```no_run
/// // build.rs
/// fn main() -> Result<(), toolwright_manifest::build::BuildError> {
///     toolwright_manifest::Builder::new()
///         .manifest_dir("tools")
///         .out_file("tools.rs")
///         .compile()?;
///     Ok(())
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Builder {
    manifest_dir: PathBuf,
    out_file: PathBuf,
    out_dir: Option<PathBuf>,
    crate_dir: Option<PathBuf>,
    emit_rerun_if_changed: bool,
    required_providers: Vec<Dialect>,
    providers: Vec<Dialect>,
    required_strict: bool,
    fallback_warnings: bool,
    options: codegen::Options,
    #[cfg(feature = "format")]
    format: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    /// Manifests in `tools/`, output in `$OUT_DIR/tools.rs`, `cargo:rerun-if-changed` printed.
    pub fn new() -> Self {
        Builder {
            manifest_dir: PathBuf::from("tools"),
            out_file: PathBuf::from("tools.rs"),
            out_dir: None,
            crate_dir: None,
            emit_rerun_if_changed: true,
            required_providers: Vec::new(),
            providers: Dialect::ALL.to_vec(),
            required_strict: false,
            fallback_warnings: true,
            options: codegen::Options::default(),
            #[cfg(feature = "format")]
            format: false,
        }
    }

    /// The directory of `*.toml` manifests, relative to the crate root unless absolute.
    /// Default: `tools`.
    #[must_use]
    pub fn manifest_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.manifest_dir = dir.into();
        self
    }

    /// Whether each input schema node typed `serde_json::Value` for want of a precise type is
    /// a `cargo:warning` (see [`Builder::compile`]). Default: true; a crate whose schemas hold
    /// such nodes on purpose turns it off.
    #[must_use]
    pub fn fallback_warnings(mut self, warn: bool) -> Self {
        self.fallback_warnings = warn;
        self
    }

    /// Whether the generated types also derive schemars' `JsonSchema`, for a crate that wants
    /// schemars' schema of them besides the manifest's, which `META` holds and the registry
    /// uses (see [`codegen::Options::derive_json_schema`]). Default: false.
    #[must_use]
    pub fn derive_json_schema(mut self, derive: bool) -> Self {
        self.options.derive_json_schema = derive;
        self
    }

    /// Uses an existing Rust type for a generated one, as prost-build's `extern_path` does: the
    /// generated type's path (`"drawing_create::Anchor"`, or `"*::Interval"` for the type of that
    /// name in every tool) → the Rust path of the type (`"crate::chart::Anchor"`). The generated
    /// code uses the type wherever it would have used the generated one and writes no type for
    /// it, so that a shape several tools share is one type. The type must deserialize every
    /// value the schema accepts and implement what the types around it derive (see
    /// [`codegen::Options::extern_types`]); a mapping that matches no generated type fails the
    /// build ([`BuildError::Codegen`]).
    #[must_use]
    pub fn extern_type(mut self, generated: &str, rust: &str) -> Self {
        self.options
            .extern_types
            .insert(generated.to_owned(), rust.to_owned());
        self
    }

    /// The name of the generated file inside the output directory. Default: `tools.rs`.
    #[must_use]
    pub fn out_file(mut self, name: impl Into<PathBuf>) -> Self {
        self.out_file = name.into();
        self
    }

    /// The output directory. Default: `$OUT_DIR`.
    #[must_use]
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// The crate root: relative manifest directories are resolved against it and each tool's
    /// `source` is written relative to it. Default: `$CARGO_MANIFEST_DIR`.
    #[must_use]
    pub fn crate_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.crate_dir = Some(dir.into());
        self
    }

    /// Whether to print `cargo:rerun-if-changed=` for the directory and every manifest.
    /// Default: `true`.
    #[must_use]
    pub fn emit_rerun_if_changed(mut self, emit: bool) -> Self {
        self.emit_rerun_if_changed = emit;
        self
    }

    /// Providers that must take every tool: a tool one of them cannot express fails the build
    /// ([`BuildError::Providers`]). For the other providers it is a `cargo:warning`, as
    /// `tool-manifest generate` prints it. Default: none.
    #[must_use]
    pub fn required_providers(mut self, providers: &[Dialect]) -> Self {
        self.required_providers = providers.to_vec();
        self
    }

    /// The providers the crate offers its tools to: a tool one of them cannot express is a
    /// `cargo:warning` (an error for the [required ones](Self::required_providers), which are
    /// always checked). Default: every provider.
    #[must_use]
    pub fn providers(mut self, providers: &[Dialect]) -> Self {
        self.providers = providers.to_vec();
        self
    }

    /// Whether every OpenAI function must be strict (`"strict": true`). A tool strict mode
    /// cannot express (a map, a free-form object, a tuple) is otherwise exported with
    /// `"strict": false` and a `cargo:warning` naming the tool, the JSON Pointer and the rule;
    /// with this set, it fails the build ([`BuildError::NotStrict`]) when an OpenAI dialect is
    /// among the [providers](Self::providers) or the
    /// [required ones](Self::required_providers). Default: `false`.
    #[must_use]
    pub fn required_strict(mut self, required: bool) -> Self {
        self.required_strict = required;
        self
    }

    /// Whether to lay the generated file out with prettyplease (feature `format`), as
    /// prost-build's option of the same name does: easier to read when opened, at the cost of
    /// parsing and printing it in every build. Default: `false`, the generator's own layout
    /// (four spaces a level, one attribute, field or variant a line, however long).
    #[cfg(feature = "format")]
    #[must_use]
    pub fn format(mut self, format: bool) -> Self {
        self.format = format;
        self
    }

    /// Loads the manifests, generates the Rust code and writes it, unless the file already
    /// holds exactly that code. Returns the path of the generated file. Each input schema node
    /// typed `serde_json::Value` for want of a precise type is a `cargo:warning` that names the
    /// manifest, the node's pointer and why ([`codegen::generate_with`]).
    ///
    /// # Errors
    /// Every manifest mistake at once ([`BuildError::Manifests`], files named relative to the
    /// crate directory, as cargo shows a build script's output), a tool a required provider
    /// cannot express ([`BuildError::Providers`]), one strict mode cannot express when it is
    /// required ([`BuildError::NotStrict`]), an unusable spec ([`BuildError::Codegen`]), a missing `OUT_DIR`/`CARGO_MANIFEST_DIR`
    /// ([`BuildError::Env`]) or a file that cannot be read or written ([`BuildError::Io`]).
    pub fn compile(&self) -> Result<PathBuf, BuildError> {
        let crate_dir = match &self.crate_dir {
            Some(dir) => dir.clone(),
            None => env_dir("CARGO_MANIFEST_DIR", "crate_dir")?,
        };
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => env_dir("OUT_DIR", "out_dir")?,
        };
        let dir = crate_dir.join(&self.manifest_dir);

        let manifest::Loaded {
            specs: loaded,
            files,
        } = manifest::load_dir(&dir);
        if self.emit_rerun_if_changed {
            println!("cargo:rerun-if-changed={}", dir.display());
            // The manifests and the schema files they name (`input = { file = "…" }`), read or not.
            for file in &files {
                println!("cargo:rerun-if-changed={}", file.display());
            }
        }
        // Cargo prints a build script's errors from the crate's directory: the files are named
        // relative to it, as the command line names them relative to where it runs.
        let mut specs = loaded.map_err(|diagnostics| {
            BuildError::Manifests(Diagnostics(
                diagnostics
                    .0
                    .into_iter()
                    .map(|mut d| {
                        if let Ok(inside) = d.file.strip_prefix(&crate_dir) {
                            d.file = inside.to_path_buf();
                        }
                        d
                    })
                    .collect(),
            ))
        })?;
        let relative_dir = relative_to(&dir, &crate_dir, &self.manifest_dir);
        for spec in &mut specs {
            let file_name = Path::new(&spec.source)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| format!("{}.toml", spec.name));
            spec.source = if relative_dir.is_empty() {
                file_name
            } else {
                format!("{relative_dir}/{file_name}")
            };
        }

        // The tools a provider leaves out: warnings (printed, not fatal), errors for a required
        // provider. The same manifests build here and pass `generate`.
        let checked: Vec<Dialect> = (Dialect::ALL.iter().copied())
            .filter(|d| self.required_providers.contains(d) || self.providers.contains(d))
            .collect();
        // Every tool prepared once for all of them: its canonical schema judged once.
        let catalogs = crate::dialect::catalogs(&checked, &specs);
        for (dialect, catalog) in checked.iter().zip(catalogs) {
            let required = self.required_providers.contains(dialect);
            // The Responses catalog mirrors the Chat Completions one: warned about once.
            let mirrored =
                *dialect == Dialect::OpenAiResponses && checked.contains(&Dialect::OpenAi);
            if !catalog.non_strict.is_empty() && self.required_strict {
                return Err(BuildError::NotStrict(ExportError::new(
                    *dialect,
                    catalog.non_strict,
                )));
            }
            if !catalog.non_strict.is_empty() && !mirrored {
                let error = ExportError::new(*dialect, catalog.non_strict);
                warn_per_tool(
                    &error,
                    &specs,
                    &format!("exported to {dialect} with `strict: false`"),
                );
            }
            if catalog.excluded.is_empty() {
                continue;
            }
            let error = ExportError::new(*dialect, catalog.excluded);
            if required {
                return Err(BuildError::Providers(error));
            }
            if !mirrored {
                warn_per_tool(
                    &error,
                    &specs,
                    &format!("left out of the {dialect} catalog"),
                );
            }
        }

        let generated =
            codegen::generate_with(&specs, &self.options).map_err(BuildError::Codegen)?;
        // A node typed `serde_json::Value` though its schema says more: one line each, naming
        // the manifest, the node and why.
        for fallback in generated
            .fallbacks
            .iter()
            .filter(|_| self.fallback_warnings)
        {
            let file = specs
                .iter()
                .find(|s| s.name == fallback.tool)
                .map_or("", |s| s.source.as_str());
            let line = crate::schema::truncate(
                &format!(
                    "{file}: input schema at `{}` falls back to `serde_json::Value`: {}",
                    crate::schema::display_pointer(&fallback.pointer),
                    fallback.reason
                ),
                2000,
            );
            println!("cargo:warning={line}");
        }
        let code = generated.code;
        #[cfg(feature = "format")]
        let code = if self.format {
            prettyplease_layout(&code)
        } else {
            code
        };
        let out = out_dir.join(&self.out_file);
        // Written only when it changed, so that its modification time (and what depends on it)
        // stays put.
        outputs::write_changed(&BTreeMap::from([(out.clone(), code)])).map_err(|e| {
            BuildError::Io {
                path: e.path,
                source: e.source,
            }
        })?;
        Ok(out)
    }
}

/// One `cargo:warning` per tool of `error`: its first violation and how many more
/// (`generate` lists them all), after the tool's manifest and `what` became of it.
fn warn_per_tool(error: &ExportError, specs: &[crate::ToolSpec], what: &str) {
    let mut tools: Vec<&str> = error.violations.iter().map(|v| v.tool.as_str()).collect();
    tools.dedup();
    for tool in tools {
        let mut found = error.violations.iter().filter(|v| v.tool == tool);
        let Some(first) = found.next() else {
            continue;
        };
        let more = match found.count() {
            0 => String::new(),
            n => format!(" (and {n} more)"),
        };
        let file = specs
            .iter()
            .find(|s| s.name == tool)
            .map_or("", |s| s.source.as_str());
        // One line (a `cargo:` directive ends at a newline), invisible characters escaped, as
        // every message is.
        let line = crate::schema::truncate(&format!("{file}: {what}: {first}{more}"), 2000);
        println!("cargo:warning={line}");
    }
}

/// `code` laid out by prettyplease, after the generated line (a comment, which `syn` does not
/// keep). Code that does not parse is returned as it is, for rustc to report.
#[cfg(feature = "format")]
fn prettyplease_layout(code: &str) -> String {
    // `syn` and prettyplease recurse once per level of a nested type; a build script is
    // usually unoptimized: a thread with room for the deepest schema a manifest may declare.
    let formatted = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn_scoped(scope, || {
                syn::parse_file(code)
                    .ok()
                    .map(|file| prettyplease::unparse(&file))
            })
            .ok()?
            .join()
            .ok()?
    });
    match formatted {
        Some(body) => format!("{}\n\n{body}", codegen::HEADER),
        None => code.to_owned(),
    }
}

fn env_dir(var: &'static str, setter: &'static str) -> Result<PathBuf, BuildError> {
    std::env::var_os(var)
        .map(PathBuf::from)
        .ok_or(BuildError::Env { var, setter })
}

/// `dir` relative to `crate_dir` with `/` separators; the configured path when `dir` lies
/// outside the crate and was given relative; the last component when it was given absolute.
fn relative_to(dir: &Path, crate_dir: &Path, configured: &Path) -> String {
    let path = match dir.strip_prefix(crate_dir) {
        Ok(inside) => inside,
        Err(_) if configured.is_relative() => configured,
        Err(_) => dir.file_name().map_or(Path::new(""), Path::new),
    };
    let parts: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            Component::ParentDir => Some("..".to_owned()),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect();
    parts.join("/")
}

/// Why [`Builder::compile`] failed. `Debug` prints the same text as `Display`, so a build
/// script's `main` returning this error (`?`) shows every diagnostic readably.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The manifests have mistakes; every one is listed at its `file:line:col`.
    #[error("the tool manifests have mistakes:\n{0}")]
    Manifests(#[from] Diagnostics),
    /// An input schema names a draft the generator does not read, a name is unusable, or an
    /// [extern type](Builder::extern_type) is not one.
    #[error("cannot generate Rust code: {0}")]
    Codegen(#[from] CodegenError),
    /// A required provider cannot express a tool (each violation: tool, pointer, rule).
    #[error("a required provider cannot express every tool:\n{0}")]
    Providers(ExportError),
    /// [`Builder::required_strict`] is set and OpenAI's strict mode cannot express a tool
    /// (each strict-mode rule it breaks: tool, pointer, rule).
    #[error("`required_strict` is set and OpenAI's strict mode cannot express every tool:\n{0}")]
    NotStrict(ExportError),
    /// An environment variable Cargo sets for build scripts is missing.
    #[error(
        "environment variable `{var}` is not set: run the builder from a build script or call `.{setter}(...)`"
    )]
    Env {
        /// The variable, `OUT_DIR` or `CARGO_MANIFEST_DIR`.
        var: &'static str,
        /// The builder method that sets the same thing explicitly.
        setter: &'static str,
    },
    /// The generated file could not be read or written.
    #[error("cannot write `{}`: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
}

impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_relative_to_the_crate_with_slashes() {
        let root = Path::new("/c/app");
        assert_eq!(
            relative_to(Path::new("/c/app/tools"), root, Path::new("tools")),
            "tools"
        );
        assert_eq!(
            relative_to(Path::new("/c/app/./a/b"), root, Path::new("./a/b")),
            "a/b"
        );
        assert_eq!(
            relative_to(Path::new("/c/app/../shared"), root, Path::new("../shared")),
            "../shared"
        );
        assert_eq!(
            relative_to(
                Path::new("/elsewhere/tools"),
                root,
                Path::new("/elsewhere/tools")
            ),
            "tools"
        );
        assert_eq!(relative_to(Path::new("/c/app"), root, Path::new("")), "");
    }

    #[test]
    fn a_missing_environment_variable_names_the_setter() {
        let e = BuildError::Env {
            var: "OUT_DIR",
            setter: "out_dir",
        };
        assert_eq!(
            format!("{e:?}"),
            "environment variable `OUT_DIR` is not set: run the builder from a build script or call `.out_dir(...)`"
        );
    }
}

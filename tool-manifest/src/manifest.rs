//! TOML manifests → [`ToolSpec`]s.
//!
//! A minimal loader: serde + toml, errors located at `file:line:col` from toml's spans.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::model::{ErrorSpec, ExampleSpec, Mode, Safety, ToolSpec};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    name: String,
    title: String,
    description: String,
    safety: Safety,
    mode: Mode,
    category: Option<String>,
    input: Value,
    output: Option<Value>,
    #[serde(default)]
    errors: Vec<ManifestError>,
    #[serde(default)]
    examples: Vec<ExampleSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestError {
    code: String,
    message: String,
    retryable: bool,
    recommended_action: String,
}

/// Loads every `*.toml` manifest of `dir`, sorted by file name. `source` is the file's path.
///
/// # Errors
/// Every unreadable or invalid manifest, each at its `file:line:col`.
pub fn load_dir(dir: &Path) -> Result<Vec<ToolSpec>, Diagnostics> {
    let files = manifest_files(dir).map_err(|d| Diagnostics(vec![d]))?;
    let mut specs = Vec::new();
    let mut diagnostics = Vec::new();
    for file in files {
        match load_file(&file) {
            Ok(spec) => specs.push(spec),
            Err(d) => diagnostics.push(d),
        }
    }
    if diagnostics.is_empty() {
        Ok(specs)
    } else {
        Err(Diagnostics(diagnostics).sorted())
    }
}

/// The `*.toml` files of `dir`, sorted.
fn manifest_files(dir: &Path) -> Result<Vec<PathBuf>, Diagnostic> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Diagnostic::file(dir, format!("cannot read the manifest directory: {e}")))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

fn load_file(file: &Path) -> Result<ToolSpec, Diagnostic> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Diagnostic::file(file, format!("cannot read the manifest: {e}")))?;
    let manifest: Manifest = toml::from_str(&text).map_err(|e| {
        let (line, column) = e
            .span()
            .map_or((0, 0), |s| Diagnostic::line_col(&text, s.start));
        Diagnostic::at(file, line, column, e.message().trim_end())
    })?;
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    if manifest.name != stem {
        return Err(Diagnostic::file(
            file,
            format!(
                "the tool name `{}` differs from the file name `{stem}`",
                manifest.name
            ),
        ));
    }
    Ok(ToolSpec {
        name: manifest.name,
        title: manifest.title,
        description: manifest.description,
        safety: manifest.safety,
        mode: manifest.mode,
        category: manifest.category,
        input_schema: manifest.input,
        output_schema: manifest.output,
        errors: manifest
            .errors
            .into_iter()
            .map(|e| ErrorSpec {
                code: e.code,
                message: e.message,
                retryable: e.retryable,
                recommended_action: e.recommended_action,
            })
            .collect(),
        examples: manifest.examples,
        source: file.to_string_lossy().replace('\\', "/"),
    })
}

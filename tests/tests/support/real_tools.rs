//! The real-tools corpus (`shared/corpus/real-tools/raw`), read the one way the tests that use it
//! read it: its source files in file-name order, each with its text and its records.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The corpus, `None` when it is absent (see `support::shared_dir`).
pub fn corpus_dir() -> Option<PathBuf> {
    crate::support::shared_dir("REAL_TOOLS_CORPUS", &["corpus", "real-tools", "raw"])
}

/// One source file of the corpus.
pub struct Source {
    /// The file stem: `github-mcp-server`.
    pub name: String,
    /// The file's text.
    pub text: String,
    /// Its records, as JSON values.
    pub records: Vec<Value>,
}

/// The source files of the corpus in `dir`, in file-name order.
pub fn sources(dir: &Path) -> Vec<Source> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the corpus directory")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no source file in {}", dir.display());
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a source file");
            let records: Vec<Value> = serde_json::from_str(&text).expect("an array of records");
            let name = path
                .file_stem()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            Source {
                name,
                text,
                records,
            }
        })
        .collect()
}

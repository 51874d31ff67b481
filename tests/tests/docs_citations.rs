//! The documents cite the tests that show what they claim (`docs/security.md` names a test for
//! every defence): each cited test and each cited source file exists, so that a renamed or
//! removed test cannot leave a claim without its evidence.

use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The documents whose citations are held to the code: the README and the hand-written pages of
/// `docs/` (the generated tool reference cites nothing).
fn documents() -> Vec<PathBuf> {
    let mut documents = vec![root().join("README.md")];
    let docs = root().join("docs");
    for entry in std::fs::read_dir(&docs).expect("docs/ lists") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            documents.push(path);
        }
    }
    documents.sort();
    documents
}

/// Every `.rs` file of the repository's crates, by path (not `target/`).
fn sources() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![root()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("a directory lists") {
            let path = entry.expect("an entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if !matches!(name, "target" | ".git" | "node_modules") {
                    pending.push(path);
                }
            } else if name.ends_with(".rs") {
                found.push(path);
            }
        }
    }
    found
}

/// The text of every backticked span of `markdown`.
fn code_spans(markdown: &str) -> Vec<&str> {
    markdown.split('`').skip(1).step_by(2).collect()
}

/// A test's name as the documents cite one: snake case of at least four words
/// (`a_huge_manifest_is_refused_where_it_crosses_the_limit`).
fn is_test_name(span: &str) -> bool {
    span.split('_').count() >= 4
        && span.split('_').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

#[test]
fn every_cited_test_and_source_file_exists() {
    let sources = sources();
    let code: Vec<(PathBuf, String)> = sources
        .iter()
        .map(|path| {
            (
                path.clone(),
                std::fs::read_to_string(path).unwrap_or_default(),
            )
        })
        .collect();
    let mut missing = Vec::new();
    let mut cited = 0;
    for document in documents() {
        let text = std::fs::read_to_string(&document).expect("the document reads");
        let name = document
            .strip_prefix(root())
            .unwrap_or(&document)
            .display()
            .to_string();
        for span in code_spans(&text) {
            if is_test_name(span) {
                cited += 1;
                let definition = format!("fn {span}(");
                if !code.iter().any(|(_, text)| text.contains(&definition)) {
                    missing.push(format!("{name}: the test `{span}` does not exist"));
                }
            } else if span.ends_with(".rs") && !span.contains(' ') {
                cited += 1;
                let path = Path::new(span);
                let exists = root().join(path).is_file()
                    || sources.iter().any(|source| source.ends_with(path));
                if !exists {
                    missing.push(format!("{name}: the file `{span}` does not exist"));
                }
            }
        }
    }
    assert!(cited > 50, "the documents cite {cited} tests and files");
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

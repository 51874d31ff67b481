//! `diff` on real history: `shared/corpus/tool-changes/` holds pairs of a public MCP server's tool
//! set at consecutive commits and tags (and mutations of the reference manifests), each change
//! labelled with a kind and a severity by a classifier written apart from this project. The
//! diff must find every labelled error, and under 5 % of its errors may be changes the labels
//! call `info` or no change at all. The fixture is shared (`TOOL_CHANGES_CORPUS` names another
//! directory); without it the test is skipped, except in CI.

use std::path::Path;

use serde_json::Value;
use toolwright_manifest::diff::{self, Policy, Severity};

mod support;

fn corpus() -> Option<std::path::PathBuf> {
    support::shared_dir("TOOL_CHANGES_CORPUS", &["corpus", "tool-changes"])
}

/// Do two pointers name the same place or one inside the other?
fn related(a: &str, b: &str) -> bool {
    a == b || a.starts_with(&format!("{b}/")) || b.starts_with(&format!("{a}/"))
}

/// The entries of a directory, sorted.
fn sorted_entries(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    entries
}

fn side(path: &Path) -> diff::Side {
    diff::load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_labelled_error_is_found_and_few_errors_are_not_labelled_so() {
    let Some(root) = corpus() else { return };
    let mut labelled_errors = 0;
    let mut missed = Vec::new();
    let mut our_errors = 0;
    let mut unlabelled = Vec::new();
    let mut pairs = 0;
    for folder in sorted_entries(&root.join("labels")) {
        let name = folder
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_owned();
        for file in sorted_entries(&folder) {
            let stem = file
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("")
                .to_owned();
            let pair = root.join("pairs").join(&name).join(&stem);
            let (old, new) = if pair.join("before").is_dir() {
                (pair.join("before"), pair.join("after"))
            } else {
                (pair.join("before.json"), pair.join("after.json"))
            };
            let (old, new) = diff::Side::pair(side(&old), side(&new));
            let report = diff::diff(&old, &new, &Policy::default());
            pairs += 1;
            let labels: Value =
                serde_json::from_str(&std::fs::read_to_string(&file).expect("a label file"))
                    .expect("JSON");
            let labels = labels["changes"].as_array().cloned().unwrap_or_default();
            let place = format!("{name}/{stem}");
            for label in labels.iter().filter(|l| l["severity"] == "ERR") {
                labelled_errors += 1;
                let (tool, pointer) = (
                    label["tool"].as_str().unwrap_or(""),
                    label["pointer"].as_str().unwrap_or(""),
                );
                let found = report.changes.iter().any(|c| {
                    c.tool == tool && c.severity == Severity::Error && related(&c.pointer, pointer)
                });
                if !found {
                    missed.push(format!("{place}: {tool} {pointer} {}", label["kind"]));
                }
            }
            for change in report
                .changes
                .iter()
                .filter(|c| c.severity == Severity::Error)
            {
                our_errors += 1;
                let confirmed = labels.iter().any(|l| {
                    l["tool"] == change.tool.as_str()
                        && related(&change.pointer, l["pointer"].as_str().unwrap_or(""))
                        && (l["severity"] == "ERR" || l["severity"] == "WARN")
                });
                if !confirmed {
                    unlabelled.push(format!(
                        "{place}: {} {} {}",
                        change.tool, change.pointer, change.kind
                    ));
                }
            }
        }
    }
    println!(
        "{pairs} pairs: {labelled_errors} labelled errors, {} missed; {our_errors} errors reported, {} labelled info or no change",
        missed.len(),
        unlabelled.len()
    );
    assert!(pairs >= 250, "only {pairs} pairs were read");
    assert!(
        missed.is_empty(),
        "labelled errors missed:\n{}",
        missed.join("\n")
    );
    assert!(
        unlabelled.len() * 100 < our_errors * 5,
        "{} of {our_errors} errors are labelled info or no change:\n{}",
        unlabelled.len(),
        unlabelled.join("\n")
    );
}

#[test]
fn without_the_corpus_the_test_fails_only_in_ci() {
    support::assert_missing_fixture_fails_only_in_ci(
        "TOOL_CHANGES_CORPUS",
        "every_labelled_error_is_found_and_few_errors_are_not_labelled_so",
    );
}

//! The official JSON Schema Test Suite (draft 2020-12), run through the registry's validation
//! path for every keyword the generator emits. Verdicts must match the suite's, and every report
//! must be well formed.
//!
//! The suite is looked up at `<workspace>/../shared/conformance/json-schema-test-suite`, or at
//! the directory named by `JSON_SCHEMA_TEST_SUITE`; when it is absent the test says so and passes,
//! except in CI (`CI` set), where it fails.

mod support;

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;
use toolwright_runtime::validate::INPUT_INVALID_PREFIX;
use toolwright_runtime::validate::{InputErrors, InputSchema};

/// The keywords the generator supports, by suite file (`format` is an annotation only).
const KEYWORD_FILES: &[&str] = &[
    "additionalProperties",
    "const",
    "default",
    "enum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "format",
    "items",
    "maxItems",
    "maxLength",
    "maxProperties",
    "maximum",
    "minItems",
    "minLength",
    "minProperties",
    "minimum",
    "multipleOf",
    "pattern",
    "properties",
    "required",
    "type",
    "uniqueItems",
];

/// The dialect every schema the registry compiles is validated as.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

#[derive(Deserialize)]
struct Group {
    description: String,
    schema: Value,
    tests: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    description: String,
    data: Value,
    valid: bool,
}

/// The suite's draft 2020-12 files, `None` when the suite is absent (see [`support::shared_dir`]).
fn suite_dir() -> Option<PathBuf> {
    let root = support::shared_dir(
        "JSON_SCHEMA_TEST_SUITE",
        &["conformance", "json-schema-test-suite"],
    )?;
    Some(root.join("tests").join("draft2020-12"))
}

#[test]
fn draft_2020_12_suite_verdicts_match() {
    let Some(dir) = suite_dir() else {
        return;
    };
    let mut cases = 0;
    let mut mismatches = Vec::new();
    for keyword in KEYWORD_FILES {
        let path = dir.join(format!("{keyword}.json"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let groups: Vec<Group> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut file_cases = 0;
        for group in groups {
            let schema = InputSchema::compile(&group.schema).unwrap_or_else(|e| {
                panic!("{keyword}: `{}` does not compile: {e}", group.description)
            });
            for case in group.tests {
                cases += 1;
                file_cases += 1;
                let fast = schema.is_valid(&case.data);
                let checked = schema.check(&case.data);
                if let Err(errors) = &checked {
                    assert_well_formed(errors);
                }
                if fast != case.valid || checked.is_ok() != case.valid {
                    mismatches.push(format!(
                        "{keyword}: {} / {}: expected {}, is_valid {fast}, check {}",
                        group.description,
                        case.description,
                        case.valid,
                        checked.is_ok()
                    ));
                }
            }
        }
        println!("{keyword}: {file_cases} cases");
    }
    println!(
        "draft 2020-12 suite: {cases} cases run over {} keywords",
        KEYWORD_FILES.len()
    );
    assert!(cases > 0, "the suite has cases");
    assert!(
        mismatches.is_empty(),
        "{} verdicts differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// A report as the model receives it: the prefix, at least one error, every pointer a JSON
/// Pointer.
fn assert_well_formed(errors: &InputErrors) {
    let report = errors.report();
    assert!(report.starts_with(INPUT_INVALID_PREFIX), "{report}");
    assert!(!errors.errors().is_empty(), "{report}");
    assert!(
        errors.errors().iter().all(|e| e.pointer.starts_with('/')),
        "{report}"
    );
}

/// Every schema of every draft 2020-12 file of the suite (not only the keywords the generator
/// emits) that compiles without a remote reference: `check` gives the suite's verdict, and every
/// error kind `jsonschema` reports turns into a well-formed report.
#[test]
fn whole_suite_verdicts_match_and_reports_are_well_formed() {
    let Some(dir) = suite_dir() else {
        return;
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    let (mut schemas, mut cases) = (0, 0);
    let mut mismatches = Vec::new();
    for path in paths {
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let groups: Vec<Group> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for group in groups {
            // Some schemas need remote references, which are never fetched.
            let Ok(schema) = InputSchema::compile(&group.schema) else {
                continue;
            };
            // A custom metaschema is such a remote document too: its vocabularies are unknown and
            // draft 2020-12's apply, so the suite's verdicts for it do not hold.
            let custom_dialect = group
                .schema
                .get("$schema")
                .is_some_and(|dialect| dialect != DRAFT_2020_12);
            schemas += 1;
            for case in group.tests {
                cases += 1;
                let fast = schema.is_valid(&case.data);
                let checked = schema.check(&case.data);
                if let Err(errors) = &checked {
                    assert_well_formed(errors);
                }
                if fast != checked.is_ok()
                    || (!custom_dialect && (fast != case.valid || checked.is_ok() != case.valid))
                {
                    mismatches.push(format!(
                        "{}: {} / {}: expected {}, is_valid {fast}, check {:?}",
                        path.display(),
                        group.description,
                        case.description,
                        case.valid,
                        checked.err().map(|e| e.report()),
                    ));
                }
            }
        }
    }
    println!("{schemas} schemas, {cases} cases");
    assert!(cases > 0, "the suite has cases");
    assert!(
        mismatches.is_empty(),
        "{} cases differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

#[test]
fn a_missing_suite_fails_in_ci_and_is_skipped_elsewhere() {
    support::assert_missing_fixture_fails_only_in_ci(
        "JSON_SCHEMA_TEST_SUITE",
        "draft_2020_12_suite_verdicts_match",
    );
}

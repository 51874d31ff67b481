//! The official JSON Schema Test Suite (draft 2020-12), run through the registry's validation
//! path for every keyword the generator emits. Verdicts must match the suite's; every schema made
//! of the keywords the specialized validator supports must run through it, and its errors must
//! be the general validator's.
//!
//! The suite is looked up at `<workspace>/../shared/conformance/json-schema-test-suite`, or at
//! the directory named by `JSON_SCHEMA_TEST_SUITE`; when it is absent the test says so and passes.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;
use tool_runtime::InputSchema;
use tool_runtime::validate::INPUT_INVALID_PREFIX;

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

/// Keywords the specialized validator decides: a schema made of these only (and of boolean
/// schemas) must be run by it.
const SPECIALIZED_KEYWORDS: &[&str] = &[
    "type",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "required",
    "additionalProperties",
    "minProperties",
    "maxProperties",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

/// Whether every node of `schema` uses only [`SPECIALIZED_KEYWORDS`] (`$schema` at the root
/// naming draft 2020-12).
fn inside_subset(schema: &Value, root: bool) -> bool {
    let Value::Object(map) = schema else {
        return schema.is_boolean();
    };
    map.iter().all(|(keyword, value)| match keyword.as_str() {
        "$schema" => root && value == "https://json-schema.org/draft/2020-12/schema",
        "items" | "additionalProperties" => inside_subset(value, false),
        "properties" => value
            .as_object()
            .is_some_and(|p| p.values().all(|s| inside_subset(s, false))),
        other => SPECIALIZED_KEYWORDS.contains(&other),
    })
}

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

fn suite_dir() -> PathBuf {
    let root = std::env::var_os("JSON_SCHEMA_TEST_SUITE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("..")
                .join("shared")
                .join("conformance")
                .join("json-schema-test-suite")
        });
    root.join("tests").join("draft2020-12")
}

#[test]
fn draft_2020_12_suite_verdicts_match() {
    let dir = suite_dir();
    if !dir.is_dir() {
        println!(
            "the JSON Schema Test Suite is not present at {}: skipped",
            dir.display()
        );
        return;
    }
    let mut cases = 0;
    let mut specialized_cases = 0;
    let mut inside_cases = 0;
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
            let general = InputSchema::compile_general(&group.schema)
                .unwrap_or_else(|e| panic!("{keyword}: `{}`: {e}", group.description));
            if inside_subset(&group.schema, true) {
                inside_cases += group.tests.len();
                assert!(
                    schema.is_specialized(),
                    "{keyword}: `{}` is inside the subset but not specialized",
                    group.description
                );
            }
            for case in group.tests {
                cases += 1;
                file_cases += 1;
                if schema.is_specialized() {
                    specialized_cases += 1;
                }
                let fast = schema.is_valid(&case.data);
                let checked = schema.check(&case.data);
                // The general validator's errors, pointers and messages are the specialized one's.
                let reference = general.check(&case.data);
                if checked != reference {
                    mismatches.push(format!(
                        "{keyword}: {} / {}: specialized {:?}, general {:?}",
                        group.description,
                        case.description,
                        checked.as_ref().err().map(|e| e.report()),
                        reference.as_ref().err().map(|e| e.report()),
                    ));
                }
                if let Err(errors) = &checked {
                    let report = errors.report();
                    assert!(report.starts_with(INPUT_INVALID_PREFIX), "{report}");
                    assert!(!errors.errors().is_empty());
                    assert!(
                        errors.errors().iter().all(|e| e.pointer.starts_with('/')),
                        "{report}"
                    );
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
        "draft 2020-12 suite: {cases} cases run over {} keywords, {specialized_cases} by the specialized validator",
        KEYWORD_FILES.len()
    );
    assert!(cases > 0, "the suite has cases");
    assert!(
        inside_cases > 0 && specialized_cases >= inside_cases,
        "{specialized_cases} cases ran through the specialized validator, {inside_cases} are inside its subset"
    );
    assert!(
        mismatches.is_empty(),
        "{} verdicts differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// Every schema of every draft 2020-12 file of the suite (not only the supported keywords): where
/// the specialized validator takes a schema, its verdicts, errors and reports are the general
/// validator's.
#[test]
fn whole_suite_specialized_matches_general() {
    let dir = suite_dir();
    if !dir.is_dir() {
        println!(
            "the JSON Schema Test Suite is not present at {}: skipped",
            dir.display()
        );
        return;
    }
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    let (mut schemas, mut specialized, mut cases) = (0, 0, 0);
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
            schemas += 1;
            if !schema.is_specialized() {
                continue;
            }
            specialized += 1;
            let general =
                InputSchema::compile_general(&group.schema).expect("compiles like the other");
            for case in group.tests {
                cases += 1;
                let (fast, slow) = (schema.is_valid(&case.data), general.is_valid(&case.data));
                let (checked, reference) = (schema.check(&case.data), general.check(&case.data));
                if fast != slow || checked != reference {
                    mismatches.push(format!(
                        "{}: {} / {}: is_valid {fast} vs {slow}, {:?} vs {:?}",
                        path.display(),
                        group.description,
                        case.description,
                        checked.err().map(|e| e.report()),
                        reference.err().map(|e| e.report()),
                    ));
                }
            }
        }
    }
    println!("{specialized} of {schemas} schemas specialized, {cases} cases compared");
    assert!(cases > 0, "the suite has specialized cases");
    assert!(
        mismatches.is_empty(),
        "{} cases differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

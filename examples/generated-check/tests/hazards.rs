//! Manifests written to break generated code: a tool named `self`, a quote followed by 255
//! hashes (one more than a raw string may be delimited by), defaults of 126 numbers and of 45
//! keys (past `json!`'s recursion limit), and descriptions full of Rust code blocks that fail if
//! rustdoc runs them (`cargo test --doc` runs this crate's doc comments, the generated module's
//! included). The crate compiling, and its doctests passing, is half the test; the other half is
//! here: the types exist and the metadata holds the exact texts.

use std::path::Path;

use generated_check::schemas;
use generated_check::tools::{self, _self, big_values, doc_fences, quote_hashes};
use serde_json::{Value, json};
use toolwright_manifest::{ToolSpec, manifest};
use toolwright_runtime::__private::schemars;
use toolwright_runtime::DeclaredError;
use toolwright_runtime::handler::ToolMeta;

fn manifests() -> Vec<ToolSpec> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools");
    manifest::load_dir(&dir)
        .specs
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

fn declared(name: &str) -> ToolSpec {
    manifests()
        .into_iter()
        .find(|spec| spec.name == name)
        .unwrap_or_else(|| panic!("no manifest names `{name}`"))
}

#[test]
fn the_metadata_of_every_tool_is_its_manifest_exactly() {
    let specs = manifests();
    assert_eq!(specs.len(), tools::ALL.len());
    for (spec, meta) in specs.iter().zip(tools::ALL) {
        let mut frozen = ToolSpec::from_meta(meta).expect("generated JSON is valid");
        assert_eq!(frozen.source, format!("tools/{}.toml", spec.name));
        frozen.source.clone_from(&spec.source);
        assert_eq!(&frozen, spec, "`{}`", spec.name);
    }
}

#[test]
fn a_tool_named_self_lives_in_the_module_underscore_self() {
    let meta: &ToolMeta = &_self::META;
    assert_eq!(meta.name, "self");
    assert!(tools::ALL.iter().any(|m| std::ptr::eq(*m, meta)));
    let input: _self::Input = serde_json::from_value(json!({"verbose": true})).expect("valid");
    assert_eq!(input.verbose, Some(true));
    assert_eq!(_self::Error::SelfCode.code(), "SELF");
}

#[test]
fn a_quote_and_255_hashes_are_kept_in_every_text() {
    let hashes = format!("\"{}", "#".repeat(255));
    let meta = &quote_hashes::META;
    for text in [
        meta.title,
        meta.description,
        meta.category.expect("declared"),
        meta.errors[0].message,
        meta.errors[0].recommended_action,
        meta.examples[0].description,
        meta.deprecated.and_then(|d| d.note).expect("declared"),
    ] {
        assert!(text.ends_with(&hashes), "{text}");
    }
    assert_eq!(meta.version, Some("1.0.0-rc.1+build.5"));
    let deprecated = meta.deprecated.expect("declared");
    assert_eq!(
        (deprecated.since, deprecated.sunset, deprecated.replacement),
        ("1.0.0-rc.1", Some("2027-06-30"), Some("panes_list"))
    );
    let schema = meta.input_schema.to_value().expect("schema JSON");
    assert_eq!(schema["properties"]["text"]["default"], json!(hashes));
    let output = meta
        .output_schema
        .expect("declared")
        .to_value()
        .expect("JSON");
    assert!(
        output["description"]
            .as_str()
            .is_some_and(|d| d.ends_with(&hashes))
    );

    let input: quote_hashes::Input =
        serde_json::from_str(meta.examples[0].input).expect("the example deserializes");
    assert_eq!(input.text, hashes);
    let derived =
        serde_json::to_value(schemars::schema_for!(schemas::quote_hashes::Input)).expect("JSON");
    assert_eq!(derived["properties"]["text"]["default"], json!(hashes));
    assert_eq!(
        derived["properties"]["text"]["examples"],
        json!([hashes, "r#\"raw\"#"])
    );
}

#[test]
fn large_defaults_reach_the_derived_schema() {
    let levels: Vec<i64> = (1..=126).collect();
    let weights: serde_json::Map<String, Value> =
        (1..=45).map(|i| (format!("k{i:02}"), json!(i))).collect();

    let input: big_values::Input =
        serde_json::from_str(big_values::META.examples[0].input).expect("the example deserializes");
    assert_eq!(input.levels.as_deref(), Some(levels.as_slice()));
    let given = input.weights.expect("given");
    assert_eq!(given.len(), 45);
    assert_eq!(given.get("k45"), Some(&45));

    let derived =
        serde_json::to_value(schemars::schema_for!(schemas::big_values::Input)).expect("JSON");
    assert_eq!(derived["properties"]["levels"]["default"], json!(levels));
    assert_eq!(derived["properties"]["levels"]["examples"], json!([levels]));
    assert_eq!(derived["properties"]["weights"]["default"], json!(weights));
    assert_eq!(
        derived["properties"]["weights"]["examples"],
        json!([weights])
    );
    let declared = big_values::META.input_schema.to_value().expect("JSON");
    assert_eq!(
        derived["properties"]["levels"]["default"],
        declared["properties"]["levels"]["default"]
    );
}

#[test]
fn code_blocks_stay_in_the_metadata_as_declared() {
    let spec = declared("doc_fences");
    let meta = &doc_fences::META;
    assert_eq!(meta.description, spec.description);
    assert!(meta.description.contains("\n```rust,should_panic\n"));
    assert!(
        meta.description
            .contains("\n    panic!(\"an indented code block ran as a doctest\");\n")
    );
    assert!(
        meta.description
            .contains("\n\tpanic!(\"a tab-indented code block ran as a doctest\");\n")
    );
    assert_eq!(meta.title, spec.title);
    assert_eq!(meta.errors[0].message, spec.errors[0].message);
    assert!(meta.errors[0].recommended_action.ends_with(" \u{0}7"));

    let input: doc_fences::Input =
        serde_json::from_str(meta.examples[0].input).expect("the example deserializes");
    assert_eq!(input.code.as_deref(), Some("```\npanic!()\n```"));
    assert_eq!(input.style, Some(doc_fences::Style::Fenced));
    let nested = input.nested.expect("given");
    assert_eq!(nested.inner.as_deref(), Some("    indented"));
    assert_eq!(doc_fences::Error::Fenced.code(), "FENCED");
}

//! The repository's reference tool sets (`examples/chart-tools/tools`,
//! `examples/generated-check/tools`) and their checked-in outputs (`generated/`), through the
//! generator and the runtime.

// The generator's own check of generated code, shared with its tests.
#[path = "../../tool-manifest/tests/codegen_support/mod.rs"]
mod codegen_support;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolwright_manifest::{Builder, ToolSpec, codegen, manifest};
use toolwright_runtime::validate::InputSchema;

use codegen_support::assert_rust;

/// A path of the repository.
fn repository(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

fn load_tools(dir: &str) -> Vec<ToolSpec> {
    let dir = repository(dir);
    manifest::load_dir(&dir)
        .specs
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

#[test]
fn the_reference_tool_sets_are_rust() {
    for dir in [
        "examples/chart-tools/tools",
        "examples/generated-check/tools",
    ] {
        let specs = load_tools(dir);
        assert!(specs.len() >= 4, "{dir}: {} tools", specs.len());
        let code = codegen::generate(&specs).expect("the specs generate");
        let file = assert_rust(&code);
        let descriptions: Vec<&str> = specs.iter().map(|s| s.description.as_str()).collect();
        assert_eq!(file.meta("description")[0], descriptions[0]);
    }
}

fn builder(root: &Path) -> Builder {
    Builder::new()
        .crate_dir(root)
        .out_dir(root.join("out"))
        .emit_rerun_if_changed(false)
}

/// With `format`, the file is the generator's code laid out by prettyplease, after the
/// generated line.
#[test]
fn builder_formats_with_prettyplease_when_asked() {
    let root = tempfile::tempdir().expect("a temp dir");
    fs::create_dir(root.path().join("tools")).expect("tools dir");
    let tools = repository("examples/generated-check/tools");
    for entry in fs::read_dir(&tools).expect("the reference tools") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().expect("a file name");
        fs::copy(&path, root.path().join("tools").join(name)).expect("copied");
    }
    let plain =
        fs::read_to_string(builder(root.path()).compile().expect("compiles")).expect("written");
    let formatted = fs::read_to_string(
        builder(root.path())
            .format(true)
            .compile()
            .expect("compiles"),
    )
    .expect("written");
    let file = syn::parse_file(&plain).expect("Rust");
    assert_eq!(
        formatted,
        format!("{}\n\n{}", codegen::HEADER, prettyplease::unparse(&file))
    );
    assert_ne!(formatted, plain);
    // The same items, docs included.
    let reparsed = syn::parse_file(&formatted).expect("Rust");
    assert_eq!(
        prettyplease::unparse(&reparsed),
        prettyplease::unparse(&file)
    );
    assert!(formatted.contains("/// \\```rust\n"), "{formatted}");
    assert!(
        fs::read_to_string(
            builder(root.path())
                .format(false)
                .compile()
                .expect("compiles")
        )
        .expect("written")
            == plain
    );
}

/// Every reference tool's schema compiles, and every example it documents is valid input.
#[test]
fn every_reference_tool_schema_accepts_its_examples() {
    let path = repository("generated/tools.json");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let tools: Vec<Value> = serde_json::from_str(&text).expect("tools.json is JSON");
    assert!(!tools.is_empty());
    let mut examples = 0;
    for tool in &tools {
        let name = tool["name"].as_str().expect("a name");
        let schema = InputSchema::compile(&tool["inputSchema"])
            .unwrap_or_else(|e| panic!("{name}: the schema does not compile: {e}"));
        for example in tool["examples"].as_array().into_iter().flatten() {
            examples += 1;
            let input = &example["input"];
            if let Err(errors) = schema.check(input) {
                panic!("{name}: example {input} is invalid: {}", errors.report());
            }
        }
    }
    assert!(examples > 0, "the reference tools document examples");
}
